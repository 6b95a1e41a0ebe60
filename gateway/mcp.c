/*
 * mcp.c - JSON-RPC 2.0 for MCP.  Every tool is read-only; tool failures are
 * results with isError true (the protocol's rule), JSON-RPC errors are for
 * malformed requests and unknown methods only.
 */
#include "mcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

static const char *const versions[] = {"2025-03-26", "2025-06-18",
				       "2025-11-25", "2026-07-28", NULL};

int
cg_mcp_version_ok(const char *v)
{
	for (size_t i = 0; versions[i] != NULL; i++)
		if (strcmp(v, versions[i]) == 0)
			return 1;
	return 0;
}

static json_t *
rpc_error(const json_t *id, int code, const char *msg)
{
	return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id",
			 id ? id : json_null(), "error", "code", code,
			 "message", msg);
}

static json_t *
rpc_result(const json_t *id, json_t *result)
{
	return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id,
			 "result", result);
}

static json_t *
initialize(const json_t *params)
{
	const char *want = json_string_value(
	    json_object_get(params, "protocolVersion"));
	const char *ver = want && cg_mcp_version_ok(want) &&
				  strcmp(want, "2026-07-28") != 0
			      ? want
			      : CG_MCP_LATEST;

	return json_pack(
	    "{s:s, s:{s:{s:b}}, s:{s:s, s:s, s:s}, s:s}", "protocolVersion",
	    ver, "capabilities", "tools", "listChanged", 0, "serverInfo",
	    "name", "corpus-gw", "title", "corpus-gw knowledge gateway",
	    "version", "0.1.0", "instructions",
	    "Read-only search over the team's markdown knowledge. "
	    "corpus_search is lexical (an empty result does not prove "
	    "absence); corpus_grep is exhaustive and never misses a literal "
	    "match.");
}

static json_t *
tools_list(void)
{
	size_t n;
	const cg_api_tool *t = cg_api_tools(&n);
	json_t *list = json_array();

	for (size_t i = 0; i < n; i++) {
		char name[64];
		json_t *schema = json_loads(t[i].input_schema, 0, NULL);

		(void)snprintf(name, sizeof(name), "corpus_%s", t[i].name);
		json_array_append_new(
		    list, json_pack("{s:s, s:s, s:o, s:{s:b, s:b, s:b}}",
				    "name", name, "description",
				    t[i].description, "inputSchema",
				    schema ? schema : json_object(),
				    "annotations", "readOnlyHint", 1,
				    "destructiveHint", 0, "openWorldHint", 0));
	}
	return json_pack("{s:o}", "tools", list);
}

static json_t *
tools_call(cg_fed *fed, const json_t *params, json_t **answer)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	const json_t *args = json_object_get(params, "arguments");
	json_t *out = NULL;
	char *text;
	cg_err err;
	json_t *res;

	cg_err_clear(&err);
	if (name == NULL || cg_api_find(name) == NULL ||
	    strncmp(name, "corpus_", 7) != 0)
		return NULL;
	if (cg_api_call(fed, name, args, &out, &err) != 0)
		return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type",
				 "text", "text",
				 err.msg[0] ? err.msg : cg_code_name(err.code),
				 "isError", 1);
	text = json_dumps(out, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	res = json_pack("{s:[{s:s, s:s}], s:O, s:b}", "content", "type",
			"text", "text", text ? text : "{}",
			"structuredContent", out, "isError", 0);
	free(text);
	*answer = out;
	return res;
}

/* One JSON-RPC message; NULL for a notification (no reply). */
static json_t *
handle_one(cg_fed *fed, const json_t *msg, json_t **answer)
{
	const json_t *id = json_object_get(msg, "id");
	const char *method = json_string_value(json_object_get(msg, "method"));
	const json_t *params = json_object_get(msg, "params");
	json_t *res;

	if (!json_is_object(msg) ||
	    strcmp(json_string_value(json_object_get(msg, "jsonrpc"))
		       ? json_string_value(json_object_get(msg, "jsonrpc"))
		       : "",
		   "2.0") != 0 ||
	    method == NULL)
		return rpc_error(id, -32600, "invalid JSON-RPC request");
	if (id == NULL)
		return NULL; /* notifications/initialized and friends */
	if (strcmp(method, "initialize") == 0)
		return rpc_result(id, initialize(params));
	if (strcmp(method, "ping") == 0)
		return rpc_result(id, json_object());
	if (strcmp(method, "tools/list") == 0)
		return rpc_result(id, tools_list());
	if (strcmp(method, "tools/call") == 0) {
		res = tools_call(fed, params, answer);
		if (res == NULL)
			return rpc_error(id, -32602, "unknown tool");
		return rpc_result(id, res);
	}
	return rpc_error(id, -32601, "method not found");
}

void
cg_mcp_handle(cg_fed *fed, const char *body, size_t len, int *status,
	      cg_buf *out, json_t **answer)
{
	json_error_t jerr;
	json_t *msg = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	json_t *reply;
	char *text;

	*answer = NULL;
	if (msg == NULL) {
		reply = rpc_error(NULL, -32700, "parse error");
		*status = 400;
	} else if (json_is_array(msg)) {
		reply = rpc_error(NULL, -32600, "batches are not supported");
		*status = 400;
	} else {
		reply = handle_one(fed, msg, answer);
		*status = reply ? 200 : 202;
	}
	json_decref(msg);
	if (reply == NULL)
		return;
	text = json_dumps(reply, JSON_COMPACT);
	if (text != NULL)
		(void)cg_buf_puts(out, text);
	free(text);
	json_decref(reply);
}
