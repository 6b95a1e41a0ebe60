/*
 * merge.h - the order of a search's hits across nodes and the cut to the
 * limit (SPEC 4.1): match class first (match_rank, higher first), then
 * score (higher first; scores within 1e-9 are equal), then updated_at
 * (newer first, as strings: ISO dates compare in order), then confidence
 * (high > medium > low > none), and the uri last, so the order is total
 * and the answer stable.  Every source returns its own top hits scored
 * with the global statistics, so one order ranks them all.  The
 * sort-and-cut under it (cg_merge_slice) also pages list and grep answers
 * and orders name matches.
 *
 * Pure: no I/O, works on the JSON the nodes returned; it must not change
 * a hit.  May be included by federation/ and the layers above it
 * (gateway, cli).
 */
#ifndef CG_MERGE_H
#define CG_MERGE_H

#include <stddef.h>

#include <jansson.h>

/* A new array holding the first limit hits of hits (borrowed) in merge
 * order; the hits themselves are shared, not copied.  limit <= 0 gives an
 * empty array; NULL only when memory ran out. */
json_t *cg_merge_hits(const json_t *hits, int limit);

/* A new array of the items of a (borrowed; shared, not copied) that hold
 * the positions [from, from + n) once a is sorted with cmp (a qsort
 * comparator over json_t *); a itself is left as it was.  NULL only when
 * memory ran out.  The one sort-and-cut of the federation's merges. */
json_t *cg_merge_slice(const json_t *a, int (*cmp)(const void *, const void *),
                       size_t from, size_t n);

#endif
