/*
 * api.c - the table of gateway tools and the argument decoding they share.
 * A tool's handler turns its JSON arguments into a federation request; it
 * must reject what it does not understand (unknown arguments, wrong types)
 * with a message naming the valid ones, never ignore it silently.
 */
#include "gateway/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_args.h"
#include "federation/fed_links.h"
#include "federation/fed_page.h"
#include "federation/fed_search.h"
#include "federation/fed_walk.h"
#include "gateway/access.h"
#include "gateway/facets.h"
#include "gateway/schema.h"
#include "gateway/scope.h"
#include "page/grep.h"
#include "proto/acl.h"

/* --- shared --------------------------------------------------------------- */

/* The search filters among the arguments, in the order they are checked. */
static int
filter_args(const json_t *args, cg_filters *f, cg_err *err)
{
	int rc = cg_args_str(args, "category", &f->category, err);

	if (rc == 0)
		rc = cg_args_str(args, "owner", &f->owner, err);
	if (rc == 0)
		rc = cg_args_str(args, "confidence", &f->confidence, err);
	if (rc == 0)
		rc = cg_args_str(args, "updated_since", &f->updated_since, err);
	if (rc == 0)
		rc = cg_args_str(args, "tag", &f->tag, err);
	return rc;
}

/* The sources a request scopes to, from its "source" and "workspace"
 * lists (scope.h).  *v (malloc'd; NULL for every source) points into
 * *hold; the caller frees both, also on failure. */
static int
scope_args(cg_fed *fed, const json_t *args, const char ***v, size_t *n,
           json_t **hold, cg_err *err)
{
	const char *src[64];
	const char *ws[64];
	size_t nsrc = 0;
	size_t nws = 0;
	size_t i;
	const json_t *name;
	int rc = cg_args_list(args, "source", src, 64, &nsrc, err);

	*v = NULL;
	*n = 0;
	*hold = json_array();
	if (rc == 0)
		rc = cg_args_list(args, "workspace", ws, 64, &nws, err);
	if (rc == 0 && *hold == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	if (rc == 0)
		rc = cg_scope_expand(fed, ws, nws, src, nsrc, *hold, err);
	if (rc != 0 || json_array_size(*hold) == 0)
		return rc;
	*v = calloc(json_array_size(*hold), sizeof(**v));
	if (*v == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	json_array_foreach(*hold, i, name) {
		if (!json_is_string(name))
			return cg_err_set(err, CG_ENOMEM, "out of memory");
		(*v)[i] = json_string_value(name);
	}
	*n = json_array_size(*hold);
	return 0;
}

/* --- search --------------------------------------------------------------- */

static const char *const search_args[] = {
    "q",      "category", "owner", "confidence", "updated_since",
    "tag",    "source",   "limit", "workspace",  "explain",
    "offset", "facets",   "total", NULL};
static const char *const search_ints[] = {"limit", "offset", NULL};
static const char *const search_bools[] = {"explain", "total", NULL};
static const char *const search_lists[] = {"source", "workspace", "facets",
                                           NULL};
static const char *const scope_lists[] = {"source", "workspace", NULL};

static int
tool_search(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char **sources = NULL;
	json_t *hold = NULL;
	cg_search_req r;
	cg_facets_req fr;
	const json_t *ex = json_object_get(args, "explain");
	int rc;

	memset(&r, 0, sizeof(r));
	rc = cg_args_check(args, search_args, "argument", err);
	if (rc == 0)
		rc = cg_facets_args(args, &fr, err);
	if (rc == 0)
		rc = cg_args_str(args, "q", &r.text, err);
	if (rc == 0)
		rc = filter_args(args, &r.filters, err);
	if (rc == 0)
		rc = cg_args_int(args, "limit", 0, 1, 500, &r.limit, err);
	if (rc == 0 && ex != NULL && !json_is_boolean(ex))
		rc = cg_err_set(err, CG_EINVAL, "'explain' must be a boolean");
	if (rc == 0)
		rc = scope_args(fed, args, &sources, &r.nsources, &hold, err);
	r.sources = sources;
	r.explain = json_is_true(ex);
	if (r.text == NULL)
		r.text = "";
	if (rc == 0)
		rc = fr.paged ? cg_facets_search(fed, &r, &fr, out, err)
		              : cg_fed_search(fed, &r, out, err);
	free(sources);
	json_decref(hold);
	return rc;
}

/* --- page tools ----------------------------------------------------------- */

static const char *const read_args[] = {"uri", "lines", NULL};
static const char *const peek_args[] = {"uri", "uris", NULL};
static const char *const uri_args[] = {"uri", NULL};
static const char *const name_args[] = {"name", NULL};
static const char *const peek_lists[] = {"uris", NULL};

static int
tool_read(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	int rc = cg_args_check(args, read_args, "argument", err);

	return rc ? rc : cg_fed_read_json(fed, args, out, err);
}

static int
tool_peek(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	int rc = cg_args_check(args, peek_args, "argument", err);

	return rc ? rc : cg_fed_peek_json(fed, args, out, err);
}

static int
tool_links(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	int rc = cg_args_check(args, uri_args, "argument", err);

	return rc ? rc : cg_fed_links_json(fed, args, out, err);
}

static int
tool_resolve(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	int rc = cg_args_check(args, name_args, "argument", err);

	return rc ? rc : cg_fed_resolve_json(fed, args, out, err);
}

/* --- walk tools ----------------------------------------------------------- */

static const char *const list_args[] = {
    "prefix",        "category",  "owner",  "confidence",
    "updated_since", "tag",       "source", "limit",
    "offset",        "workspace", NULL};
static const char *const list_ints[] = {"limit", "offset", NULL};
static const char *const map_args[] = {
    "prefix", "category", "owner",     "confidence", "updated_since",
    "tag",    "source",   "workspace", "budget",     NULL};
static const char *const map_ints[] = {"budget", NULL};
static const char *const grep_args[] = {
    "pattern", "fixed", "case_sensitive", "max",       "prefix", "source",
    "before",  "after", "context",        "workspace", NULL};
static const char *const grep_ints[] = {"max", "before", "after", "context",
                                        NULL};
static const char *const grep_bools[] = {"fixed", "case_sensitive", NULL};
static const char *const status_args[] = {"source", "workspace", NULL};

/* What list and map take alike: only the names in allowed, then the
 * prefix and the filters (the scope is scope_args'). */
static int
tree_args(const json_t *args, const char *const *allowed, const char **prefix,
          cg_filters *f, cg_err *err)
{
	int rc = cg_args_check(args, allowed, "argument", err);

	if (rc == 0)
		rc = cg_args_str(args, "prefix", prefix, err);
	if (rc == 0)
		rc = filter_args(args, f, err);
	return rc;
}

static int
tool_list(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char **sources = NULL;
	json_t *hold = NULL;
	cg_list_req r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = tree_args(args, list_args, &r.prefix, &r.filters, err);
	if (rc == 0)
		rc = cg_args_int(args, "limit", 0, 1, 500, &r.limit, err);
	if (rc == 0)
		rc = cg_args_int(args, "offset", 0, 0, 100000, &r.offset, err);
	if (rc == 0)
		rc = scope_args(fed, args, &sources, &r.nsources, &hold, err);
	r.sources = sources;
	if (rc == 0)
		rc = cg_fed_list(fed, &r, out, err);
	free(sources);
	json_decref(hold);
	return rc;
}

static int
tool_map(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char **sources = NULL;
	json_t *hold = NULL;
	cg_map_req r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = tree_args(args, map_args, &r.prefix, &r.filters, err);
	if (rc == 0)
		rc = cg_args_int(args, "budget", 0, CG_MAP_MIN_BUDGET,
		                 CG_MAP_MAX_BUDGET, &r.budget, err);
	if (rc == 0)
		rc = scope_args(fed, args, &sources, &r.nsources, &hold, err);
	r.sources = sources;
	if (rc == 0)
		rc = cg_fed_map(fed, &r, out, err);
	free(sources);
	json_decref(hold);
	return rc;
}

/* context (both sides), then before and after, which win over it. */
static int
grep_context(const json_t *args, cg_grep_req *r, cg_err *err)
{
	int c = 0;
	int rc =
	    cg_args_int(args, "context", 0, 0, CG_GREP_CONTEXT_LINES, &c, err);

	if (rc == 0)
		rc = cg_args_int(args, "before", c, 0, CG_GREP_CONTEXT_LINES,
		                 &r->before, err);
	if (rc == 0)
		rc = cg_args_int(args, "after", c, 0, CG_GREP_CONTEXT_LINES,
		                 &r->after, err);
	return rc;
}

static int
tool_grep(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char **sources = NULL;
	json_t *hold = NULL;
	cg_grep_req r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = cg_args_check(args, grep_args, "argument", err);
	if (rc == 0)
		rc = cg_args_str(args, "pattern", &r.pattern, err);
	if (rc == 0 && r.pattern == NULL)
		rc = cg_err_set(err, CG_EINVAL, "'pattern' is required");
	if (rc == 0)
		rc = cg_args_bool(args, "fixed", &r.fixed, err);
	if (rc == 0)
		rc = cg_args_bool(args, "case_sensitive", &r.case_sensitive,
		                  err);
	if (rc == 0)
		rc = cg_args_int(args, "max", 0, 1, 10000, &r.max, err);
	if (rc == 0)
		rc = grep_context(args, &r, err);
	if (rc == 0)
		rc = cg_args_str(args, "prefix", &r.prefix, err);
	if (rc == 0)
		rc = scope_args(fed, args, &sources, &r.nsources, &hold, err);
	r.sources = sources;
	if (rc == 0)
		rc = cg_fed_grep(fed, &r, out, err);
	free(sources);
	json_decref(hold);
	return rc;
}

static int
tool_status(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char **sources = NULL;
	json_t *hold = NULL;
	size_t n = 0;
	int rc = cg_args_check(args, status_args, "argument", err);

	if (rc == 0)
		rc = scope_args(fed, args, &sources, &n, &hold, err);
	if (rc == 0)
		rc = cg_fed_status(fed, sources, n, out, err);
	free(sources);
	json_decref(hold);
	return rc;
}

#define SCOPE_SCHEMA                                                      \
	"\"source\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}," \
	"\"description\":\"limit to these sources (name or "              \
	"workspace/name)\"},\"workspace\":{\"type\":\"array\",\"items\":" \
	"{\"type\":\"string\"},\"description\":\"limit to these "         \
	"workspaces\"}"

#define FILTER_SCHEMA                                                   \
	"\"category\":{\"type\":\"string\",\"enum\":[\"context\","      \
	"\"standard\",\"product\",\"entity\",\"concept\",\"decision\"," \
	"\"source\"]},\"owner\":{\"type\":\"string\"},"                 \
	"\"confidence\":{\"type\":\"string\",\"enum\":[\"low\","        \
	"\"medium\",\"high\"]},\"updated_since\":{\"type\":\"string\"," \
	"\"description\":\"YYYY-MM-DD\"},"                              \
	"\"tag\":{\"type\":\"string\"}," SCOPE_SCHEMA

#define URI_SCHEMA                                      \
	"\"uri\":{\"type\":\"string\",\"description\":" \
	"\"cg://<workspace>/<source>/<path> from a search hit\"}"

/* --- the table ------------------------------------------------------------ */

static const cg_api_tool tools[] = {
    {"search", "Search the knowledge base",
     "Search the team's markdown knowledge (guild wikis of every "
     "repository and sub-guild, and the documentation corpora they "
     "register) by words, in English or CJK, with filters. Query "
     "syntax: \"exact phrase\" (only pages with it), -word (drop pages "
     "with it), word* (prefix), a OR b (either). The search "
     "is LEXICAL: an empty result does not prove absence; use "
     "corpus_grep as the exhaustive, never-miss path. Hits carry uri, "
     "source, title, snippet, line_range, match class, confidence, "
     "updated_at; corpus hits also carry corpus (entry, summary, "
     "concepts), stale, and freshness.note when their cache is behind "
     "its remote; conflicts lists pages that disagree; related lists "
     "entries bridged from the hits' concepts.",
     "{\"type\":\"object\",\"properties\":{"
     "\"q\":{\"type\":\"string\",\"description\":\"free text; may be "
     "empty when a filter is set. Syntax: \\\"exact phrase\\\" "
     "(required), -word or -\\\"a phrase\\\" (drops pages holding "
     "it), word* (prefix), a OR b (either); anything else is "
     "words\"}," FILTER_SCHEMA ","
     "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":500,"
     "\"default\":20},"
     "\"explain\":{\"type\":\"boolean\"},"
     "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":499,"
     "\"description\":\"skip this many hits; with it the answer has "
     "total, total_relation and next_offset (offset + limit <= 500)\"},"
     "\"total\":{\"type\":\"boolean\",\"description\":\"count the "
     "whole result (total, total_relation) without offset\"},"
     "\"facets\":{\"type\":\"array\",\"items\":{\"type\":"
     "\"string\",\"description\":\"source, workspace, category, "
     "confidence, owner, tag or match; a comma list is accepted\"},"
     "\"description\":\"count hits by these fields over the whole "
     "result, not only the page\"}},\"required\":[\"q\"],"
     "\"additionalProperties\":false}",
     tool_search, cg_render_search, search_ints, search_bools, search_lists,
     false},
    {"read", "Read a page",
     "Read one page (frontmatter and body, or a line range A:B) by its "
     "uri. Paths outside a source's wiki are refused.",
     "{\"type\":\"object\",\"properties\":{" URI_SCHEMA ","
     "\"lines\":{\"type\":\"string\",\"description\":\"A:B, "
     "1-based inclusive\"}},\"required\":[\"uri\"],"
     "\"additionalProperties\":false}",
     tool_read, cg_render_read, NULL, NULL, NULL, false},
    {"peek", "Peek at pages",
     "Title, tags, heading outline, outgoing links and first line of one "
     "or more pages, without their bodies.",
     "{\"type\":\"object\",\"properties\":{" URI_SCHEMA ","
     "\"uris\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
     "\"additionalProperties\":false}",
     tool_peek, cg_render_peek, NULL, NULL, peek_lists, false},
    {"links", "Links and backlinks",
     "Outgoing links and backlinks of a page, one hop, each resolved to a "
     "uri or listed as unresolved.",
     "{\"type\":\"object\",\"properties\":{" URI_SCHEMA "},"
     "\"required\":[\"uri\"],\"additionalProperties\":false}",
     tool_links, cg_render_links, NULL, NULL, NULL, false},
    {"resolve", "Resolve a name to pages",
     "Find the uri(s) of a page by title, alias, slug, wikilink target "
     "or path.",
     "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
     "\"string\"}},\"required\":[\"name\"],\"additionalProperties\":"
     "false}",
     tool_resolve, cg_render_resolve, NULL, NULL, NULL, false},
    {"list", "List pages",
     "List pages under a prefix (a uri, source/ or folder/), with the "
     "search filters, paged (limit, offset), sorted by uri.",
     "{\"type\":\"object\",\"properties\":{\"prefix\":{\"type\":"
     "\"string\"}," FILTER_SCHEMA ",\"limit\":{\"type\":\"integer\","
     "\"minimum\":1,\"maximum\":500},\"offset\":{\"type\":"
     "\"integer\",\"minimum\":0}},\"additionalProperties\":false}",
     tool_list, cg_render_list, list_ints, NULL, scope_lists, false},
    {"grep", "Grep the page files",
     "Exhaustive regex (PCRE2, Perl syntax as ripgrep: \\d, \\w, \\b, "
     "(?i), lookaround) or literal search over the page files "
     "themselves: the NEVER-MISS path when corpus_search finds nothing. "
     "Case-insensitive unless case_sensitive. Line numbers, optional "
     "context lines (before/after/context), bounded output with a "
     "truncated flag.",
     "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":"
     "\"string\"},\"fixed\":{\"type\":\"boolean\"},"
     "\"case_sensitive\":{\"type\":\"boolean\"},\"max\":{\"type\":"
     "\"integer\",\"minimum\":1,\"maximum\":10000},\"before\":{"
     "\"type\":\"integer\",\"minimum\":0,\"maximum\":10},\"after\":{"
     "\"type\":\"integer\",\"minimum\":0,\"maximum\":10},\"context\":"
     "{\"type\":\"integer\",\"minimum\":0,\"maximum\":10,"
     "\"description\":\"lines before and after each match\"},"
     "\"prefix\":{\"type\":\"string\"}," SCOPE_SCHEMA "},\"required\":"
     "[\"pattern\"],\"additionalProperties\":false}",
     tool_grep, cg_render_grep, grep_ints, grep_bools, scope_lists, true},
    {"map", "Map of sources and titles",
     "The tree of sources, categories and page titles, cut to a "
     "character budget with counts of what was left out.",
     "{\"type\":\"object\",\"properties\":{\"prefix\":{\"type\":"
     "\"string\"}," FILTER_SCHEMA ",\"budget\":{\"type\":\"integer\","
     "\"minimum\":100}},\"additionalProperties\":false}",
     tool_map, cg_render_map, map_ints, NULL, scope_lists, false},
    {"status", "Index and node status",
     "Nodes and sources: health, page counts, index generations and "
     "ages, and each corpus's cached commit and freshness.",
     "{\"type\":\"object\",\"properties\":{" SCOPE_SCHEMA "},"
     "\"additionalProperties\":false}",
     tool_status, cg_render_status, NULL, NULL, scope_lists, false},
};

const char *
cg_api_output_schema(const cg_api_tool *t)
{
	return cg_schema_text(t->name);
}

const cg_api_tool *
cg_api_tools(size_t *n)
{
	*n = sizeof(tools) / sizeof(tools[0]);
	return tools;
}

const cg_api_tool *
cg_api_find(const char *name)
{
	if (strncmp(name, "corpus_", 7) == 0)
		name += 7;
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (strcmp(tools[i].name, name) == 0)
			return &tools[i];
	return NULL;
}

int
cg_api_call(cg_fed *fed, const char *name, const json_t *args, json_t **out,
            cg_err *err)
{
	const cg_api_tool *t = cg_api_find(name);
	json_t *empty = NULL;
	int rc;

	*out = NULL;
	if (t == NULL)
		return cg_err_set(err, CG_ENOTFOUND, "unknown tool '%s'", name);
	if (args == NULL)
		args = empty = json_object();
	rc = t->fn(fed, args, out, err);
	json_decref(empty);
	return rc;
}

int
cg_api_call_as(cg_fed *fed, const cg_acl *acl, const char *name,
               const json_t *args, json_t **out, cg_err *err)
{
	cg_fed *view = NULL;
	int rc;

	*out = NULL;
	if (!cg_acl_active(acl))
		return cg_api_call(fed, name, args, out, err);
	rc = cg_fed_view_new(&view, fed, acl, err);
	if (rc == 0)
		rc = cg_api_call(view, name, args, out, err);
	if (rc == 0)
		(void)cg_access_filter_answer(acl, *out);
	if (rc == CG_EDENIED)
		rc = CG_ENOTFOUND; /* hidden and missing look the same */
	cg_fed_free(view);
	return rc;
}
