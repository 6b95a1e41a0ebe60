/*
 * facets.c - the paged search of facets.h: one federated search over the
 * window, then counts and a cut.  It must not rank, filter or re-check
 * access itself: the federation orders, the nodes filter with the caller's
 * policy, api.c re-checks the answer.
 */
#include "gateway/facets.h"

#include <stdlib.h>
#include <string.h>

#include "common/cg_args.h"
#include "common/cg_json.h"

/* The fields that may be faceted (facets.h), in the order of the message. */
static const char *const facet_names[] = {"source",     "workspace", "category",
                                          "confidence", "owner",     "tag",
                                          "match",      NULL};

/* The static name equal to s[0..n), or NULL. */
static const char *
facet_name(const char *s, size_t n)
{
	for (size_t i = 0; facet_names[i] != NULL; i++)
		if (strlen(facet_names[i]) == n &&
		    strncmp(facet_names[i], s, n) == 0)
			return facet_names[i];
	return NULL;
}

/* Adds the comma-separated names of item to fr (a repeated name once). */
static int
add_fields(cg_facets_req *fr, const char *item, cg_err *err)
{
	const char *p = item;

	for (;;) {
		size_t n = strcspn(p, ",");
		const char *name = facet_name(p, n);
		bool seen = false;

		if (name == NULL)
			return cg_err_set(
			    err, CG_EINVAL,
			    "unknown facet '%.*s' (valid: source, "
			    "workspace, category, confidence, "
			    "owner, tag, match)",
			    (int)(n > 64 ? 64 : n), p);
		for (size_t i = 0; i < fr->nfields; i++)
			seen |= fr->fields[i] == name;
		if (!seen)
			fr->fields[fr->nfields++] = name;
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

int
cg_facets_args(const json_t *args, cg_facets_req *fr, cg_err *err)
{
	const char *items[CG_FACETS_MAX];
	size_t n = 0;
	bool total = false;
	int rc;

	memset(fr, 0, sizeof(*fr));
	rc = cg_args_int(args, "offset", 0, 0, CG_FACETS_WINDOW - 1,
	                 &fr->offset, err);
	if (rc == 0)
		rc = cg_args_bool(args, "total", &total, err);
	if (rc == 0)
		rc =
		    cg_args_list(args, "facets", items, CG_FACETS_MAX, &n, err);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = add_fields(fr, items[i], err);
	fr->paged = json_object_get(args, "offset") != NULL || total || n > 0;
	return rc;
}

/* --- counting ------------------------------------------------------------- */

/* A page counts once per tag, whatever the case it was written in. */
static void
count_tags(json_t *counts, const json_t *hit)
{
	json_t *seen = json_object();
	size_t i;
	const json_t *tag;

	json_array_foreach(json_object_get(hit, "tags"), i, tag) {
		char *low =
		    json_is_string(tag) ? strdup(json_string_value(tag)) : NULL;

		if (low == NULL)
			continue;
		for (char *c = low; *c != '\0'; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		if (json_object_get(seen, low) == NULL) {
			json_object_set_new(seen, low, json_true());
			cg_json_bump(counts, low);
		}
		free(low);
	}
	json_decref(seen);
}

/* Counts one hit's value(s) of field. */
static void
count_hit(json_t *counts, const char *field, const json_t *hit)
{
	const json_t *v;

	if (strcmp(field, "tag") == 0) {
		count_tags(counts, hit);
	} else if (strcmp(field, "source") == 0) {
		const char *ws =
		    json_string_value(json_object_get(hit, "workspace"));
		const char *src =
		    json_string_value(json_object_get(hit, "source"));
		json_t *key = ws && src ? json_sprintf("%s/%s", ws, src) : NULL;

		if (key != NULL)
			cg_json_bump(counts, json_string_value(key));
		json_decref(key);
	} else {
		v = json_object_get(hit, field);
		if (json_is_string(v))
			cg_json_bump(counts, json_string_value(v));
	}
}

struct pair {
	const char *value;
	json_int_t n;
};

static int
pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a;
	const struct pair *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->value, y->value);
}

/* counts as a new object, most frequent first, then by value. */
static json_t *
sorted(const json_t *counts)
{
	size_t n = json_object_size(counts);
	struct pair *v = calloc(n ? n : 1, sizeof(*v));
	json_t *out = json_object();
	const char *key;
	json_t *c;
	size_t i = 0;

	if (v == NULL || out == NULL) {
		free(v);
		json_decref(out);
		return NULL;
	}
	json_object_foreach((json_t *)counts, key, c)
		v[i++] = (struct pair){key, json_integer_value(c)};
	qsort(v, n, sizeof(*v), pair_cmp);
	for (i = 0; i < n; i++)
		json_object_set_new(out, v[i].value, json_integer(v[i].n));
	free(v);
	return out;
}

static json_t *
count_facets(const cg_facets_req *fr, const json_t *hits)
{
	json_t *out = json_object();

	for (size_t f = 0; out != NULL && f < fr->nfields; f++) {
		json_t *counts = json_object();
		size_t i;
		const json_t *hit;

		json_array_foreach(hits, i, hit)
			count_hit(counts, fr->fields[f], hit);
		json_object_set_new(out, fr->fields[f], sorted(counts));
		json_decref(counts);
	}
	return out;
}

/* --- the page ------------------------------------------------------------- */

/* Whether conflict c lists a page whose uri is one of the page's hits. */
static bool
touches(const json_t *c, const json_t *page)
{
	size_t i;
	size_t j;
	const json_t *p;
	const json_t *h;

	json_array_foreach(json_object_get(c, "pages"), i, p) {
		const char *u = json_string_value(json_object_get(p, "uri"));

		json_array_foreach(page, j, h) {
			const char *hu =
			    json_string_value(json_object_get(h, "uri"));

			if (u != NULL && hu != NULL && strcmp(u, hu) == 0)
				return true;
		}
	}
	return false;
}

static json_t *
page_conflicts(const json_t *all, const json_t *page)
{
	json_t *out = json_array();
	size_t i;
	const json_t *c;

	json_array_foreach(all, i, c)
		if (touches(c, page))
			json_array_append(out, (json_t *)c);
	return out;
}

/* Cuts ans (the window's answer) to the page and adds the counts. */
static void
cut(json_t *ans, const cg_facets_req *fr, int limit)
{
	json_t *hits = json_object_get(ans, "hits");
	size_t total = json_array_size(hits);
	size_t end = (size_t)fr->offset + (size_t)limit;
	json_t *page = json_array();

	if (fr->nfields > 0)
		json_object_set_new(ans, "facets", count_facets(fr, hits));
	for (size_t i = (size_t)fr->offset; i < end && i < total; i++)
		json_array_append(page, json_array_get(hits, i));
	json_object_set_new(
	    ans, "conflicts",
	    page_conflicts(json_object_get(ans, "conflicts"), page));
	json_object_set_new(json_object_get(ans, "evidence"), "hits_returned",
	                    json_integer((json_int_t)json_array_size(page)));
	json_object_set_new(ans, "hits", page);
	json_object_set_new(ans, "limit", json_integer(limit));
	json_object_set_new(ans, "offset", json_integer(fr->offset));
	json_object_set_new(ans, "total", json_integer((json_int_t)total));
	json_object_set_new(
	    ans, "total_relation",
	    json_string(total < CG_FACETS_WINDOW ? "eq" : "gte"));
	json_object_set_new(ans, "next_offset",
	                    end < total ? json_integer((json_int_t)end)
	                                : json_null());
}

int
cg_facets_search(cg_fed *fed, const cg_search_req *r, const cg_facets_req *fr,
                 json_t **out, cg_err *err)
{
	cg_search_req w = *r;
	int limit = r->limit > 0 ? r->limit : 20; /* the search's default */
	int rc;

	*out = NULL;
	if (fr->offset + limit > CG_FACETS_WINDOW)
		return cg_err_set(err, CG_EINVAL,
		                  "offset + limit is %d: at most %d (total and "
		                  "facets are counted over the best %d pages)",
		                  fr->offset + limit, CG_FACETS_WINDOW,
		                  CG_FACETS_WINDOW);
	w.limit = CG_FACETS_WINDOW;
	rc = cg_fed_search(fed, &w, out, err);
	if (rc == 0)
		cut(*out, fr, limit);
	return rc;
}
