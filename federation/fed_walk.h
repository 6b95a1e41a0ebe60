/*
 * fed_walk.h - the federation side of list, map, grep and status: one
 * call to every node in scope (cg_fed_call), one merged answer per tool.
 * Every answer carries "evidence" (sources asked and answered, each
 * node's outcome, degraded) and "followups", like a search answer, and
 * every item names its page (uri, source, path) so that an access filter
 * can drop it.
 *
 * Prefix (list, map, grep) - decisions a reader must know:
 * - "cg://ws/source/path..." scopes to that source, and path... is a
 *   prefix of the page path (percent-decoded); "cg://ws/source" alone is
 *   the whole source.
 * - "name/rest" (or "name") whose first segment is a source name scopes
 *   to that source with "rest" as the path prefix.  A source name wins
 *   over a wiki folder of the same name.
 * - Anything else is a path prefix tried in every source in scope.
 * - A path prefix is a plain string prefix (not a glob, "dec" matches
 *   "decisions/"), matched against the path from the repository root
 *   (".guild/wiki/decisions/") and from the wiki folder ("decisions/").
 *
 * list: sorted by uri; each node returns its first offset+limit items in
 * the same order, the merge sorts them and cuts [offset, offset+limit),
 * so pages never repeat or go missing between pages of results.
 *
 * map: each node returns its sources' categories and first titles; the
 * cut to budget characters is map_plan.h's.
 *
 * grep: the pattern is checked here first (page/grep.h rules: PCRE2), so
 * an invalid regex is CG_EINVAL before any node works.  The merged
 * matches are sorted by uri then line and cut to max, then to
 * CG_GREP_KEEP_BYTES of match and context text (proto/limits.h,
 * "bytes_limited"); "total" is the sum of the per-file counts,
 * "truncated" says matches were left out.  Greps pass the federation's
 * gate (cg_fed_grep_gate): past its bounds a grep is CG_EUNAVAIL (busy,
 * HTTP 503) at once, so heavy greps cannot take every HTTP thread or
 * pile up memory.  A node's error (a pattern that
 * hit a PCRE2 limit on a line) is the answer's error.
 *
 * May be included by federation/ and the layers above it (gateway, cli).
 */
#ifndef CG_FED_WALK_H
#define CG_FED_WALK_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "federation/fed.h"
#include "federation/map_plan.h"
#include "proto/filters.h"

typedef struct cg_list_req {
	const char *prefix;         /* see above; NULL = everything */
	cg_filters filters;         /* as for search */
	const char *const *sources; /* scope, NULL = all */
	size_t nsources;
	int limit;  /* 0 = 50, max 500 */
	int offset; /* 0..100000 */
} cg_list_req;

typedef struct cg_map_req {
	const char *prefix;
	cg_filters filters;
	const char *const *sources;
	size_t nsources;
	int budget; /* characters of the text form; 0 = 4000 */
} cg_map_req;

typedef struct cg_grep_req {
	const char *pattern; /* required */
	bool fixed;
	bool case_sensitive;
	int max;    /* matches returned; 0 = 200, max 10000 */
	int before; /* context lines before each match, 0-10 */
	int after;  /* and after it */
	const char *prefix;
	const char *const *sources;
	size_t nsources;
} cg_grep_req;

/* {prefix, scope, filters, limit, offset, total, next_offset|null,
 *  items[{uri, workspace, source, path, title, category, updated_at,
 *  confidence}], evidence, assumptions, followups} */
int cg_fed_list(cg_fed *fed, const cg_list_req *req, json_t **out, cg_err *err);

/* {prefix, scope, budget, chars, text, pages_total, pages_omitted,
 *  sources[{source, workspace, uri, pages, categories[{category, pages,
 *  titles[{title, uri, source, path}], pages_omitted}],
 *  categories_omitted, pages_in_omitted_categories}], sources_omitted,
 *  pages_in_omitted_sources, evidence, assumptions, followups} */
int cg_fed_map(cg_fed *fed, const cg_map_req *req, json_t **out, cg_err *err);

/* {pattern, fixed, case_sensitive, max, prefix, scope, matches[{uri,
 *  workspace, source, path, line, column, text, clipped?, before?[{line,
 *  text, clipped?}], after?[...]}], total, files_with_matches, truncated,
 *  bytes_limited?, files_searched, bytes_searched,
 *  windowed_lines, skipped[{uri, source, path, reason}], skipped_total,
 *  evidence, assumptions, followups} */
int cg_fed_grep(cg_fed *fed, const cg_grep_req *req, json_t **out, cg_err *err);

/* {workspace, nodes[{node, outcome, sources[per-source status]}],
 *  totals{sources, pages, sections, problems, db_bytes}, evidence,
 *  followups} */
int cg_fed_status(cg_fed *fed, const char *const *sources, size_t nsources,
                  json_t **out, cg_err *err);

#endif
