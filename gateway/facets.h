/*
 * facets.h - paging and facets for the search tool: `offset`, `total` and
 * `facets` (the HTTP API's conventions, Meilisearch/Elasticsearch style).
 *
 * A paged search (one that names offset, facets or total=true) is run over
 * a window of the best CG_FACETS_WINDOW pages of the whole result (the
 * federation's largest limit); total and the facet counts are counted over
 * that window, never over the page returned, and the page is the window's
 * [offset, offset+limit).  The merge order is total (class, score, date,
 * confidence, uri), so pages of one unchanged index neither repeat nor
 * skip.  total_relation says "eq" when the window holds the whole result,
 * "gte" when the result may be larger (as Elasticsearch's
 * hits.total.relation).  offset + limit may not pass the window.
 *
 * Facet fields (decided here): source (workspace/source), workspace,
 * category, confidence, owner, tag (lower-cased; a page counts once per
 * tag) and match (the match class).  A hit without the field is not
 * counted.  The counts come from hits the caller may see (the nodes filter
 * with the caller's policy before the window is cut), so a restricted
 * token never sees a name of a source it cannot read.
 *
 * May be included by gateway/ only (api.c's search tool).
 */
#ifndef CG_FACETS_H
#define CG_FACETS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "federation/fed.h"
#include "federation/fed_search.h"

#define CG_FACETS_WINDOW 500
#define CG_FACETS_MAX    7 /* fields in one request */

typedef struct cg_facets_req {
	bool paged; /* offset, facets or total=true was given */
	int offset;
	const char *fields[CG_FACETS_MAX]; /* borrowed from the arguments */
	size_t nfields;
} cg_facets_req;

/* Reads "offset", "facets" (a list; each item may hold several names
 * separated by commas) and "total" from args.  CG_EINVAL names the valid
 * facet fields. */
int cg_facets_args(const json_t *args, cg_facets_req *fr, cg_err *err);

/* Runs r over the window and cuts the page: the answer of cg_fed_search
 * with hits = the page, limit and offset as asked, total,
 * total_relation, next_offset (null on the last page), facets ({field:
 * {value: count}}, most frequent first, only when asked) and conflicts
 * only those touching a hit of the page. */
int cg_facets_search(cg_fed *fed, const cg_search_req *r,
                     const cg_facets_req *fr, json_t **out, cg_err *err);

#endif
