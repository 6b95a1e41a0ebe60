/*
 * merge.c - the hit order and the cut to the limit (see merge.h).  Pure:
 * no I/O, no allocation beyond the result array and a scratch vector.
 */
#include "federation/merge.h"

#include <stdlib.h>
#include <string.h>

#include "common/cg_json.h"
#include "federation/conflict.h"
#include "proto/filters.h"
#include "proto/order.h"

static double
num(const json_t *h, const char *k)
{
	return json_number_value(json_object_get(h, k));
}

/* The hit order of proto/order.h over the hits' JSON fields. */
static cg_order_key
key_of(const json_t *h)
{
	cg_order_key k = {
	    (int)num(h, "match_rank"), num(h, "score"),
	    cg_json_str(h, "updated_at"),
	    cg_filters_confidence_rank(cg_json_str(h, "confidence")),
	    cg_json_str(h, "uri")};

	return k;
}

static int
cmp_hits(const void *pa, const void *pb)
{
	cg_order_key a = key_of(*(json_t *const *)pa);
	cg_order_key b = key_of(*(json_t *const *)pb);

	return cg_order_cmp(&a, &b);
}

json_t *
cg_merge_slice(const json_t *a, int (*cmp)(const void *, const void *),
               size_t from, size_t n)
{
	size_t len = json_array_size(a);
	json_t **v = calloc(len ? len : 1, sizeof(json_t *));
	json_t *out = json_array();

	if (v == NULL || out == NULL) {
		free(v);
		json_decref(out);
		return NULL;
	}
	for (size_t i = 0; i < len; i++)
		v[i] = json_array_get(a, i);
	qsort(v, len, sizeof(json_t *), cmp);
	for (size_t i = from; i < len && i - from < n; i++)
		json_array_append(out, v[i]);
	free(v);
	return out;
}

json_t *
cg_merge_hits(const json_t *hits, int limit)
{
	return cg_merge_slice(hits, cmp_hits, 0, limit > 0 ? (size_t)limit : 0);
}
