/*
 * search.h - search inside one source's index, scored with global
 * statistics, plus the small lookups the federation needs (claim keys).
 *
 * The federation asks every source for its local statistics of a query
 * (cg_search_stats), sums them, and sends the sums back with the search
 * (cg_search_run).  Scores then depend only on the row and the union, so
 * the merged order over any split of the pages is the order one index over
 * all of them would give.
 *
 * Match classes are tried in order (phrase, all words, some words,
 * frontmatter only); a page is reported once, in its best class, with its
 * best section.  Filters are applied in SQL before the limit, never after.
 *
 * May be included by index/ and the layers above it (node, gateway, cli).
 */
#ifndef CG_SEARCH_H
#define CG_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

#include "common/cg_err.h"
#include "index/index.h"
#include "page/query.h"
#include "proto/filters.h"
#include "proto/stats.h"

/* The request's filters in SQL, applied before any limit, never after:
 * " AND ..." conditions over the pages table aliased p, with the caller's
 * visibility (cg_visible), taking parameters ?2 to ?6 (a statement keeps
 * ?1 for itself and numbers its own from ?7).  Every query that filters
 * pages (search here, list and map in node/) uses this one clause. */
#define CG_SEARCH_FILTER_SQL                                          \
	" AND (?2 IS NULL OR p.category = ?2)"                        \
	" AND (?3 IS NULL OR lower(p.owner) = lower(?3))"             \
	" AND (?4 IS NULL OR p.confidence = ?4)"                      \
	" AND (?5 IS NULL OR p.updated_at >= ?5)"                     \
	" AND (?6 IS NULL OR EXISTS (SELECT 1 FROM json_each(p.tags)" \
	"      WHERE lower(json_each.value) = lower(?6)))"            \
	" AND cg_visible(p.path)"

/* Binds f to ?2..?6 of a statement built with CG_SEARCH_FILTER_SQL. */
void cg_search_filter_bind(sqlite3_stmt *st, const cg_filters *f);

int cg_search_stats(cg_index *idx, const cg_query *q, cg_gstats *out,
                    cg_err *err);

typedef struct cg_search_opts {
	const cg_query *q; /* may have n == 0 when filters are set */
	const cg_filters *f;
	const cg_gstats *g; /* global statistics */
	int limit;          /* pages to return at most */
	bool explain;
} cg_search_opts;

/*
 * Appends up to limit hits (JSON objects, see ARCHITECTURE.md "Hit") to
 * hits, best first, and adds the number of section rows walked to
 * *walked.  Each hit carries "source" and "path" (relative to the repo);
 * the federation adds workspace and uri.  What the hits teach about the
 * pages (missing raw metadata...) is appended to followups.
 */
int cg_search_run(cg_index *idx, const cg_search_opts *o, json_t *hits,
                  json_t *followups, int64_t *walked, cg_err *err);

/* Appends to out the pages whose claim key is one of keys (a JSON array
 * of strings): {source, path, title, category, updated_at, confidence,
 * supersedes, body_hash, claim_key}. */
int cg_search_claims(cg_index *idx, const json_t *keys, json_t *out,
                     cg_err *err);

#endif
