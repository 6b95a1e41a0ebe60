/*
 * tools_corpus.h - the node side of what only corpus sources have: their
 * hits' corpus facts and freshness note (SPEC 4.4), the entries of a
 * concept (for bridges and aliases, SPEC 4.3), and the registry-graph of
 * the repositories that registered them.
 *
 * Must not: fetch, parse the wire format.
 */
#ifndef CG_TOOLS_CORPUS_H
#define CG_TOOLS_CORPUS_H

#include <jansson.h>

#include "cg_err.h"
#include "index.h"
#include "node.h"

/*
 * Decorates a hit of a corpus source (no-op for a wiki): moves the entry's
 * facts out of `extra` into `corpus` {entry, source, doc, summary,
 * concepts, category, stale_since, document_missing?}, sets `stale` from
 * the entry's flag, and for a remote corpus whose cache is behind its
 * remote or whose last refresh failed, `freshness` {note, cached_commit,
 * remote_commit, last_error} and `stale_cache: true`.  fresh is the
 * source's cg_corpus_freshness(), read once per search by the caller (two
 * file reads), or NULL.
 */
void cg_corpus_decorate(cg_index *idx, json_t *hit, const json_t *fresh);

/* The freshness of a remote corpus source as {cached_commit, cached_at,
 * remote_commit, checked_at, last_error, note}, or NULL for others. */
json_t *cg_corpus_freshness(cg_index *idx);

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
