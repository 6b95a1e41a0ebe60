/*
 * filters.h - the search filters of SPEC 4.1 (category, owner, confidence,
 * updated_since, tag): strict validation, and their JSON form in a search
 * request (args.filters).  Filters are applied by the nodes in SQL before
 * any limit.
 *
 * May be included by proto/ and every layer above it.
 */
#ifndef CG_FILTERS_H
#define CG_FILTERS_H

#include <stdbool.h>

#include <jansson.h>

#include "common/cg_err.h"

typedef struct cg_filters {
	const char *category;      /* singular category */
	const char *owner;         /* case-insensitive equality */
	const char *confidence;    /* low | medium | high */
	const char *updated_since; /* YYYY-MM-DD, inclusive */
	const char *tag;           /* case-insensitive tag equality */
} cg_filters;

/* The order of a confidence: 1 low, 2 medium, 3 high, 0 for NULL or
 * anything else (an invalid confidence, for filters).  Ranks a page's
 * confidence wherever pages are ordered by it (the index's conf_rank
 * column, the conflict rule's tie-break). */
int cg_filters_confidence_rank(const char *c);

/* Validates filters strictly: a plural category names its singular, an
 * unknown one lists the valid values; a bad date or confidence likewise.
 * CG_EINVAL with the message, 0 when valid. */
int cg_filters_validate(const cg_filters *f, cg_err *err);
bool cg_filters_any(const cg_filters *f);
/* Filters as a new JSON object (only the ones set). */
json_t *cg_filters_json(const cg_filters *f);
/* Reads filters from a JSON object; strings stay owned by obj. */
void cg_filters_from_json(cg_filters *f, const json_t *obj);

#endif
