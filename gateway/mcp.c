/*
 * mcp.c - JSON-RPC 2.0 for MCP.  Every tool is read-only; tool failures are
 * results with isError true (the protocol's rule), JSON-RPC errors are for
 * malformed requests, unknown methods and tools, unsupported protocol
 * versions and resources that cannot be read only.  Nothing here keeps state
 * between requests: a request in the stateless 2026-07-28 style (no initialize,
 * the version in params._meta) is answered like any other.  This file must not
 * know what a tool does (api.c), how an answer reads (render.c) or how a page
 * becomes a resource (resources.c), nor touch a transport (http.c,
 * mcp_stdio.c); it only tells http.c which requests reach the nodes
 * (cg_mcp_work) and how a request refused before it ran reads
 * (cg_mcp_refuse).
 */
#include "gateway/mcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_version.h"
#include "gateway/api.h"
#include "gateway/render.h"
#include "gateway/resources.h"
#include "proto/acl.h"

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define STATELESS    "2026-07-28"

static const char *const versions[] = {"2025-03-26", "2025-06-18", "2025-11-25",
                                       STATELESS, NULL};

static const char instructions[] =
    "Read-only search over the team's markdown knowledge. corpus_search is "
    "lexical (an empty result does not prove absence); corpus_grep is "
    "exhaustive and never misses a literal match.";

int
cg_mcp_version_ok(const char *v)
{
	for (size_t i = 0; versions[i] != NULL; i++)
		if (strcmp(v, versions[i]) == 0)
			return 1;
	return 0;
}

static json_t *
version_list(void)
{
	json_t *a = json_array();

	for (size_t i = 0; a != NULL && versions[i] != NULL; i++)
		json_array_append_new(a, json_string(versions[i]));
	return a;
}

/* id: the request's id when it is a valid one, else null. */
static json_t *
rpc_error(const json_t *id, int code, const char *msg, json_t *data)
{
	json_t *e = json_pack("{s:i, s:s}", "code", code, "message", msg);

	if (e != NULL && data != NULL)
		json_object_set(e, "data", data);
	json_decref(data);
	return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id",
	                 id ? id : json_null(), "error", e);
}

static json_t *
rpc_result(const json_t *id, json_t *result)
{
	return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id,
	                 "result", result);
}

static json_t *
server_info(void)
{
	return json_pack("{s:s, s:s, s:s}", "name", "corpus-gw", "title",
	                 "corpus-gw knowledge gateway", "version", CG_VERSION);
}

/* What this server offers: read-only tools and the pages as resources. */
static json_t *
capabilities(void)
{
	return json_pack("{s:{s:b}, s:{s:b, s:b}}", "tools", "listChanged", 0,
	                 "resources", "subscribe", 0, "listChanged", 0);
}

static json_t *
initialize(const json_t *params)
{
	const char *want =
	    json_string_value(json_object_get(params, "protocolVersion"));
	const char *ver =
	    want && cg_mcp_version_ok(want) && strcmp(want, STATELESS) != 0
	        ? want
	        : CG_MCP_LATEST;

	return json_pack("{s:s, s:o, s:o, s:s}", "protocolVersion", ver,
	                 "capabilities", capabilities(), "serverInfo",
	                 server_info(), "instructions", instructions);
}

/* server/discover, the stateless revision's replacement of initialize. */
static json_t *
discover(void)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:s}", "resultType", "complete",
	                 "supportedVersions", version_list(), "capabilities",
	                 capabilities(), "serverInfo", server_info(),
	                 "instructions", instructions);
}

static json_t *
tools_list(void)
{
	size_t n;
	const cg_api_tool *t = cg_api_tools(&n);
	json_t *list = json_array();

	for (size_t i = 0; i < n; i++) {
		char name[64];
		json_t *in = json_loads(t[i].input_schema, 0, NULL);
		json_t *out = json_loads(cg_api_output_schema(&t[i]), 0, NULL);

		(void)snprintf(name, sizeof(name), "corpus_%s", t[i].name);
		json_array_append_new(
		    list,
		    json_pack("{s:s, s:s, s:s, s:o, s:o, s:{s:s, s:b, s:b, "
		              "s:b, s:b}}",
		              "name", name, "title", t[i].title, "description",
		              t[i].description, "inputSchema",
		              in ? in : json_object(), "outputSchema",
		              out ? out : json_pack("{s:s}", "type", "object"),
		              "annotations", "title", t[i].title,
		              "readOnlyHint", 1, "destructiveHint", 0,
		              "idempotentHint", 1, "openWorldHint", 0));
	}
	return json_pack("{s:o}", "tools", list);
}

/* The arguments the tool's input schema marks required: MCP clients fill
 * arguments from the schema, so a missing one is named here (the JSON API
 * stays lenient: GET /v1/search?category=... needs no q). */
static int
check_required(const cg_api_tool *t, const json_t *args, cg_err *err)
{
	json_t *schema = json_loads(t->input_schema, 0, NULL);
	size_t i;
	const json_t *k;
	int rc = 0;

	json_array_foreach(json_object_get(schema, "required"), i, k) {
		const char *key = json_string_value(k);

		if (rc == 0 && key != NULL &&
		    json_object_get(args, key) == NULL)
			rc = cg_err_set(err, CG_EINVAL,
			                "'%s' is required (see the tool's "
			                "inputSchema)",
			                key);
	}
	json_decref(schema);
	return rc;
}

/* The compact text of an answer (render.h): what the CLI prints. */
static json_t *
answer_text(const cg_api_tool *t, const json_t *args, const json_t *out)
{
	const cg_render_opts ro = {
	    json_is_true(json_object_get(args, "explain")), false};
	cg_buf b;
	json_t *text;

	cg_buf_init(&b, 64u << 20);
	t->render(&b, out, &ro);
	text = json_stringn(b.data ? b.data : "", b.len);
	cg_buf_fini(&b);
	return text ? text : json_string("");
}

/* NULL for an unknown tool (a JSON-RPC error); a failure of a known tool
 * is a result with isError. */
static json_t *
tools_call(cg_fed *fed, const cg_acl *acl, const json_t *params,
           json_t **answer)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	const json_t *args = json_object_get(params, "arguments");
	const cg_api_tool *t;
	json_t *out = NULL;
	cg_err err;
	int rc;

	cg_err_clear(&err);
	if (name == NULL || strncmp(name, "corpus_", 7) != 0)
		return NULL;
	t = cg_api_find(name);
	if (t == NULL)
		return NULL;
	rc = check_required(t, args, &err);
	if (rc == 0)
		rc = cg_api_call_as(fed, acl, name, args, &out, &err);
	if (rc != 0) {
		json_decref(out);
		return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type",
		                 "text", "text",
		                 err.msg[0] ? err.msg : cg_code_name(err.code),
		                 "isError", 1);
	}
	*answer = out;
	return json_pack("{s:[{s:s, s:o}], s:O, s:b}", "content", "type",
	                 "text", "text", answer_text(t, args, out),
	                 "structuredContent", out, "isError", 0);
}

/* A resources request: its result, or a JSON-RPC error (-32602 for
 * invalid params, -32002 for a resource not found, -32603 otherwise). */
static json_t *
resources(cg_fed *fed, const cg_acl *acl, const char *method, const json_t *id,
          const json_t *params)
{
	json_t *res = NULL;
	cg_err err;
	int rc;

	cg_err_clear(&err);
	if (strcmp(method, "resources/templates/list") == 0)
		return rpc_result(id, cg_resources_templates());
	if (strcmp(method, "resources/list") == 0)
		rc = cg_resources_list(fed, acl, params, &res, &err);
	else
		rc = cg_resources_read(fed, acl, params, &res, &err);
	if (rc == 0)
		return rpc_result(id, res);
	if (rc == CG_ENOTFOUND)
		return rpc_error(
		    id, -32002, "Resource not found",
		    json_pack("{s:O?}", "uri", json_object_get(params, "uri")));
	return rpc_error(id, rc == CG_EINVAL ? -32602 : -32603,
	                 err.msg[0] ? err.msg : cg_code_name(rc), NULL);
}

/* The version a stateless request names in params._meta: NULL when it
 * names none; sets *bad when it names one this server does not speak. */
static const char *
meta_version(const json_t *params, int *bad)
{
	const json_t *meta = json_object_get(params, "_meta");
	const json_t *v = json_object_get(meta, META_VERSION);

	*bad = 0;
	if (v == NULL)
		return NULL;
	if (!json_is_string(v) || !cg_mcp_version_ok(json_string_value(v))) {
		*bad = 1;
		return NULL;
	}
	return json_string_value(v);
}

static json_t *
dispatch(cg_fed *fed, const cg_acl *acl, const char *method, const json_t *id,
         const json_t *params, json_t **answer)
{
	json_t *res;

	if (strcmp(method, "initialize") == 0)
		return rpc_result(id, initialize(params));
	if (strcmp(method, "server/discover") == 0)
		return rpc_result(id, discover());
	if (strcmp(method, "ping") == 0)
		return rpc_result(id, json_object());
	if (strcmp(method, "tools/list") == 0)
		return rpc_result(id, tools_list());
	if (strcmp(method, "resources/list") == 0 ||
	    strcmp(method, "resources/read") == 0 ||
	    strcmp(method, "resources/templates/list") == 0)
		return resources(fed, acl, method, id, params);
	if (strcmp(method, "tools/call") == 0) {
		res = tools_call(fed, acl, params, answer);
		if (res == NULL)
			return rpc_error(id, -32602, "unknown tool", NULL);
		return rpc_result(id, res);
	}
	return rpc_error(id, -32601, "method not found", NULL);
}

static int
valid_id(const json_t *id)
{
	return json_is_string(id) || json_is_integer(id);
}

/*
 * One JSON-RPC message.  NULL (202, no body) for a notification and for a
 * response to the server; *status 400 for a message that is not a valid
 * request or names an unsupported version.
 */
static json_t *
handle_one(cg_fed *fed, const cg_acl *acl, const json_t *msg, int *status,
           json_t **answer)
{
	const json_t *id = json_object_get(msg, "id");
	const char *method = json_string_value(json_object_get(msg, "method"));
	const char *rpc = json_string_value(json_object_get(msg, "jsonrpc"));
	const json_t *params = json_object_get(msg, "params");
	const char *ver;
	json_t *reply;
	int bad;

	*status = 400;
	if (!json_is_object(msg) || rpc == NULL || strcmp(rpc, "2.0") != 0)
		return rpc_error(NULL, -32600, "invalid JSON-RPC request",
		                 NULL);
	if (method == NULL && valid_id(id) &&
	    (json_object_get(msg, "result") || json_object_get(msg, "error")))
		return NULL; /* a response: this server sends no requests */
	if (method == NULL || (id != NULL && !valid_id(id)) ||
	    (params != NULL && !json_is_object(params)))
		return rpc_error(valid_id(id) ? id : NULL, -32600,
		                 "invalid JSON-RPC request", NULL);
	if (id == NULL)
		return NULL; /* notifications/initialized and friends */
	ver = meta_version(params, &bad);
	if (bad)
		return rpc_error(
		    id, -32602, "unsupported protocol version",
		    json_pack("{s:o, s:O}", "supported", version_list(),
		              "requested",
		              json_object_get(json_object_get(params, "_meta"),
		                              META_VERSION)));
	*status = 200;
	reply = dispatch(fed, acl, method, id, params, answer);
	if (ver != NULL && strcmp(ver, STATELESS) == 0)
		json_object_set_new(json_object_get(reply, "result"),
		                    "resultType", json_string("complete"));
	return reply;
}

static void
write_reply(cg_buf *out, const json_t *reply)
{
	char *text = json_dumps(reply, JSON_COMPACT);
	json_t *e;

	if (text != NULL && cg_buf_puts(out, text) == 0) {
		free(text);
		return;
	}
	free(text);
	cg_buf_reset(out);
	e = rpc_error(json_object_get(reply, "id"), -32603, "answer too large",
	              NULL);
	text = e ? json_dumps(e, JSON_COMPACT) : NULL;
	(void)cg_buf_puts(out, text ? text : "");
	free(text);
	json_decref(e);
}

/* Whether the MCP tool named name reads the page files (corpus_grep). */
static bool
scans_files(const char *name)
{
	const cg_api_tool *t = name != NULL && strncmp(name, "corpus_", 7) == 0
	                           ? cg_api_find(name)
	                           : NULL;

	return t != NULL && t->scans_files;
}

enum cg_mcp_work
cg_mcp_work(const char *body, size_t len)
{
	json_t *msg = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
	const json_t *params = json_object_get(msg, "params");
	const char *method = json_string_value(json_object_get(msg, "method"));
	const char *rpc = json_string_value(json_object_get(msg, "jsonrpc"));
	const char *name = json_string_value(json_object_get(params, "name"));
	enum cg_mcp_work w = CG_MCP_WORK_LOCAL;
	int bad = 0;

	/* Only a request (an id) that handle_one would dispatch. */
	if (params != NULL)
		(void)meta_version(params, &bad);
	if (method == NULL || rpc == NULL || strcmp(rpc, "2.0") != 0 ||
	    !valid_id(json_object_get(msg, "id")) || bad ||
	    (params != NULL && !json_is_object(params)))
		w = CG_MCP_WORK_LOCAL;
	else if (strcmp(method, "tools/call") == 0)
		w = scans_files(name) ? CG_MCP_WORK_GREP : CG_MCP_WORK_NODES;
	else if (strcmp(method, "resources/list") == 0 ||
	         strcmp(method, "resources/read") == 0)
		w = CG_MCP_WORK_NODES;
	json_decref(msg);
	return w;
}

void
cg_mcp_refuse(const char *body, size_t len, const cg_err *why, int *status,
              cg_buf *out)
{
	json_t *msg = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
	const json_t *id = json_object_get(msg, "id");
	const json_t *params = json_object_get(msg, "params");
	const char *method = json_string_value(json_object_get(msg, "method"));
	const char *text = why->msg[0] ? why->msg : cg_code_name(why->code);
	const char *ver;
	json_t *reply;
	int bad;

	if (msg == NULL || method == NULL || !valid_id(id)) {
		json_decref(msg);
		cg_mcp_handle(NULL, NULL, body, len, status, out, &reply);
		json_decref(reply); /* never a tool answer: nothing ran */
		return;
	}
	*status = 200;
	ver = meta_version(params, &bad);
	if (strcmp(method, "tools/call") == 0)
		reply = rpc_result(id, json_pack("{s:[{s:s, s:s}], s:b}",
		                                 "content", "type", "text",
		                                 "text", text, "isError", 1));
	else
		reply = rpc_error(id, -32603, text, NULL);
	if (ver != NULL && strcmp(ver, STATELESS) == 0)
		json_object_set_new(json_object_get(reply, "result"),
		                    "resultType", json_string("complete"));
	if (reply != NULL)
		write_reply(out, reply);
	json_decref(reply);
	json_decref(msg);
}

void
cg_mcp_handle(cg_fed *fed, const cg_acl *acl, const char *body, size_t len,
              int *status, cg_buf *out, json_t **answer)
{
	json_error_t jerr;
	json_t *msg = json_loadb(
	    body, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	json_t *reply;

	*answer = NULL;
	if (msg == NULL) {
		reply = rpc_error(NULL, -32700, "parse error", NULL);
		*status = 400;
	} else if (json_is_array(msg)) {
		reply =
		    rpc_error(NULL, -32600, "batches are not supported", NULL);
		*status = 400;
	} else {
		reply = handle_one(fed, acl, msg, status, answer);
		if (reply == NULL)
			*status = 202;
	}
	json_decref(msg);
	if (reply != NULL)
		write_reply(out, reply);
	json_decref(reply);
}
