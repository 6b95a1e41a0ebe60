/*
 * order.h - the one order of search hits (SPEC 4.1): match class (phrase >
 * all words > some words > frontmatter only), then score, then updated_at
 * (newer first), then confidence (high > medium > low > none), then uri.
 * Scores closer than 1e-9 (relative to 1) count as equal, so a score summed
 * in another order on another node still ties.  A node cuts its sources'
 * candidates with it and the federation merges the nodes' with it: both
 * sides must order alike for the merged top k over N nodes to be the top
 * k of one index over the union.
 *
 * May be included by proto/ and every layer above it.
 */
#ifndef CG_ORDER_H
#define CG_ORDER_H

/* What a hit is ordered by; strings are borrowed. */
typedef struct cg_order_key {
	int match;              /* enum cg_match */
	double score;           /* BM25F with the global statistics */
	const char *updated_at; /* YYYY-MM-DD, or "" when unknown */
	int confidence;         /* cg_filters_confidence_rank() */
	const char *uri;        /* or any string that orders like it: within
	                           one workspace, "source/path" */
} cg_order_key;

/* < 0 when a comes first, > 0 when b does, 0 when they are the same. */
int cg_order_cmp(const cg_order_key *a, const cg_order_key *b);

#endif
