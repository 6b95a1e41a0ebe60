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
 */
#ifndef CG_FED_CORPUS_H
#define CG_FED_CORPUS_H

#include <jansson.h>

#include "federation/fed.h"

/* Before the merge: fetches the graph (*graph, new reference, or NULL
 * when there is none), boosts and adds routed entries to hits. */
void cg_fed_corpus_route(cg_fed *f, const cg_search_req *req, json_t *hits,
                         json_t **graph);

/* After the merge: the `related` groups for the returned hits (a new
 * array, empty when nothing is bridged). */
json_t *cg_fed_corpus_related(cg_fed *f, const cg_search_req *req,
                              const json_t *graph, const json_t *hits);

#endif
