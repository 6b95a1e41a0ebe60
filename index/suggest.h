/*
 * suggest.h - "did you mean": the words of one source's index close to a
 * query word, from the index's own vocabulary (FTS5's fts5vocab), with
 * how many sections hold each.  The federation sums them over sources and
 * words the note (federation/fed_suggest.c).
 *
 * May be included by index/ and the layers above it (node, gateway, cli).
 */
#ifndef CG_SUGGEST_H
#define CG_SUGGEST_H

#include <jansson.h>

#include "common/cg_err.h"
#include "index/index.h"

/* Candidates kept per word and source, best first. */
#define CG_SUGGEST_MAX 5

/* The largest edit distance a candidate may be from a word of n code
 * points: 0 (no suggestion) below 3, 1 up to 4, else 2. */
int cg_suggest_max_distance(int n);

/* Edit distance (optimal string alignment: insert, delete, substitute,
 * swap two neighbours) between two UTF-8 words, by code point; a value
 * above cap when it is above cap (words over 64 code points: cap + 1). */
int cg_suggest_distance(const char *a, const char *b, int cap);

/*
 * Sets out[word] to {"df": sections holding word, "near": [{"w", "df",
 * "d"}...]}: the index's tokens within cg_suggest_max_distance of word
 * that start with its first character, by distance then df (most first),
 * at most CG_SUGGEST_MAX.  word is a folded token (page/token.h).
 */
int cg_suggest_word(cg_index *idx, const char *word, json_t *out, cg_err *err);

#endif
