/*
 * ops_walk.c - the node side of list, map and status (see ops.h for
 * arguments and results).  list and map read the index through one WHERE
 * clause (filters, prefix, the caller's access policy) and sort as the
 * federation merges; status reports what each index is (and, for a
 * remote corpus, its freshness and llms-txt sources).  grep, which
 * reads the files instead, is ops_grep.c.
 *
 * What it must not do: build uris (the federation does), count a page the
 * caller may not see, or fail a whole status because one source is
 * broken.
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/corpus.h"
#include "cache/llms_fetch.h"
#include "common/cg_args.h"
#include "common/cg_fs.h"
#include "common/cg_json.h"
#include "conf/source.h"
#include "index/corpus_hits.h"
#include "index/index.h"
#include "index/search.h"
#include "node/ops.h"
#include "node/prefix.h"
#include "proto/acl.h"
#include "proto/filters.h"
#include "proto/limits.h"

#define MAP_DEFAULT_PER_CATEGORY 200
#define MAP_MAX_PER_CATEGORY     5000

/* --- order ------------------------------------------------------------- */

/* "source/path", the order every walk result is sorted in (the uri order
 * once the federation puts "cg://ws/" in front); malloc'd. */
static char *
sort_key(const char *source, const char *path)
{
	return cg_path_join(source, path);
}

struct keyed {
	char *key;
	json_t *item; /* borrowed from the array being sorted */
};

static int
cmp_keyed(const void *a, const void *b)
{
	return strcmp(((const struct keyed *)a)->key,
	              ((const struct keyed *)b)->key);
}

/* Sorts an array of {source, path, ...} by sort_key and keeps the first
 * keep items. */
static int
sort_items(json_t *arr, size_t keep, cg_err *err)
{
	size_t n = json_array_size(arr);
	struct keyed *v = calloc(n ? n : 1, sizeof(*v));
	json_t *out = json_array();
	int rc = v && out ? 0 : CG_ENOMEM;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		json_t *it = json_array_get(arr, i);

		v[i].item = it;
		v[i].key =
		    sort_key(json_string_value(json_object_get(it, "source")),
		             json_string_value(json_object_get(it, "path")));
		if (v[i].key == NULL)
			rc = CG_ENOMEM;
	}
	if (rc == 0) {
		qsort(v, n, sizeof(*v), cmp_keyed);
		for (size_t i = 0; i < n && i < keep; i++)
			json_array_append(out, v[i].item);
		json_array_clear(arr);
		json_array_extend(arr, out);
	}
	for (size_t i = 0; v != NULL && i < n; i++)
		free(v[i].key);
	free(v);
	json_decref(out);
	return rc == 0 ? 0 : cg_err_set(err, rc, "out of memory");
}

/* --- the shared WHERE clause --------------------------------------------- */

/* The filters (index/search.h: ?2 to ?6, and the caller's visibility)
 * and the prefix (?7 to ?10); ?1 is not used. */
static const char *const walk_where =
    " WHERE 1" CG_SEARCH_FILTER_SQL
    " AND (?7 IS NULL OR (p.path >= ?7 AND p.path < ?8)"
    "      OR (p.path >= ?9 AND p.path < ?10))";

/* What list and map select. */
struct walk_q {
	cg_filters f;
	cg_prefix pre;
	int rows;      /* rows to return (list: offset + limit) */
	json_t *out;   /* per source result, rebuilt by each attempt */
	int64_t total; /* list: rows matching */
};

static int
prepare_where(cg_index *idx, const char *head, const char *tail,
              const struct walk_q *q, sqlite3_stmt **st, cg_err *err)
{
	const char *pv[] = {q->pre.lo1, q->pre.hi1, q->pre.lo2, q->pre.hi2};
	char sql[2048];
	int rc;

	(void)snprintf(sql, sizeof(sql), "%s%s%s", head, walk_where, tail);
	rc = sqlite3_prepare_v2(cg_index_db(idx), sql, -1, st, NULL);
	if (rc != SQLITE_OK)
		return cg_index_query_fail(idx, rc, "walk: prepare", err);
	cg_search_filter_bind(*st, &q->f);
	for (int i = 0; i < 4 && !q->pre.any; i++)
		sqlite3_bind_text(*st, i + 7, pv[i], -1, SQLITE_STATIC);
	return 0;
}

/* --- list ---------------------------------------------------------- */

static int
list_count(cg_index *idx, struct walk_q *q, cg_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc =
	    prepare_where(idx, "SELECT count(*) FROM pages p", "", q, &st, err);

	if (rc != 0)
		return rc;
	rc = sqlite3_step(st);
	q->total = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	rc = rc == SQLITE_ROW
	         ? 0
	         : cg_index_query_fail(idx, rc, "list: count", err);
	sqlite3_finalize(st);
	return rc;
}

static int
list_rows(cg_index *idx, void *ctx, cg_err *err)
{
	struct walk_q *q = ctx;
	sqlite3_stmt *st = NULL;
	int rc = prepare_where(
	    idx,
	    "SELECT p.path, coalesce(p.title, p.slug), p.category, "
	    "p.updated_at, p.confidence FROM pages p",
	    " ORDER BY p.path LIMIT ?11", q, &st, err);

	json_array_clear(q->out);
	if (rc != 0)
		return rc;
	sqlite3_bind_int(st, 11, q->rows);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(
		    q->out, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}",
		                      "source", cg_index_source(idx), "path",
		                      cg_index_col_text(st, 0), "title",
		                      cg_index_col_text(st, 1), "category",
		                      cg_index_col_text(st, 2), "updated_at",
		                      cg_index_col_text(st, 3), "confidence",
		                      cg_index_col_text(st, 4)));
	rc = rc == SQLITE_DONE ? 0 : cg_index_query_fail(idx, rc, "list", err);
	sqlite3_finalize(st);
	return rc == 0 ? list_count(idx, q, err) : rc;
}

/* Reads the arguments list and map share. */
static int
walk_args(const json_t *args, struct walk_q *q, const char **prefix,
          cg_err *err)
{
	cg_filters_from_json(&q->f, json_object_get(args, "filters"));
	if (json_object_get(args, "filters") != NULL &&
	    !json_is_object(json_object_get(args, "filters")))
		return cg_err_set(err, CG_EINVAL, "filters must be an object");
	if (cg_filters_validate(&q->f, err) != 0)
		return CG_EINVAL;
	return cg_args_str(args, "prefix", prefix, err);
}

/* Runs fn (list_rows or map_rows) on each source in scope; each
 * source's q->out goes to per(source) through take. */
typedef int (*take_fn)(json_t *res, cg_index *idx, struct walk_q *q);

static int
walk_sources(cg_node *n, const json_t *args, const char *prefix,
             struct walk_q *q, cg_node_index_fn fn, take_fn take, json_t *res,
             cg_err *err)
{
	size_t *order = calloc(cg_node_nsources(n) + 1, sizeof(*order));
	size_t k = order ? cg_node_scope_order(n, args, order) : 0;
	int rc = order ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");

	for (size_t i = 0; rc == 0 && i < k; i++) {
		cg_index *idx = cg_node_index(n, order[i]);

		rc = cg_prefix_init(&q->pre, prefix, idx, err);
		q->out = json_array();
		q->total = 0;
		if (rc == 0)
			rc = cg_node_run(idx, fn, q, err);
		if (rc == 0)
			rc = take(res, idx, q);
		json_decref(q->out);
		q->out = NULL;
		cg_prefix_fini(&q->pre);
	}
	free(order);
	return rc;
}

static int
list_take(json_t *res, cg_index *idx, struct walk_q *q)
{
	json_t *total = json_object_get(res, "total");

	json_array_extend(json_object_get(res, "items"), q->out);
	json_integer_set(total, json_integer_value(total) + q->total);
	json_object_set_new(json_object_get(res, "per_source"),
	                    cg_index_source(idx), json_integer(q->total));
	return 0;
}

int
cg_op_list(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	struct walk_q q;
	const char *prefix = NULL;
	int limit;
	int offset;
	int rc;

	json_object_set_new(res, "items", json_array());
	json_object_set_new(res, "total", json_integer(0));
	json_object_set_new(res, "per_source", json_object());
	memset(&q, 0, sizeof(q));
	rc = walk_args(args, &q, &prefix, err);
	if (rc == 0)
		rc = cg_args_int(args, "limit", CG_LIST_DEFAULT_LIMIT, 1,
		                 CG_LIST_MAX_LIMIT, &limit, err);
	if (rc == 0)
		rc = cg_args_int(args, "offset", 0, 0, CG_LIST_MAX_OFFSET,
		                 &offset, err);
	if (rc != 0)
		return rc;
	q.rows = limit + offset;
	rc = walk_sources(n, args, prefix, &q, list_rows, list_take, res, err);
	if (rc == 0)
		rc = sort_items(json_object_get(res, "items"), (size_t)q.rows,
		                err);
	return rc;
}

/* --- map ----------------------------------------------------------- */

/* Appends a row (category, path, title, category count) to the last
 * category of cats, or opens a new one. */
static void
map_row(json_t *cats, sqlite3_stmt *st)
{
	const char *cat = (const char *)sqlite3_column_text(st, 0);
	json_t *last = json_array_get(cats, json_array_size(cats) - 1);
	const char *lc = NULL;
	json_t *c = json_object_get(last, "category");

	if (cat != NULL && *cat == '\0')
		cat = NULL;
	lc = json_string_value(c);
	if (last == NULL || (cat == NULL) != json_is_null(c) ||
	    (cat != NULL && lc != NULL && strcmp(cat, lc) != 0)) {
		last = json_pack(
		    "{s:o, s:I, s:[]}", "category", cg_json_text(cat), "pages",
		    (json_int_t)sqlite3_column_int64(st, 3), "items");
		json_array_append_new(cats, last);
	}
	json_array_append_new(json_object_get(last, "items"),
	                      json_pack("{s:o, s:o}", "path",
	                                cg_index_col_text(st, 1), "title",
	                                cg_index_col_text(st, 2)));
}

static int
map_rows(cg_index *idx, void *ctx, cg_err *err)
{
	struct walk_q *q = ctx;
	sqlite3_stmt *st = NULL;
	int rc = prepare_where(
	    idx,
	    "SELECT cat, path, title, n FROM (SELECT coalesce(p.category, "
	    "'') AS cat, p.path AS path, coalesce(p.title, p.slug) AS title, "
	    "row_number() OVER (PARTITION BY coalesce(p.category, '') ORDER "
	    "BY lower(coalesce(p.title, p.slug)), p.path) AS rn, count(*) "
	    "OVER (PARTITION BY coalesce(p.category, '')) AS n FROM pages p",
	    ") WHERE rn <= ?11 ORDER BY cat = '', cat, rn", q, &st, err);

	json_array_clear(q->out);
	q->total = 0;
	if (rc != 0)
		return rc;
	sqlite3_bind_int(st, 11, q->rows);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t before = json_array_size(q->out);

		map_row(q->out, st);
		if (json_array_size(q->out) > before)
			q->total += sqlite3_column_int64(st, 3);
	}
	rc = rc == SQLITE_DONE ? 0 : cg_index_query_fail(idx, rc, "map", err);
	sqlite3_finalize(st);
	return rc;
}

static int
map_take(json_t *res, cg_index *idx, struct walk_q *q)
{
	json_array_append_new(
	    json_object_get(res, "sources"),
	    json_pack("{s:s, s:I, s:O}", "source", cg_index_source(idx),
	              "pages", (json_int_t)q->total, "categories", q->out));
	return 0;
}

int
cg_op_map(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	struct walk_q q;
	const char *prefix = NULL;
	int rc;

	json_object_set_new(res, "sources", json_array());
	memset(&q, 0, sizeof(q));
	rc = walk_args(args, &q, &prefix, err);
	if (rc == 0)
		rc = cg_args_int(args, "per_category", MAP_DEFAULT_PER_CATEGORY,
		                 1, MAP_MAX_PER_CATEGORY, &q.rows, err);
	if (rc != 0)
		return rc;
	return walk_sources(n, args, prefix, &q, map_rows, map_take, res, err);
}

/* --- status -------------------------------------------------------- */

/* Seconds since the epoch of "YYYY-MM-DDTHH:MM:SSZ", -1 when malformed
 * (days from the civil date, so no timegm and no TZ). */
static int64_t
parse_utc(const char *s)
{
	int64_t v[6] = {0};
	static const int width[6] = {4, 2, 2, 2, 2, 2};
	const char *p = s;
	int64_t y;
	int64_t m;
	int64_t d;
	int64_t era;
	int64_t yoe;
	int64_t doy;
	int64_t doe;

	for (int i = 0; p != NULL && i < 6; i++) {
		for (int k = 0; k < width[i]; k++, p++) {
			if (*p < '0' || *p > '9')
				return -1;
			v[i] = v[i] * 10 + (*p - '0');
		}
		if (i < 5)
			p++; /* the separator */
	}
	y = v[0];
	m = v[1];
	d = v[2];
	if (m < 1 || m > 12 || d < 1 || d > 31)
		return -1;
	y -= m <= 2;
	era = y / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (era * 146097 + doe - 719468) * 86400 + v[3] * 3600 + v[4] * 60 +
	       v[5];
}

static int64_t
count_of(sqlite3 *db, const char *sql, json_t *errors)
{
	sqlite3_stmt *st = NULL;
	int64_t n = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	else
		json_array_append_new(
		    errors, json_sprintf("%s: %s", sql, sqlite3_errmsg(db)));
	sqlite3_finalize(st);
	return n;
}

static char *
last_sync(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	char *v = NULL;

	if (sqlite3_prepare_v2(db,
	                       "SELECT value FROM meta WHERE key = 'last_sync'",
	                       -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/* The size of the file a + b, 0 when it cannot be read. */
static int64_t
file_size(const char *a, const char *b)
{
	char p[PATH_MAX];
	struct stat sb;

	if (snprintf(p, sizeof(p), "%s%s", a, b) >= (int)sizeof(p))
		return 0;
	return stat(p, &sb) == 0 ? (int64_t)sb.st_size : 0;
}

/* Size of the live database (+ WAL) and the age of CURRENT, next to it. */
static void
status_files(sqlite3 *db, json_t *o, int64_t now)
{
	const char *f = sqlite3_db_filename(db, "main");
	char *dir;
	char *cur;
	char *slash;
	struct stat sb;

	if (f == NULL || *f == '\0')
		return;
	json_object_set_new(
	    o, "db_bytes",
	    json_integer(file_size(f, "") + file_size(f, "-wal")));
	dir = strdup(f);
	slash = dir ? strrchr(dir, '/') : NULL;
	if (slash == NULL) {
		free(dir);
		return;
	}
	slash[1] = '\0';
	cur = cg_path_join(dir, "CURRENT");
	if (cur != NULL && stat(cur, &sb) == 0)
		json_object_set_new(o, "generation_age_s",
		                    json_integer(now - (int64_t)sb.st_mtime));
	free(cur);
	free(dir);
}

static json_t *
status_source(cg_index *idx)
{
	sqlite3 *db = cg_index_db(idx);
	json_t *errors = json_array();
	int64_t now = (int64_t)time(NULL);
	int64_t rows = 0;
	int64_t tot[CG_NCOLS];
	json_t *o = json_pack("{s:s, s:b, s:I}", "source", cg_index_source(idx),
	                      "ready", db != NULL, "generation",
	                      (json_int_t)cg_index_generation(idx));
	char *ls;
	cg_err e;

	json_object_set_new(o, "errors", errors);
	if (db == NULL) {
		cg_err_clear(&e);
		(void)cg_node_ready(idx, &e);
		json_array_append_new(
		    errors, json_string(cg_index_generation(idx) > 0
		                            ? e.msg
		                            : "index not built yet (run "
		                              "`corpus-gw index`)"));
		return o;
	}
	if (cg_acl_active(cg_index_acl(idx))) {
		/* A restricted caller learns only what it may see: the number
		 * of its visible pages, nothing about the rest. */
		json_object_set_new(
		    o, "pages",
		    json_integer(count_of(db,
		                          "SELECT count(*) FROM pages WHERE "
		                          "cg_visible(path)",
		                          errors)));
		return o;
	}
	json_object_set_new(
	    o, "pages",
	    json_integer(count_of(db, "SELECT count(*) FROM pages", errors)));
	cg_err_clear(&e);
	if (cg_index_totals(idx, &rows, tot, &e) != 0)
		json_array_append_new(errors, json_string(e.msg));
	json_object_set_new(o, "sections", json_integer(rows));
	json_object_set_new(o, "problems",
	                    json_integer(count_of(
	                        db, "SELECT count(*) FROM problems", errors)));
	ls = cg_index_build_reason(idx);
	if (ls != NULL)
		json_object_set_new(o, "build_reason", json_string(ls));
	free(ls);
	ls = last_sync(db);
	json_object_set_new(o, "last_sync", cg_json_text(ls));
	if (ls != NULL && parse_utc(ls) >= 0)
		json_object_set_new(o, "index_age_s",
		                    json_integer(now - parse_utc(ls)));
	free(ls);
	status_files(db, o, now);
	return o;
}

/* A remote corpus's llms-txt sources as the last fetch recorded them
 * (.corpus-gw/<id>.llms.json, cache/llms_fetch.h): {sid: {manifest
 * asked and changed, pages listed and cached, outcome}}, only these fields
 * of a well-formed record; NULL when there is none. */
static json_t *
llms_status(cg_index *idx)
{
	static const char *const keys[] = {"manifest_checked_at",
	                                   "manifest_changed_at", "listed",
	                                   "cached", "outcome"};
	char *root = cg_corpus_cache_root(cg_index_registrar(idx));
	char *path =
	    root ? cg_llms_status_path(root, cg_index_source(idx)) : NULL;
	json_t *rec = path ? json_load_file(path, 0, NULL) : NULL;
	json_t *out = json_is_object(rec) ? json_object() : NULL;
	const char *sid;
	json_t *v;

	free(root);
	free(path);
	json_object_foreach(out != NULL ? rec : NULL, sid, v) {
		json_t *one = json_object();

		for (size_t i = 0; json_is_object(v) && i < 5; i++) {
			json_t *f = json_object_get(v, keys[i]);

			if (json_is_string(f) || json_is_integer(f))
				json_object_set(one, keys[i], f);
		}
		json_object_set_new(out, sid, one);
	}
	json_decref(rec);
	return out;
}

/* A corpus's kind and, for a remote one, its freshness (SPEC 4.5) and its
 * llms-txt sources. */
static void
corpus_status(cg_index *idx, json_t *o)
{
	static const char *const kinds[] = {NULL, "local", "remote"};
	int k = cg_index_kind(idx);
	json_t *f;

	if (k <= 0 || k > 2)
		return;
	json_object_set_new(o, "corpus", json_string(kinds[k]));
	f = cg_corpus_hits_freshness(idx);
	if (f != NULL)
		json_object_set_new(o, "freshness", f);
	f = k == CG_SRC_CORPUS_REMOTE && cg_index_registrar(idx) != NULL
	        ? llms_status(idx)
	        : NULL;
	if (f != NULL)
		json_object_set_new(o, "llms", f);
}

/* A source whose last sync failed answers from its last index, and a wiki
 * whose repository's registry does not read is served without its
 * corpora: status says why (sync_error, registry_error, and among its
 * errors). */
static void
sync_status(const cg_node *n, const char *source, json_t *o)
{
	const char *why = cg_node_sync_failure(n, source);
	const char *reg = cg_node_registry_error(n, source);
	char msg[CG_ERR_MSG_MAX + 32];

	if (reg != NULL) {
		json_object_set_new(o, "registry_error", json_string(reg));
		json_array_append_new(json_object_get(o, "errors"),
		                      json_string(reg));
	}
	if (why == NULL)
		return;
	json_object_set_new(o, "sync_error", json_string(why));
	(void)snprintf(msg, sizeof(msg), "last sync failed: %s", why);
	json_array_append_new(json_object_get(o, "errors"), json_string(msg));
}

int
cg_op_status(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	json_t *all = json_array();

	json_object_set_new(res, "sources", all);
	for (size_t i = 0; i < cg_node_nsources(n); i++) {
		json_t *o;

		if (!cg_node_in_scope(args, cg_node_source_name(n, i)))
			continue;
		o = status_source(cg_node_index(n, i));
		corpus_status(cg_node_index(n, i), o);
		sync_status(n, cg_node_source_name(n, i), o);
		/* A source with nothing visible is not shown at all. */
		if (cg_acl_active(cg_index_acl(cg_node_index(n, i))) &&
		    json_integer_value(json_object_get(o, "pages")) == 0) {
			json_decref(o);
			continue;
		}
		json_array_append_new(all, o);
	}
	return 0;
}
