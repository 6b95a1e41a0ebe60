/*
 * ops_links.c - the node side of `links`, `backlinks` and `resolve` (see
 * ops.h): argument reading and result assembly over the rules of
 * resolve.h, and the quick test that keeps backlinks from resolving every
 * link of a source.
 *
 * What it must not do: resolve a link any other way than resolve.h does
 * (what `links` shows and `backlinks` counts must agree), or show a link
 * from a page the caller may not see.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_utf8.h"
#include "node/ops.h"
#include "node/pages.h"
#include "node/resolve.h"
#include "proto/acl.h"
#include "proto/limits.h"

/* Matches returned per name by the resolve operation. */
#define RESOLVE_MAX 50

/* --- links ---------------------------------------------------------------- */

int
cg_op_links(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	cg_index *idx;
	const char *path;
	size_t plen;
	json_t *page;
	json_t *out = json_array();
	json_t *target = NULL;
	int64_t id;
	cg_err ierr;
	int rc = cg_page_item(n, args, &idx, &path, &plen, err);

	if (rc != 0) {
		json_decref(out);
		return rc;
	}
	page = json_pack("{s:s, s:s%}", "source", cg_index_source(idx), "path",
	                 path, plen);
	json_object_set_new(res, "page", page);
	json_object_set_new(res, "outgoing", out);
	cg_err_clear(&ierr);
	rc = cg_page_lookup(idx, path, plen, page, &id, &ierr);
	if (rc == 0)
		rc = cg_resolve_outgoing(n, idx, id, path, out, &ierr);
	if (rc == 0)
		rc = cg_resolve_target(idx, path, page, &target, &ierr);
	if (rc == 0) {
		json_object_set_new(res, "target", target);
		return 0;
	}
	json_decref(target);
	return cg_page_item_fail(res, rc, &ierr, err);
}

/* --- backlinks ------------------------------------------------------------ */

/* What a link must resolve to, and the quick test before resolving. */
struct want {
	const char *source;  /* the target page's source */
	const char *path;    /* its path */
	const json_t *names; /* object: names resolving to it (lowercase) */
	json_t *tails;       /* object: last components worth resolving */
	char *slug;          /* lowercase slug */
};

/* The last "/" component of s (lowercase, ".md" dropped) into a new
 * string. */
static char *
tail_of(const char *s)
{
	const char *slash = strrchr(s, '/');

	return cg_resolve_key(slash ? slash + 1 : s);
}

static void
add_tail(json_t *tails, const char *s)
{
	char *t = s ? tail_of(s) : NULL;

	if (t != NULL && *t != '\0')
		json_object_set_new(tails, t, json_true());
	free(t);
}

static int
want_init(struct want *w, const json_t *target, cg_err *err)
{
	const json_t *v;
	size_t i;

	memset(w, 0, sizeof(*w));
	w->source = json_string_value(json_object_get(target, "source"));
	w->path = json_string_value(json_object_get(target, "path"));
	w->names = json_object_get(target, "names");
	if (w->source == NULL || w->path == NULL || !json_is_array(w->names))
		return cg_err_set(err, CG_EINVAL,
		                  "backlinks: target must be {source, path, "
		                  "names[]}");
	w->tails = json_object();
	w->slug = tail_of(w->path);
	add_tail(w->tails, w->path);
	add_tail(w->tails, json_string_value(json_object_get(target, "title")));
	json_array_foreach(json_object_get(target, "aliases"), i, v) {
		add_tail(w->tails, json_string_value(v));
	}
	json_array_foreach(w->names, i, v) {
		add_tail(w->tails, json_string_value(v));
	}
	return w->slug ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");
}

static void
want_fini(struct want *w)
{
	json_decref(w->tails);
	free(w->slug);
}

/* Quick test: could this link name the target at all? */
static bool
candidate(const struct want *w, int kind, const char *target)
{
	char *t;
	bool yes;

	if (kind != 1) {
		char *d = cg_pct_decode(target, strlen(target), false);

		t = d ? tail_of(d) : NULL;
		free(d);
		yes = t != NULL && strcmp(t, w->slug) == 0;
	} else {
		t = tail_of(target);
		yes = t != NULL && json_object_get(w->tails, t) != NULL;
	}
	free(t);
	return yes;
}

/* True when the resolved link lk designates the target. */
static bool
hits_target(const struct want *w, const json_t *lk)
{
	const json_t *r = json_object_get(lk, "remote");
	const char *src;
	const char *name;
	char *key;
	bool yes = false;
	size_t i;
	const json_t *v;

	if (json_is_true(json_object_get(lk, "resolved")))
		return strcmp(json_string_value(json_object_get(lk, "source")),
		              w->source) == 0 &&
		       strcmp(json_string_value(json_object_get(lk, "path")),
		              w->path) == 0;
	src = json_string_value(json_object_get(r, "source"));
	name = json_string_value(json_object_get(r, "name"));
	if (src == NULL || name == NULL || strcmp(src, w->source) != 0)
		return false;
	key = cg_resolve_key(name);
	json_array_foreach(w->names, i, v) {
		yes |= key != NULL && json_is_string(v) &&
		       strcmp(json_string_value(v), key) == 0;
	}
	free(key);
	return yes;
}

static const char *const back_sql =
    "SELECT p.path, p.title, l.kind, l.target, l.anchor, l.text, l.line"
    " FROM links l JOIN pages p ON p.id = l.page_id"
    " ORDER BY p.path, l.line, l.rowid";

/* The links of source t that resolve to the target, appended to out. */
static int
backlinks_of(cg_node *n, cg_index *t, const struct want *w, json_t *out,
             cg_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(cg_index_db(t), back_sql, -1, &st, NULL);

	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *from = (const char *)sqlite3_column_text(st, 0);
		const char *target = (const char *)sqlite3_column_text(st, 3);
		json_t *lk;

		rc = SQLITE_OK;
		if (from == NULL || target == NULL ||
		    !candidate(w, sqlite3_column_int(st, 2), target) ||
		    !cg_acl_allows(cg_index_acl(t), cg_index_source(t), from))
			continue;
		lk = cg_resolve_link(n, t, st, 2, from, err);
		if (lk == NULL) {
			sqlite3_finalize(st);
			return err->code ? err->code : CG_ENOMEM;
		}
		if (hits_target(w, lk)) {
			json_t *b = json_pack(
			    "{s:s, s:s, s:s?, s:O, s:O, s:O?, s:O?, s:O}",
			    "source", cg_index_source(t), "path", from, "title",
			    (const char *)sqlite3_column_text(st, 1), "kind",
			    json_object_get(lk, "kind"), "target",
			    json_object_get(lk, "target"), "anchor",
			    json_object_get(lk, "anchor"), "text",
			    json_object_get(lk, "text"), "line",
			    json_object_get(lk, "line"));

			json_array_append_new(out, b);
		}
		json_decref(lk);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0
	                         : cg_index_query_fail(t, rc, "backlinks", err);
}

int
cg_op_backlinks(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	json_t *out = json_array();
	struct want w;
	int rc;

	json_object_set_new(res, "backlinks", out);
	rc = want_init(&w, json_object_get(args, "target"), err);
	for (size_t i = 0; rc == 0 && i < cg_node_nsources(n); i++) {
		cg_index *t = cg_node_index(n, i);

		if (!cg_node_in_scope(args, cg_node_source_name(n, i)))
			continue;
		rc = cg_node_ready(t, err);
		if (rc == 0)
			rc = backlinks_of(n, t, &w, out, err);
	}
	want_fini(&w);
	return rc;
}

/* --- resolve -------------------------------------------------------------- */

int
cg_op_resolve(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	const json_t *names = json_object_get(args, "names");
	json_t *results = json_array();
	size_t k;
	const json_t *it;
	int rc = 0;

	json_object_set_new(res, "results", results);
	if (!json_is_array(names) ||
	    json_array_size(names) > CG_RESOLVE_MAX_NAMES)
		return cg_err_set(err, CG_EINVAL,
		                  "resolve: names must be an array of at most "
		                  "%d {name, source?}",
		                  CG_RESOLVE_MAX_NAMES);
	json_array_foreach(names, k, it) {
		const char *name =
		    json_string_value(json_object_get(it, "name"));
		const char *only =
		    json_string_value(json_object_get(it, "source"));
		json_t *m = json_array();

		json_array_append_new(results,
		                      json_pack("{s:o}", "matches", m));
		if (name == NULL)
			return cg_err_set(err, CG_EINVAL,
			                  "resolve: item %zu has no name", k);
		for (size_t i = 0; rc == 0 && i < cg_node_nsources(n); i++) {
			const char *s = cg_node_source_name(n, i);

			if (!cg_node_in_scope(args, s) ||
			    (only != NULL && strcmp(only, s) != 0))
				continue;
			rc = cg_node_ready(cg_node_index(n, i), err);
			if (rc == 0)
				rc = cg_resolve_find(cg_node_index(n, i), name,
				                     NULL, RESOLVE_MAX, m, err);
		}
		if (rc != 0)
			return rc;
	}
	return 0;
}
