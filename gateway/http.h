/*
 * http.h - the gateway's HTTP endpoint (libmicrohttpd): the JSON API
 * (/v1/<tool>, GET or POST; /v1/openapi.json), MCP (/mcp), /healthz,
 * /readyz and /metrics, and an access-log line per request.
 *
 * nng 1.5.2's own HTTP server is not used: it has unpatched defects
 * (FACTS.md).  Here every connection has a timeout, the number of
 * connections is limited, headers are bounded by a per-connection memory
 * limit and bodies by a size cap; Host and Origin are checked against DNS
 * rebinding.  Without tokens the endpoint binds to loopback only.
 *
 * Decisions a reader must know:
 * - Every refusal that headers alone decide (a request's framing:
 *   Content-Length with Transfer-Encoding or two different Content-Length
 *   values, framing.h; Host, Origin, a Content-Length over
 *   CG_HTTP_MAX_BODY, a wrong method, an unsupported MCP-Protocol-Version)
 *   is answered before any body byte is read.  A chunked body that grows
 *   past the cap is read on and dropped (never buffered) and answered 413
 *   at its end, so the client reads the 413 rather than a reset; past
 *   CG_HTTP_MAX_DROP it is answered at once and the connection closes.
 * - The timeout (opts.timeout_s, else $CORPUS_GW_HTTP_TIMEOUT, else
 *   CG_HTTP_TIMEOUT_S) is both libmicrohttpd's inactivity timeout and a
 *   deadline: a connection must deliver a complete request (headers and
 *   body) within that many seconds of opening or of its previous answer,
 *   and a new connection its first headers within CG_HTTP_HEADER_TIMEOUT_S
 *   (or the timeout, when shorter), or a watchdog thread shuts its socket
 *   down.  libmicrohttpd's own timeout restarts on every byte, so without
 *   the deadlines a slowloris client trickling a header byte at a time
 *   would hold its connection forever.
 * - At most CG_HTTP_CONN_LIMIT connections in all and
 *   CG_HTTP_CONN_PER_ADDR from one client address, before any byte is
 *   read: one address cannot fill the endpoint (conn_limits.h).
 * - No HTTP thread runs a tool call: GET/POST /v1/<tool> and an MCP
 *   request that reaches the nodes (tools/call, resources/list and
 *   resources/read) run on the tool pool (tool_pool.h; greps on its grep
 *   lane) while their connection is suspended, so the HTTP pool (one
 *   thread per online CPU, CG_HTTP_THREADS_MIN to _MAX) only screens
 *   requests, answers /healthz, /readyz, /metrics, the OpenAPI document,
 *   the search page's assets and token form, refuses bad arguments, and
 *   queues the answers, whatever the nodes do; the search page's pages,
 *   which run tools, are built on the pool too.  /metrics is the one
 *   route left here that asks the nodes (a status round, bounded by the
 *   round deadline).
 *   A full lane is answered busy at once (503; an MCP tool error).  A
 *   call whose client left runs to its end (its deadline and the answer
 *   cap bound it; a suspended connection is not watched) and its answer
 *   is dropped.  The pool is the process's (opts.pool, shared by the TCP
 *   listener and the local socket), or the server's own; cg_http_free
 *   waits for this server's calls in flight.
 *
 * May be included by gateway/ and cli/ (`serve` starts it).
 */
#ifndef CG_HTTP_H
#define CG_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cg_err.h"
#include "federation/fed.h"
#include "node/server.h"

#define CG_HTTP_MAX_BODY         (1u << 20)
#define CG_HTTP_MAX_DROP         (8u << 20) /* chunked past the cap: read, dropped */
#define CG_HTTP_CONN_LIMIT       512        /* connections in all */
#define CG_HTTP_CONN_PER_ADDR    64 /* connections from one client address */
#define CG_HTTP_HEADER_TIMEOUT_S 3  /* a new connection's first headers */
#define CG_HTTP_TIMEOUT_S        10
#define CG_HTTP_TIMEOUT_ENV      "CORPUS_GW_HTTP_TIMEOUT" /* 1-3600 seconds */
#define CG_HTTP_THREADS_MIN      4  /* the HTTP pool: the online CPUs, */
#define CG_HTTP_THREADS_MAX      16 /* bounded */
#define CG_HTTP_MEMORY_LIMIT     ((size_t)64 * 1024) /* per connection: headers */

typedef struct cg_http cg_http;

/* A bearer token and the access policy it grants (both borrowed: they
 * must outlive the server). */
struct cg_acl;
typedef struct cg_http_token {
	const char *name; /* for the access log; never the secret */
	const char *secret;
	const struct cg_acl *acl;
} cg_http_token;

struct cg_tool_pool;
typedef struct cg_http_opts {
	const char *listen;     /* "http://127.0.0.1:7700"; port 0 allowed */
	cg_fed *fed;            /* borrowed: must outlive the server, or the
	                           cg_http_swap that replaces it (and the tokens) */
	bool tokens_configured; /* required to bind beyond loopback */
	const char *const *allowed_origins; /* NULL-terminated extra origins */
	int timeout_s; /* request deadline and idle timeout; 0: default */
	const cg_http_token *tokens; /* when any: /v1, /mcp and /metrics need
	                                "Authorization: Bearer <secret>" */
	size_t ntokens;
	cg_log_fn log; /* one access-log line per request (accesslog.h) */
	void *log_ctx;
	/* The local socket (local.h): when local, serve the listening unix
	 * socket local_fd (taken, even on failure) instead of listen; every
	 * caller must run as this uid (SO_PEERCRED) and gets the unrestricted
	 * policy, tokens or not; Host is not checked (no browser reaches a
	 * unix socket, so there is no DNS rebinding). */
	bool local;
	int local_fd;
	/* Where tool calls run (tool_pool.h), borrowed: it must outlive the
	 * server.  NULL: the server starts a pool of its own. */
	struct cg_tool_pool *pool;
} cg_http_opts;

int cg_http_new(cg_http **out, const cg_http_opts *opts, cg_err *err);
void cg_http_free(cg_http *h);

/*
 * Replaces the federation and the tokens that requests are answered with
 * (borrowed, as in the opts: a reload's new roster), then waits until no
 * request holds the previous ones, so that the caller may free them once
 * it returns.  A request holds what was current when its headers arrived
 * until it completes, so a request in flight finishes on the old roster
 * and every later one gets the new.  The wait is bounded by the requests
 * in flight (their deadlines and the HTTP timeout).  Called from one
 * thread at a time, never from a request.  CG_EINVAL, and nothing
 * changes, when the server listens beyond loopback and ntokens is 0.
 */
int cg_http_swap(cg_http *h, cg_fed *fed, const cg_http_token *tokens,
                 size_t ntokens, cg_err *err);

/* What /readyz answers: 503 until the owner says ready (`serve`: once
 * every node has finished its first sync), then 200.  A reload does not
 * change it: the old roster serves until the new one is ready. */
void cg_http_set_ready(cg_http *h, bool ready);

/* "http://127.0.0.1:PORT" as actually bound, or "unix:PATH" for the
 * local socket; borrowed. */
const char *cg_http_url(const cg_http *h);

#endif
