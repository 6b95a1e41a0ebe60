/*
 * fts_tokenizer.h - registers the "cgw" FTS5 tokenizer: page/token.h's
 * cg_token_each for documents, queries and auxiliary functions alike.  It
 * takes no arguments.
 *
 * May be included by index/ and every layer above it.
 */
#ifndef CG_FTS_TOKENIZER_H
#define CG_FTS_TOKENIZER_H

#include <sqlite3.h>

/* Name under which the FTS5 tokenizer is registered. */
#define CG_TOKENIZER_NAME "cgw"

/* Registers the tokenizer with the FTS5 module of db (per connection).
 * Returns 0, CG_EINVAL (db NULL) or CG_ERR (no FTS5). */
int cg_fts_tokenizer_register(sqlite3 *db);

/* Boundaries kept per column text (a walk stops at the last one). */
#define CG_FTS_BOUNDS_MAX 256

/* Positions of paragraph and list item boundaries of one column, and the
 * stopwords (page/query.h) before each: a unit's words that say what it
 * is about are its tokens less its stopwords. */
typedef struct cg_fts_bounds {
	int n;                       /* positions kept */
	int pos[CG_FTS_BOUNDS_MAX];  /* ascending */
	int stop[CG_FTS_BOUNDS_MAX]; /* stopwords before pos[i] */
	int nstop;                   /* stopwords before where the walk
	                              * stopped */
} cg_fts_bounds;

/* Fills out with the positions (token offsets, as FTS5 counts them for a
 * document: the words and the boundary tokens) of the boundaries of n
 * bytes of a document's column text, up to the first boundary past
 * position upto (the end of the unit that holds upto; the walk stops
 * there, or at the text's end) and at most CG_FTS_BOUNDS_MAX of them. */
void cg_fts_boundaries(const char *text, int n, int upto, cg_fts_bounds *out);

#endif
