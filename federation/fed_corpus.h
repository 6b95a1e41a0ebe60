/*
 * fed_corpus.h - aliases and bridges across corpora (SPEC 4.3), on top of
 * a search's hits.  Only runs when a node said it holds a corpus in scope,
 * so a wiki-only roster pays nothing.
 *
 * - Aliases (registry-graph.yaml `aliases`): a query that mentions an
 *   alias term (whole words, ASCII case-insensitive) boosts the hits that
 *   belong to one of its targets (corpus and concept: score x2, `alias`
 *   set) and routes to them: up to 3 entries of each target concept that
 *   did not match are added as hits of match class "alias" (ranked with
 *   the "some words" class) unless the query has filters.
 * - Bridges (registry-graph.yaml `bridges`, both directions) and a
 *   corpus's own graph.yaml relationships: the concepts of the returned
 *   hits, in hit order, pick at most 2 bridged concepts; up to 3 entries
 *   of each (not already hits) are the answer's `related[]`, each group
 *   annotated with the bridge {from, to, type, note?}.
 * Dangling references (a corpus nobody serves, a concept with no entries)
 * give nothing and are reported by the nodes' corpus warnings.
 *
 * Built on cg_fed_call (fed.h), called by the search (fed_search.c); it
 * must not include fed_search.h (the search calls it, not the reverse).
 * May be included by federation/ and the layers above it (gateway, cli).
 */
#ifndef CG_FED_CORPUS_H
#define CG_FED_CORPUS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "federation/fed.h"

/* What the corpus rounds need of a search: its text, whether it has a
 * filter, and its scope (the corpus rounds ask the same sources). */
typedef struct cg_corpus_query {
	const char *text; /* the search text, "" when none */
	bool filtered;    /* any filter set: routed entries match none */
	const char *const *sources; /* scope: source names, NULL = all */
	size_t nsources;
} cg_corpus_query;

/* Before the merge: fetches the graph (*graph, new reference, or NULL
 * when there is none), boosts and adds routed entries to hits. */
void cg_fed_corpus_route(cg_fed *f, const cg_corpus_query *q, json_t *hits,
                         json_t **graph);

/* After the merge: the `related` groups for the returned hits (a new
 * array, empty when nothing is bridged): at most two, each with entries
 * (a bridge whose concept yields no entry beyond the hits is dropped). */
json_t *cg_fed_corpus_related(cg_fed *f, const cg_corpus_query *q,
                              const json_t *graph, const json_t *hits);

#endif
