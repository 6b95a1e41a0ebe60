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

/* --- search --------------------------------------------------------------- */

static const char *const search_args[] = {
    "q",   "category", "owner", "confidence", "updated_since",
    "tag", "source",   "limit", "explain",    NULL};
static const char *const search_ints[] = {"limit", NULL};
static const char *const search_bools[] = {"explain", NULL};
static const char *const search_lists[] = {"source", NULL};

static int
tool_search(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char *sources[64];
	cg_search_req r;
	const json_t *ex = json_object_get(args, "explain");
	int rc;

	memset(&r, 0, sizeof(r));
	rc = cg_args_check(args, search_args, "argument", err);
	if (rc == 0)
		rc = cg_args_str(args, "q", &r.text, err);
	if (rc == 0)
		rc = filter_args(args, &r.filters, err);
	if (rc == 0)
		rc =
		    cg_args_list(args, "source", sources, 64, &r.nsources, err);
	if (rc == 0)
		rc = cg_args_int(args, "limit", 0, 1, 500, &r.limit, err);
	if (rc == 0 && ex != NULL && !json_is_boolean(ex))
		rc = cg_err_set(err, CG_EINVAL, "'explain' must be a boolean");
	if (rc != 0)
		return rc;
	r.sources = sources;
	r.explain = json_is_true(ex);
	if (r.text == NULL)
		r.text = "";
	return cg_fed_search(fed, &r, out, err);
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
    "prefix", "category", "owner", "confidence", "updated_since",
    "tag",    "source",   "limit", "offset",     NULL};
static const char *const list_ints[] = {"limit", "offset", NULL};
static const char *const map_args[] = {"prefix",     "category",      "owner",
                                       "confidence", "updated_since", "tag",
                                       "source",     "budget",        NULL};
static const char *const map_ints[] = {"budget", NULL};
static const char *const grep_args[] = {
    "pattern", "fixed", "case_sensitive", "max", "prefix", "source", NULL};
static const char *const grep_ints[] = {"max", NULL};
static const char *const grep_bools[] = {"fixed", "case_sensitive", NULL};
static const char *const status_args[] = {"source", NULL};

/* What list and map take alike: only the names in allowed, then the
 * prefix, the filters and up to 64 sources. */
static int
tree_args(const json_t *args, const char *const *allowed, const char **prefix,
          cg_filters *f, const char **sources, size_t *nsources, cg_err *err)
{
	int rc = cg_args_check(args, allowed, "argument", err);

	if (rc == 0)
		rc = cg_args_str(args, "prefix", prefix, err);
	if (rc == 0)
		rc = filter_args(args, f, err);
	if (rc == 0)
		rc = cg_args_list(args, "source", sources, 64, nsources, err);
	return rc;
}

static int
tool_list(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char *sources[64];
	cg_list_req r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = tree_args(args, list_args, &r.prefix, &r.filters, sources,
	               &r.nsources, err);
	if (rc == 0)
		rc = cg_args_int(args, "limit", 0, 1, 500, &r.limit, err);
	if (rc == 0)
		rc = cg_args_int(args, "offset", 0, 0, 100000, &r.offset, err);
	r.sources = sources;
	return rc ? rc : cg_fed_list(fed, &r, out, err);
}

static int
tool_map(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char *sources[64];
	cg_map_req r;
	int rc;

	memset(&r, 0, sizeof(r));
	rc = tree_args(args, map_args, &r.prefix, &r.filters, sources,
	               &r.nsources, err);
	if (rc == 0)
		rc = cg_args_int(args, "budget", 0, CG_MAP_MIN_BUDGET,
		                 CG_MAP_MAX_BUDGET, &r.budget, err);
	r.sources = sources;
	return rc ? rc : cg_fed_map(fed, &r, out, err);
}

static int
tool_grep(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char *sources[64];
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
		rc = cg_args_str(args, "prefix", &r.prefix, err);
	if (rc == 0)
		rc =
		    cg_args_list(args, "source", sources, 64, &r.nsources, err);
	r.sources = sources;
	return rc ? rc : cg_fed_grep(fed, &r, out, err);
}

static int
tool_status(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char *sources[64];
	size_t n = 0;
	int rc = cg_args_check(args, status_args, "argument", err);

	if (rc == 0)
		rc = cg_args_list(args, "source", sources, 64, &n, err);
	return rc ? rc : cg_fed_status(fed, sources, n, out, err);
}

#define FILTER_SCHEMA                                                    \
	"\"category\":{\"type\":\"string\",\"enum\":[\"context\","       \
	"\"standard\",\"product\",\"entity\",\"concept\",\"decision\","  \
	"\"source\"]},\"owner\":{\"type\":\"string\"},"                  \
	"\"confidence\":{\"type\":\"string\",\"enum\":[\"low\","         \
	"\"medium\",\"high\"]},\"updated_since\":{\"type\":\"string\"}," \
	"\"tag\":{\"type\":\"string\"},\"source\":{\"type\":\"array\","  \
	"\"items\":{\"type\":\"string\"}}"

#define URI_SCHEMA                                      \
	"\"uri\":{\"type\":\"string\",\"description\":" \
	"\"cg://<workspace>/<source>/<path> from a search hit\"}"

/* --- the table ------------------------------------------------------------ */

static const cg_api_tool tools[] = {
    {"search",
     "Search the team's markdown knowledge (guild wikis of every "
     "repository and sub-guild, and the documentation corpora they "
     "register) by words, in English or CJK, with filters. The search "
     "is LEXICAL: an empty result does not prove absence; use "
     "corpus_grep as the exhaustive, never-miss path. Hits carry uri, "
     "source, title, snippet, line_range, match class, confidence, "
     "updated_at; corpus hits also carry corpus (entry, summary, "
     "concepts), stale, and freshness.note when their cache is behind "
     "its remote; conflicts lists pages that disagree; related lists "
     "entries bridged from the hits' concepts.",
     "{\"type\":\"object\",\"properties\":{"
     "\"q\":{\"type\":\"string\",\"description\":\"free text\"},"
     "\"category\":{\"type\":\"string\",\"enum\":[\"context\","
     "\"standard\",\"product\",\"entity\",\"concept\",\"decision\","
     "\"source\"]},"
     "\"owner\":{\"type\":\"string\"},"
     "\"confidence\":{\"type\":\"string\",\"enum\":[\"low\",\"medium\","
     "\"high\"]},"
     "\"updated_since\":{\"type\":\"string\",\"description\":"
     "\"YYYY-MM-DD\"},"
     "\"tag\":{\"type\":\"string\"},"
     "\"source\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
     "\"description\":\"limit to these sources (name or "
     "workspace/name)\"},"
     "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":500,"
     "\"default\":20},"
     "\"explain\":{\"type\":\"boolean\"}},"
     "\"additionalProperties\":false}",
     tool_search, search_ints, search_bools, search_lists},
    {"read",
     "Read one page (frontmatter and body, or a line range A:B) by its "
     "uri. Paths outside a source's wiki are refused.",
     "{\"type\":\"object\",\"properties\":{" URI_SCHEMA ","
     "\"lines\":{\"type\":\"string\",\"description\":\"A:B, "
     "1-based inclusive\"}},\"required\":[\"uri\"],"
     "\"additionalProperties\":false}",
     tool_read, NULL, NULL, NULL},
    {"peek",
     "Title, tags, heading outline, outgoing links and first line of one "
     "or more pages, without their bodies.",
     "{\"type\":\"object\",\"properties\":{" URI_SCHEMA ","
     "\"uris\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
     "\"additionalProperties\":false}",
     tool_peek, NULL, NULL, peek_lists},
    {"links",
     "Outgoing links and backlinks of a page, one hop, each resolved to a "
     "uri or listed as unresolved.",
     "{\"type\":\"object\",\"properties\":{" URI_SCHEMA "},"
     "\"required\":[\"uri\"],\"additionalProperties\":false}",
     tool_links, NULL, NULL, NULL},
    {"resolve",
     "Find the uri(s) of a page by title, alias, slug, wikilink target "
     "or path.",
     "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
     "\"string\"}},\"required\":[\"name\"],\"additionalProperties\":"
     "false}",
     tool_resolve, NULL, NULL, NULL},
    {"list",
     "List pages under a prefix (a uri, source/ or folder/), with the "
     "search filters, paged (limit, offset), sorted by uri.",
     "{\"type\":\"object\",\"properties\":{\"prefix\":{\"type\":"
     "\"string\"}," FILTER_SCHEMA ",\"limit\":{\"type\":\"integer\","
     "\"minimum\":1,\"maximum\":500},\"offset\":{\"type\":"
     "\"integer\",\"minimum\":0}},\"additionalProperties\":false}",
     tool_list, list_ints, NULL, search_lists},
    {"grep",
     "Exhaustive regex (POSIX ERE) or literal search over the page files "
     "themselves: the NEVER-MISS path when corpus_search finds nothing. "
     "Line numbers, bounded output with a truncated flag.",
     "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":"
     "\"string\"},\"fixed\":{\"type\":\"boolean\"},"
     "\"case_sensitive\":{\"type\":\"boolean\"},\"max\":{\"type\":"
     "\"integer\",\"minimum\":1,\"maximum\":10000},\"prefix\":"
     "{\"type\":\"string\"},\"source\":{\"type\":\"array\","
     "\"items\":{\"type\":\"string\"}}},\"required\":[\"pattern\"],"
     "\"additionalProperties\":false}",
     tool_grep, grep_ints, grep_bools, search_lists},
    {"map",
     "The tree of sources, categories and page titles, cut to a "
     "character budget with counts of what was left out.",
     "{\"type\":\"object\",\"properties\":{\"prefix\":{\"type\":"
     "\"string\"}," FILTER_SCHEMA ",\"budget\":{\"type\":\"integer\","
     "\"minimum\":100}},\"additionalProperties\":false}",
     tool_map, map_ints, NULL, search_lists},
    {"status",
     "Nodes and sources: health, page counts, index generations and "
     "ages, and each corpus's cached commit and freshness.",
     "{\"type\":\"object\",\"properties\":{\"source\":{\"type\":"
     "\"array\",\"items\":{\"type\":\"string\"}}},"
     "\"additionalProperties\":false}",
     tool_status, NULL, NULL, search_lists},
};

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
