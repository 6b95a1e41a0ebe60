/*
 * fuzz_mcp.c - libFuzzer target for MCP request bodies (gateway/mcp.c):
 * the bytes as one POST /mcp body to cg_mcp_handle, over a federation of a
 * tiny workspace whose nodes are called directly (gateway/embed.h), as
 * `serve` and `corpus-gw mcp` hand a body over.  abort()s when the status
 * is not 200, 202 or 400, when a 202 carries a body or another status none,
 * or when the body is not one JSON-RPC 2.0 object with either a result or
 * an error {code (integer), message (UTF-8 string)}.  It also checks
 * http.c's view of a body: cg_mcp_work calls it local unless
 * cg_mcp_handle dispatches it to a tools/call or a resources/list or
 * read (status 200), and cg_mcp_refuse answers every other one as such a
 * body with the same id: a tool result with isError for a tools/call, the
 * error -32603 otherwise, never a result of a tool.
 *
 * The workspace and its federation are created once in a temporary
 * directory and removed at exit: a fuzz harness, not project code, so the
 * static state is deliberate.  It must not touch anything outside that
 * directory or the network.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "common/cg_fs.h"
#include "common/cg_utf8.h"
#include "gateway/embed.h"
#include "gateway/mcp.h"

static cg_embed *fuzz_embed;
static char fuzz_dir[256];

static void
cleanup(void)
{
	cg_embed_free(fuzz_embed);
	fuzz_embed = NULL;
	if (fuzz_dir[0] != '\0')
		(void)cg_rm_rf(fuzz_dir);
}

static void
put(const char *rel, const char *text)
{
	char path[512];
	char *slash;

	(void)snprintf(path, sizeof(path), "%s/%s", fuzz_dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	if (cg_mkdir_p(path, NULL) != 0)
		abort();
	*slash = '/';
	if (cg_file_write_atomic(path, text, strlen(text), NULL) != 0)
		abort();
}

static void
open_embed(void)
{
	char ws[300];
	char cache[300];

	(void)snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/fuzz-mcp-XXXXXX",
	               getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(fuzz_dir) == NULL)
		abort();
	atexit(cleanup);
	put("ws/.guild/wiki/concepts/harbour.md",
	    "---\ntype: concept\ntags: [sea]\n---\n# Harbour\n\nThe harbour "
	    "is 12 m deep. [[tides]]\n");
	put("ws/.guild/wiki/concepts/tides.md",
	    "---\ntype: concept\n---\n# Tides\n\nHigh tide at noon. 网关\n");
	put("ws/sub/.guild/wiki/entities/ship.md",
	    "---\ntype: entity\n---\n# Ship\n\nA ship in the harbour.\n");
	(void)snprintf(ws, sizeof(ws), "%s/ws", fuzz_dir);
	(void)snprintf(cache, sizeof(cache), "%s/cache", fuzz_dir);
	if (cg_embed_open(&fuzz_embed, ws, cache, NULL) != 0)
		abort();
}

/* One JSON-RPC 2.0 object with a result or a well-formed error. */
static void
check_body(const char *text, size_t len)
{
	json_t *r = json_loadb(text, len, 0, NULL);
	const json_t *e;

	if (!json_is_object(r) ||
	    !json_is_string(json_object_get(r, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(r, "jsonrpc")), "2.0"))
		abort();
	e = json_object_get(r, "error");
	if ((e == NULL) == (json_object_get(r, "result") == NULL))
		abort();
	if (e != NULL &&
	    (!json_is_integer(json_object_get(e, "code")) ||
	     !json_is_string(json_object_get(e, "message")) ||
	     !cg_utf8_valid(json_string_value(json_object_get(e, "message")),
	                    json_string_length(json_object_get(e, "message")))))
		abort();
	json_decref(r);
}

/* The method of a body (a new string), or NULL. */
static char *
body_method(const uint8_t *data, size_t size)
{
	json_t *m =
	    json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	const char *v = json_string_value(json_object_get(m, "method"));
	char *out = v ? strdup(v) : NULL;

	json_decref(m);
	return out;
}

/* cg_mcp_work and cg_mcp_refuse against what cg_mcp_handle did (its
 * status and reply). */
static void
check_work(const uint8_t *data, size_t size, int status, const cg_buf *reply)
{
	enum cg_mcp_work w = cg_mcp_work((const char *)data, size);
	char *method = body_method(data, size);
	int nodes = method != NULL && (strcmp(method, "tools/call") == 0 ||
	                               strcmp(method, "resources/list") == 0 ||
	                               strcmp(method, "resources/read") == 0);
	json_t *a;
	json_t *b;
	cg_err why;
	cg_buf out;
	int st = 0;

	if ((w != CG_MCP_WORK_LOCAL) != (status == 200 && nodes))
		abort();
	if (w == CG_MCP_WORK_LOCAL) {
		free(method);
		return;
	}
	cg_err_clear(&why);
	(void)cg_err_set(&why, CG_EUNAVAIL, "busy: a test");
	cg_buf_init(&out, 1u << 20);
	cg_mcp_refuse((const char *)data, size, &why, &st, &out);
	if (st != 200)
		abort();
	check_body(out.data, out.len);
	a = json_loadb(out.data, out.len, 0, NULL);
	b = json_loadb(reply->data, reply->len, 0, NULL);
	if (!json_equal(json_object_get(a, "id"), json_object_get(b, "id")))
		abort();
	if (strcmp(method, "tools/call") == 0
	        ? !json_is_true(
	              json_object_get(json_object_get(a, "result"), "isError"))
	        : json_integer_value(json_object_get(
	              json_object_get(a, "error"), "code")) != -32603)
		abort();
	json_decref(a);
	json_decref(b);
	cg_buf_fini(&out);
	free(method);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *answer = NULL;
	int status = 0;
	cg_buf out;

	if (fuzz_embed == NULL)
		open_embed();
	cg_buf_init(&out, 64u << 20);
	cg_mcp_handle(cg_embed_fed(fuzz_embed), NULL, (const char *)data, size,
	              &status, &out, &answer);
	if (status != 200 && status != 202 && status != 400)
		abort();
	if ((status == 202) != (out.len == 0))
		abort();
	if (out.len > 0)
		check_body(out.data, out.len);
	check_work(data, size, status, &out);
	json_decref(answer);
	cg_buf_fini(&out);
	return 0;
}
