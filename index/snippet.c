/*
 * snippet.c - a hit's snippet from its section's text (see snippet.h).
 *
 * Must not: read the index (the caller passes the row's text), or differ
 * from the text FTS5's snippet() gave for the same row and expression,
 * except that in the FORMS and SOME classes another form of a term's word
 * ("retried" for "retries") is highlighted as the term.
 */
#include "index/snippet.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "page/token.h"

#define SNIP_TOKENS 24
#define SNIP_OPEN   "**"
#define SNIP_CLOSE  "**"
#define SNIP_ELLIPS "…"
#define MAX_PHRASES (CG_QUERY_MAX_TERMS + 1)
#define MAX_PTOK    (CG_QUERY_MAX_TOKENS + 1)

/* One token of a column: where it is, and its folded text in the arena. */
struct tok {
	int start; /* byte offsets in the column text */
	int end;
	size_t text; /* offset of the folded token in the arena */
	int ntext;   /* its length */
	bool first;  /* starts a sentence (FTS5's sentence finder) */
};

/* A column, tokenized. */
struct column {
	const char *text;
	int len;
	struct tok *v;
	size_t n;
	size_t cap;
	cg_buf arena;
	int rc;
};

/* A phrase of the class expression: its tokens, split on ' ', and the
 * marked stem of a one-word term in a class that counts word forms. */
struct phrase {
	const char *tok[MAX_PTOK];
	int len[MAX_PTOK];
	int n;
	int prefix;       /* 1: the last token matches any token it begins */
	const char *form; /* the marked stem, or NULL */
};

/* An instance of a phrase, in the order FTS5 reports them: by column,
 * then offset, then phrase. */
struct inst {
	int phrase;
	int col;
	int off;
};

struct snip {
	struct phrase ph[MAX_PHRASES];
	int nph;
	int col_first; /* the expression's columns: [col_first, col_end) */
	int col_end;
	struct column col[CG_NCOLS];
	struct inst *inst;
	size_t ninst;
	size_t cap_inst;
	cg_stemmer *stem; /* set when a phrase has a form */
	int rc;
};

/* --- tokens -------------------------------------------------------- */

static int
on_token(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	struct column *c = ctx;
	struct tok *t;
	int i;

	(void)cjk;
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct tok *v = realloc(c->v, ncap * sizeof(*v));

		if (v == NULL)
			return c->rc = CG_ENOMEM;
		c->v = v;
		c->cap = ncap;
	}
	t = &c->v[c->n];
	t->start = start;
	t->end = end;
	t->text = c->arena.len;
	t->ntext = ntok;
	/* A sentence starts at the first token, and after "." or ":" and
	 * at least one blank. */
	for (i = start - 1; i >= 0; i--)
		if (strchr(" \t\n\r", c->text[i]) == NULL)
			break;
	t->first = c->n == 0 || (i != start - 1 && i >= 0 &&
	                         (c->text[i] == '.' || c->text[i] == ':'));
	if (cg_buf_append(&c->arena, tok, (size_t)ntok) != 0)
		return c->rc = CG_ENOMEM;
	c->n++;
	return 0;
}

static int
tokenize(struct column *c, const char *text)
{
	size_t n = text != NULL ? strlen(text) : 0;

	memset(c, 0, sizeof(*c));
	cg_buf_init(&c->arena, SIZE_MAX / 2);
	c->text = text != NULL ? text : "";
	c->len = n > INT32_MAX ? INT32_MAX : (int)n;
	if (c->len > 0 && cg_token_each(c->text, c->len, on_token, c) != 0)
		return c->rc != 0 ? c->rc : CG_ENOMEM;
	return 0;
}

static void
column_fini(struct column *c)
{
	free(c->v);
	cg_buf_fini(&c->arena);
}

/* --- phrases and instances ------------------------------------------ */

static void
add_phrase(struct snip *s, const char *text, int prefix)
{
	struct phrase *p = &s->ph[s->nph++];
	const char *t = text;

	p->n = 0;
	p->prefix = prefix;
	while (*t != '\0' && p->n < MAX_PTOK) {
		const char *sp = strchr(t, ' ');
		int len = sp ? (int)(sp - t) : (int)strlen(t);

		p->tok[p->n] = t;
		p->len[p->n++] = len;
		t += len;
		while (*t == ' ')
			t++;
	}
}

/* The phrases and columns of class m's expression (page/query.c). */
static bool
expression(struct snip *s, const cg_query *q, enum cg_match m)
{
	s->col_first = m == CG_MATCH_META ? CG_COL_TAGS : CG_COL_TITLE;
	s->col_end = m == CG_MATCH_META ? CG_NCOLS : CG_COL_BODY + 1;
	if (m == CG_MATCH_NONE || q->n == 0)
		return false;
	if (m == CG_MATCH_PHRASE) {
		if (!cg_query_has_phrase(q))
			return false;
		add_phrase(s, q->phrase, 0);
		return true;
	}
	for (size_t i = 0; i < q->n && s->nph < MAX_PHRASES; i++) {
		add_phrase(s, q->terms[i].text, q->terms[i].prefix);
		/* FORMS and SOME rows may hold a term as another form. */
		if (m == CG_MATCH_FORMS || m == CG_MATCH_SOME)
			s->ph[s->nph - 1].form = q->terms[i].form;
	}
	return true;
}

/* The marked stem of the token at off, stemmed once per token however
 * many phrases ask (*n < 0: not stemmed yet); 0 when it has no forms. */
static int
form_of(struct snip *s, const struct column *c, size_t off,
        char form[CG_FORM_MAX], int *n)
{
	const struct tok *t = &c->v[off];

	if (*n < 0)
		*n = cg_token_form(s->stem, c->arena.data + t->text, t->ntext,
		                   form);
	return *n;
}

/* True when the token at off is another form of phrase p's word. */
static bool
form_at(struct snip *s, const struct column *c, const struct phrase *p,
        size_t off, char form[CG_FORM_MAX], int *n)
{
	if (p->form == NULL || s->stem == NULL)
		return false;
	return form_of(s, c, off, form, n) > 0 && strcmp(form, p->form) == 0;
}

static bool
phrase_at(const struct column *c, const struct phrase *p, size_t off)
{
	if (off + (size_t)p->n > c->n)
		return false;
	for (int k = 0; k < p->n; k++) {
		const struct tok *t = &c->v[off + (size_t)k];

		bool pre = p->prefix && k == p->n - 1;
		int m = p->len[k] - 1; /* the marks of a tail token */

		if (p->len[k] > 1 && p->tok[k][0] == CG_TAIL_MARK) {
			/* a cluster's marked tail: the cluster ends with it */
			if (t->ntext <= m ||
			    memcmp(c->arena.data + t->text + t->ntext - m,
			           p->tok[k] + 1, (size_t)m) != 0)
				return false;
			continue;
		}
		if ((pre ? t->ntext < p->len[k] : t->ntext != p->len[k]) ||
		    memcmp(c->arena.data + t->text, p->tok[k],
		           (size_t)p->len[k]) != 0)
			return false;
	}
	return true;
}

static int
add_inst(struct snip *s, int phrase, int col, int off)
{
	if (s->ninst == s->cap_inst) {
		size_t ncap = s->cap_inst ? s->cap_inst * 2 : 32;
		struct inst *v = realloc(s->inst, ncap * sizeof(*v));

		if (v == NULL)
			return CG_ENOMEM;
		s->inst = v;
		s->cap_inst = ncap;
	}
	s->inst[s->ninst++] = (struct inst){phrase, col, off};
	return 0;
}

/* Every instance of every phrase in the expression's columns. */
static int
find_instances(struct snip *s)
{
	for (int p = 0; p < s->nph && s->stem == NULL; p++)
		if (s->ph[p].form != NULL &&
		    (s->stem = cg_stemmer_new()) == NULL)
			return CG_ENOMEM;
	for (int c = s->col_first; c < s->col_end; c++)
		for (size_t off = 0; off < s->col[c].n; off++) {
			char form[CG_FORM_MAX];
			int nform = -1;

			for (int p = 0; p < s->nph; p++)
				if ((phrase_at(&s->col[c], &s->ph[p], off) ||
				     form_at(s, &s->col[c], &s->ph[p], off,
				             form, &nform)) &&
				    add_inst(s, p, c, (int)off) != 0)
					return CG_ENOMEM;
		}
	return 0;
}

/* --- the window ------------------------------------------------------ */

/* The score of the window of SNIP_TOKENS tokens from pos in column col, and
 * (when adj is not NULL) that window moved to centre its instances inside
 * the column. */
static int
window_score(const struct snip *s, int col, int pos, int *adj)
{
	bool seen[MAX_PHRASES] = {false};
	int64_t end = (int64_t)pos + SNIP_TOKENS;
	int score = 0;
	int first = -1;
	int last = 0;
	int64_t a;

	for (size_t i = 0; i < s->ninst; i++) {
		const struct inst *x = &s->inst[i];

		if (x->col != col || x->off < pos || x->off >= end)
			continue;
		score += seen[x->phrase] ? 1 : 1000;
		seen[x->phrase] = true;
		if (first < 0)
			first = x->off;
		last = x->off + s->ph[x->phrase].n;
	}
	if (adj != NULL) {
		int ndoc = (int)s->col[col].n;

		a = first - (SNIP_TOKENS - (last - first)) / 2;
		if (a + SNIP_TOKENS > ndoc)
			a = ndoc - SNIP_TOKENS;
		if (a < 0)
			a = 0;
		*adj = (int)a;
	}
	return score;
}

/* The sentence start at or before instance offset io, tried as a window;
 * updates the best when it scores higher. */
static void
try_sentence(const struct snip *s, int col, int io, int *best, int *bcol,
             int *bstart)
{
	const struct column *c = &s->col[col];
	int start = -1;
	int score;

	for (size_t k = 0; k < c->n && (int)k <= io; k++)
		if (c->v[k].first)
			start = (int)k;
	/* FTS5 takes the last sentence start not after io, or the first
	 * one when every start is after it. */
	if (start < 0) {
		for (size_t k = 0; k < c->n; k++)
			if (c->v[k].first) {
				start = (int)k;
				break;
			}
	}
	if (start < 0 || start >= io)
		return;
	score = window_score(s, col, start, NULL) + (start == 0 ? 120 : 100);
	if (score > *best) {
		*best = score;
		*bcol = col;
		*bstart = start;
	}
}

static void
best_window(const struct snip *s, int want, int *bcol, int *bstart)
{
	int best = 0;

	*bcol = want >= 0 ? want : 0;
	*bstart = 0;
	for (int col = 0; col < CG_NCOLS; col++) {
		if (want >= 0 && want != col)
			continue;
		for (size_t i = 0; i < s->ninst; i++) {
			int adj;
			int score;

			if (s->inst[i].col != col)
				continue;
			score = window_score(s, col, s->inst[i].off, &adj);
			if (score > best) {
				best = score;
				*bcol = col;
				*bstart = adj;
			}
			if ((int)s->col[col].n > SNIP_TOKENS)
				try_sentence(s, col, s->inst[i].off, &best,
				             bcol, bstart);
		}
	}
}

/* --- the highlight ---------------------------------------------------- */

/* Coalesced instances of one column: overlapping ones are one match. */
struct cinst {
	const struct snip *s;
	int col;
	size_t next;
	int start; /* -1 at the end */
	int end;
};

static void
cinst_next(struct cinst *it)
{
	it->start = -1;
	it->end = -1;
	for (; it->next < it->s->ninst; it->next++) {
		const struct inst *x = &it->s->inst[it->next];
		int end;

		if (x->col != it->col)
			continue;
		end = x->off - 1 + it->s->ph[x->phrase].n;
		if (it->start < 0) {
			it->start = x->off;
			it->end = end;
		} else if (x->off <= it->end) {
			if (end > it->end)
				it->end = end;
		} else {
			break;
		}
	}
}

struct hl {
	cg_buf out;
	const char *in;
	int range_start;
	int range_end;
	int off; /* copied up to here */
	struct cinst it;
	int rc;
};

static void
put(struct hl *h, const char *p, int n)
{
	if (h->rc == 0 && n > 0 && cg_buf_append(&h->out, p, (size_t)n) != 0)
		h->rc = CG_ENOMEM;
}

static void
put_str(struct hl *h, const char *s)
{
	put(h, s, (int)strlen(s));
}

/* One token of the chosen column, as FTS5's highlight callback took it. */
static void
hl_token(struct hl *h, int pos, int start, int end)
{
	if (h->range_end > 0) {
		if (pos < h->range_start || pos > h->range_end)
			return;
		if (h->range_start && pos == h->range_start)
			h->off = start;
	}
	if (pos == h->it.start) {
		put(h, h->in + h->off, start - h->off);
		put_str(h, SNIP_OPEN);
		h->off = start;
	}
	if (pos == h->it.end) {
		if (h->range_end && h->it.start < h->range_start)
			put_str(h, SNIP_OPEN);
		put(h, h->in + h->off, end - h->off);
		put_str(h, SNIP_CLOSE);
		h->off = end;
		cinst_next(&h->it);
	}
	if (h->range_end > 0 && pos == h->range_end) {
		put(h, h->in + h->off, end - h->off);
		h->off = end;
		if (pos >= h->it.start && pos < h->it.end)
			put_str(h, SNIP_CLOSE);
	}
}

static char *
highlight(const struct snip *s, int col, int start)
{
	const struct column *c = &s->col[col];
	struct hl h;

	memset(&h, 0, sizeof(h));
	cg_buf_init(&h.out, SIZE_MAX / 2);
	h.in = c->text;
	h.range_start = start;
	h.range_end = start + SNIP_TOKENS - 1;
	h.it = (struct cinst){s, col, 0, -1, -1};
	cinst_next(&h.it);
	if (start > 0)
		put_str(&h, SNIP_ELLIPS);
	while (h.it.start >= 0 && h.it.start < start)
		cinst_next(&h.it);
	for (size_t k = 0; k < c->n; k++)
		hl_token(&h, (int)k, c->v[k].start, c->v[k].end);
	if (h.range_end >= (int)c->n - 1)
		put(&h, c->text + h.off, c->len - h.off);
	else
		put_str(&h, SNIP_ELLIPS);
	if (h.rc != 0) {
		cg_buf_fini(&h.out);
		return NULL;
	}
	if (h.out.data == NULL)
		return strdup("");
	return cg_buf_take(&h.out);
}

/* --- public ------------------------------------------------------------ */

int
cg_snippet(const cg_snip_row *row, const cg_query *q, enum cg_match m, int col,
           char **out)
{
	struct snip *s = calloc(1, sizeof(*s));
	int bcol;
	int bstart;
	int rc = 0;

	*out = NULL;
	if (s == NULL)
		return CG_ENOMEM;
	if (!expression(s, q, m)) {
		free(s);
		return 0;
	}
	/* Only the columns the snippet may come from are read. */
	for (int c = 0; c < CG_NCOLS && rc == 0; c++)
		rc = tokenize(&s->col[c],
		              col < 0 || col == c ? row->col[c] : NULL);
	if (rc == 0)
		rc = find_instances(s);
	if (rc == 0) {
		best_window(s, col, &bcol, &bstart);
		/* FTS5 gives NULL for a NULL column. */
		if (row->col[bcol] != NULL) {
			*out = highlight(s, bcol, bstart);
			rc = *out != NULL ? 0 : CG_ENOMEM;
		}
	}
	for (int c = 0; c < CG_NCOLS; c++)
		column_fini(&s->col[c]);
	cg_stemmer_free(s->stem);
	free(s->inst);
	free(s);
	return rc != 0 ? CG_ENOMEM : 0;
}
