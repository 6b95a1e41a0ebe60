/*
 * stats.h - the collection statistics of a query, as the federation sums
 * them over every source and sends them back with the search, so that a
 * row scores the same wherever it lives (ARCHITECTURE.md, "Ranking and the
 * merge").  The columns are those of a section in every index.
 *
 * May be included by proto/ and every layer above it.
 */
#ifndef CG_STATS_H
#define CG_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "page/query.h"

/* The FTS5 columns of a section, in order. */
enum cg_col {
	CG_COL_TITLE = 0,
	CG_COL_HEADINGS,
	CG_COL_BODY,
	CG_COL_TAGS,
	CG_COL_META,
	CG_NCOLS
};

/* Statistics of a query: local to one index, or summed over many. */
typedef struct cg_gstats {
	int64_t nrows;                  /* section rows */
	int64_t tot[CG_NCOLS];          /* tokens per column */
	size_t nterms;                  /* == query terms */
	int64_t df[CG_QUERY_MAX_TERMS]; /* rows holding term i */
	int64_t df_phrase;              /* rows holding the whole phrase */
} cg_gstats;

/* Adds s to acc (the terms are the same query's). */
void cg_gstats_add(cg_gstats *acc, const cg_gstats *s);
/* As a new JSON object {nrows, tot[], df[], df_phrase}; NULL when memory
 * ran out (never arrays short of a count). */
json_t *cg_gstats_json(const cg_gstats *g);
/* Reads what cg_gstats_json wrote for a query of nterms terms; CG_EPARSE
 * when the shape does not match. */
int cg_gstats_from_json(cg_gstats *g, const json_t *obj, size_t nterms);

#endif
