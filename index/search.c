/*
 * search.c - one source's part of a search: local statistics, the one
 * pass over FTS5 that ranks every matching row in its class (cg_match,
 * rank.c) and keeps the best pages, the hits of the pages that made the
 * final list (page rows, snippets), and claim-key lookups for
 * contradictions.
 *
 * What it must not do: put user text into an FTS5 expression (query.c
 * builds every expression from tokens), apply a filter after the limit, or
 * compute a snippet for a row that is not returned.
 */
#define _GNU_SOURCE
#include "index/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/cg_analyzer.h"
#include "common/cg_buf.h"
#include "common/cg_fs.h"
#include "common/cg_vec.h"
#include "index/corpus_hits.h"
#include "index/rank.h"
#include "index/sketch.h"
#include "index/snippet.h"
#include "page/page.h"
#include "page/source_refs.h"

#define SEARCH_MAX_LIMIT 500

/* --- statistics ---------------------------------------------------------- */

/* A cached statement of the index (cg_index_stmt): reset it, never
 * finalize it. */
static sqlite3_stmt *
cached(cg_index *idx, const char *sql)
{
	return cg_index_stmt(idx, sql);
}

/* CG_SEC_SHIFT as SQL text. */
#define SHIFT_STR(x) #x
#define SHIFT_OF(x)  SHIFT_STR(x)
#define SHIFT        SHIFT_OF(CG_SEC_SHIFT)

/* Rows whose any column holds the phrase (tokens joined by spaces), or a
 * token it begins when prefix. */
static int
count_rows(cg_index *idx, const char *phrase, bool prefix, int64_t *out,
           cg_err *err)
{
	sqlite3_stmt *st = NULL;
	cg_buf expr;
	int rc;

	cg_buf_init(&expr, (size_t)CG_QUERY_MAX_BYTES * 2);
	(void)cg_buf_putc(&expr, '"');
	(void)cg_buf_puts(&expr, phrase);
	rc = cg_buf_putc(&expr, '"');
	if (rc == 0 && prefix)
		rc = cg_buf_putc(&expr, '*');
	if (rc != 0) {
		cg_buf_fini(&expr);
		return cg_err_set(err, rc, "search: phrase too long");
	}
	st = cached(idx, "SELECT count(*) FROM sec WHERE sec MATCH ?1");
	rc = st ? SQLITE_OK : sqlite3_errcode(cg_index_db(idx));
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, expr.data, (int)expr.len,
		                  SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	if (st != NULL)
		sqlite3_reset(st);
	cg_buf_fini(&expr);
	return rc == SQLITE_ROW
	           ? 0
	           : cg_index_query_fail(idx, rc, "search stats", err);
}

int
cg_search_stats(cg_index *idx, const cg_query *q, cg_gstats *out, cg_err *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cg_index_totals(idx, &out->nrows, out->tot, err);
	out->nterms = q->n;
	for (size_t i = 0; rc == 0 && i < q->n; i++)
		rc = count_rows(idx, q->terms[i].text, q->terms[i].prefix,
		                &out->df[i], err);
	if (rc == 0 && q->n > 1) {
		char *phrase = cg_query_phrase_text(q);

		if (phrase == NULL)
			return cg_err_set(err, CG_ENOMEM, "out of memory");
		rc = count_rows(idx, phrase, false, &out->df_phrase, err);
		free(phrase);
	} else if (rc == 0 && q->n == 1) {
		out->df_phrase = out->df[0];
	}
	return rc;
}

/* --- candidates ---------------------------------------------------------- */

void
cg_search_filter_bind(sqlite3_stmt *st, const cg_filters *f)
{
	const char *v[] = {f->category, f->owner, f->confidence,
	                   f->updated_since, f->tag};

	for (int i = 0; i < 5; i++)
		if (v[i] != NULL)
			sqlite3_bind_text(st, i + 2, v[i], -1, SQLITE_STATIC);
}

void
cg_cands_fini(cg_cands *c)
{
	for (size_t i = 0; c->v != NULL && i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static int
cands_init(cg_cands *c, int limit)
{
	memset(c, 0, sizeof(*c));
	c->cap =
	    limit < 1
	        ? 1
	        : (size_t)(limit > SEARCH_MAX_LIMIT ? SEARCH_MAX_LIMIT : limit);
	c->v = calloc(c->cap, sizeof(*c->v));
	return c->v != NULL ? 0 : CG_ENOMEM;
}

/* The order of one source's pages, as the per-class SQL gave it: class,
 * score (exactly), updated_at and confidence descending, path. */
static int
cand_cmp(const cg_cand *a, const cg_cand *b)
{
	int c;

	if (a->m != b->m)
		return a->m > b->m ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	c = strcmp(b->updated_at, a->updated_at);
	if (c != 0)
		return c;
	if (a->conf != b->conf)
		return a->conf > b->conf ? -1 : 1;
	return strcmp(a->path, b->path);
}

/* True when (m, score) cannot enter a full list, whatever its page. */
static bool
cands_below(const cg_cands *c, enum cg_match m, double score)
{
	const cg_cand *last = &c->v[c->n - 1];

	if (c->n < c->cap)
		return false;
	return m < last->m || (m == last->m && score < last->score);
}

/* Inserts x (taking its path) in order, dropping the last when full. */
static void
cands_insert(cg_cands *c, cg_cand *x)
{
	size_t at = c->n;

	while (at > 0 && cand_cmp(x, &c->v[at - 1]) < 0)
		at--;
	if (at >= c->cap) {
		free(x->path);
		return;
	}
	if (c->n == c->cap)
		free(c->v[--c->n].path);
	memmove(&c->v[at + 1], &c->v[at], (c->n - at) * sizeof(*c->v));
	c->v[at] = *x;
	c->n++;
}

/* The page's sort keys when it passes the filters and the caller may see
 * it: 1 (x filled), 0 (filtered out), or a negative code. */
static int
page_keys(cg_index *idx, const cg_search_opts *o, cg_cand *x, cg_err *err)
{
	static const char *const sql =
	    "SELECT p.path, p.updated_at, p.confidence, p.conf_rank FROM "
	    "pages p WHERE p.id = ?1" CG_SEARCH_FILTER_SQL;
	sqlite3_stmt *st = cg_index_stmt(idx, sql);
	int rc;

	if (st == NULL)
		return cg_index_query_fail(
		    idx, sqlite3_errcode(cg_index_db(idx)), "search page", err);
	sqlite3_bind_int64(st, 1, x->page);
	cg_search_filter_bind(st, o->f);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *u = (const char *)sqlite3_column_text(st, 1);
		const char *cf = (const char *)sqlite3_column_text(st, 2);

		x->path = strdup((const char *)sqlite3_column_text(st, 0));
		(void)snprintf(x->updated_at, sizeof(x->updated_at), "%s",
		               u ? u : "");
		(void)snprintf(x->confidence, sizeof(x->confidence), "%s",
		               cf ? cf : "");
		x->conf = sqlite3_column_int(st, 3);
		rc = x->path != NULL
		         ? 1
		         : cg_err_set(err, CG_ENOMEM, "search: out of memory");
	} else {
		rc = rc == SQLITE_DONE
		         ? 0
		         : cg_index_query_fail(idx, rc, "search page", err);
	}
	sqlite3_reset(st);
	return rc;
}

/* A page's best section is known: it joins the list if it can.  A full
 * list's last entry is then the floor of cg_match's next rows (rank.h):
 * a row below it could not make its page enter (the last only rises). */
static int
offer(cg_index *idx, const cg_search_opts *o, cg_cands *c, cg_cand *best,
      cg_err *err)
{
	cg_rank_ctx *r = cg_index_rank(idx);
	int rc;

	if (best->page < 0 || best->m == CG_MATCH_NONE ||
	    cands_below(c, best->m, best->score))
		return 0;
	rc = page_keys(idx, o, best, err);
	if (rc > 0)
		cands_insert(c, best);
	if (c->n == c->cap) {
		r->floor_on = true;
		r->floor_m = c->v[c->n - 1].m;
		r->floor_score = c->v[c->n - 1].score;
	}
	return rc < 0 ? rc : 0;
}

/*
 * One ranking pass over the rows of cg_query_fts_pass(q, all), in rowid order,
 * so that the sections of a page come together (rowid = page << CG_SEC_SHIFT |
 * n). cg_match(sec) classifies and scores each row; a page keeps its best
 * section (class, then score; the first of equal ones), and only a page
 * that could enter the list is looked up for the filters, the caller's
 * visibility and its tie keys.
 */
static int
rank_pass(cg_index *idx, const cg_search_opts *o, bool all, cg_cands *c,
          int64_t *walked, cg_err *err)
{
	char *expr = cg_query_fts_pass(o->q, all);
	cg_rank_ctx *r = cg_index_rank(idx);
	sqlite3_stmt *st;
	cg_cand best = {.page = -1};
	int rc = 0;
	int src;

	/* Excluded words drop whole pages (page/query.h), not sections. */
	st = o->q->exclude == NULL
	         ? cg_index_stmt(idx, "SELECT rowid, cg_match(sec) FROM sec "
	                              "WHERE sec MATCH ?1")
	         : cg_index_stmt(idx, "SELECT rowid, cg_match(sec) FROM sec "
	                              "WHERE sec MATCH ?1 AND rowid >> " SHIFT
	                              " NOT IN (SELECT rowid >> " SHIFT
	                              " FROM sec WHERE sec MATCH ?2)");
	if (expr == NULL)
		return cg_err_set(err, CG_ENOMEM, "search: out of memory");
	if (st == NULL) {
		free(expr);
		return cg_index_query_fail(idx,
		                           sqlite3_errcode(cg_index_db(idx)),
		                           "search prepare", err);
	}
	cg_rank_prepare(r, o->q, o->g, !all);
	sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
	if (o->q->exclude != NULL)
		sqlite3_bind_text(st, 2, o->q->exclude, -1, SQLITE_STATIC);
	while (rc == 0 && (src = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t rowid = sqlite3_column_int64(st, 0);
		double score = sqlite3_column_double(st, 1);
		enum cg_match m = r->last;

		(*walked)++;
		if (rowid >> CG_SEC_SHIFT != best.page) {
			rc = offer(idx, o, c, &best, err);
			best = (cg_cand){.page = rowid >> CG_SEC_SHIFT,
			                 .rowid = rowid,
			                 .score = score,
			                 .m = m};
		} else if (m > best.m || (m == best.m && score > best.score)) {
			best.rowid = rowid;
			best.score = score;
			best.m = m;
		}
	}
	if (rc == 0 && src != SQLITE_DONE)
		rc = cg_index_query_fail(idx, src, "search match", err);
	if (rc == 0)
		rc = offer(idx, o, c, &best, err);
	r->floor_on = false;
	sqlite3_reset(st);
	free(expr);
	return rc;
}

/* The list is settled when it is full of pages in a class that only rows
 * holding every term can reach: no other row can outrank its last. */
static bool
settled(const cg_cands *c)
{
	return c->n == c->cap && c->v[c->n - 1].m >= CG_MATCH_ALL;
}

/*
 * With terms: first the rows that hold every term (the only ones that can
 * be PHRASE or ALL); when they settle the list, that is the answer, as
 * the per-class order gave it (a class never ran once the better ones
 * filled the limit).  Otherwise one pass over every row any class
 * matches, word forms included, from an empty list.  A one-word query has
 * only that pass (its exact pass would be most of its cost again).
 */
static int
rank_terms(cg_index *idx, const cg_search_opts *o, cg_cands *c, int64_t *walked,
           cg_err *err)
{
	int rc = rank_pass(idx, o, o->q->n > 1, c, walked, err);

	if (rc != 0 || o->q->n < 2 || settled(c))
		return rc;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	c->n = 0;
	return rank_pass(idx, o, false, c, walked, err);
}

/* Filter-only listing (empty query): newest first. */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the path is stored
 * in an element of c->v, which cg_cands_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
rank_filters(cg_index *idx, const cg_search_opts *o, cg_cands *c,
             int64_t *walked, cg_err *err)
{
	static const char *const sql =
	    "SELECT p.id, p.path, p.updated_at, p.confidence, p.conf_rank "
	    "FROM pages p WHERE 1" CG_SEARCH_FILTER_SQL " ORDER BY "
	    "p.updated_at DESC, p.conf_rank DESC, p.path LIMIT ?7";
	sqlite3_stmt *st = cg_index_stmt(idx, sql);
	int rc;

	if (st == NULL)
		return cg_index_query_fail(idx,
		                           sqlite3_errcode(cg_index_db(idx)),
		                           "search prepare", err);
	cg_search_filter_bind(st, o->f);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)c->cap);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && c->n < c->cap) {
		cg_cand *x = &c->v[c->n];
		const char *u = (const char *)sqlite3_column_text(st, 2);
		const char *cf = (const char *)sqlite3_column_text(st, 3);

		(*walked)++;
		*x = (cg_cand){.page = sqlite3_column_int64(st, 0),
		               .rowid = -1,
		               .m = CG_MATCH_NONE,
		               .conf = sqlite3_column_int(st, 4)};
		x->path = strdup((const char *)sqlite3_column_text(st, 1));
		(void)snprintf(x->updated_at, sizeof(x->updated_at), "%s",
		               u ? u : "");
		(void)snprintf(x->confidence, sizeof(x->confidence), "%s",
		               cf ? cf : "");
		if (x->path == NULL) {
			sqlite3_reset(st);
			return cg_err_set(err, CG_ENOMEM,
			                  "search: out of memory");
		}
		c->n++;
	}
	rc = rc == SQLITE_DONE || rc == SQLITE_ROW
	         ? 0
	         : cg_index_query_fail(idx, rc, "search filter", err);
	sqlite3_reset(st);
	return rc;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

int
cg_search_rank(cg_index *idx, const cg_search_opts *o, cg_cands *out,
               int64_t *walked, cg_err *err)
{
	int rc;

	if (cands_init(out, o->limit) != 0)
		return cg_err_set(err, CG_ENOMEM, "search: out of memory");
	rc = o->q->n == 0 ? rank_filters(idx, o, out, walked, err)
	                  : rank_terms(idx, o, out, walked, err);
	if (rc != 0)
		cg_cands_fini(out);
	return rc;
}

/* --- hits ---------------------------------------------------------------- */

/* The snippet of a section: FTS5's rule as the old per-class query used
 * it (snippet.h), a match in the body, else in the headings (a column
 * without one gives its start, which holds no "**"), else wherever the
 * most are. */
static int
snippet_for(const cg_snip_row *row, const cg_search_opts *o, const cg_cand *c,
            char **out)
{
	static const int cols[] = {CG_COL_BODY, CG_COL_HEADINGS, -1};
	int rc = 0;

	*out = NULL;
	for (size_t i = 0; rc == 0 && *out == NULL && i < 3; i++) {
		rc = cg_snippet(row, o->q, c->m, cols[i], out);
		if (*out != NULL && cols[i] >= 0 &&
		    strstr(*out, "**") == NULL) {
			free(*out);
			*out = NULL;
		}
	}
	return rc;
}

static bool
is_expired(const char *expires)
{
	char today[16];
	time_t t = time(NULL);
	struct tm tm;

	if (expires == NULL)
		return false;
	(void)gmtime_r(&t, &tm);
	(void)strftime(today, sizeof(today), "%Y-%m-%d", &tm);
	return strcmp(expires, today) < 0;
}

/* Frontmatter keys that are not fields of a hit ("kept and returned"). */
static json_t *
extra_keys(const char *fm_text)
{
	static const char *const known[] = {
	    "type",       "category",   "owner",   "confidence", "source_refs",
	    "created_at", "updated_at", "updated", "expires_at", "supersedes",
	    "tags",       "title",      "claim",   "subject",    NULL};
	json_error_t je = {0};
	json_t *fm = fm_text ? json_loads(fm_text, 0, &je) : NULL;
	json_t *out = json_object();
	const char *key;
	json_t *v;

	/* The index wrote fm with json_dumps: text that does not parse ran
	 * out of memory in jansson's lexer (which says "invalid token"),
	 * and is not "no extra keys" (cg_index_col_json, index/sql.h). */
	if (fm == NULL && fm_text != NULL) {
		json_decref(out);
		return NULL;
	}

	json_object_foreach(fm, key, v) {
		size_t i = 0;

		while (known[i] != NULL && strcmp(known[i], key) != 0)
			i++;
		if (known[i] == NULL && json_object_set(out, key, v) != 0) {
			json_decref(out);
			out = NULL;
			break;
		}
	}
	json_decref(fm);
	return out;
}

static const char *const page_sql =
    "SELECT path, title, category, owner, confidence, updated_at, "
    "created_at, expires_at, tags, source_refs, supersedes, claim_key, "
    "body_hash, fm_status, fm_error, first_line, fm, nlines FROM pages "
    "WHERE id = ?1 AND cg_visible(path)";

static json_t *
hit_from_row(cg_index *idx, sqlite3_stmt *st, json_t *followups)
{
	const char *path = (const char *)sqlite3_column_text(st, 0);
	const char *expires = (const char *)sqlite3_column_text(st, 7);
	json_t *refs = cg_index_col_json(st, 9);
	char hash[32];
	json_t *h;

	(void)snprintf(hash, sizeof(hash), "%016llx",
	               (unsigned long long)sqlite3_column_int64(st, 12));
	h = json_pack(
	    "{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o,"
	    " s:o, s:o, s:s, s:b, s:o}",
	    "source", cg_index_source(idx), "path", path, "title",
	    cg_index_col_text(st, 1), "category", cg_index_col_text(st, 2),
	    "owner", cg_index_col_text(st, 3), "confidence",
	    cg_index_col_text(st, 4), "updated_at", cg_index_col_text(st, 5),
	    "created_at", cg_index_col_text(st, 6), "expires_at",
	    cg_index_col_text(st, 7), "tags", cg_index_col_json(st, 8),
	    "supersedes", cg_index_col_json(st, 10), "claim_key",
	    cg_index_col_text(st, 11), "source_refs",
	    cg_raw_resolve(cg_index_repo(idx), path, refs, followups),
	    "body_hash", hash, "expired", is_expired(expires), "extra",
	    extra_keys((const char *)sqlite3_column_text(st, 16)));
	json_decref(refs);
	if (h != NULL && sqlite3_column_int(st, 13) >= CG_FM_LENIENT)
		json_object_set_new(h, "frontmatter_error",
		                    cg_index_col_text(st, 14));
	return h;
}

/* What a hit says about its match: score, class, line range, snippet
 * (from the section's row: its text and file lines). */
static int
add_match(cg_index *idx, const cg_search_opts *o, const cg_cand *c, json_t *h,
          sqlite3_stmt *page, cg_err *err)
{
	int start = 1;
	int end = sqlite3_column_int(page, 17);
	char *snip = NULL;
	int rc = SQLITE_DONE;

	if (c->rowid >= 0) {
		sqlite3_stmt *st = cg_index_stmt(
		    idx, "SELECT title, headings, body, tags, meta, "
		         "line_start, line_end FROM sec WHERE rowid = ?1");

		if (st == NULL)
			return cg_index_query_fail(
			    idx, sqlite3_errcode(cg_index_db(idx)),
			    "search section", err);
		sqlite3_bind_int64(st, 1, c->rowid);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			cg_snip_row row;

			for (int k = 0; k < CG_NCOLS; k++)
				row.col[k] =
				    (const char *)sqlite3_column_text(st, k);
			start = sqlite3_column_int(st, 5);
			end = sqlite3_column_int(st, 6);
			if (cg_index_row_nomem(st) ||
			    snippet_for(&row, o, c, &snip) != 0)
				rc = SQLITE_NOMEM;
		}
		sqlite3_reset(st);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cg_index_query_fail(idx, rc, "search section", err);
	/* A hit short of a field is an error, not a hit. */
	rc = json_object_set_new(h, "snippet",
	                         snip ? json_string(snip)
	                              : cg_index_col_text(page, 15));
	free(snip);
	rc |= json_object_set_new(h, "score", json_real(c->score));
	rc |= json_object_set_new(h, "match", json_string(cg_match_name(c->m)));
	rc |= json_object_set_new(h, "match_rank", json_integer(c->m));
	rc |= json_object_set_new(h, "line_range",
	                          json_pack("[i, i]", start, end));
	if (rc != 0 || cg_index_row_nomem(page))
		return cg_err_set(err, CG_ENOMEM, "search: out of memory");
	if (o->explain)
		json_object_set_new(h, "explain",
		                    json_pack("{s:s, s:f, s:I}", "class",
		                              cg_match_name(c->m), "bm25",
		                              c->score, "section",
		                              (json_int_t)(c->rowid & 0xffff)));
	return 0;
}

int
cg_search_fetch(cg_index *idx, const cg_search_opts *o, const cg_cand *c,
                const json_t *fresh, json_t *hits, json_t *followups,
                cg_err *err)
{
	sqlite3_stmt *st = cg_index_stmt(idx, page_sql);
	json_t *h;
	int rc;

	if (st == NULL)
		return cg_index_query_fail(
		    idx, sqlite3_errcode(cg_index_db(idx)), "search page", err);
	sqlite3_bind_int64(st, 1, c->page);
	rc = sqlite3_step(st);
	/* A page gone since it was ranked (or another under its id), or one
	 * the caller may not see (a fetch names pages by id), is left out. */
	if (rc != SQLITE_ROW ||
	    (c->path != NULL &&
	     strcmp((const char *)sqlite3_column_text(st, 0), c->path) != 0)) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE || rc == SQLITE_ROW
		           ? 0
		           : cg_index_query_fail(idx, rc, "search page", err);
	}
	h = hit_from_row(idx, st, followups);
	rc = h == NULL || cg_index_row_nomem(st) ||
	             json_object_set_new(h, "stale", json_false()) != 0
	         ? cg_err_set(err, CG_ENOMEM, "search: out of memory")
	         : 0;
	if (rc == 0 && cg_corpus_hits_decorate(idx, h, fresh) != 0)
		rc = cg_err_set(err, CG_ENOMEM, "search: out of memory");
	if (rc == 0)
		rc = add_match(idx, o, c, h, st, err);
	sqlite3_reset(st);
	if (rc == 0 && json_array_append(hits, h) != 0)
		rc = cg_err_set(err, CG_ENOMEM, "search: out of memory");
	json_decref(h);
	return rc;
}

int
cg_search_run(cg_index *idx, const cg_search_opts *o, json_t *hits,
              json_t *followups, int64_t *walked, cg_err *err)
{
	cg_cands c;
	json_t *fresh;
	int rc = cg_search_rank(idx, o, &c, walked, err);

	if (rc != 0)
		return rc;
	fresh = c.n > 0 ? cg_corpus_hits_freshness(idx) : NULL;
	for (size_t i = 0; i < c.n && rc == 0; i++)
		rc = cg_search_fetch(idx, o, &c.v[i], fresh, hits, followups,
		                     err);
	json_decref(fresh);
	cg_cands_fini(&c);
	return rc;
}

int
cg_search_claims(cg_index *idx, const json_t *keys, json_t *out, cg_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	const json_t *k;
	int rc;

	st =
	    cached(idx, "SELECT path, title, category, updated_at, "
	                "confidence, supersedes, body_hash, claim_key, id "
	                "FROM pages WHERE claim_key = ?1 AND cg_visible(path)");
	if (st == NULL)
		return cg_index_query_fail(idx,
		                           sqlite3_errcode(cg_index_db(idx)),
		                           "search claims", err);
	json_array_foreach(keys, i, k) {
		if (!json_is_string(k))
			continue;
		sqlite3_bind_text(st, 1, json_string_value(k), -1,
		                  SQLITE_STATIC);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			char hash[32];
			json_t *page;
			bool bad;

			(void)snprintf(
			    hash, sizeof(hash), "%016llx",
			    (unsigned long long)sqlite3_column_int64(st, 6));
			page = json_pack(
			    "{s:s, s:s, s:o, s:o, s:o, s:o, s:o, "
			    "s:s, s:o}",
			    "source", cg_index_source(idx), "path",
			    (const char *)sqlite3_column_text(st, 0), "title",
			    cg_index_col_text(st, 1), "category",
			    cg_index_col_text(st, 2), "updated_at",
			    cg_index_col_text(st, 3), "confidence",
			    cg_index_col_text(st, 4), "supersedes",
			    cg_index_col_json(st, 5), "body_hash", hash,
			    "claim_key", cg_index_col_text(st, 7));
			/* An implicit key (category|title) carries the body's
			 * sketch: federation/conflict.c pairs such pages of
			 * two sources only when they are copies. */
			bad = page == NULL || cg_index_row_nomem(st);
			if (!bad &&
			    strncmp(json_string_value(k), "claim:", 6) != 0)
				bad = json_object_set_new(
				          page, "sketch",
				          cg_sketch_page(
				              idx, sqlite3_column_int64(st, 8),
				              err)) != 0;
			if (bad)
				json_decref(page);
			else
				bad = json_array_append_new(out, page) != 0;
			if (bad) { /* not a shorter list either */
				rc = SQLITE_NOMEM;
				break;
			}
		}
		/* A failed step is an error, as everywhere else: not a
		 * shorter list of claims. */
		rc = rc == SQLITE_DONE
		         ? 0
		         : cg_index_query_fail(idx, rc, "search claims", err);
		sqlite3_reset(st);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a;
	uint64_t y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

json_t *
cg_search_claim_hashes(cg_index *idx)
{
	sqlite3_stmt *st = cg_index_stmt(idx, "SELECT claim_key FROM pages");
	uint64_t *v = NULL;
	size_t n = 0;
	size_t cap = 0;
	cg_buf b;
	json_t *out = NULL;
	int rc;

	/* Every failure is NULL: a list short of a key would hide a
	 * conflict from the federation. */
	if (st == NULL)
		return NULL;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);

		if (k == NULL && cg_index_row_nomem(st))
			break;
		if (k == NULL)
			continue;
		if (cg_vec_reserve((void **)&v, &cap, n, sizeof(*v)) != 0) {
			sqlite3_reset(st);
			free(v);
			return NULL;
		}
		v[n++] = cg_hash64(k, strlen(k));
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return NULL;
	}
	if (n > 1) /* v is NULL when no row had a key: qsort takes no NULL */
		qsort(v, n, sizeof(*v), cmp_u64);
	cg_buf_init(&b, SIZE_MAX / 2);
	for (size_t i = 0; i < n; i++) {
		static const char hex[] = "0123456789abcdef";
		char d[16];

		for (int k = 0; k < 16; k++)
			d[k] = hex[(v[i] >> (60 - 4 * k)) & 0xf];
		if (cg_buf_append(&b, d, sizeof(d)) != 0)
			goto out;
	}
	out = json_string(cg_buf_str(&b));
out:
	cg_buf_fini(&b);
	free(v);
	return out;
}
