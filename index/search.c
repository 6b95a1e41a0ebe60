/*
 * search.c - one source's part of a search: local statistics, the match
 * classes over FTS5 with the cg_rank function, page collapse, snippets and
 * hit assembly, plus claim-key lookups for contradictions.
 *
 * What it must not do: put user text into an FTS5 expression (query.c
 * builds every expression from tokens), apply a filter after the limit, or
 * compute a snippet for a row that is not returned.
 */
#define _GNU_SOURCE
#include "index/search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/cg_buf.h"
#include "index/corpus_hits.h"
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

/* Rows whose any column holds the phrase (tokens joined by spaces). */
static int
count_rows(cg_index *idx, const char *phrase, int64_t *out, cg_err *err)
{
	sqlite3_stmt *st = NULL;
	cg_buf expr;
	int rc;

	cg_buf_init(&expr, (size_t)CG_QUERY_MAX_BYTES * 2);
	(void)cg_buf_putc(&expr, '"');
	(void)cg_buf_puts(&expr, phrase);
	rc = cg_buf_putc(&expr, '"');
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
		rc = count_rows(idx, q->terms[i].text, &out->df[i], err);
	if (rc == 0 && q->n > 1) {
		char *phrase = cg_query_phrase_text(q);

		if (phrase == NULL)
			return cg_err_set(err, CG_ENOMEM, "out of memory");
		rc = count_rows(idx, phrase, &out->df_phrase, err);
		free(phrase);
	} else if (rc == 0 && q->n == 1) {
		out->df_phrase = out->df[0];
	}
	return rc;
}

/* --- ranking context ----------------------------------------------------- */

static double
idf(int64_t df, int64_t n)
{
	double d = (double)df;

	return log(1.0 + ((double)n - d + 0.5) / (d + 0.5));
}

static void
set_rank(cg_index *idx, const cg_gstats *g, enum cg_match m)
{
	cg_rank_ctx *r = cg_index_rank(idx);

	for (int c = 0; c < CG_NCOLS; c++)
		r->avgdl[c] =
		    g->nrows > 0 ? (double)g->tot[c] / (double)g->nrows : 1.0;
	if (m == CG_MATCH_PHRASE) {
		r->nphrase = 1;
		r->idf[0] = idf(g->df_phrase, g->nrows);
		return;
	}
	r->nphrase = (int)g->nterms;
	for (size_t i = 0; i < g->nterms; i++)
		r->idf[i] = idf(g->df[i], g->nrows);
}

/* --- candidates ---------------------------------------------------------- */

struct cand {
	int64_t page;  /* page id */
	int64_t rowid; /* best section */
	double score;
	enum cg_match m;
	int line_start;
	int line_end;
};

struct cands {
	struct cand *v;
	size_t n;
	size_t limit;
};

static bool
cands_has(const struct cands *c, int64_t page)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].page == page)
			return true;
	return false;
}

void
cg_search_filter_bind(sqlite3_stmt *st, const cg_filters *f)
{
	const char *v[] = {f->category, f->owner, f->confidence,
	                   f->updated_since, f->tag};

	for (int i = 0; i < 5; i++)
		if (v[i] != NULL)
			sqlite3_bind_text(st, i + 2, v[i], -1, SQLITE_STATIC);
}

/* Runs one match class and adds the pages not yet collected. */
static int
run_class(cg_index *idx, const cg_search_opts *o, enum cg_match m,
          struct cands *c, int64_t *walked, cg_err *err)
{
	char *expr = cg_query_fts(o->q, m);
	char sql[1024];
	sqlite3_stmt *st = NULL;
	int rc;

	if (expr == NULL || c->n >= c->limit) {
		free(expr);
		return 0;
	}
	set_rank(idx, o->g, m);
	(void)snprintf(sql, sizeof(sql),
	               "SELECT sec.rowid, cg_rank(sec) AS score, "
	               "sec.line_start, sec.line_end FROM sec JOIN pages p ON "
	               "p.id = (sec.rowid >> %d) WHERE sec MATCH ?1%s ORDER BY "
	               "score DESC, p.updated_at DESC, p.conf_rank DESC, "
	               "p.path",
	               CG_SEC_SHIFT, CG_SEARCH_FILTER_SQL);
	st = cached(idx, sql);
	if (st == NULL) {
		free(expr);
		return cg_index_query_fail(idx,
		                           sqlite3_errcode(cg_index_db(idx)),
		                           "search prepare", err);
	}
	sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
	cg_search_filter_bind(st, o->f);
	rc = SQLITE_DONE;
	while (c->n < c->limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t rowid = sqlite3_column_int64(st, 0);
		int64_t page = rowid >> CG_SEC_SHIFT;

		(*walked)++;
		if (cands_has(c, page))
			continue;
		c->v[c->n++] = (struct cand){page,
		                             rowid,
		                             sqlite3_column_double(st, 1),
		                             m,
		                             sqlite3_column_int(st, 2),
		                             sqlite3_column_int(st, 3)};
	}
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = 0;
	else
		rc = cg_index_query_fail(idx, rc, "search match", err);
	sqlite3_reset(st);
	free(expr);
	return rc;
}

/* Filter-only listing (empty query): newest first. */
static int
run_filters(cg_index *idx, const cg_search_opts *o, struct cands *c,
            int64_t *walked, cg_err *err)
{
	char sql[1024];
	sqlite3_stmt *st = NULL;
	int rc;

	(void)snprintf(sql, sizeof(sql),
	               "SELECT p.id, p.nlines FROM pages p WHERE 1%s ORDER BY "
	               "p.updated_at DESC, p.conf_rank DESC, p.path LIMIT %zu",
	               CG_SEARCH_FILTER_SQL, c->limit);
	rc = sqlite3_prepare_v2(cg_index_db(idx), sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return cg_index_query_fail(idx, rc, "search prepare", err);
	cg_search_filter_bind(st, o->f);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		(*walked)++;
		c->v[c->n++] = (struct cand){
		    sqlite3_column_int64(st, 0), -1, 0.0, CG_MATCH_NONE, 1,
		    sqlite3_column_int(st, 1)};
	}
	rc = rc == SQLITE_DONE
	         ? 0
	         : cg_index_query_fail(idx, rc, "search filter", err);
	sqlite3_finalize(st);
	return rc;
}

/* --- hits ---------------------------------------------------------------- */

/* The snippet of one column of a row, or NULL when the column holds no
 * match (FTS5 returns the column's start then). */
static char *
snippet_col(cg_index *idx, const char *expr, int64_t rowid, int col)
{
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	st = cached(idx, "SELECT snippet(sec, ?3, '**', '**', '…', 24) "
	                 "FROM sec WHERE sec MATCH ?1 AND rowid = ?2");
	if (st == NULL)
		return NULL;
	sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, rowid);
	sqlite3_bind_int(st, 3, col);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		if (t != NULL && (col < 0 || strstr(t, "**") != NULL))
			out = strdup(t);
	}
	sqlite3_reset(st);
	return out;
}

/* Prefers a match in the body, then in the headings, then wherever FTS5
 * finds the most. */
static char *
snippet_for(cg_index *idx, const cg_search_opts *o, const struct cand *c)
{
	static const int cols[] = {CG_COL_BODY, CG_COL_HEADINGS, -1};
	char *expr = cg_query_fts(o->q, c->m);
	char *out = NULL;

	for (size_t i = 0; expr != NULL && out == NULL && i < 3; i++)
		out = snippet_col(idx, expr, c->rowid, cols[i]);
	free(expr);
	return out;
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
	json_t *fm = fm_text ? json_loads(fm_text, 0, NULL) : NULL;
	json_t *out = json_object();
	const char *key;
	json_t *v;

	json_object_foreach(fm, key, v) {
		size_t i = 0;

		while (known[i] != NULL && strcmp(known[i], key) != 0)
			i++;
		if (known[i] == NULL)
			json_object_set(out, key, v);
	}
	json_decref(fm);
	return out;
}

static const char *const page_sql =
    "SELECT path, title, category, owner, confidence, updated_at, "
    "created_at, expires_at, tags, source_refs, supersedes, claim_key, "
    "body_hash, fm_status, fm_error, first_line, fm FROM pages WHERE id = ?1";

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

/* fresh: the source's freshness (cg_corpus_hits_freshness), read once per
 * search, or NULL. */
static int
add_hit(cg_index *idx, const cg_search_opts *o, const struct cand *c,
        const json_t *fresh, json_t *hits, json_t *followups, cg_err *err)
{
	sqlite3_stmt *st = NULL;
	json_t *h = NULL;
	char *snip = NULL;
	int rc;

	st = cached(idx, page_sql);
	if (st == NULL)
		return cg_index_query_fail(
		    idx, sqlite3_errcode(cg_index_db(idx)), "search page", err);
	sqlite3_bind_int64(st, 1, c->page);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE
		           ? 0
		           : cg_index_query_fail(idx, rc, "search page", err);
	}
	h = hit_from_row(idx, st, followups);
	json_object_set_new(h, "stale", json_false());
	cg_corpus_hits_decorate(idx, h, fresh);
	if (c->rowid >= 0)
		snip = snippet_for(idx, o, c);
	json_object_set_new(
	    h, "snippet", snip ? json_string(snip) : cg_index_col_text(st, 15));
	sqlite3_reset(st);
	free(snip);
	json_object_set_new(h, "score", json_real(c->score));
	json_object_set_new(h, "match", json_string(cg_match_name(c->m)));
	json_object_set_new(h, "match_rank", json_integer(c->m));
	json_object_set_new(h, "line_range",
	                    json_pack("[i, i]", c->line_start, c->line_end));
	if (o->explain)
		json_object_set_new(h, "explain",
		                    json_pack("{s:s, s:f, s:I}", "class",
		                              cg_match_name(c->m), "bm25",
		                              c->score, "section",
		                              (json_int_t)(c->rowid & 0xffff)));
	json_array_append_new(hits, h);
	return 0;
}

int
cg_search_run(cg_index *idx, const cg_search_opts *o, json_t *hits,
              json_t *followups, int64_t *walked, cg_err *err)
{
	static const enum cg_match order[] = {CG_MATCH_PHRASE, CG_MATCH_ALL,
	                                      CG_MATCH_SOME, CG_MATCH_META};
	struct cands c = {NULL, 0, 0};
	json_t *fresh;
	int rc = 0;

	c.limit = o->limit < 1
	              ? 1
	              : (size_t)(o->limit > SEARCH_MAX_LIMIT ? SEARCH_MAX_LIMIT
	                                                     : o->limit);
	c.v = calloc(c.limit, sizeof(*c.v));
	if (c.v == NULL)
		return cg_err_set(err, CG_ENOMEM, "search: out of memory");
	if (o->q->n == 0)
		rc = run_filters(idx, o, &c, walked, err);
	for (size_t i = 0; o->q->n > 0 && i < 4 && rc == 0; i++) {
		if (order[i] == CG_MATCH_SOME && o->q->n < 2)
			continue;
		rc = run_class(idx, o, order[i], &c, walked, err);
	}
	fresh = c.n > 0 ? cg_corpus_hits_freshness(idx) : NULL;
	for (size_t i = 0; i < c.n && rc == 0; i++)
		rc = add_hit(idx, o, &c.v[i], fresh, hits, followups, err);
	json_decref(fresh);
	free(c.v);
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
	                "confidence, supersedes, body_hash, claim_key "
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

			(void)snprintf(
			    hash, sizeof(hash), "%016llx",
			    (unsigned long long)sqlite3_column_int64(st, 6));
			json_array_append_new(
			    out,
			    json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, "
			              "s:s, s:o}",
			              "source", cg_index_source(idx), "path",
			              (const char *)sqlite3_column_text(st, 0),
			              "title", cg_index_col_text(st, 1),
			              "category", cg_index_col_text(st, 2),
			              "updated_at", cg_index_col_text(st, 3),
			              "confidence", cg_index_col_text(st, 4),
			              "supersedes", cg_index_col_json(st, 5),
			              "body_hash", hash, "claim_key",
			              cg_index_col_text(st, 7)));
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
