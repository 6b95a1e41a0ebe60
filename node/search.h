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
 */
#ifndef CG_SEARCH_H
#define CG_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "cg_err.h"
#include "index.h"
#include "query.h"

typedef struct cg_filters {
	const char *category;      /* singular category */
	const char *owner;         /* case-insensitive equality */
	const char *confidence;    /* low | medium | high */
	const char *updated_since; /* YYYY-MM-DD, inclusive */
	const char *tag;           /* case-insensitive tag equality */
} cg_filters;

/* Validates filters strictly: a plural category names its singular, an
 * unknown one lists the valid values; a bad date or confidence likewise.
 * CG_EINVAL with the message, 0 when valid. */
int cg_filters_validate(const cg_filters *f, cg_err *err);
bool cg_filters_any(const cg_filters *f);
/* Filters as a new JSON object (only the ones set). */
json_t *cg_filters_json(const cg_filters *f);
/* Reads filters from a JSON object; strings stay owned by obj. */
void cg_filters_from_json(cg_filters *f, const json_t *obj);

/* Statistics of a query: local to one index, or summed over many. */
typedef struct cg_gstats {
	int64_t nrows;                  /* section rows */
	int64_t tot[CG_NCOLS];          /* tokens per column */
	size_t nterms;                  /* == query terms */
	int64_t df[CG_QUERY_MAX_TERMS]; /* rows holding term i */
	int64_t df_phrase;              /* rows holding the whole phrase */
} cg_gstats;

int cg_search_stats(cg_index *idx, const cg_query *q, cg_gstats *out,
                    cg_err *err);
void cg_gstats_add(cg_gstats *acc, const cg_gstats *s);
json_t *cg_gstats_json(const cg_gstats *g);
int cg_gstats_from_json(cg_gstats *g, const json_t *obj, size_t nterms);

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
