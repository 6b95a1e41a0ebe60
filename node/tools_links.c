/*
 * tools_links.c - link resolution on a node: the `links`, `backlinks` and
 * `resolve` operations and the outgoing links `peek` shows.  The rules are
 * in tools_page.h; this file is their one implementation, so a link that
 * `links` resolves is the link `backlinks` counts.
 *
 * What it must not do: read page files (everything comes from the index:
 * pages and links tables), or decide about a source it does not hold (a
 * "source/name" link to another node's source is handed to the federation
 * as "remote").
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "common/cg_utf8.h"
#include "node/tools_page.h"
#include "proto/acl.h"

/* Matches returned per name by the resolve operation. */
#define RESOLVE_MAX 50

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

/* A malloc'd percent-decoded copy; a bad escape or %00 is kept as is. */
static char *
pct_decode(const char *s)
{
	return cg_pct_decode(s, strlen(s), false);
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
	const char *wrel = cg_page_wiki_rel(idx);
	size_t n = strlen(name);
	bool md = strip_md(name) != n;
	cg_buf b;

	memset(k, 0, sizeof(*k));
	k->slug = lower_n(name, strip_md(name));
	k->name = lower_n(name, n);
	if (k->slug == NULL || k->name == NULL)
		return CG_ENOMEM;
	if (strchr(name, '/') == NULL)
		return 0;
	cg_buf_init(&b, 3 * CG_PAGE_PATH_MAX);
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

/*
 * Appends to out the pages of idx that name designates, best first (see
 * tools_page.h), at most limit: {source, path, title, category, match,
 * rank}.  from_dir ("a/b/" or NULL) is the linking page's folder.
 */
static int
find_pages(cg_index *idx, const char *name, const char *from_dir, int limit,
           json_t *out, cg_err *err)
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
	char *dec = pct_decode(target);
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
		rc = find_pages(idx, slash + 1, NULL, 1, m, err);
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

	rc = dir && m ? find_pages(t, target, dir, 1, m, err)
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

/* A link object from a links row (kind, target, anchor, text, line at
 * column c), resolved from the page from of source t. */
static json_t *
link_json(cg_node *n, cg_index *t, sqlite3_stmt *st, int c, const char *from,
          cg_err *err)
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
cg_links_outgoing(cg_node *n, cg_index *idx, int64_t page_id,
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
		json_t *lk = link_json(n, idx, st, 0, page_path, err);

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

/* --- links ---------------------------------------------------------------- */

/* Adds name (lowercased, ".md" dropped) to the set when it resolves to
 * path in idx. */
static int
add_name(cg_index *idx, const char *path, const char *name, json_t *set,
         cg_err *err)
{
	json_t *m = json_array();
	char *key = lower_n(name, strip_md(name));
	int rc = m && key ? find_pages(idx, key, NULL, 1, m, err)
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

/*
 * The target description backlinks need: {source, path, slug, title,
 * aliases, names}, names being every name that resolves to this page in
 * its source (slug, title, aliases, and the suffixes of its path below
 * the wiki without ".md").
 */
static int
target_json(cg_index *idx, const char *path, const json_t *page, json_t **out,
            cg_err *err)
{
	const char *wrel = cg_page_wiki_rel(idx);
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

int
cg_tool_links(cg_node *n, const json_t *args, json_t *res, cg_err *err)
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
		rc = cg_links_outgoing(n, idx, id, path, out, &ierr);
	if (rc == 0)
		rc = target_json(idx, path, page, &target, &ierr);
	if (rc == 0) {
		json_object_set_new(res, "target", target);
		return 0;
	}
	json_decref(target);
	if (rc == CG_ENOMEM)
		return cg_err_set(err, CG_ENOMEM, "%s", ierr.msg);
	cg_item_error(res, &ierr);
	return 0;
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

	s = slash ? slash + 1 : s;
	return lower_n(s, strip_md(s));
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
		char *d = pct_decode(target);

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
	key = lower_n(name, strip_md(name));
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
		lk = link_json(n, t, st, 2, from, err);
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
cg_tool_backlinks(cg_node *n, const json_t *args, json_t *res, cg_err *err)
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
cg_tool_resolve(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	const json_t *names = json_object_get(args, "names");
	json_t *results = json_array();
	size_t k;
	const json_t *it;
	int rc = 0;

	json_object_set_new(res, "results", results);
	if (!json_is_array(names) || json_array_size(names) > 1000)
		return cg_err_set(err, CG_EINVAL,
		                  "resolve: names must be an array of at most "
		                  "1000 {name, source?}");
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
				rc = find_pages(cg_node_index(n, i), name, NULL,
				                RESOLVE_MAX, m, err);
		}
		if (rc != 0)
			return rc;
	}
	return 0;
}
