/*
 * fts_tokenizer.c - the page tokenizer (page/token.h) as SQLite FTS5's
 * "cgw" tokenizer, so that the index and the query parser always agree on
 * what a token is.
 *
 * Documents also get word forms: after a word whose marked stem differs
 * from it, the marked stem as a colocated token (FTS5_TOKEN_COLOCATED: the
 * same position, not counted in the column's size, so lengths and BM25
 * are those of the words alone).  In a query, a string that starts with
 * CG_FORM_MARK is one token as it is: only page/query.c writes one (user
 * text cannot hold the control character: the tokenizer separates at it).
 * Between two paragraphs of a document (a blank line, or a line that
 * starts a list item: "- ", "* ", "+ ", "1. ") it emits one boundary token,
 * CG_PARA_MARK, which no query can hold: a phrase never runs from one
 * paragraph or list item into the next ("{{default}}`\n\n- Open" is not
 * the phrase "default open"), and a proximity window across one is a token
 * longer.  A document's grapheme cluster (Thai, Lao, Khmer, Myanmar, ...)
 * with marks after its base also gets its marked tails (page/token.h) as
 * colocated tokens; a query phrase starting with CG_TAIL_MARK has that
 * tail as its first token.  cg_fts_boundaries walks a column's text the
 * same way to tell the rank function (index/rank.c) where the boundary
 * tokens sit and how many stopwords each unit holds.  It must not emit forms,
 * tails or boundaries for queries, or keep state between calls beyond its
 * stemmer.
 */
#include "index/fts_tokenizer.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "common/cg_err.h"
#include "index/sql.h"
#include "page/query.h"
#include "page/token.h"

/* One tokenizer instance: its stemmer (FTS5 uses an instance from one
 * connection, hence one thread, at a time). */
struct cgw_tokenizer {
	cg_stemmer *stem;
};

/* The paragraph boundary token (a control character: never in a query). */
#define CG_PARA_MARK "\x02"

/* Forwards tokens from cg_token_each to FTS5's xToken. */
struct cgw_call {
	void *fts_ctx; /* FTS5's context for xToken */
	int (*xToken)(void *, int, const char *, int, int, int);
	cg_stemmer *stem; /* NULL: no word forms nor boundaries (queries) */
	const char *text; /* the document */
	int prev_end;     /* end of the previous token; -1 before the first */
	int base;         /* offset of text in what FTS5 passed */
};

/* True when text[from, to) (the gap between two tokens) ends a paragraph:
 * it holds a blank line, or a newline, blanks and a list marker. */
static bool
para_break(const char *text, int from, int to)
{
	for (int i = from; i < to; i++) {
		int j = i + 1;

		if (text[i] != '\n')
			continue;
		while (j < to && (text[j] == ' ' || text[j] == '\t'))
			j++;
		if (j < to && (text[j] == '\n' || text[j] == '\r'))
			return true;
		if (j + 1 < to && strchr("-*+", text[j]) != NULL &&
		    text[j] != '\0' &&
		    (text[j + 1] == ' ' || text[j + 1] == '\t'))
			return true;
		while (j < to && text[j] >= '0' && text[j] <= '9')
			j++;
		if (j + 1 < to && j > i + 1 && text[j - 1] >= '0' &&
		    text[j - 1] <= '9' && (text[j] == '.' || text[j] == ')') &&
		    text[j + 1] == ' ')
			return true;
	}
	return false;
}

/* A document's cluster with marks after its base: its marked tails
 * (page/token.h), colocated. */
static int
put_tails(struct cgw_call *call, const char *tok, int ntok, int start, int end)
{
	char tail[CG_TOKEN_MAX + 1];
	int rc = SQLITE_OK;
	int n;

	for (int k = 1;
	     rc == SQLITE_OK && (n = cg_token_tail(tok, ntok, k, tail)) > 0;
	     k++)
		rc = call->xToken(call->fts_ctx, FTS5_TOKEN_COLOCATED, tail, n,
		                  start, end);
	return rc;
}

static int
cgw_forward(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	struct cgw_call *call = ctx;
	char form[CG_FORM_MAX];
	int n;
	int rc = SQLITE_OK;

	if (call->stem != NULL && call->prev_end >= 0 &&
	    para_break(call->text, call->prev_end, start))
		rc = call->xToken(call->fts_ctx, 0, CG_PARA_MARK, 1,
		                  call->prev_end, start);
	call->prev_end = end;
	if (rc == SQLITE_OK)
		rc = call->xToken(call->fts_ctx, 0, tok, ntok,
		                  call->base + start, call->base + end);
	if (rc != SQLITE_OK || call->stem == NULL)
		return rc;
	if (cjk)
		return put_tails(call, tok, ntok, start, end);
	n = cg_token_form(call->stem, tok, ntok, form);
	if (n == 0 ||
	    (n - 1 == ntok && memcmp(form + 1, tok, (size_t)ntok) == 0))
		return rc;
	return call->xToken(call->fts_ctx, FTS5_TOKEN_COLOCATED, form, n, start,
	                    end);
}

/* What cg_fts_boundaries counts: tokens and boundaries as
 * cgw_forward emits them for a document. */
struct bound_walk {
	const char *text;
	int prev_end; /* end of the previous token; -1 before the first */
	int next;     /* the next token's position */
	int upto;     /* the walk stops at the first boundary past it */
	cg_fts_bounds *out;
};

static int
bound_cb(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	struct bound_walk *w = ctx;

	(void)cjk;
	if (w->prev_end >= 0 && para_break(w->text, w->prev_end, start)) {
		w->out->stop[w->out->n] = w->out->nstop;
		w->out->pos[w->out->n++] = w->next;
		w->next++;
	}
	w->out->nstop += cg_query_stopword(tok, ntok);
	w->prev_end = end;
	w->next++;
	/* Past upto, the walk runs on to the next boundary: the end of the
	 * unit that holds upto. */
	return (w->out->n > 0 && w->out->pos[w->out->n - 1] > w->upto) ||
	       w->out->n == CG_FTS_BOUNDS_MAX;
}

void
cg_fts_boundaries(const char *text, int n, int upto, cg_fts_bounds *out)
{
	struct bound_walk w = {
	    .text = text, .prev_end = -1, .upto = upto, .out = out};

	out->n = 0;
	out->nstop = 0;
	if (text != NULL && n > 0)
		(void)cg_token_each(text, n, bound_cb, &w);
}

static int
cgw_create(void *user, const char **argv, int argc, Fts5Tokenizer **out)
{
	struct cgw_tokenizer *t = sqlite3_malloc(sizeof(*t));

	(void)user;
	(void)argv;
	(void)argc; /* arguments are ignored */
	if (t == NULL)
		return SQLITE_NOMEM;
	t->stem = cg_stemmer_new();
	if (t->stem == NULL) {
		sqlite3_free(t);
		return SQLITE_NOMEM;
	}
	*out = (Fts5Tokenizer *)t;
	return SQLITE_OK;
}

static void
cgw_delete(Fts5Tokenizer *t)
{
	if (t != NULL)
		cg_stemmer_free(((struct cgw_tokenizer *)t)->stem);
	sqlite3_free(t);
}

/* A query phrase that starts with a marked tail (page/query.c writes one
 * for a query starting inside a cluster): the tail up to the first space
 * is one token as it is, the rest is tokenized as usual. */
static int
query_tail(struct cgw_call *call, const char *text, int n)
{
	const char *sp = memchr(text, ' ', (size_t)n);
	int len = sp != NULL ? (int)(sp - text) : n;
	int rc;

	if (len > CG_TOKEN_MAX + 1)
		return SQLITE_OK;
	rc = call->xToken(call->fts_ctx, 0, text, len, 0, len);
	if (rc != SQLITE_OK || len == n)
		return rc;
	call->base = len;
	return cg_token_each(text + len, n - len, cgw_forward, call);
}

/* Same words for documents, queries and auxiliary functions; word forms
 * and paragraph boundaries for documents; a marked form in a query as it
 * is. */
static int
cgw_tokenize(Fts5Tokenizer *t, void *fts_ctx, int flags, const char *text,
             int n, int (*xToken)(void *, int, const char *, int, int, int))
{
	struct cgw_call call = {
	    .fts_ctx = fts_ctx, .xToken = xToken, .text = text, .prev_end = -1};

	if (text == NULL || n <= 0)
		return SQLITE_OK;
	if ((flags & FTS5_TOKENIZE_QUERY) && text[0] == CG_FORM_MARK)
		return n <= CG_FORM_MAX ? xToken(fts_ctx, 0, text, n, 0, n)
		                        : SQLITE_OK;
	if ((flags & FTS5_TOKENIZE_QUERY) && text[0] == CG_TAIL_MARK)
		return query_tail(&call, text, n);
	if ((flags & FTS5_TOKENIZE_DOCUMENT) != 0)
		call.stem = ((struct cgw_tokenizer *)t)->stem;
	return cg_token_each(text, n, cgw_forward, &call);
}

int
cg_fts_tokenizer_register(sqlite3 *db)
{
	fts5_tokenizer tok = {
	    .xCreate = cgw_create,
	    .xDelete = cgw_delete,
	    .xTokenize = cgw_tokenize,
	};
	fts5_api *api;

	if (db == NULL)
		return CG_EINVAL;
	api = cg_index_fts5_api(db);
	if (api == NULL || api->iVersion < 2)
		return CG_ERR;
	if (api->xCreateTokenizer(api, CG_TOKENIZER_NAME, NULL, &tok, NULL) !=
	    SQLITE_OK)
		return CG_ERR;
	return 0;
}
