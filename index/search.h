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
 * A search is a query phase (cg_search_rank: the best pages, with what
 * they are ordered by) and a fetch phase (cg_search_fetch: the hit of a
 * page that made the merged list).  Classes (phrase, all words, some
 * words, frontmatter only) come from one pass; a page is reported once,
 * in its best class, with its best section.  Filters are applied before
 * the limit, never after.
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

/* A page that may make the list: its best section and what it is ordered
 * by (proto/order.h).  Only the pages that made the final list are
 * fetched (cg_search_fetch). */
typedef struct cg_cand {
	int64_t page;        /* page id */
	int64_t rowid;       /* best section; -1 in a filter-only listing */
	double score;        /* in its class, global statistics */
	enum cg_match m;     /* best class */
	char *path;          /* owned; relative to the repository */
	char updated_at[16]; /* YYYY-MM-DD, or "" */
	char confidence[8];  /* low | medium | high, or "" */
	int conf;            /* cg_filters_confidence_rank(confidence) */
} cg_cand;

/* Up to cap candidates, best first. */
typedef struct cg_cands {
	cg_cand *v;
	size_t n;
	size_t cap;
} cg_cands;

void cg_cands_fini(cg_cands *c);

/*
 * The query phase in one source: the best limit pages (filters and the
 * caller's visibility applied before the limit, never after), best first,
 * into *out (caller frees with cg_cands_fini); *walked gains the section
 * rows walked.  With terms, one FTS5 statement whose ranking function
 * tells each row's class (rank.h); without, the filter-only listing
 * (newest first).
 */
int cg_search_rank(cg_index *idx, const cg_search_opts *o, cg_cands *out,
                   int64_t *walked, cg_err *err);

/*
 * The fetch phase: appends candidate c's hit (a JSON object, see
 * ARCHITECTURE.md "The answer") to hits: the page row, its snippet and
 * line range, its corpus facts (fresh: the source's
 * cg_corpus_hits_freshness, read once per request, or NULL).  A page that
 * is gone, or whose id now names another path, adds nothing.  Each hit
 * carries "source" and "path" (relative to the repo); the federation adds
 * workspace and uri.  What the hit teaches about the page (missing raw
 * metadata...) is appended to followups.
 */
int cg_search_fetch(cg_index *idx, const cg_search_opts *o, const cg_cand *c,
                    const json_t *fresh, json_t *hits, json_t *followups,
                    cg_err *err);

/* Both phases at once in one source: its best limit hits, best first. */
int cg_search_run(cg_index *idx, const cg_search_opts *o, json_t *hits,
                  json_t *followups, int64_t *walked, cg_err *err);

/* Appends to out the pages whose claim key is one of keys (a JSON array
 * of strings): {source, path, title, category, updated_at, confidence,
 * supersedes, body_hash, claim_key}. */
int cg_search_claims(cg_index *idx, const json_t *keys, json_t *out,
                     cg_err *err);

/* The hashes (common/cg_fs.h cg_hash64) of every page's claim key, one per
 * page, ascending, as one string of 16 hex digits each: what the
 * federation keeps per epoch to know, without a round, whether a hit's
 * claim key is shared by another page (then it asks for the pages).
 * New reference; NULL when memory runs out. */
json_t *cg_search_claim_hashes(cg_index *idx);

#endif
