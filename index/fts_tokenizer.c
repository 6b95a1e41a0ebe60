/*
 * fts_tokenizer.c - the page tokenizer (page/token.h) as SQLite FTS5's
 * "cgw" tokenizer, so that the index and the query parser always agree on
 * what a token is.
 */
#include "index/fts_tokenizer.h"

#include <stdbool.h>
#include <stddef.h>

#include "common/cg_err.h"
#include "index/sql.h"
#include "page/token.h"

/* One tokenizer instance; it keeps no state, but FTS5 wants an object. */
struct cgw_tokenizer {
	int unused; /* placeholder: the tokenizer takes no arguments */
};

/* Forwards tokens from cg_token_each to FTS5's xToken. */
struct cgw_call {
	void *fts_ctx; /* FTS5's context for xToken */
	int (*xToken)(void *, int, const char *, int, int, int);
};

static int
cgw_forward(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	struct cgw_call *call = ctx;

	(void)cjk;
	return call->xToken(call->fts_ctx, 0, tok, ntok, start, end);
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
	t->unused = 0;
	*out = (Fts5Tokenizer *)t;
	return SQLITE_OK;
}

static void
cgw_delete(Fts5Tokenizer *t)
{
	sqlite3_free(t);
}

/* Same tokens for documents, queries and auxiliary functions. */
static int
cgw_tokenize(Fts5Tokenizer *t, void *fts_ctx, int flags, const char *text,
             int n, int (*xToken)(void *, int, const char *, int, int, int))
{
	struct cgw_call call = {.fts_ctx = fts_ctx, .xToken = xToken};

	(void)t;
	(void)flags;
	if (text == NULL || n <= 0)
		return SQLITE_OK;
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
