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

static double
num(const json_t *h, const char *k)
{
	return json_number_value(json_object_get(h, k));
}

/* SPEC 4.1 order: class, score, updated_at, confidence; uri last. */
static int
cmp_hits(const void *pa, const void *pb)
{
	const json_t *a = *(json_t *const *)pa;
	const json_t *b = *(json_t *const *)pb;
	double d;
	int c;

	d = num(b, "match_rank") - num(a, "match_rank");
	if (d != 0)
		return d > 0 ? 1 : -1;
	d = num(b, "score") - num(a, "score");
	if (d > 1e-9 || d < -1e-9)
		return d > 0 ? 1 : -1;
	c = strcmp(cg_json_str(b, "updated_at"), cg_json_str(a, "updated_at"));
	if (c != 0)
		return c;
	c = cg_filters_confidence_rank(cg_json_str(b, "confidence")) -
	    cg_filters_confidence_rank(cg_json_str(a, "confidence"));
	if (c != 0)
		return c;
	return strcmp(cg_json_str(a, "uri"), cg_json_str(b, "uri"));
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
