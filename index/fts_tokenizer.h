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

#endif
