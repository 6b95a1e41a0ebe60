/*
 * tools_corpus.h - the node side of what only corpus sources have: the
 * entries of a concept (for bridges and aliases, SPEC 4.3), and the
 * registry-graph of the repositories that registered them.  Their hits'
 * facts and freshness are index/corpus_hits.h.
 *
 * Must not: fetch, parse the wire format.
 */
#ifndef CG_TOOLS_CORPUS_H
#define CG_TOOLS_CORPUS_H

#include <jansson.h>

#include "common/cg_err.h"
#include "index/index.h"
#include "node/node.h"

/*
 * op "concept": args {targets: [{corpus, concept}], limit (1-20, 3)} ->
 * {entries: [{corpus, concept, source, path, title, summary}]}: for each
 * target this node holds, up to limit pages whose entry lists the concept
 * (visible to the caller), in path order.
 */
int cg_op_concept(cg_node *n, const json_t *args, json_t *res, cg_err *err);

/*
 * op "corpus_graph": args {q?} -> {aliases: [{alias, corpus, concept}]
 * (only those whose term occurs in q, case-insensitive, when q is given),
 * bridges: [{from, to, type, note}] ("corpus:concept"), relationships:
 * [{from, to, type}] (graph.yaml of each corpus, as "corpus:concept")}
 * from the registry-graph.yaml of every repository that registered one of
 * this node's corpora, and their graphs.  Dangling references (a corpus
 * that is not registered) are skipped and listed in `warnings`.
 */
int cg_op_corpus_graph(cg_node *n, const json_t *args, json_t *res,
                       cg_err *err);

#endif
