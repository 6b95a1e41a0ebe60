/*
 * resolve.c - link resolution on a node (see resolve.h for the rules):
 * names to pages through one SQL lookup, Markdown destinations through
 * path normalisation, and a page's outgoing links and link names.
 *
 * What it must not do: read page files (everything comes from the index:
 * pages and links tables), find a page by name that the caller may not
 * see, or decide about a source it does not hold (a "source/name" link to
 * another node's source is handed to the federation as "remote").
 */
#define _GNU_SOURCE
#include "node/resolve.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cg_buf.h"
#include "common/cg_utf8.h"
#include "node/pages.h"
#include "proto/acl.h"

static const char *const match_names[] = {"path", "slug", "title", "alias"};

/* --- small string helpers ----------------------------------------------- */

/* A malloc'd ASCII-lowercase copy of the first n bytes of s (SQLite's
 * lower() folds ASCII only: the two must agree). */
static char *
lower_n(const char *s, size_t n)
{
	char *o = strndup(s, n);

	for (size_t i = 0; o != NULL && o[i] != '\0'; i++)
		if (o[i] >= 'A' && o[i] <= 'Z')
			o[i] = (char)(o[i] - 'A' + 'a');
	return o;
}

/* Length of s without a trailing ".md" (any case). */
static size_t
strip_md(const char *s)
{
	size_t n = strlen(s);

	if (n > 3 && strncasecmp(s + n - 3, ".md", 3) == 0)
		return n - 3;
	return n;
}

char *
cg_resolve_key(const char *name)
{
	return lower_n(name, strip_md(name));
}

/* The folder of a repo-relative path, with its trailing "/" ("" at the
 * top), malloc'd. */
static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return strndup(path, slash ? (size_t)(slash - path) + 1 : 0);
}

/*
 * dest (a relative markdown destination, decoded) normalised against the
 * folder of from; malloc'd, or NULL when it climbs above the repository
 * root or is empty.
 */
static char *
md_normalise(const char *from, const char *dest)
{
	cg_buf b;
	char *d = dir_of(from);
	const char *p;

	if (d == NULL)
		return NULL;
	cg_buf_init(&b, CG_PAGE_PATH_MAX);
	(void)cg_buf_puts(&b, d);
	free(d);
	for (p = dest; *p != '\0';) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *s;

			if (b.len == 0) {
				cg_buf_fini(&b);
				return NULL;
			}
			b.data[--b.len] = '\0'; /* the trailing "/" */
			s = strrchr(b.data, '/');
			b.len = s ? (size_t)(s - b.data) + 1 : 0;
			b.data[b.len] = '\0';
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			(void)cg_buf_append(&b, p, n);
			if (p[n] == '/')
				(void)cg_buf_putc(&b, '/');
		}
		p += n + (p[n] == '/');
	}
	while (b.len > 0 && b.data[b.len - 1] == '/')
		b.data[--b.len] = '\0';
	if (b.len == 0) {
		cg_buf_fini(&b);
		return NULL;
	}
	return cg_buf_take(&b);
}

/* --- finding pages by name ---------------------------------------------- */

static const char *const find_sql =
    "SELECT path, title, category, CASE"
    " WHEN ?1 IS NOT NULL AND (lower(path) = ?1 OR lower(path) = ?2"
    "  OR substr(lower(path), -length(?3)) = ?3) THEN 0"
    " WHEN lower(slug) = ?4 THEN 1 WHEN lower(title) = ?5 THEN 2"
    " ELSE 3 END AS r FROM pages"
    " WHERE (?1 IS NOT NULL AND (lower(path) = ?1 OR lower(path) = ?2"
    "  OR substr(lower(path), -length(?3)) = ?3))"
    " OR lower(slug) = ?4 OR lower(title) = ?5"
    " OR EXISTS (SELECT 1 FROM json_each(pages.aliases) j"
    "  WHERE lower(j.value) = ?5)"
    " ORDER BY r, rtrim(path, replace(path, '/', '')) IS ?6 DESC,"
    " length(path) - length(replace(path, '/', '')), path LIMIT ?7";

/* The parameters of find_sql for name. */
struct find_keys {
	char *exact;  /* ?1 lowercase path form, NULL without "/" */
	char *inwiki; /* ?2 wiki folder + "/" + path form */
	char *suffix; /* ?3 "/" + path form */
	char *slug;   /* ?4 lowercase name without ".md" */
	char *name;   /* ?5 lowercase name */
};

static void
keys_fini(struct find_keys *k)
{
	free(k->exact);
	free(k->inwiki);
	free(k->suffix);
	free(k->slug);
	free(k->name);
}

static int
keys_init(struct find_keys *k, cg_index *idx, const char *name)
{
	const char *wrel = cg_index_wiki_rel(idx);
	size_t n = strlen(name);
	bool md = strip_md(name) != n;
	cg_buf b;

	memset(k, 0, sizeof(*k));
	k->slug = cg_resolve_key(name);
	k->name = lower_n(name, n);
	if (k->slug == NULL || k->name == NULL)
		return CG_ENOMEM;
	if (strchr(name, '/') == NULL)
		return 0;
	cg_buf_init(&b, (size_t)3 * CG_PAGE_PATH_MAX);
	(void)cg_buf_printf(&b, "%s%s", k->name, md ? "" : ".md");
	k->exact = cg_buf_take(&b);
	(void)cg_buf_printf(&b, "%s/%s", wrel ? wrel : "",
	                    k->exact ? k->exact : "");
	k->inwiki = lower_n(cg_buf_str(&b), b.len);
	cg_buf_reset(&b);
	(void)cg_buf_printf(&b, "/%s", k->exact ? k->exact : "");
	k->suffix = cg_buf_take(&b);
	cg_buf_fini(&b);
	return k->exact && k->inwiki && k->suffix ? 0 : CG_ENOMEM;
}

int
cg_resolve_find(cg_index *idx, const char *name, const char *from_dir,
                int limit, json_t *out, cg_err *err)
{
	sqlite3 *db = cg_index_db(idx);
	sqlite3_stmt *st = NULL;
	struct find_keys k;
	int rc;

	/* No page has an empty or over-long name: nothing to look up. */
	if (*name == '\0' || strlen(name) > CG_PAGE_PATH_MAX)
		return 0;
	if (keys_init(&k, idx, name) != 0) {
		keys_fini(&k);
		return cg_err_set(err, CG_ENOMEM, "resolve: out of memory");
	}
	rc = sqlite3_prepare_v2(db, find_sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		const char *v[] = {k.exact, k.inwiki, k.suffix,
		                   k.slug,  k.name,   from_dir};

		for (int i = 0; i < 6; i++)
			if (v[i] != NULL)
				sqlite3_bind_text(st, i + 1, v[i], -1,
				                  SQLITE_STATIC);
		sqlite3_bind_int(st, 7, limit);
	}
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int r = sqlite3_column_int(st, 3);
		const char *t = (const char *)sqlite3_column_text(st, 1);
		const char *c = (const char *)sqlite3_column_text(st, 2);

		rc = SQLITE_OK;
		if (!cg_acl_allows(cg_index_acl(idx), cg_index_source(idx),
		                   (const char *)sqlite3_column_text(st, 0)))
			continue; /* hidden pages resolve to nothing */
		json_array_append_new(
		    out, json_pack("{s:s, s:s, s:s?, s:s?, s:s, s:i}", "source",
		                   cg_index_source(idx), "path",
		                   (const char *)sqlite3_column_text(st, 0),
		                   "title", t, "category", c, "match",
		                   match_names[r & 3], "rank", r));
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	keys_fini(&k);
	return rc == SQLITE_DONE || rc == SQLITE_OK
	           ? 0
	           : cg_index_query_fail(idx, rc, "resolve", err);
}

/* --- resolving one link --------------------------------------------------- */

/* Marks lk resolved to the match m. */
static void
set_resolved(json_t *lk, const json_t *m)
{
	json_object_set_new(lk, "resolved", json_true());
	json_object_set(lk, "source", json_object_get(m, "source"));
	json_object_set(lk, "path", json_object_get(m, "path"));
	json_object_set(lk, "title", json_object_get(m, "title"));
	json_object_set(lk, "match", json_object_get(m, "match"));
}

static void set_unresolved(json_t *lk, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
set_unresolved(json_t *lk, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_object_set_new(lk, "resolved", json_false());
	json_object_set_new(lk, "reason", json_string(msg));
}

static int
resolve_md(cg_index *t, const char *target, const char *from, json_t *lk,
           cg_err *err)
{
	char *dec = cg_pct_decode(target, strlen(target), false);
	char *p = dec ? md_normalise(from, dec) : NULL;
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (dec == NULL) {
		rc = cg_err_set(err, CG_ENOMEM, "links: out of memory");
		goto out;
	}
	if (p == NULL) {
		set_unresolved(lk, "'%.200s' leaves the repository", target);
		goto out;
	}
	rc = sqlite3_prepare_v2(cg_index_db(t),
	                        "SELECT path, title, category, 'path', 0 FROM "
	                        "pages WHERE path = ?1 OR path = ?1 || '.md' "
	                        "ORDER BY path = ?1 DESC LIMIT 1",
	                        -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, p, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	if (rc == SQLITE_ROW) {
		json_t *m = json_pack(
		    "{s:s, s:s, s:s?, s:s}", "source", cg_index_source(t),
		    "path", (const char *)sqlite3_column_text(st, 0), "title",
		    (const char *)sqlite3_column_text(st, 1), "match", "path");

		set_resolved(lk, m);
		json_decref(m);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		set_unresolved(lk, "no page at %.300s", p);
		rc = 0;
	} else {
		rc = cg_index_query_fail(t, rc, "links", err);
	}
	sqlite3_finalize(st);
out:
	free(p);
	free(dec);
	return rc;
}

/* "a/rest" when nothing in the linking page's source matched. */
static int
resolve_qualified(cg_node *n, const char *target, json_t *lk, cg_err *err)
{
	const char *slash = strchr(target, '/');
	char *a = strndup(target, (size_t)(slash - target));
	cg_index *idx = a ? cg_node_find(n, a) : NULL;
	json_t *m = json_array();
	int rc = 0;

	if (a == NULL || m == NULL) {
		rc = cg_err_set(err, CG_ENOMEM, "links: out of memory");
	} else if (idx == NULL) {
		/* Another node's source, or no source at all: the
		 * federation decides. */
		json_object_set_new(lk, "resolved", json_false());
		json_object_set_new(
		    lk, "remote",
		    json_pack("{s:s, s:s}", "source", a, "name", slash + 1));
	} else if (cg_index_db(idx) != NULL) {
		rc = cg_resolve_find(idx, slash + 1, NULL, 1, m, err);
	}
	if (rc == 0 && json_array_size(m) > 0)
		set_resolved(lk, json_array_get(m, 0));
	else if (rc == 0 && idx != NULL)
		set_unresolved(lk, "no page named '%.200s' in source %.100s",
		               slash + 1, a);
	json_decref(m);
	free(a);
	return rc;
}

static int
resolve_wiki(cg_node *n, cg_index *t, const char *target, const char *from,
             json_t *lk, cg_err *err)
{
	char *dir = dir_of(from);
	json_t *m = json_array();
	const char *slash = strchr(target, '/');
	int rc;

	rc = dir && m ? cg_resolve_find(t, target, dir, 1, m, err)
	              : cg_err_set(err, CG_ENOMEM, "links: out of memory");
	if (rc == 0 && json_array_size(m) > 0)
		set_resolved(lk, json_array_get(m, 0));
	else if (rc == 0 && slash != NULL && slash != target && slash[1] != 0)
		rc = resolve_qualified(n, target, lk, err);
	else if (rc == 0)
		set_unresolved(lk,
		               "no page with the slug, title or alias "
		               "'%.200s' in source %.100s",
		               target, cg_index_source(t));
	json_decref(m);
	free(dir);
	return rc;
}

json_t *
cg_resolve_link(cg_node *n, cg_index *t, sqlite3_stmt *st, int c,
                const char *from, cg_err *err)
{
	int kind = sqlite3_column_int(st, c);
	const char *target = (const char *)sqlite3_column_text(st, c + 1);
	json_t *lk = json_pack(
	    "{s:s, s:s, s:s?, s:s?, s:i}", "kind",
	    kind == 1 ? "wikilink" : "markdown", "target", target ? target : "",
	    "anchor", (const char *)sqlite3_column_text(st, c + 2), "text",
	    (const char *)sqlite3_column_text(st, c + 3), "line",
	    sqlite3_column_int(st, c + 4));
	int rc;

	if (lk == NULL) {
		cg_err_set(err, CG_ENOMEM, "links: out of memory");
		return NULL;
	}
	if (target == NULL)
		set_unresolved(lk, "empty link");
	rc = target == NULL ? 0
	     : kind == 1    ? resolve_wiki(n, t, target, from, lk, err)
	                    : resolve_md(t, target, from, lk, err);
	if (rc != 0) {
		json_decref(lk);
		return NULL;
	}
	return lk;
}

int
cg_resolve_outgoing(cg_node *n, cg_index *idx, int64_t page_id,
                    const char *page_path, json_t *out, cg_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(cg_index_db(idx),
	                        "SELECT kind, target, anchor, text, line FROM "
	                        "links WHERE page_id = ?1 ORDER BY line, rowid",
	                        -1, &st, NULL);
	if (rc == SQLITE_OK)
		sqlite3_bind_int64(st, 1, page_id);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *lk = cg_resolve_link(n, idx, st, 0, page_path, err);

		if (lk == NULL) {
			sqlite3_finalize(st);
			return err->code ? err->code : CG_ENOMEM;
		}
		json_array_append_new(out, lk);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0
	                         : cg_index_query_fail(idx, rc, "links", err);
}

/* --- the names of a page ------------------------------------------------ */

/* Adds name (lowercased, ".md" dropped) to the set when it resolves to
 * path in idx. */
static int
add_name(cg_index *idx, const char *path, const char *name, json_t *set,
         cg_err *err)
{
	json_t *m = json_array();
	char *key = cg_resolve_key(name);
	int rc = m && key ? cg_resolve_find(idx, key, NULL, 1, m, err)
	                  : cg_err_set(err, CG_ENOMEM, "links: out of memory");

	if (rc == 0 && json_array_size(m) > 0 &&
	    strcmp(json_string_value(
	               json_object_get(json_array_get(m, 0), "path")),
	           path) == 0)
		json_object_set_new(set, key, json_true());
	json_decref(m);
	free(key);
	return rc;
}

int
cg_resolve_target(cg_index *idx, const char *path, const json_t *page,
                  json_t **out, cg_err *err)
{
	const char *wrel = cg_index_wiki_rel(idx);
	const char *below = path + (wrel ? strlen(wrel) + 1 : 0);
	const char *base = strrchr(path, '/');
	json_t *set = json_object();
	json_t *names = json_array();
	char *slug =
	    strndup(base ? base + 1 : path, strip_md(base ? base + 1 : path));
	const char *title = json_string_value(json_object_get(page, "title"));
	json_t *aliases = json_object_get(page, "aliases");
	const char *k;
	json_t *v;
	size_t i;
	int rc = slug ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");

	if (rc == 0)
		rc = add_name(idx, path, slug, set, err);
	if (rc == 0 && title != NULL)
		rc = add_name(idx, path, title, set, err);
	json_array_foreach(aliases, i, v) {
		const char *a = json_string_value(v);

		if (rc == 0 && a != NULL)
			rc = add_name(idx, path, a, set, err);
	}
	for (const char *p = below; rc == 0 && p != NULL && *p != '\0';) {
		rc = add_name(idx, path, p, set, err);
		p = strchr(p, '/');
		p = p ? p + 1 : NULL;
	}
	json_object_foreach(set, k, v) {
		json_array_append_new(names, json_string(k));
	}
	*out = json_pack("{s:s, s:s, s:s?, s:s?, s:O, s:o}", "source",
	                 cg_index_source(idx), "path", path, "slug", slug,
	                 "title", title, "aliases",
	                 aliases ? aliases : json_null(), "names", names);
	json_decref(set);
	free(slug);
	return rc;
}
