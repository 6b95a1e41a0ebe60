/*
 * rank.c - the FTS5 auxiliary function cg_match(sec) (see rank.h).  It
 * must stay exactly the arithmetic of the per-class ranking it replaced
 * (same terms, same order of additions), so that scores, and with them
 * the merged order, do not move.
 */
#include "index/rank.h"

#include <math.h>
#include <string.h>

#include "index/sql.h"

#define K1 1.2
#define B  0.75

/* Columns a class scores over: content (title, headings, body) or the
 * frontmatter (tags, meta). */
#define CONTENT_FIRST CG_COL_TITLE
#define CONTENT_END   (CG_COL_BODY + 1)
#define META_FIRST    CG_COL_TAGS
#define META_END      CG_NCOLS

void
cg_rank_init(cg_rank_ctx *r)
{
	memset(r, 0, sizeof(*r));
	r->weight[CG_COL_TITLE] = 4.0;
	r->weight[CG_COL_HEADINGS] = 2.0;
	r->weight[CG_COL_BODY] = 1.0;
	r->weight[CG_COL_TAGS] = 2.0;
	r->weight[CG_COL_META] = 0.5;
}

static double
idf(int64_t df, int64_t n)
{
	double d = (double)df;

	return log(1.0 + ((double)n - d + 0.5) / (d + 0.5));
}

void
cg_rank_prepare(cg_rank_ctx *r, const cg_query *q, const cg_gstats *g)
{
	for (int c = 0; c < CG_NCOLS; c++)
		r->avgdl[c] =
		    g->nrows > 0 ? (double)g->tot[c] / (double)g->nrows : 1.0;
	r->nterms = (int)q->n;
	r->phrase = cg_query_has_phrase(q) ? 1 : 0;
	for (size_t i = 0; i < q->n && i < CG_QUERY_MAX_TERMS; i++) {
		r->idf[i] = idf(g->df[i], g->nrows);
		r->alt[i] = q->terms[i].alt;
	}
	r->idf_phrase = idf(g->df_phrase, g->nrows);
	r->last = CG_MATCH_NONE;
}

/* Per phrase of the expression and column, its instances in the row. */
struct row {
	double tf[CG_QUERY_MAX_TERMS + 1][CG_NCOLS];
	double len[CG_NCOLS];
};

/* BM25F of one phrase over columns [from, end). */
static double
bm25f(const cg_rank_ctx *r, const struct row *w, int p, int from, int end)
{
	double s = 0.0;

	for (int c = from; c < end; c++) {
		double avg = r->avgdl[c] > 0 ? r->avgdl[c] : 1.0;
		double t = w->tf[p][c];

		if (t == 0.0)
			continue;
		s += r->weight[c] * t * (K1 + 1.0) /
		     (t + K1 * (1.0 - B + B * w->len[c] / avg));
	}
	return s;
}

static bool
occurs(const struct row *w, int p, int from, int end)
{
	for (int c = from; c < end; c++)
		if (w->tf[p][c] > 0)
			return true;
	return false;
}

/* ALL counts groups: a group of OR alternatives is met by any of them (a
 * term without alternatives is a group of one). */
static enum cg_match
classify(const cg_rank_ctx *r, const struct row *w)
{
	int content = 0;
	int meta = 0;
	int groups = 0;
	int met = 0;
	bool cur = false; /* the current group is met */

	if (r->phrase && occurs(w, r->nterms, CONTENT_FIRST, CONTENT_END))
		return CG_MATCH_PHRASE;
	for (int p = 0; p < r->nterms; p++) {
		bool in = occurs(w, p, CONTENT_FIRST, CONTENT_END);

		content += in;
		meta += occurs(w, p, META_FIRST, META_END);
		if (!r->alt[p]) {
			met += cur;
			groups++;
			cur = false;
		}
		cur = cur || in;
	}
	met += cur;
	if (met == groups && r->nterms > 0)
		return CG_MATCH_ALL;
	if (content > 0 && r->nterms >= 2)
		return CG_MATCH_SOME;
	return meta > 0 ? CG_MATCH_META : CG_MATCH_NONE;
}

static double
score_of(const cg_rank_ctx *r, const struct row *w, enum cg_match m)
{
	double score = 0.0;
	int from = m == CG_MATCH_META ? META_FIRST : CONTENT_FIRST;
	int end = m == CG_MATCH_META ? META_END : CONTENT_END;

	if (m == CG_MATCH_NONE)
		return 0.0;
	if (m == CG_MATCH_PHRASE)
		return r->idf_phrase * bm25f(r, w, r->nterms, from, end);
	for (int p = 0; p < r->nterms; p++)
		score += r->idf[p] * bm25f(r, w, p, from, end);
	return score;
}

static void
match_fn(const Fts5ExtensionApi *api, Fts5Context *fc, sqlite3_context *ctx,
         int nval, sqlite3_value **val)
{
	cg_rank_ctx *r = api->xUserData(fc);
	int nphr = r->nterms + r->phrase;
	struct row w;
	enum cg_match m;

	(void)nval;
	(void)val;
	memset(&w, 0, sizeof(w));
	/* Per phrase, its instances in position order (xPhraseFirst: no
	 * sort of every instance of the row, as xInst needs). */
	for (int p = 0; p < nphr; p++) {
		Fts5PhraseIter it;
		int col = -1;
		int off = -1;

		if (api->xPhraseFirst(fc, p, &it, &col, &off) != SQLITE_OK) {
			sqlite3_result_error(ctx, "cg_match: phrase failed",
			                     -1);
			return;
		}
		while (col >= 0) {
			if (col < CG_NCOLS)
				w.tf[p][col] += 1.0;
			api->xPhraseNext(fc, &it, &col, &off);
		}
	}
	for (int c = 0; c < CG_NCOLS; c++) {
		int n = 0;

		(void)api->xColumnSize(fc, c, &n);
		w.len[c] = n;
	}
	m = classify(r, &w);
	r->last = m;
	sqlite3_result_double(ctx, score_of(r, &w, m));
}

int
cg_rank_register(sqlite3 *db, cg_rank_ctx *r)
{
	fts5_api *api = cg_index_fts5_api(db);

	if (api == NULL)
		return SQLITE_ERROR;
	return api->xCreateFunction(api, "cg_match", r, match_fn, NULL);
}
