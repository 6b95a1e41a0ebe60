/*
 * snippet.h - the snippet of a hit, made from the section's text in C
 * instead of FTS5's snippet() over the whole index.
 *
 * The text is what SQLite 3.40's snippet(sec, col, open, close, ellipsis,
 * ntoken) gives for the row under the hit's class expression (page/query.h
 * cg_query_fts): the same tokenizer (page/token.h) finds the phrases'
 * instances, the window is chosen by the same rule (a first instance of a
 * phrase scores 1000, a repeat 1; a window that starts a sentence, after
 * "." or ":", gains 120 at the start of the column and 100 elsewhere; the
 * window is centred on its instances and kept inside the column), and
 * overlapping instances are highlighted as one.  FTS5's snippet() had to
 * seek every phrase's doclist to the row through the whole index, and
 * tokenize each column it tried: 100 µs or more a hit.  Changing how a
 * snippet reads is changing answers: tests/golden and bench/answers-check
 * hold it to the old text.
 *
 * May be included by index/ only.
 */
#ifndef CG_SNIPPET_H
#define CG_SNIPPET_H

#include "page/query.h"
#include "proto/stats.h"

/* A section's columns (NUL-terminated, NULL when empty). */
typedef struct cg_snip_row {
	const char *col[CG_NCOLS];
} cg_snip_row;

/*
 * The snippet of column col (-1: the column FTS5 would choose) of row for
 * query q in class m, with "**" around matches, "…" where text is cut and
 * windows of 24 tokens, malloc'd into *out; *out is NULL when m has no
 * expression or the column is NULL.  Returns 0, or CG_ENOMEM (then *out
 * is NULL: a hit must not pass a failed snippet off as "no snippet").
 */
int cg_snippet(const cg_snip_row *row, const cg_query *q, enum cg_match m,
               int col, char **out);

#endif
