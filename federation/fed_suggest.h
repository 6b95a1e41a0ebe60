/*
 * fed_suggest.h - "did you mean" across the nodes: when a search comes
 * back empty or thin, the words of the indexes in scope close to each
 * query word, summed over the sources, and the note that offers them.
 *
 * May be included by federation/ and the layers above it (gateway, cli).
 */
#ifndef CG_FED_SUGGEST_H
#define CG_FED_SUGGEST_H

#include <stddef.h>

#include <jansson.h>

#include "page/query.h"

/* A result with fewer hits than this is thin: suggestions are looked for. */
#define CG_SUGGEST_THIN 3

/*
 * From the "suggest" replies' per_source objects (an array of them, one
 * per node), the suggestions for q: a new array of {word, suggest, df}
 * (df: sections holding the suggestion over every source), one per query
 * word that is in no section and has a close word, or whose close word
 * is in ten times as many sections, in query order; empty when none.  A word is
 * a term of one Latin token, not a prefix.
 */
json_t *cg_suggest_pick(const cg_query *q, const json_t *replies);

/* The words to ask about: q's single-token Latin, non-prefix terms, as a
 * new array of strings (empty when none). */
json_t *cg_suggest_words(const cg_query *q);

/* The note sentence: Did you mean "postgres"? or, for several, Did you
 * mean "postgres" (for "postgre"), "deploy" (for "deplyo")?  malloc'd. */
char *cg_suggest_note(const json_t *picks, bool single);

#endif
