/*
 * rank.c - the FTS5 auxiliary function cg_match(sec) (see rank.h).  The
 * arithmetic must be a function of the row and the global statistics
 * only (the same additions in the same order on every node), so that the
 * merged order over any split of the sources equals one index's.  It
 * reads instances; column sizes only for a row that may reach the caller's
 * floor (rank.h: a row that cannot enter the list is classed but not
 * scored); a column's text only for a row whose terms come within
 * PROX_WINDOW tokens (the unit boundaries, rank.h), and then only up to
 * the end of the unit of the last kept term position.
 *
 * UNIT_WEIGHT (the density bonus) was chosen on the tldr sets of
 * bench/rank-bench: kw MRR@10 rose with it up to about 20 and stayed flat
 * to 200 on the development set and three fresh seeds (BENCHMARKS.md,
 * issue 12), and leaving the stopwords out of a unit's length added more;
 * the other sets did not move.
 */
#include "index/rank.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "index/fts_tokenizer.h"
#include "index/sql.h"

#define K1 1.2
#define B  0.75

/* A term found only as another word form counts this share of its BM25F
 * (FORMS and SOME rows). */
#define FORM_WEIGHT 0.5
/* Proximity (rank.h): the longest window that gains, in tokens, and the
 * bonus for adjacent terms as a share of sum(idf). */
#define PROX_WINDOW 24
#define PROX_WEIGHT 1.0
/* The unit's density (rank.h): the bonus for a unit that holds the terms
 * and nothing else, as a share of sum(idf). */
#define UNIT_WEIGHT 20.0
/* Positions kept per term for the window (the first ones of the row). */
#define POS_MAX 64
/* Phrases of an expression: terms, the phrase, two forms per term. */
#define NPHR_MAX (3 * CG_QUERY_MAX_TERMS + 1)

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

/* More than any ALL score without the proximity bonus: every term at the
 * most BM25F can give (each column's weight times K1 + 1, at any tf and
 * length) times its idf.  A function of the global statistics only. */
static double
unit_tier(const cg_rank_ctx *r)
{
	double most = 0.0;
	double sum = 0.0;

	for (int c = CONTENT_FIRST; c < CONTENT_END; c++)
		most += r->weight[c] * (K1 + 1.0);
	for (int i = 0; i < r->nterms; i++)
		sum += r->idf[i];
	return ceil(sum * most + 1.0);
}

void
cg_rank_prepare(cg_rank_ctx *r, const cg_query *q, const cg_gstats *g,
                bool forms)
{
	int next;

	for (int c = 0; c < CG_NCOLS; c++)
		r->avgdl[c] =
		    g->nrows > 0 ? (double)g->tot[c] / (double)g->nrows : 1.0;
	r->nterms = q->n < CG_QUERY_MAX_TERMS ? (int)q->n : CG_QUERY_MAX_TERMS;
	r->phrase = cg_query_has_phrase(q) ? 1 : 0;
	/* The forms follow the phrase, in cg_query_fts_pass's order. */
	next = r->nterms + r->phrase;
	for (int i = 0; i < r->nterms; i++) {
		r->idf[i] = idf(g->df[i], g->nrows);
		r->alt[i] = q->terms[i].alt;
		r->form[i][0] = forms && q->terms[i].form ? next++ : -1;
		r->form[i][1] = forms && q->terms[i].stem ? next++ : -1;
	}
	r->nphr = next;
	r->idf_phrase = idf(g->df_phrase, g->nrows);
	r->tier = unit_tier(r);
	r->last = CG_MATCH_NONE;
	r->floor_on = false;
}

/* Per phrase of the expression and column, its instances in the row, and
 * the first positions of each term in the content columns (column << 24 |
 * offset, ascending). */
struct row {
	double tf[NPHR_MAX][CG_NCOLS];
	double len[CG_NCOLS];
	int npos[CG_QUERY_MAX_TERMS];
	int pos[CG_QUERY_MAX_TERMS][POS_MAX];
	/* The paragraph and list item boundaries of a content column, read
	 * from its text on the first window that needs them (got[c] once
	 * read): only rows whose terms come within PROX_WINDOW pay for it. */
	const Fts5ExtensionApi *api;
	Fts5Context *fc;
	bool got[CONTENT_END];
	cg_fts_bounds b[CONTENT_END];
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

/* True when term i occurs in the content columns only as a word form. */
static bool
form_only(const cg_rank_ctx *r, const struct row *w, int i)
{
	if (occurs(w, i, CONTENT_FIRST, CONTENT_END))
		return false;
	for (int k = 0; k < 2; k++)
		if (r->form[i][k] >= 0 &&
		    occurs(w, r->form[i][k], CONTENT_FIRST, CONTENT_END))
			return true;
	return false;
}

/* ALL and FORMS count groups: a group of OR alternatives is met by any of
 * them (a term without alternatives is a group of one).  OR alternatives
 * have no forms, so only a group of one is met by a form. */
/* Per-row counts of classify: terms and groups met. */
struct tally {
	int content;   /* terms in the content columns */
	int forms;     /* terms there only as a word form */
	int meta;      /* terms in the frontmatter columns */
	int groups;    /* groups of alternatives */
	int met;       /* groups with a term in the content columns */
	int met_forms; /* groups with a term or a form there */
};

static void
count_terms(const cg_rank_ctx *r, const struct row *w, struct tally *t)
{
	bool cur = false;       /* the current group is met */
	bool cur_forms = false; /* ... or met by a form */

	for (int p = 0; p < r->nterms; p++) {
		bool in = occurs(w, p, CONTENT_FIRST, CONTENT_END);
		bool form = !in && form_only(r, w, p);

		t->content += in;
		t->forms += form;
		t->meta += occurs(w, p, META_FIRST, META_END);
		if (!r->alt[p]) {
			t->met += cur;
			t->met_forms += cur_forms;
			t->groups++;
			cur = false;
			cur_forms = false;
		}
		cur = cur || in;
		cur_forms = cur_forms || in || form;
	}
	t->met += cur;
	t->met_forms += cur_forms;
}

static enum cg_match
classify(const cg_rank_ctx *r, const struct row *w)
{
	struct tally t = {0};

	if (r->phrase && occurs(w, r->nterms, CONTENT_FIRST, CONTENT_END))
		return CG_MATCH_PHRASE;
	count_terms(r, w, &t);
	if (t.met == t.groups && r->nterms > 0)
		return CG_MATCH_ALL;
	if (t.met_forms == t.groups && r->nterms > 0)
		return CG_MATCH_FORMS;
	if (t.content + t.forms > 0 && r->nterms >= 2)
		return CG_MATCH_SOME;
	return t.meta > 0 ? CG_MATCH_META : CG_MATCH_NONE;
}

/* BM25F of term i's word forms (both phrases' instances together). */
static double
form_bm25f(const cg_rank_ctx *r, const struct row *w, int i)
{
	struct row one;

	for (int c = CONTENT_FIRST; c < CONTENT_END; c++) {
		one.tf[0][c] = 0.0;
		one.len[c] = w->len[c];
		for (int k = 0; k < 2; k++)
			if (r->form[i][k] >= 0)
				one.tf[0][c] += w->tf[r->form[i][k]][c];
	}
	return bm25f(r, &one, 0, CONTENT_FIRST, CONTENT_END);
}

/* True when term i is absent from the row's content but one of a group
 * of OR alternatives: the window does without it. */
static bool
absent_alt(const cg_rank_ctx *r, const struct row *w, int i)
{
	return w->npos[i] == 0 &&
	       (r->alt[i] || (i + 1 < r->nterms && r->alt[i + 1]));
}

/* The last kept position of a term in column col. */
static int
last_pos(const cg_rank_ctx *r, const struct row *w, int col)
{
	int last = 0;

	for (int i = 0; i < r->nterms; i++)
		for (int k = 0; k < w->npos[i]; k++)
			if (w->pos[i][k] >> 24 == col &&
			    (w->pos[i][k] & 0xffffff) > last)
				last = w->pos[i][k] & 0xffffff;
	return last;
}

/* Reads content column col's unit boundaries on the first window that
 * needs them (rank.h: only rows whose terms come within PROX_WINDOW). */
static const cg_fts_bounds *
bounds_of(const cg_rank_ctx *r, struct row *w, int col)
{
	if (!w->got[col]) {
		const char *z = NULL;
		int len = 0;

		if (w->api->xColumnText(w->fc, col, &z, &len) != SQLITE_OK)
			len = 0;
		/* up to the end of the unit of the last kept term position */
		cg_fts_boundaries(z, len, last_pos(r, w, col), &w->b[col]);
		w->got[col] = true;
	}
	return &w->b[col];
}

/* The length in tokens of the unit (paragraph or list item) of content
 * column col that holds positions lo..hi; 0 when a boundary lies between
 * them (the window spans two units). */
static int
unit_len(const cg_rank_ctx *r, struct row *w, int col, int lo, int hi)
{
	const cg_fts_bounds *b;
	int a = 0;
	int start;
	int end;
	int stops;

	if (col < CONTENT_FIRST || col >= CONTENT_END)
		return 0;
	b = bounds_of(r, w, col);
	while (a < b->n && b->pos[a] <= lo) /* ascending, few */
		a++;
	if (a < b->n && b->pos[a] < hi)
		return 0;
	start = a > 0 ? b->pos[a - 1] + 1 : 0;
	/* the walk stops at the first boundary past the last kept position,
	 * or at the column's end (or CG_FTS_BOUNDS_MAX: the rest is one) */
	end = a < b->n ? b->pos[a] : (int)w->len[col];
	if (end <= hi)
		end = hi + 1;
	/* less its stopwords (never below the window's terms: proximity
	 * clamps to nterms) */
	stops =
	    (a < b->n ? b->stop[a] : b->nstop) - (a > 0 ? b->stop[a - 1] : 0);
	return end - start - stops > 1 ? end - start - stops : 1;
}

/* The best window of a row: the shortest span, in tokens, of at most
 * PROX_WINDOW tokens inside one unit of one content column that holds a
 * kept position of every term (of every present alternative of a group),
 * and the shortest unit that holds such a window; both INT32_MAX when
 * there is none. */
struct window {
	int span;
	int unit;
};

static struct window
best_window(const cg_rank_ctx *r, struct row *w)
{
	int at[CG_QUERY_MAX_TERMS] = {0};
	struct window best = {INT32_MAX, INT32_MAX};

	for (;;) {
		int lo = 0;
		int hi = 0;
		int arg = -1;
		int u;

		for (int i = 0; i < r->nterms; i++) {
			int v;

			if (absent_alt(r, w, i))
				continue;
			if (at[i] >= w->npos[i])
				return best;
			v = w->pos[i][at[i]];
			if (arg < 0 || v > hi)
				hi = v;
			if (arg < 0 || v < lo) {
				lo = v;
				arg = i;
			}
		}
		if (arg < 0)
			return best;
		/* Same column: the column sits in the high bits. */
		if ((lo >> 24) == (hi >> 24) && hi - lo + 1 <= PROX_WINDOW &&
		    (u = unit_len(r, w, lo >> 24, lo & 0xffffff,
		                  hi & 0xffffff)) > 0) {
			if (hi - lo + 1 < best.span)
				best.span = hi - lo + 1;
			if (u < best.unit)
				best.unit = u;
		}
		at[arg]++;
	}
}

static double
proximity(const cg_rank_ctx *r, struct row *w)
{
	double sum = 0.0;
	double n = r->nterms;
	struct window b;

	if (r->nterms < 2)
		return 0.0;
	b = best_window(r, w);
	if (b.span > PROX_WINDOW)
		return 0.0;
	for (int p = 0; p < r->nterms; p++)
		sum += r->idf[p];
	return r->tier + PROX_WEIGHT * sum * n / (b.span < n ? n : b.span) +
	       UNIT_WEIGHT * sum * n / (b.unit < n ? n : b.unit);
}

static double
score_of(const cg_rank_ctx *r, struct row *w, enum cg_match m)
{
	double score = 0.0;
	int from = m == CG_MATCH_META ? META_FIRST : CONTENT_FIRST;
	int end = m == CG_MATCH_META ? META_END : CONTENT_END;

	if (m == CG_MATCH_NONE)
		return 0.0;
	if (m == CG_MATCH_PHRASE)
		return r->idf_phrase * bm25f(r, w, r->nterms, from, end);
	for (int p = 0; p < r->nterms; p++) {
		if ((m == CG_MATCH_FORMS || m == CG_MATCH_SOME) &&
		    form_only(r, w, p))
			score += r->idf[p] * FORM_WEIGHT * form_bm25f(r, w, p);
		else
			score += r->idf[p] * bm25f(r, w, p, from, end);
	}
	if (m == CG_MATCH_ALL)
		score += proximity(r, w);
	return score;
}

/* Counts the instance of phrase p at (col, off) into the row. */
static void
count_inst(const cg_rank_ctx *r, struct row *w, int p, int col, int off)
{
	if (col < 0 || col >= CG_NCOLS)
		return;
	w->tf[p][col] += 1.0;
	if (p < r->nterms && col < CONTENT_END && w->npos[p] < POS_MAX &&
	    off < (1 << 24))
		w->pos[p][w->npos[p]++] = col << 24 | off;
}

/* True when a row of class m (below ALL: no proximity, which reads column
 * text) cannot reach the caller's floor (rank.h): its score with every
 * column length 0 bounds its score from above, term by term, in the same
 * floating-point steps (each monotone), and ties are not below. */
static bool
below_floor(const cg_rank_ctx *r, struct row *w, enum cg_match m)
{
	double len[CG_NCOLS];
	double bound;

	if (!r->floor_on || m >= CG_MATCH_ALL || m > r->floor_m)
		return false;
	if (m < r->floor_m)
		return true;
	memcpy(len, w->len, sizeof(len));
	memset(w->len, 0, sizeof(w->len));
	bound = score_of(r, w, m);
	memcpy(w->len, len, sizeof(len));
	return bound < r->floor_score;
}

static void
match_fn(const Fts5ExtensionApi *api, Fts5Context *fc, sqlite3_context *ctx,
         int nval, sqlite3_value **val)
{
	cg_rank_ctx *r = api->xUserData(fc);
	int nphr = r->nphr;
	struct row w;
	enum cg_match m;

	(void)nval;
	(void)val;
	/* Only what is read: tf of the expression's phrases, counts. */
	memset(w.tf, 0, (size_t)nphr * sizeof(w.tf[0]));
	memset(w.npos, 0, sizeof(w.npos));
	w.api = api;
	w.fc = fc;
	memset(w.got, 0, sizeof(w.got));
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
			count_inst(r, &w, p, col, off);
			api->xPhraseNext(fc, &it, &col, &off);
		}
	}
	m = classify(r, &w); /* from tf alone */
	r->last = m;
	memset(w.len, 0, sizeof(w.len));
	if (below_floor(r, &w, m)) {
		sqlite3_result_double(ctx, 0.0);
		return;
	}
	for (int c = 0; c < CG_NCOLS; c++) {
		int n = 0;

		(void)api->xColumnSize(fc, c, &n);
		w.len[c] = n;
	}
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
