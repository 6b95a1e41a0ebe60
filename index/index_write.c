/*
 * index_write.c - from page files to rows.  One transaction per sync; a
 * file is read only when its size or mtime changed, and re-indexed only
 * when its content hash changed.  Files that cannot be pages (symlinks,
 * binary, too large) are recorded in the problems table and skipped; a page
 * already indexed is never lost because a later version is bad... except
 * when the file itself is gone or replaced, which is the truth.
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cg_analyzer.h"
#include "common/cg_buf.h"
#include "common/cg_fs.h"
#include "index/index_write_int.h"
#include "index/schema.h"
#include "index/sql.h"
#include "page/corpus_scan.h"
#include "page/page.h"
#include "page/scan.h"
#include "page/token.h"
#include "proto/filters.h"

/* A row of the pages table, as needed to decide what changed. */
struct known {
	int64_t id;
	char *path;
	int64_t size;
	int64_t mtime_ns;
	int64_t hash;
	int seen;
};

struct writer {
	sqlite3 *db;
	const char *repo;
	const char *wiki;
	cg_sync_stats *st;
	cg_err *err;
	char **warnings;     /* a corpus's dangling references, or NULL */
	struct known *known; /* sorted by path */
	size_t nknown;
	/* Statements prepared once per sync, by their (static) SQL text:
	 * the per-page inserts ran a fresh prepare each, a third of the
	 * indexing time. */
	struct {
		const char *sql;
		sqlite3_stmt *st;
	} cache[24];
	size_t ncache;
};

/* A statement for sql (a string with static storage), prepared once per
 * sync and reset for each use: callers reset it, never finalize it. */
static int
prepare(struct writer *w, const char *sql, sqlite3_stmt **st)
{
	int rc;

	for (size_t i = 0; i < w->ncache; i++) {
		if (w->cache[i].sql != sql)
			continue;
		*st = w->cache[i].st;
		sqlite3_reset(*st);
		sqlite3_clear_bindings(*st);
		return 0;
	}
	rc = sqlite3_prepare_v2(w->db, sql, -1, st, NULL);
	if (rc != SQLITE_OK)
		return cg_index_sql_fail(w->db, rc, "index prepare", w->err);
	if (w->ncache == sizeof(w->cache) / sizeof(w->cache[0])) {
		/* More statements than the writer has: a programming error,
		 * reported rather than leaked. */
		sqlite3_finalize(*st);
		return cg_err_set(w->err, CG_ERR,
		                  "index: statement cache full");
	}
	w->cache[w->ncache].sql = sql;
	w->cache[w->ncache++].st = *st;
	return 0;
}

static void
cache_fini(struct writer *w)
{
	for (size_t i = 0; i < w->ncache; i++)
		sqlite3_finalize(w->cache[i].st);
	w->ncache = 0;
}

static int
step_done(struct writer *w, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0
	                         : cg_index_sql_fail(w->db, rc, what, w->err);
}

static int
cmp_known(const void *a, const void *b)
{
	return strcmp(((const struct known *)a)->path,
	              ((const struct known *)b)->path);
}

/* Room in w->known (*cap entries) for one more page. */
static int
known_room(struct writer *w, size_t *cap)
{
	size_t ncap = *cap ? *cap * 2 : 256;
	struct known *v;

	if (w->nknown < *cap)
		return 0;
	v = realloc(w->known, ncap * sizeof(*v));
	if (v == NULL)
		return cg_err_set(w->err, CG_ENOMEM, "index: out of memory");
	w->known = v;
	*cap = ncap;
	return 0;
}

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the path is stored
 * in w->known, freed with the writer. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
load_known(struct writer *w)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	rc =
	    prepare(w, "SELECT id, path, size, mtime_ns, hash FROM pages", &st);
	if (rc != 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct known *k;

		if (known_room(w, &cap) != 0) {
			sqlite3_reset(st);
			return CG_ENOMEM;
		}
		k = &w->known[w->nknown++];
		k->id = sqlite3_column_int64(st, 0);
		k->path = strdup((const char *)sqlite3_column_text(st, 1));
		k->size = sqlite3_column_int64(st, 2);
		k->mtime_ns = sqlite3_column_int64(st, 3);
		k->hash = sqlite3_column_int64(st, 4);
		k->seen = 0;
		if (k->path == NULL) {
			w->nknown--;
			sqlite3_reset(st);
			return cg_err_set(w->err, CG_ENOMEM,
			                  "index: out of memory");
		}
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return cg_index_sql_fail(w->db, rc, "index load", w->err);
	if (w->nknown > 1)
		qsort(w->known, w->nknown, sizeof(*w->known), cmp_known);
	return 0;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

static struct known *
find_known(struct writer *w, const char *path)
{
	struct known key = {.path = (char *)path};

	if (w->nknown == 0)
		return NULL;
	return bsearch(&key, w->known, w->nknown, sizeof(*w->known), cmp_known);
}

static int
delete_page(struct writer *w, int64_t id)
{
	static const char *const sql[] = {
	    "DELETE FROM sec WHERE rowid >= ?1 AND rowid < ?2",
	    "DELETE FROM links WHERE page_id = ?3",
	    "DELETE FROM pages WHERE id = ?3",
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && rc == 0; i++) {
		sqlite3_stmt *st = NULL;

		rc = prepare(w, sql[i], &st);
		if (rc != 0)
			break;
		if (i == 0) {
			sqlite3_bind_int64(st, 1, id << CG_SEC_SHIFT);
			sqlite3_bind_int64(st, 2, (id + 1) << CG_SEC_SHIFT);
		} else {
			sqlite3_bind_int64(st, 3, id);
		}
		rc = step_done(w, st, "index delete");
	}
	return rc;
}

static int
set_problem(struct writer *w, const char *path, const char *kind,
            const char *msg)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (kind == NULL) {
		rc = prepare(w, "DELETE FROM problems WHERE path = ?1", &st);
	} else {
		rc = prepare(w,
		             "INSERT OR REPLACE INTO problems(path, kind, "
		             "message) VALUES(?1, ?2, ?3)",
		             &st);
	}
	if (rc != 0)
		return rc;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	if (kind != NULL) {
		sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, msg, -1, SQLITE_STATIC);
	}
	return step_done(w, st, "index problem");
}

/* A file that cannot be a page: record why.  A version indexed before is
 * kept (nothing already indexed is lost to a bad write); its size and mtime
 * are left as they were so the next sync looks again. */
static int
skip_file(struct writer *w, const struct known *k, const char *rel,
          const char *kind, const char *msg)
{
	(void)k;
	w->st->skipped++;
	return set_problem(w, rel, kind, msg);
}

/* Keeps the first failure of a builder sequence that must be whole (out
 * of memory); a cap reached (CG_ETOOBIG) only cuts a text at its cap. */
static void
sticky(int *rc, int r)
{
	if (*rc == 0 && r == CG_ENOMEM)
		*rc = r;
}

/* The buffer's text into *out, or CG_ENOMEM (rc, or the take failing). */
static int
take(cg_buf *b, int rc, char **out)
{
	*out = rc == 0 ? cg_buf_take(b) : NULL;
	cg_buf_fini(b);
	return *out != NULL ? 0 : CG_ENOMEM;
}

static int
join_list(char **v, char **out)
{
	cg_buf b;
	int rc = 0;

	cg_buf_init(&b, 1 << 20);
	for (size_t i = 0; v != NULL && v[i] != NULL; i++) {
		if (i > 0)
			sticky(&rc, cg_buf_putc(&b, ' '));
		sticky(&rc, cg_buf_puts(&b, v[i]));
	}
	return take(&b, rc, out);
}

/* v as a JSON array of strings; NULL only when memory ran out. */
static char *
json_list(char **v)
{
	json_t *a = json_array();
	char *s = NULL;
	int rc = a != NULL ? 0 : -1;

	for (size_t i = 0; rc == 0 && v != NULL && v[i] != NULL; i++)
		rc = json_array_append_new(a, json_string(v[i]));
	if (rc == 0)
		s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

/* Keys whose values are structured fields, not free frontmatter text. */
static int
structured_key(const char *k)
{
	static const char *const keys[] = {
	    "type",       "category",   "confidence",  "created_at",
	    "updated_at", "updated",    "expires_at",  "title",
	    "tags",       "supersedes", "sensitivity", NULL};

	for (size_t i = 0; keys[i] != NULL; i++)
		if (strcmp(k, keys[i]) == 0)
			return 1;
	return 0;
}

static void
meta_append(cg_buf *b, const json_t *v, int *rc)
{
	size_t i;
	const json_t *item;

	if (json_is_string(v)) {
		sticky(rc, cg_buf_puts(b, json_string_value(v)));
		sticky(rc, cg_buf_putc(b, '\n'));
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			if (json_is_string(item)) {
				sticky(rc,
				       cg_buf_puts(b, json_string_value(item)));
				sticky(rc, cg_buf_putc(b, '\n'));
			}
	}
}

/* The "meta" column: every free-text frontmatter value (owner, claim,
 * source_refs, related, applies_to, ...), for frontmatter-only matches. */
static int
meta_text(const cg_page *p, char **out)
{
	const char *key;
	json_t *v;
	cg_buf b;
	int rc = 0;

	cg_buf_init(&b, 1 << 20);
	json_object_foreach(p->fm, key, v)
		if (!structured_key(key))
			meta_append(&b, v, &rc);
	return take(&b, rc, out);
}

/* The headings as JSON; NULL only when memory ran out. */
static char *
outline_json(const cg_page *p)
{
	json_t *a = json_array();
	char *s = NULL;
	int rc = a != NULL ? 0 : -1;

	for (size_t i = 0; rc == 0 && i < p->nheadings; i++)
		rc = json_array_append_new(
		    a,
		    json_pack("{s:i, s:i, s:s}", "level", p->headings[i].level,
		              "line", p->headings[i].line, "text",
		              p->headings[i].text));
	if (rc == 0)
		s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

/* Binds s (NULL: SQL NULL) to parameter i; the first failure (SQLite
 * copies the text: out of memory) sticks in *brc, so that no row is
 * written with a column silently NULL. */
static void
bind_opt(sqlite3_stmt *st, int i, const char *s, int *brc)
{
	int r = s != NULL ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT)
	                  : sqlite3_bind_null(st, i);

	if (*brc == SQLITE_OK)
		*brc = r;
}

/* Steps st when every bind held (brc), else reports the bind's failure. */
static int
step_bound(struct writer *w, sqlite3_stmt *st, int brc, const char *what)
{
	if (brc != SQLITE_OK)
		return cg_index_sql_fail(w->db, brc, what, w->err);
	return step_done(w, st, what);
}

static uint64_t
body_hash(const cg_page *p)
{
	uint64_t h = 0;

	for (size_t i = 0; i < p->nsections; i++) {
		const char *b = p->sections[i].body;

		h = h * 31 + cg_hash64(b, strlen(b));
	}
	return h;
}

static int
insert_page_row(struct writer *w, const cg_scan_entry *e, int64_t hash,
                const cg_page *p, const char *slug, int64_t *id)
{
	sqlite3_stmt *st = NULL;
	char *claim = cg_page_claim_key(p);
	char *tags = json_list(p->tags);
	char *refs = json_list(p->source_refs);
	char *sup = json_list(p->supersedes);
	char *al = json_list(p->aliases);
	char *fm = json_dumps(p->fm, JSON_COMPACT);
	char *outline = outline_json(p);
	int brc = SQLITE_OK;
	int rc = 0;

	if (claim == NULL || tags == NULL || refs == NULL || sup == NULL ||
	    al == NULL || fm == NULL || outline == NULL)
		rc = cg_err_set(w->err, CG_ENOMEM,
		                "index: page %s: out of memory", e->rel);
	if (rc == 0)
		rc = prepare(
		    w,
		    "INSERT INTO pages(path, slug, size, mtime_ns, hash, "
		    "title, category, category_raw, owner, confidence, "
		    "conf_rank, created_at, updated_at, expires_at, "
		    "claim_key, body_hash, tags, fm, source_refs, "
		    "supersedes, aliases, headings, first_line, nlines, "
		    "fm_status, fm_error, utf8_fixed) VALUES(?1, ?2, ?3, "
		    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
		    "?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, "
		    "?26, ?27)",
		    &st);
	if (rc == 0) {
		sqlite3_bind_text(st, 1, e->rel, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, slug, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, e->size);
		sqlite3_bind_int64(st, 4, e->mtime_ns);
		sqlite3_bind_int64(st, 5, hash);
		bind_opt(st, 6, p->title, &brc);
		bind_opt(st, 7, p->category, &brc);
		bind_opt(st, 8, p->category_raw, &brc);
		bind_opt(st, 9, p->owner, &brc);
		bind_opt(st, 10, p->confidence, &brc);
		sqlite3_bind_int(st, 11,
		                 cg_filters_confidence_rank(p->confidence));
		bind_opt(st, 12, p->created_at, &brc);
		bind_opt(st, 13, p->updated_at, &brc);
		bind_opt(st, 14, p->expires_at, &brc);
		bind_opt(st, 15, claim, &brc);
		sqlite3_bind_int64(st, 16, (int64_t)body_hash(p));
		bind_opt(st, 17, tags, &brc);
		bind_opt(st, 18, fm, &brc);
		bind_opt(st, 19, refs, &brc);
		bind_opt(st, 20, sup, &brc);
		bind_opt(st, 21, al, &brc);
		bind_opt(st, 22, outline, &brc);
		bind_opt(st, 23, p->first_line, &brc);
		sqlite3_bind_int(st, 24, p->nlines);
		sqlite3_bind_int(st, 25, (int)p->fm_status);
		bind_opt(st, 26, p->fm_error[0] ? p->fm_error : NULL, &brc);
		sqlite3_bind_int64(st, 27, (int64_t)p->utf8_fixed);
		rc = step_bound(w, st, brc, "index insert page");
		*id = sqlite3_last_insert_rowid(w->db);
	}
	if (st != NULL)
		sqlite3_reset(st);
	free(claim);
	free(tags);
	free(refs);
	free(sup);
	free(al);
	free(fm);
	free(outline);
	return rc;
}

/* Collects the folded tokens of a text, joined by ' ' with a ' ' around. */
static int
collect_token(void *ctx, const char *tok, int ntok, int start, int end,
              bool cjk)
{
	cg_buf *b = ctx;

	(void)start;
	(void)end;
	(void)cjk;
	(void)cg_buf_append(b, tok, (size_t)ntok);
	return cg_buf_putc(b, ' ');
}

/* Sets *missing when a token of the slug is not among the title's. */
struct slug_check {
	const char *title; /* " t1 t2 ... " */
	bool missing;
};

static int
check_token(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	struct slug_check *k = ctx;
	char w[CG_TOKEN_MAX + 3];

	(void)start;
	(void)end;
	(void)cjk;
	(void)snprintf(w, sizeof(w), " %.*s ", ntok, tok);
	if (strstr(k->title, w) == NULL)
		k->missing = true;
	return 0;
}

/* The title column: the title, and on a line of its own the file name's
 * words when the title lacks one of them ("PostgreSQL" of use-postgres.md
 * is also found by "postgres"); *out NULL: the title alone.  CG_ENOMEM
 * when it cannot tell (the slug's words would be missing). */
static int
title_text(const char *title, const char *slug, char **out)
{
	struct slug_check k = {.missing = false};
	cg_buf b;
	int rc;

	*out = NULL;
	if (title == NULL || slug == NULL)
		return 0;
	cg_buf_init(&b, 1 << 16);
	rc = cg_buf_putc(&b, ' ');
	if (rc == 0)
		rc = cg_token_each(title, (int)strnlen(title, 1 << 15),
		                   collect_token, &b);
	k.title = cg_buf_str(&b);
	if (rc == 0)
		(void)cg_token_each(slug, (int)strlen(slug), check_token, &k);
	if (rc == 0 && k.missing && asprintf(out, "%s\n%s", title, slug) < 0) {
		*out = NULL;
		rc = CG_ENOMEM;
	}
	cg_buf_fini(&b);
	return rc == CG_ENOMEM ? rc : 0;
}

static int
insert_sections(struct writer *w, int64_t id, const cg_page *p,
                const char *slug)
{
	sqlite3_stmt *st = NULL;
	char *tags = NULL;
	char *meta = NULL;
	char *title = NULL;
	size_t n = p->nsections;
	int rc = join_list(p->tags, &tags);

	if (rc == 0)
		rc = meta_text(p, &meta);
	if (rc == 0)
		rc = title_text(p->title, slug, &title);
	if (rc != 0)
		rc = cg_err_set(w->err, rc, "index: page %s: out of memory",
		                slug);
	if (n >= ((size_t)1 << CG_SEC_SHIFT))
		n = ((size_t)1 << CG_SEC_SHIFT) - 1;
	if (rc == 0)
		rc = prepare(
		    w,
		    "INSERT INTO sec(rowid, title, headings, body, tags, "
		    "meta, line_start, line_end) VALUES(?1, ?2, ?3, ?4, ?5, "
		    "?6, ?7, ?8)",
		    &st);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const cg_section *s = &p->sections[i];
		int brc = SQLITE_OK;

		sqlite3_bind_int64(st, 1, (id << CG_SEC_SHIFT) | (int64_t)i);
		bind_opt(st, 2, title != NULL ? title : p->title, &brc);
		bind_opt(st, 3, s->headings, &brc);
		bind_opt(st, 4, s->body, &brc);
		/* Frontmatter text once per page: on its first section. */
		bind_opt(st, 5, i == 0 ? tags : NULL, &brc);
		bind_opt(st, 6, i == 0 ? meta : NULL, &brc);
		sqlite3_bind_int(st, 7, s->line_start);
		sqlite3_bind_int(st, 8, s->line_end);
		rc = step_bound(w, st, brc, "index insert section");
	}
	if (st != NULL)
		sqlite3_reset(st);
	free(tags);
	free(meta);
	free(title);
	return rc;
}

static int
insert_links(struct writer *w, int64_t id, const cg_page *p)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = prepare(w,
	             "INSERT INTO links(page_id, kind, target, anchor, text, "
	             "line) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
	             &st);
	for (size_t i = 0; rc == 0 && i < p->nlinks; i++) {
		const cg_link *l = &p->links[i];
		int brc = SQLITE_OK;

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, (int)l->kind);
		bind_opt(st, 3, l->target, &brc);
		bind_opt(st, 4, l->anchor, &brc);
		bind_opt(st, 5, l->text, &brc);
		sqlite3_bind_int(st, 6, l->line);
		rc = step_bound(w, st, brc, "index insert link");
	}
	sqlite3_reset(st);
	return rc;
}

static int
touch_page(struct writer *w, const struct known *k, const cg_scan_entry *e)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(w,
	                 "UPDATE pages SET size = ?1, mtime_ns = ?2 WHERE "
	                 "id = ?3",
	                 &st);

	if (rc != 0)
		return rc;
	sqlite3_bind_int64(st, 1, e->size);
	sqlite3_bind_int64(st, 2, e->mtime_ns);
	sqlite3_bind_int64(st, 3, k->id);
	return step_done(w, st, "index touch");
}

/* Indexes the text of a changed file (replacing any older rows). */
static int
index_text(struct writer *w, const struct known *k, const cg_scan_entry *e,
           const char *text, size_t len)
{
	int64_t hash = (int64_t)cg_hash64(text, len);
	size_t slug_len;
	const char *base = cg_page_slug(e->rel, &slug_len);
	char *slug;
	cg_page page;
	int64_t id = 0;
	int rc;

	if (e->overlay != NULL) /* corpus: the entry is content too */
		hash ^= (int64_t)e->overlay_hash;

	if (k != NULL && k->hash == hash) {
		rc = touch_page(w, k, e);
		return rc ? rc : set_problem(w, e->rel, NULL, NULL);
	}
	slug = strndup(base, slug_len);
	if (slug == NULL)
		return cg_err_set(w->err, CG_ENOMEM, "index: out of memory");
	rc = cg_page_parse(&page, text, len, slug, e->category, w->err);
	if (rc != 0) {
		free(slug);
		return rc;
	}
	if (cg_corpus_scan_overlay(&page, e->overlay) != 0) {
		cg_page_fini(&page);
		free(slug);
		return cg_err_set(w->err, CG_ENOMEM, "index: out of memory");
	}
	if (k != NULL)
		rc = delete_page(w, k->id);
	if (rc == 0)
		rc = insert_page_row(w, e, hash, &page, slug, &id);
	if (rc == 0)
		rc = insert_sections(w, id, &page, slug);
	if (rc == 0)
		rc = insert_links(w, id, &page);
	if (rc == 0)
		rc = set_problem(w, e->rel, NULL, NULL);
	if (rc == 0) {
		w->st->reparsed++;
		if (k == NULL)
			w->st->added++;
	}
	cg_page_fini(&page);
	free(slug);
	return rc;
}

static int
cmp_scan_rel(const void *key, const void *elem)
{
	return strcmp(key, ((const cg_scan_entry *)elem)->rel);
}

/* Drops the problems of files that no longer exist. */
static int
prune_problems(struct writer *w, const cg_scan *scan)
{
	sqlite3_stmt *st = NULL;
	char **gone = NULL;
	size_t ngone = 0;
	int rc = prepare(w, "SELECT path FROM problems", &st);
	int src = rc == 0 ? SQLITE_ROW : SQLITE_DONE;

	/* A path cut short (out of memory) would leave the problem of a
	 * file that is gone: the sync fails instead. */
	while (rc == 0 && (src = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);
		char **v;

		if (path == NULL && sqlite3_errcode(w->db) == SQLITE_NOMEM) {
			rc = cg_index_sql_fail(w->db, SQLITE_NOMEM,
			                       "index problems", w->err);
			break;
		}
		if (path == NULL ||
		    (scan->n > 0 && bsearch(path, scan->v, scan->n,
		                            sizeof(*scan->v), cmp_scan_rel)))
			continue;
		v = realloc(gone, (ngone + 1) * sizeof(*v));
		if (v != NULL) {
			gone = v;
			gone[ngone] = strdup(path);
		}
		if (v == NULL || gone[ngone] == NULL)
			rc = cg_err_set(w->err, CG_ENOMEM,
			                "index problems: out of memory");
		else
			ngone++;
	}
	if (rc == 0 && src != SQLITE_DONE)
		rc = cg_index_sql_fail(w->db, src, "index problems", w->err);
	sqlite3_reset(st);
	for (size_t i = 0; i < ngone; i++) {
		if (rc == 0)
			rc = set_problem(w, gone[i], NULL, NULL);
		free(gone[i]);
	}
	free(gone);
	return rc;
}

static int
touch_meta(struct writer *w)
{
	sqlite3_stmt *st = NULL;
	char now[32];
	time_t t = time(NULL);
	struct tm tm;
	int rc;

	(void)gmtime_r(&t, &tm);
	(void)strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rc = prepare(w,
	             "INSERT OR REPLACE INTO meta(key, value) "
	             "VALUES('last_sync', ?1)",
	             &st);
	if (rc != 0)
		return rc;
	sqlite3_bind_text(st, 1, now, -1, SQLITE_STATIC);
	rc = step_done(w, st, "index meta");
	if (rc != 0 || w->st->added + w->st->deleted + w->st->reparsed == 0)
		return rc;
	/* What a search scores with changed: the epoch moves (index.h). */
	rc = prepare(w,
	             "INSERT OR REPLACE INTO meta(key, value) VALUES('epoch', "
	             "coalesce((SELECT value FROM meta WHERE key = 'epoch'), "
	             "0) + 1)",
	             &st);
	return rc != 0 ? rc : step_done(w, st, "index epoch");
}

/* Handles one scanned file: skip, touch, or (re)index. */
static int
sync_file(struct writer *w, const cg_scan_entry *e)
{
	struct known *k = find_known(w, e->rel);
	char *abs = NULL;
	char *text = NULL;
	size_t len = 0;
	cg_err rerr;
	int rc = 0;

	w->st->files++;
	if (k != NULL) {
		k->seen = 1;
		if (k->size == e->size && k->mtime_ns == e->mtime_ns)
			return 0;
	}
	if (e->kind == CG_SCAN_SYMLINK)
		return skip_file(w, k, e->rel, "symlink",
		                 "symlink not followed");
	if (e->virt) {
		text = cg_corpus_scan_virtual_text(e->overlay, &len);
		if (text == NULL)
			return cg_err_set(w->err, CG_ENOMEM, "out of memory");
		rc = index_text(w, k, e, text, len);
		goto out;
	}
	if ((uint64_t)e->size > CG_PAGE_MAX_BYTES) {
		char msg[160];

		(void)snprintf(msg, sizeof(msg),
		               "%.1f MB, over the %u MB page limit; not "
		               "indexed, grep still reads it",
		               (double)e->size / 1e6, CG_PAGE_MAX_BYTES >> 20);
		return skip_file(w, k, e->rel, "too_large", msg);
	}
	abs = cg_path_join(w->repo, e->rel);
	if (abs == NULL)
		return cg_err_set(w->err, CG_ENOMEM, "index: out of memory");
	cg_err_clear(&rerr);
	rc = cg_file_read(abs, CG_PAGE_MAX_BYTES, &text, &len, &rerr);
	free(abs);
	if (rc == CG_ENOMEM) /* not an unreadable file: the sync fails */
		return cg_err_set(w->err, rc, "index: %s: out of memory",
		                  e->rel);
	if (rc != 0) {
		rc = skip_file(w, k, e->rel, "unreadable", rerr.msg);
		goto out;
	}
	w->st->read++;
	if (memchr(text, '\0', len < 8192 ? len : 8192) != NULL) {
		rc = skip_file(w, k, e->rel, "binary",
		               "binary content (NUL bytes); not indexed");
		goto out;
	}
	rc = index_text(w, k, e, text, len);
out:
	free(text);
	return rc;
}

/* A corpus's warnings (dangling references, skipped entries) as problems
 * "corpus#N", replacing the last sync's. */
static int
corpus_problems(struct writer *w)
{
	sqlite3_stmt *st = NULL;
	char path[32];
	int rc;

	if (w->warnings == NULL)
		return 0;
	rc = prepare(w, "DELETE FROM problems WHERE kind = 'corpus'", &st);
	if (rc == 0)
		rc = step_done(w, st, "index problem");
	for (size_t i = 0; rc == 0 && w->warnings[i] != NULL; i++) {
		(void)snprintf(path, sizeof(path), "corpus#%zu", i + 1);
		rc = set_problem(w, path, "corpus", w->warnings[i]);
	}
	return rc;
}

static int
sync_all(struct writer *w, const cg_scan *scan)
{
	int rc = 0;

	for (size_t i = 0; i < scan->n && rc == 0; i++)
		rc = sync_file(w, &scan->v[i]);
	for (size_t i = 0; i < w->nknown && rc == 0; i++) {
		if (w->known[i].seen)
			continue;
		rc = delete_page(w, w->known[i].id);
		if (rc == 0)
			rc = set_problem(w, w->known[i].path, NULL, NULL);
		w->st->deleted++;
	}
	/* Problems of files that are gone. */
	if (rc == 0)
		rc = prune_problems(w, scan);
	if (rc == 0)
		rc = corpus_problems(w);
	return rc;
}

/* The identity of a folder: a fetch that publishes swaps it. */
static ino_t
folder_id(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 ? st.st_ino : 0;
}

/* 1 when the stored problems of kind 'corpus' are not w->warnings. */
static int
corpus_problems_differ(struct writer *w)
{
	sqlite3_stmt *st = NULL;
	size_t n = 0;
	int differ = 0;
	int src = SQLITE_DONE;

	if (w->warnings == NULL)
		return 0;
	if (prepare(w,
	            "SELECT message FROM problems WHERE kind = 'corpus' "
	            "ORDER BY CAST(substr(path, 8) AS INTEGER)",
	            &st) != 0)
		return 1;
	while (!differ && (src = sqlite3_step(st)) == SQLITE_ROW) {
		const char *m = (const char *)sqlite3_column_text(st, 0);

		differ = w->warnings[n] == NULL || m == NULL ||
		         strcmp(m, w->warnings[n]) != 0;
		n++;
	}
	sqlite3_reset(st);
	/* A read that failed errs towards a sync. */
	return differ || src != SQLITE_DONE || w->warnings[n] != NULL;
}

/* 1 when a scanned file would be written by sync_file: new, changed, or
 * skipped for a reason only reading it can confirm.  A symlink or an
 * oversized file whose problem is recorded gives the same row again. */
static int
file_needs_sync(struct writer *w, const cg_scan_entry *e)
{
	struct known *k = find_known(w, e->rel);

	sqlite3_stmt *st = NULL;
	const char *kind;
	int same = 0;

	if (k != NULL) {
		k->seen = 1;
		return k->size != e->size || k->mtime_ns != e->mtime_ns;
	}
	if (prepare(w, "SELECT kind FROM problems WHERE path = ?1", &st) != 0)
		return 1;
	sqlite3_bind_text(st, 1, e->rel, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (kind = (const char *)sqlite3_column_text(st, 0)) != NULL)
		same = (e->kind == CG_SCAN_SYMLINK &&
		        strcmp(kind, "symlink") == 0) ||
		       (e->kind != CG_SCAN_SYMLINK && !e->virt &&
		        (uint64_t)e->size > CG_PAGE_MAX_BYTES &&
		        strcmp(kind, "too_large") == 0);
	sqlite3_reset(st);
	return !same;
}

/* 1 when the problems table names a file the scan does not have. */
static int
problems_outlive_files(struct writer *w, const cg_scan *scan)
{
	sqlite3_stmt *st = NULL;
	int gone = 0;
	int src = SQLITE_DONE;

	if (prepare(w, "SELECT path FROM problems WHERE kind <> 'corpus'",
	            &st) != 0)
		return 1;
	while (!gone && (src = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);

		gone = path == NULL || scan->n == 0 ||
		       bsearch(path, scan->v, scan->n, sizeof(*scan->v),
		               cmp_scan_rel) == NULL;
	}
	sqlite3_reset(st);
	return gone || src != SQLITE_DONE; /* a failed read: sync */
}

/* Whether a sync of scan would write anything, decided by reading only:
 * the invariant of a no-change sync is that it opens no transaction and
 * makes no write (no fsync, no WAL frame).  Errs towards 1: a file the
 * index does not hold as a page (a skipped symlink, a binary file) is
 * looked at again by every sync, as before. */
static int
sync_needed(struct writer *w, const cg_scan *scan)
{
	if (load_known(w) != 0)
		return 1;
	for (size_t i = 0; i < scan->n; i++)
		if (file_needs_sync(w, &scan->v[i]))
			return 1;
	for (size_t i = 0; i < w->nknown; i++)
		if (!w->known[i].seen)
			return 1;
	return problems_outlive_files(w, scan) || corpus_problems_differ(w);
}

static void
known_free(struct writer *w)
{
	for (size_t i = 0; i < w->nknown; i++)
		free(w->known[i].path);
	free(w->known);
	w->known = NULL;
	w->nknown = 0;
}

/* Triggers that drop the kept problems list (kept_problems) with any
 * change to a table it is computed from, whoever writes: so a list read
 * back is the list the tables give, even after a write by a binary that
 * keeps none. */
static const char keep_triggers[] =
    "CREATE TRIGGER IF NOT EXISTS problems_kept_pi AFTER INSERT ON pages"
    " BEGIN DELETE FROM meta WHERE key = 'problems'; END;"
    "CREATE TRIGGER IF NOT EXISTS problems_kept_pu AFTER UPDATE ON pages"
    " BEGIN DELETE FROM meta WHERE key = 'problems'; END;"
    "CREATE TRIGGER IF NOT EXISTS problems_kept_pd AFTER DELETE ON pages"
    " BEGIN DELETE FROM meta WHERE key = 'problems'; END;"
    "CREATE TRIGGER IF NOT EXISTS problems_kept_li AFTER INSERT ON links"
    " BEGIN DELETE FROM meta WHERE key = 'problems'; END;"
    "CREATE TRIGGER IF NOT EXISTS problems_kept_lu AFTER UPDATE ON links"
    " BEGIN DELETE FROM meta WHERE key = 'problems'; END;"
    "CREATE TRIGGER IF NOT EXISTS problems_kept_ld AFTER DELETE ON links"
    " BEGIN DELETE FROM meta WHERE key = 'problems'; END;"
    "CREATE TRIGGER IF NOT EXISTS problems_kept_xi AFTER INSERT ON problems"
    " BEGIN DELETE FROM meta WHERE key = 'problems'; END;"
    "CREATE TRIGGER IF NOT EXISTS problems_kept_xu AFTER UPDATE ON problems"
    " BEGIN DELETE FROM meta WHERE key = 'problems'; END;"
    "CREATE TRIGGER IF NOT EXISTS problems_kept_xd AFTER DELETE ON problems"
    " BEGIN DELETE FROM meta WHERE key = 'problems'; END;";

/* Keeps the problems list in meta('problems'), in the sync's transaction,
 * after its writes (which dropped a list they made stale): every search
 * reports a source's problems (node/ops_search.c), and computing them
 * reads every page row, a tenth of a one-shot CLI query over 21 sources.
 * A read-only query then reads one row (cg_index_write_problems). */
static int
keep_problems(struct writer *w)
{
	sqlite3_stmt *st = NULL;
	json_t *list;
	char *text;
	int rc = sqlite3_exec(w->db, keep_triggers, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return cg_index_sql_fail(w->db, rc, "index triggers", w->err);
	list = cg_index_write_problems(w->db);
	text = list ? json_dumps(list, JSON_COMPACT) : NULL;
	json_decref(list);
	if (text == NULL)
		return cg_err_set(w->err, CG_ENOMEM, "index: out of memory");
	rc = prepare(w,
	             "INSERT OR REPLACE INTO meta(key, value) "
	             "VALUES('problems', ?1)",
	             &st);
	if (rc == 0) {
		sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
		rc = step_done(w, st, "index meta");
	}
	free(text);
	return rc;
}

/* One attempt; 1 (rolled back) when kind is a remote corpus whose folder
 * was swapped by a publish while it was read; CG_WRITE_READONLY when there
 * is something to write and db is a read-only connection. */
static int
sync_once(sqlite3 *db, const char *repo, const char *wiki, int kind,
          cg_sync_stats *st, cg_err *err)
{
	struct writer w = {db,   repo, wiki,           st, err, NULL,
	                   NULL, 0,    {{NULL, NULL}}, 0};
	ino_t before = kind == CG_SRC_CORPUS_REMOTE ? folder_id(repo) : 0;
	cg_scan scan;
	int rc;

	rc = cg_corpus_scan_source(&scan, repo, wiki, (enum cg_source_kind)kind,
	                           &w.warnings, err);
	if (rc != 0) {
		cg_corpus_scan_warnings_free(w.warnings);
		return rc;
	}
	if (!sync_needed(&w, &scan)) {
		/* scan.n <= 1,000,000 (cg_scan_wiki's cap): an int holds it. */
		st->files += (int)scan.n;
		rc = 0;
		goto out_known;
	}
	known_free(&w);
	if (sqlite3_db_readonly(db, "main") == 1) {
		rc = CG_WRITE_READONLY;
		goto out_known;
	}
	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		rc = cg_index_sql_fail(db, rc, "index begin", err);
		goto out_scan;
	}
	rc = load_known(&w);
	if (rc == 0)
		rc = sync_all(&w, &scan);
	if (rc == 0)
		rc = touch_meta(&w);
	if (rc == 0)
		rc = keep_problems(&w);
	if (rc == 0 && before != 0 && folder_id(repo) != before)
		rc = 1;
	if (rc == 0) {
		int src = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);

		if (src != SQLITE_OK)
			rc = cg_index_sql_fail(db, src, "index commit", err);
	}
	if (rc != 0)
		(void)sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
out_known:
	known_free(&w);
	cache_fini(&w);
out_scan:
	cg_scan_fini(&scan);
	cg_corpus_scan_warnings_free(w.warnings);
	return rc;
}

int
cg_index_write_sync(sqlite3 *db, const char *repo, const char *wiki, int kind,
                    cg_sync_stats *st, cg_err *err)
{
	cg_sync_stats first = *st;
	int rc;

	/* A reader sees the old or the new corpus: a sync that read across
	 * a publish is thrown away and run again on the new folder. */
	for (int i = 0; i < 5; i++) {
		*st = first;
		rc = sync_once(db, repo, wiki, kind, st, err);
		if (rc != 1)
			return rc;
	}
	return cg_err_set(err, CG_EUNAVAIL,
	                  "%s kept changing during the sync; retried", repo);
}

/* The problems list computed from the tables: a scan of every page row
 * (the frontmatter and UTF-8 checks) and, with links, the name lookups. */
static json_t *
compute_problems(sqlite3 *db)
{
	/* Unresolved links (kind unresolved_link): conservative, so never
	 * wrong: a [[name]] without "/" that is no slug, title or alias of
	 * this source, and a (x.md) link to the page's own folder that is
	 * no page.  "a/b" links may name another source and are judged by
	 * link resolution (node/resolve.c), not here. */
	static const char *const sql =
	    "WITH names(n) AS (SELECT lower(slug) FROM pages"
	    " UNION SELECT lower(title) FROM pages WHERE title IS NOT NULL"
	    " UNION SELECT lower(j.value) FROM pages, json_each(pages.aliases) j"
	    "  WHERE j.type = 'text') "
	    "SELECT path, kind, message FROM problems "
	    "UNION ALL SELECT path, 'frontmatter', "
	    " coalesce(fm_error, 'frontmatter unreadable') FROM pages "
	    " WHERE fm_status >= 2 "
	    "UNION ALL SELECT path, 'invalid_utf8', utf8_fixed || "
	    " ' invalid UTF-8 sequence(s) replaced' FROM pages "
	    " WHERE utf8_fixed > 0 "
	    "UNION ALL SELECT p.path, 'unresolved_link', 'link [[' || l.target"
	    " || ']] on line ' || l.line || ' resolves to no page' FROM links l"
	    " JOIN pages p ON p.id = l.page_id WHERE l.kind = 1"
	    " AND instr(l.target, '/') = 0"
	    " AND lower(l.target) NOT IN (SELECT n FROM names)"
	    " AND NOT (lower(l.target) LIKE '%.md' AND substr(lower(l.target),"
	    "  1, length(l.target) - 3) IN (SELECT n FROM names)) "
	    "UNION ALL SELECT p.path, 'unresolved_link', 'link (' || l.target"
	    " || ') on line ' || l.line || ' resolves to no page' FROM links l"
	    " JOIN pages p ON p.id = l.page_id WHERE l.kind = 2"
	    " AND l.target LIKE '%.md' AND instr(l.target, '/') = 0"
	    " AND instr(l.target, '%') = 0"
	    " AND rtrim(p.path, replace(p.path, '/', '')) || l.target"
	    "  NOT IN (SELECT path FROM pages) ORDER BY 1, 2";
	json_t *out = json_array();
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return out;
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(
		    out,
		    json_pack("{s:s, s:s, s:s}", "path",
		              (const char *)sqlite3_column_text(st, 0), "kind",
		              (const char *)sqlite3_column_text(st, 1),
		              "message",
		              (const char *)sqlite3_column_text(st, 2)));
	sqlite3_finalize(st);
	return out;
}

/* The problems list a sync keeps in meta('problems'), or NULL when there is
 * none (an index written before it was kept, or since changed) or it does
 * not read as an array. */
static json_t *
kept_problems(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	json_t *v = NULL;

	if (sqlite3_prepare_v2(db,
	                       "SELECT value FROM meta WHERE key = 'problems'",
	                       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 0);

		v = text ? json_loads(text, 0, NULL) : NULL;
	}
	sqlite3_finalize(st);
	if (v != NULL && !json_is_array(v)) {
		json_decref(v);
		v = NULL;
	}
	return v;
}

json_t *
cg_index_write_problems(sqlite3 *db)
{
	json_t *v = kept_problems(db);

	return v != NULL ? v : compute_problems(db);
}
