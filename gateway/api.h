/*
 * api.h - the gateway's tools, one table shared by the HTTP JSON API
 * (GET /v1/<name>?...) and MCP (tools/call corpus_<name>).  Each tool takes
 * a JSON object of arguments and returns a JSON answer; errors are cg_err
 * codes, mapped to HTTP statuses by cg_code_http() and to MCP tool errors
 * (isError) by the MCP layer.
 *
 * May be included by gateway/ and cli/ (the CLI runs the same table).
 */
#ifndef CG_API_H
#define CG_API_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "federation/fed.h"
#include "gateway/render.h"

typedef int (*cg_api_fn)(cg_fed *fed, const json_t *args, json_t **out,
                         cg_err *err);

/* A tool.  Its answer's JSON Schema (MCP outputSchema) is the file
 * gateway/schema/<name>.json, embedded at build time (schema.h). */
typedef struct cg_api_tool {
	const char *name;         /* "search": /v1/search, corpus_search */
	const char *title;        /* a short name for people (MCP title) */
	const char *description;  /* for MCP tools/list */
	const char *input_schema; /* JSON Schema text of the arguments */
	cg_api_fn fn;
	cg_render_fn render;      /* the compact text of an answer */
	const char *const *ints;  /* argument names that are integers */
	const char *const *bools; /* argument names that are booleans */
	const char *const *lists; /* argument names that may repeat */
	bool scans_files;         /* reads the page files themselves (grep):
	                           * served on the tool pool's grep lane */
} cg_api_tool;

/* The JSON Schema text of t's answers (static storage). */
const char *cg_api_output_schema(const cg_api_tool *t);

/* The tool named name ("search"; "corpus_search" is accepted), or NULL. */
const cg_api_tool *cg_api_find(const char *name);

/* All tools, in a stable order. */
const cg_api_tool *cg_api_tools(size_t *n);

/* Runs a tool; args are validated by the tool. */
int cg_api_call(cg_fed *fed, const char *name, const json_t *args, json_t **out,
                cg_err *err);

/* Runs a tool for a caller with an access policy (NULL: everything
 * visible): the nodes filter with it, and the answer is re-checked before
 * it is returned.  A page the caller may not see is "not found". */
struct cg_acl;
int cg_api_call_as(cg_fed *fed, const struct cg_acl *acl, const char *name,
                   const json_t *args, json_t **out, cg_err *err);

#endif
