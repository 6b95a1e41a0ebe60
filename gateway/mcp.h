/*
 * mcp.h - Model Context Protocol over Streamable HTTP (JSON responses, no
 * SSE): JSON-RPC 2.0 on POST /mcp.  Supports initialize for protocol
 * versions 2025-03-26, 2025-06-18 and 2025-11-25 (an unknown requested
 * version is answered with the newest), the stateless 2026-07-28 style
 * (version in params._meta["io.modelcontextprotocol/protocolVersion"], no
 * initialize; server/discover; results carry resultType "complete"; an
 * unsupported _meta version is error -32602 with the supported list),
 * tools/list and tools/call over the gateway's tool table (api.h), the
 * pages as resources (resources/list, resources/templates/list,
 * resources/read: resources.h), ping, and notifications and client
 * responses (202, no body).  A tool result's text is the compact rendering
 * people see (render.h); the whole answer is its structuredContent, and
 * every tool lists a title and an outputSchema.
 *
 * The same handler serves Streamable HTTP (http.c, POST /mcp) and stdio
 * (mcp_stdio.h, `corpus-gw mcp`): a message in, a reply (or nothing) out.
 *
 * May be included by gateway/ and cli/ (`corpus-gw mcp` serves it over
 * stdio).
 */
#ifndef CG_MCP_H
#define CG_MCP_H

#include <stddef.h>

#include "common/cg_buf.h"
#include "common/cg_err.h"
#include "federation/fed.h"

#define CG_MCP_LATEST "2025-11-25"

/* True when v is a protocol version this server accepts in the
 * MCP-Protocol-Version header. */
int cg_mcp_version_ok(const char *v);

/* What a POST body asks of the nodes, for http.c, which runs the
 * requests that reach them off its HTTP threads (tool_pool.h). */
enum cg_mcp_work {
	CG_MCP_WORK_LOCAL, /* answered from the tool table alone: initialize,
	                      tools/list, ping, notifications, responses, and
	                      every body that is not a valid request */
	CG_MCP_WORK_NODES, /* tools/call of any other tool, resources/list,
	                      resources/read */
	CG_MCP_WORK_GREP,  /* tools/call of a tool that scans the files
	                      (scans_files in the tool table: corpus_grep) */
};
enum cg_mcp_work cg_mcp_work(const char *body, size_t len);

/* The answer to a body cg_mcp_work did not call local, refused before
 * it ran (a full queue) for the reason why (CG_EUNAVAIL, "busy: ..."):
 * a tools/call gets a tool result with isError and why's message (as a
 * refusal of the grep gate does), a resources request the JSON-RPC error
 * -32603 with it.  *status is 200, or what cg_mcp_handle sets for a
 * body that is not a valid request. */
void cg_mcp_refuse(const char *body, size_t len, const cg_err *why, int *status,
                   cg_buf *out);

/*
 * Handles one POST body.  Sets *status (200; 202 with no body for a
 * notification or a response; 400 with a JSON-RPC error for a body that is
 * not JSON, not a valid request, a batch, or names an unsupported _meta
 * version) and writes the response body (may be empty) to out.  *answer
 * receives the tool answer for metrics (new reference or NULL).
 */
struct cg_acl;
void cg_mcp_handle(cg_fed *fed, const struct cg_acl *acl, const char *body,
                   size_t len, int *status, cg_buf *out, json_t **answer);

#endif
