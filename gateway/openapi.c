/*
 * openapi.c - builds the OpenAPI 3.1 document of openapi.h: the embedded
 * skeleton (gateway/schema/openapi.json) plus, for every tool of the table,
 * GET /v1/<tool> (each argument of its input schema a query parameter; a
 * list argument repeats) and POST /v1/<tool> (the same arguments as a JSON
 * object body), both answering the tool's output schema
 * (gateway/schema/<tool>.json) or an Error.  The statuses listed are those
 * cg_code_http() gives the errors a tool can return, plus 401 (tokens),
 * 413 and 415 (POST bodies).  It must not describe a route http.c does not
 * serve: test_http_api walks the document against a live gateway.
 */
#include "gateway/openapi.h"

#include <stdio.h>
#include <string.h>

#include "common/cg_version.h"
#include "gateway/api.h"
#include "gateway/schema.h"

/* The statuses every tool route may answer besides 200. */
static const char *const tool_errors[] = {"400", "401", "404", "500",
                                          "502", "503", "504", NULL};

static json_t *
error_ref(void)
{
	return json_pack("{s:s}", "$ref", "#/components/responses/Error");
}

static json_t *
responses(const json_t *out_schema, int post)
{
	json_t *r = json_pack("{s:{s:s, s:{s:{s:O}}}}", "200", "description",
	                      "the answer", "content", "application/json",
	                      "schema", out_schema);

	for (size_t i = 0; r != NULL && tool_errors[i] != NULL; i++)
		json_object_set_new(r, tool_errors[i], error_ref());
	if (r != NULL && post) {
		json_object_set_new(r, "413", error_ref());
		json_object_set_new(r, "415", error_ref());
	}
	return r;
}

/* The query parameters of a GET: one per property of the input schema. */
static json_t *
parameters(const json_t *in)
{
	const json_t *props = json_object_get(in, "properties");
	const json_t *req = json_object_get(in, "required");
	json_t *out = json_array();
	const char *name;
	const json_t *s;
	size_t i;
	const json_t *r;

	json_object_foreach((json_t *)props, name, s) {
		int required = 0;
		json_t *p;

		json_array_foreach(req, i, r)
			required |= strcmp(json_string_value(r), name) == 0;
		p = json_pack("{s:s, s:s, s:b, s:O}", "name", name, "in",
		              "query", "required", required, "schema", s);
		if (p != NULL && json_is_string(json_object_get(s, "type")) &&
		    strcmp(json_string_value(json_object_get(s, "type")),
		           "array") == 0) {
			json_object_set_new(p, "style", json_string("form"));
			json_object_set_new(p, "explode", json_true());
		}
		if (p != NULL &&
		    json_is_string(json_object_get(s, "description")))
			json_object_set(p, "description",
			                json_object_get(s, "description"));
		json_array_append_new(out, p);
	}
	return out;
}

static json_t *
tool_path(const cg_api_tool *t, const json_t *in, const json_t *out_schema)
{
	char get_id[64];
	char post_id[64];

	(void)snprintf(get_id, sizeof(get_id), "%s", t->name);
	(void)snprintf(post_id, sizeof(post_id), "%s_post", t->name);
	return json_pack(
	    "{s:{s:s, s:s, s:s, s:o, s:o}, s:{s:s, s:s, s:s, s:{s:b, "
	    "s:{s:{s:O}}}, s:o}}",
	    "get", "operationId", get_id, "summary", t->title, "description",
	    t->description, "parameters", parameters(in), "responses",
	    responses(out_schema, 0), "post", "operationId", post_id, "summary",
	    t->title, "description",
	    "The same arguments as GET, as a JSON object body "
	    "(Content-Type: application/json, at most 1 MiB).",
	    "requestBody", "required", 1, "content", "application/json",
	    "schema", in, "responses", responses(out_schema, 1));
}

/* Adds /v1/<tool> for every tool to paths; -1 when a schema does not
 * parse (a build defect) or memory runs out. */
static int
add_tools(json_t *paths)
{
	size_t n = 0;
	const cg_api_tool *t = cg_api_tools(&n);
	char path[64];

	for (size_t i = 0; i < n; i++) {
		json_t *in = json_loads(t[i].input_schema, 0, NULL);
		json_t *out = json_loads(cg_api_output_schema(&t[i]), 0, NULL);
		json_t *p = in && out ? tool_path(&t[i], in, out) : NULL;

		json_decref(in);
		json_decref(out);
		if (p == NULL)
			return -1;
		(void)snprintf(path, sizeof(path), "/v1/%s", t[i].name);
		json_object_set_new(paths, path, p);
	}
	return 0;
}

json_t *
cg_openapi_doc(void)
{
	json_t *doc = json_loads(cg_schema_text("openapi"), 0, NULL);
	json_t *paths = json_object_get(doc, "paths");

	if (!json_is_object(paths) || add_tools(paths) != 0) {
		json_decref(doc);
		return NULL;
	}
	json_object_del(doc, "$comment");
	json_object_set_new(json_object_get(doc, "info"), "version",
	                    json_string(CG_VERSION));
	return doc;
}
