/*
 * stats.c - collection statistics of a query: summed over sources and
 * carried between the federation and the nodes (see stats.h).
 */
#include "proto/stats.h"

#include <string.h>

void
cg_gstats_add(cg_gstats *acc, const cg_gstats *s)
{
	acc->nrows += s->nrows;
	for (int c = 0; c < CG_NCOLS; c++)
		acc->tot[c] += s->tot[c];
	acc->nterms = s->nterms;
	for (size_t i = 0; i < s->nterms && i < CG_QUERY_MAX_TERMS; i++)
		acc->df[i] += s->df[i];
	acc->df_phrase += s->df_phrase;
}

json_t *
cg_gstats_json(const cg_gstats *g)
{
	json_t *tot = json_array();
	json_t *df = json_array();
	int rc = tot != NULL && df != NULL ? 0 : -1;

	/* NULL, never arrays short of a count (memory ran out). */
	for (int c = 0; rc == 0 && c < CG_NCOLS; c++)
		rc = json_array_append_new(tot, json_integer(g->tot[c]));
	for (size_t i = 0; rc == 0 && i < g->nterms; i++)
		rc = json_array_append_new(df, json_integer(g->df[i]));
	if (rc != 0) {
		json_decref(tot);
		json_decref(df);
		return NULL;
	}
	return json_pack("{s:I, s:o, s:o, s:I}", "nrows", (json_int_t)g->nrows,
	                 "tot", tot, "df", df, "df_phrase",
	                 (json_int_t)g->df_phrase);
}

int
cg_gstats_from_json(cg_gstats *g, const json_t *obj, size_t nterms)
{
	const json_t *tot = json_object_get(obj, "tot");
	const json_t *df = json_object_get(obj, "df");

	memset(g, 0, sizeof(*g));
	if (!json_is_integer(json_object_get(obj, "nrows")) ||
	    json_array_size(tot) != CG_NCOLS || json_array_size(df) != nterms ||
	    nterms > CG_QUERY_MAX_TERMS)
		return CG_EPARSE;
	g->nrows = json_integer_value(json_object_get(obj, "nrows"));
	for (int c = 0; c < CG_NCOLS; c++)
		g->tot[c] = json_integer_value(json_array_get(tot, (size_t)c));
	g->nterms = nterms;
	for (size_t i = 0; i < nterms; i++)
		g->df[i] = json_integer_value(json_array_get(df, i));
	g->df_phrase = json_integer_value(json_object_get(obj, "df_phrase"));
	return 0;
}
