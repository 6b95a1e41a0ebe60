/*
 * tools_walk.c - the node side of list, map, grep and status (see
 * tools_walk.h for arguments and results).  list and map read the index;
 * grep reads the page files themselves, through node/scan.c's listing and
 * a component-by-component O_NOFOLLOW open, so no symlink is ever
 * followed, in the wiki or above it; status reports what each index is.
 *
 * What it must not do: follow a symlink, read a whole large file into
 * memory, build uris (the federation does), or fail a whole status
 * because one source is broken.
 */
#include "node/tools_walk.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cg_args.h"
#include "common/cg_buf.h"
#include "common/cg_fs.h"
#include "common/cg_json.h"
#include "common/cg_utf8.h"
#include "index/corpus_hits.h"
#include "index/index.h"
#include "index/search.h"
#include "node/tools_corpus.h"
#include "page/corpus_scan.h"
#include "page/grep.h"
#include "page/scan.h"
#include "proto/acl.h"

#define MAP_DEFAULT_PER_CATEGORY 200
#define MAP_MAX_PER_CATEGORY     5000
#define GREP_SKIPPED_MAX         100
#define PREFIX_MAX               4096

/* --- arguments ------------------------------------------------------------ */

/* --- prefix --------------------------------------------------------------- */

/* A path prefix as two half-open ranges of paths: relative to the repo
 * ([lo1, hi1)) and relative to the wiki ([lo2, hi2)).  hi = lo + 0xFF,
 * a byte no UTF-8 path holds, so lo <= path < hi <=> path starts with lo. */
struct prefix {
	bool any; /* no prefix: everything */
	char *lo1, *hi1, *lo2, *hi2;
};

static void
prefix_fini(struct prefix *p)
{
	free(p->lo1);
	free(p->hi1);
	free(p->lo2);
	free(p->hi2);
	memset(p, 0, sizeof(*p));
}

/* The wiki folder relative to the repo root, with a final '/'. */
static char *
wiki_rel(cg_index *idx)
{
	const char *repo = cg_index_repo(idx);
	const char *wiki = cg_index_wiki(idx);
	size_t n = strlen(repo);
	cg_buf b;

	cg_buf_init(&b, PREFIX_MAX * 2);
	if (strncmp(wiki, repo, n) == 0 && wiki[n] == '/')
		(void)cg_buf_puts(&b, wiki + n + 1);
	if (b.len > 0)
		(void)cg_buf_putc(&b, '/');
	(void)cg_buf_puts(&b, "");
	return cg_buf_take(&b);
}

static char *
concat(const char *a, const char *b, const char *c)
{
	cg_buf s;

	cg_buf_init(&s, PREFIX_MAX * 4);
	if (cg_buf_puts(&s, a) != 0 || cg_buf_puts(&s, b) != 0 ||
	    cg_buf_puts(&s, c) != 0 || cg_buf_puts(&s, "") != 0) {
		cg_buf_fini(&s);
		return NULL;
	}
	return cg_buf_take(&s);
}

static int
prefix_init(struct prefix *p, const char *s, cg_index *idx, cg_err *err)
{
	char *w;

	memset(p, 0, sizeof(*p));
	p->any = s == NULL || *s == '\0';
	if (p->any)
		return 0;
	if (strlen(s) > PREFIX_MAX)
		return cg_err_set(err, CG_ETOOBIG,
		                  "prefix longer than %d bytes", PREFIX_MAX);
	w = wiki_rel(idx);
	p->lo1 = concat("", s, "");
	p->hi1 = concat("", s, "\xff");
	p->lo2 = w ? concat(w, s, "") : NULL;
	p->hi2 = w ? concat(w, s, "\xff") : NULL;
	free(w);
	if (!p->lo1 || !p->hi1 || !p->lo2 || !p->hi2) {
		prefix_fini(p);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	return 0;
}

static bool
prefix_has(const struct prefix *p, const char *path)
{
	return p->any || strncmp(path, p->lo1, strlen(p->lo1)) == 0 ||
	       strncmp(path, p->lo2, strlen(p->lo2)) == 0;
}

/* --- sources and order ---------------------------------------------------- */

/* "source/path", the order every walk result is sorted in (the uri order
 * once the federation puts "cg://ws/" in front); malloc'd. */
static char *
sort_key(const char *source, const char *path)
{
	return concat(source, "/", path);
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

/* strcmp of a + "/" and b + "/": the order of sources in sort keys. */
static int
source_cmp(const char *a, const char *b)
{
	char ka[512];
	char kb[512];

	(void)snprintf(ka, sizeof(ka), "%s/", a);
	(void)snprintf(kb, sizeof(kb), "%s/", b);
	return strcmp(ka, kb);
}

/* The node's sources in scope, in sort-key order; returns the count. */
static size_t
scope_order(cg_node *n, const json_t *args, size_t *order)
{
	size_t k = 0;

	for (size_t i = 0; i < cg_node_nsources(n); i++)
		if (cg_node_in_scope(args, cg_node_source_name(n, i)))
			order[k++] = i;
	for (size_t i = 1; i < k; i++) { /* insertion sort: a handful */
		size_t v = order[i];
		size_t j = i;

		while (j > 0 && source_cmp(cg_node_source_name(n, order[j - 1]),
		                           cg_node_source_name(n, v)) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = v;
	}
	return k;
}

/* Runs fn on an index that is ready; on corruption rebuilds once and
 * runs it again (fn must start from scratch each time). */
typedef int (*index_fn)(cg_index *idx, void *ctx, cg_err *err);

static int
with_index(cg_index *idx, index_fn fn, void *ctx, cg_err *err)
{
	int rc = cg_node_ready(idx, err);

	if (rc == 0)
		rc = fn(idx, ctx, err);
	if (rc == CG_ECORRUPT) {
		cg_sync_stats st;

		cg_err_clear(err);
		rc = cg_index_rebuild(idx, "corrupt at query", &st, err);
		if (rc == 0)
			rc = fn(idx, ctx, err);
	}
	return rc;
}

/* --- the shared WHERE clause --------------------------------------------- */

static const char *const walk_where =
    " WHERE (?1 IS NULL OR p.category = ?1)"
    " AND (?2 IS NULL OR lower(p.owner) = lower(?2))"
    " AND (?3 IS NULL OR p.confidence = ?3)"
    " AND (?4 IS NULL OR p.updated_at >= ?4)"
    " AND (?5 IS NULL OR EXISTS (SELECT 1 FROM json_each(p.tags)"
    "      WHERE lower(json_each.value) = lower(?5)))"
    " AND (?6 IS NULL OR (p.path >= ?6 AND p.path < ?7)"
    "      OR (p.path >= ?8 AND p.path < ?9))"
    " AND cg_visible(p.path)";

/* What list and map select. */
struct walk_q {
	cg_filters f;
	struct prefix pre;
	int rows;      /* rows to return (list: offset + limit) */
	json_t *out;   /* per source result, rebuilt by each attempt */
	int64_t total; /* list: rows matching */
};

static int
prepare_where(cg_index *idx, const char *head, const char *tail,
              const struct walk_q *q, sqlite3_stmt **st, cg_err *err)
{
	const char *v[] = {q->f.category, q->f.owner, q->f.confidence,
	                   q->f.updated_since, q->f.tag};
	const char *pv[] = {q->pre.lo1, q->pre.hi1, q->pre.lo2, q->pre.hi2};
	char sql[2048];
	int rc;

	(void)snprintf(sql, sizeof(sql), "%s%s%s", head, walk_where, tail);
	rc = sqlite3_prepare_v2(cg_index_db(idx), sql, -1, st, NULL);
	if (rc != SQLITE_OK)
		return cg_index_query_fail(idx, rc, "walk: prepare", err);
	for (int i = 0; i < 5; i++)
		if (v[i] != NULL)
			sqlite3_bind_text(*st, i + 1, v[i], -1, SQLITE_STATIC);
	for (int i = 0; i < 4 && !q->pre.any; i++)
		sqlite3_bind_text(*st, i + 6, pv[i], -1, SQLITE_STATIC);
	return 0;
}

/* --- list ------------------------------------------------------------------
 */

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
	    " ORDER BY p.path LIMIT ?10", q, &st, err);

	json_array_clear(q->out);
	if (rc != 0)
		return rc;
	sqlite3_bind_int(st, 10, q->rows);
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
             struct walk_q *q, index_fn fn, take_fn take, json_t *res,
             cg_err *err)
{
	size_t *order = calloc(cg_node_nsources(n) + 1, sizeof(*order));
	size_t k = order ? scope_order(n, args, order) : 0;
	int rc = order ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");

	for (size_t i = 0; rc == 0 && i < k; i++) {
		cg_index *idx = cg_node_index(n, order[i]);

		rc = prefix_init(&q->pre, prefix, idx, err);
		q->out = json_array();
		q->total = 0;
		if (rc == 0)
			rc = with_index(idx, fn, q, err);
		if (rc == 0)
			rc = take(res, idx, q);
		json_decref(q->out);
		q->out = NULL;
		prefix_fini(&q->pre);
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
cg_walk_list(cg_node *n, const json_t *args, json_t *res, cg_err *err)
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

/* --- map -------------------------------------------------------------------
 */

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
	    ") WHERE rn <= ?10 ORDER BY cat = '', cat, rn", q, &st, err);

	json_array_clear(q->out);
	q->total = 0;
	if (rc != 0)
		return rc;
	sqlite3_bind_int(st, 10, q->rows);
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
cg_walk_map(cg_node *n, const json_t *args, json_t *res, cg_err *err)
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

/* --- grep: the walk --------------------------------------------------------
 */

struct grep_run {
	cg_grep *g;
	int max;            /* matches to keep */
	json_t *matches;    /* kept, in sort order */
	json_t *files;      /* {source, path, matches} per matching file */
	json_t *skipped;    /* {source, path, reason}, first GREP_SKIPPED_MAX */
	int64_t nskipped;   /* all skipped files */
	int64_t total;      /* matching lines */
	int64_t nfiles;     /* files searched */
	int64_t bytes;      /* bytes searched */
	int64_t windowed;   /* lines examined in windows */
	const char *source; /* current file */
	const char *path;
	int root;            /* the current source's repository, or -1 */
	int root_errno;      /* why it could not be opened */
	const cg_node *node; /* for its request deadline */
	int expired;         /* stopped at the deadline: partial */
};

static int
on_hit(void *ctx, const cg_grep_hit *h)
{
	struct grep_run *r = ctx;
	json_t *m;

	if (h->text == NULL)
		return 0;
	m = json_pack("{s:o, s:o, s:I, s:I, s:s}", "source",
	              cg_json_text(r->source), "path", cg_json_text(r->path),
	              "line", (json_int_t)h->line, "column", (json_int_t)h->col,
	              "text", h->text);
	if (m == NULL)
		return CG_ENOMEM;
	if (h->clipped)
		json_object_set_new(m, "clipped", json_true());
	json_array_append_new(r->matches, m);
	return 0;
}

static void
skip_file(struct grep_run *r, const char *path, const char *reason)
{
	if (r->nskipped++ < GREP_SKIPPED_MAX)
		json_array_append_new(r->skipped,
		                      json_pack("{s:o, s:o, s:s}", "source",
		                                cg_json_text(r->source), "path",
		                                cg_json_text(path), "reason",
		                                reason));
}

/* Streams one open file; drops its matches when it turns out binary. */
static int
grep_fd(struct grep_run *r, int fd, cg_err *err)
{
	size_t before = json_array_size(r->matches);
	int64_t room = r->max - (int64_t)before;
	cg_grep_file st;
	int rc = cg_grep_fd(r->g, fd, room > 0 ? room : 0, on_hit, r, &st, err);

	if (rc != 0)
		return rc < 0 ? cg_err_set(err, rc, "grep %s: out of memory",
		                           r->path)
		              : rc;
	if (st.binary) {
		while (json_array_size(r->matches) > before)
			json_array_remove(r->matches,
			                  json_array_size(r->matches) - 1);
		skip_file(r, r->path, "binary (NUL byte)");
		return 0;
	}
	r->nfiles++;
	r->bytes += st.bytes;
	r->windowed += st.windowed;
	r->total += st.matches;
	if (st.matches > 0)
		json_array_append_new(r->files,
		                      json_pack("{s:o, s:s, s:I}", "source",
		                                cg_json_text(r->source), "path",
		                                r->path, "matches",
		                                (json_int_t)st.matches));
	return 0;
}

/* Why a file could not be opened, as a skipped[] reason. */
static const char *
open_reason(int rc, int e)
{
	if (rc == CG_EDENIED)
		return "symlink (not followed)";
	if (rc == CG_EINVAL)
		return "not a regular file";
	return strerror(e);
}

static int
grep_entry(struct grep_run *r, const cg_scan_entry *e, cg_err *err)
{
	int fd = -1;
	int rc;

	if (e->kind == CG_SCAN_SYMLINK) {
		skip_file(r, e->rel, "symlink (not followed)");
		return 0;
	}
	if (!cg_utf8_valid(e->rel, strlen(e->rel))) {
		skip_file(r, e->rel, "file name is not valid UTF-8");
		return 0;
	}
	/* The scan saw a regular file; a folder or file swapped for a
	 * symlink since is refused, not followed. */
	rc = r->root < 0
	         ? CG_EIO
	         : cg_open_beneath(&fd, r->root, e->rel, strlen(e->rel), NULL);
	if (rc != 0) {
		skip_file(r, e->rel,
		          open_reason(rc, r->root < 0 ? r->root_errno : errno));
		return 0;
	}
	r->path = e->rel;
	rc = grep_fd(r, fd, err);
	close(fd);
	return rc;
}

static int
grep_source(struct grep_run *r, cg_index *idx, const char *prefix, cg_err *err)
{
	struct prefix pre;
	cg_scan sc;
	int rc = prefix_init(&pre, prefix, idx, err);

	if (rc != 0)
		return rc;
	rc = cg_scan_source(&sc, cg_index_repo(idx), cg_index_wiki(idx),
	                    (enum cg_source_kind)cg_index_kind(idx), NULL, err);
	r->source = cg_index_source(idx);
	r->root = open(cg_index_repo(idx), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r->root_errno = errno;
	for (size_t i = 0; rc == 0 && i < sc.n && !r->expired; i++) {
		if (cg_node_expired(r->node)) {
			r->expired = 1;
			break;
		}
		if (!sc.v[i].virt && prefix_has(&pre, sc.v[i].rel) &&
		    cg_acl_allows(cg_index_acl(idx), r->source, sc.v[i].rel))
			rc = grep_entry(r, &sc.v[i], err);
	}
	if (r->root >= 0)
		close(r->root);
	cg_scan_fini(&sc);
	prefix_fini(&pre);
	return rc;
}

static int
grep_args(const json_t *args, cg_grep_opts *o, int *max, const char **pre,
          cg_err *err)
{
	int rc;

	memset(o, 0, sizeof(*o));
	rc = cg_args_str(args, "pattern", &o->pattern, err);
	if (rc == 0 && o->pattern == NULL)
		rc = cg_err_set(err, CG_EINVAL, "grep: pattern is required");
	if (rc == 0)
		rc = cg_args_bool(args, "fixed", &o->fixed, err);
	if (rc == 0)
		rc = cg_args_bool(args, "case_sensitive", &o->case_sensitive,
		                  err);
	if (rc == 0)
		rc = cg_args_int(args, "max", CG_GREP_DEFAULT_MAX, 1,
		                 CG_GREP_MAX_MAX, max, err);
	if (rc == 0)
		rc = cg_args_str(args, "prefix", pre, err);
	return rc;
}

static void
grep_result(const struct grep_run *r, json_t *res)
{
	json_object_set(res, "matches", r->matches);
	json_object_set_new(res, "total", json_integer(r->total));
	json_object_set(res, "files", r->files);
	json_object_set_new(res, "files_searched", json_integer(r->nfiles));
	json_object_set_new(res, "bytes_searched", json_integer(r->bytes));
	json_object_set_new(res, "windowed_lines", json_integer(r->windowed));
	json_object_set(res, "skipped", r->skipped);
	json_object_set_new(res, "skipped_total", json_integer(r->nskipped));
	json_object_set_new(
	    res, "truncated",
	    json_boolean(r->expired ||
	                 r->total > (int64_t)json_array_size(r->matches)));
	if (r->expired)
		json_object_set_new(res, "deadline_exceeded", json_true());
	json_object_set_new(res, "unicode",
	                    json_boolean(cg_grep_unicode(r->g)));
}

int
cg_walk_grep(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	struct grep_run r;
	cg_grep_opts o;
	const char *prefix = NULL;
	size_t *order = NULL;
	size_t k = 0;
	int rc;

	memset(&r, 0, sizeof(r));
	r.node = n;
	rc = grep_args(args, &o, &r.max, &prefix, err);
	if (rc == 0)
		rc = cg_grep_new(&r.g, &o, err);
	if (rc != 0)
		return rc;
	r.matches = json_array();
	r.files = json_array();
	r.skipped = json_array();
	order = calloc(cg_node_nsources(n) + 1, sizeof(*order));
	if (order == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	else
		k = scope_order(n, args, order);
	for (size_t i = 0; rc == 0 && i < k; i++)
		rc = grep_source(&r, cg_node_index(n, order[i]), prefix, err);
	if (rc == 0)
		grep_result(&r, res);
	free(order);
	json_decref(r.matches);
	json_decref(r.files);
	json_decref(r.skipped);
	cg_grep_free(r.g);
	return rc;
}

/* --- status ----------------------------------------------------------------
 */

/* Seconds since the epoch of "YYYY-MM-DDTHH:MM:SSZ", -1 when malformed
 * (days from the civil date, so no timegm and no TZ). */
static int64_t
parse_utc(const char *s)
{
	int64_t v[6] = {0};
	static const int width[6] = {4, 2, 2, 2, 2, 2};
	const char *p = s;
	int64_t y, m, d, era, yoe, doy, doe;

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

static int64_t
file_size(const char *a, const char *b)
{
	char *p = concat(a, b, "");
	struct stat sb;
	int64_t n = p && stat(p, &sb) == 0 ? (int64_t)sb.st_size : 0;

	free(p);
	return n;
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
	cur = concat(dir, "CURRENT", "");
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
		json_array_append_new(
		    errors,
		    json_string("index not built yet (run `corpus-gw index`)"));
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
	ls = last_sync(db);
	json_object_set_new(o, "last_sync", cg_json_text(ls));
	if (ls != NULL && parse_utc(ls) >= 0)
		json_object_set_new(o, "index_age_s",
		                    json_integer(now - parse_utc(ls)));
	free(ls);
	status_files(db, o, now);
	return o;
}

/* A corpus's kind and, for a remote one, its freshness (SPEC 4.5). */
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
}

int
cg_walk_status(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	json_t *all = json_array();

	json_object_set_new(res, "sources", all);
	for (size_t i = 0; i < cg_node_nsources(n); i++) {
		json_t *o;

		if (!cg_node_in_scope(args, cg_node_source_name(n, i)))
			continue;
		o = status_source(cg_node_index(n, i));
		corpus_status(cg_node_index(n, i), o);
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
