/*
 * fed_stats.h - what the federation keeps between queries so that a
 * search needs no statistics round and no claims round in the steady
 * state: per source, under the epoch the source named (index/index.h), its
 * row and token totals, the document frequency of every term and phrase
 * it was asked about, the hashes of its claim keys and the pages of the
 * shared claim keys it was asked about (per access policy); per node,
 * whether it holds a corpus.
 *
 * An entry is only as good as its epoch: a search sends the epochs it
 * scored with, a node whose source moved answers "stale" with that
 * source's statistics now, and they replace the entry.  Nothing here is
 * filtered by access: statistics are global by design (ARCHITECTURE.md,
 * "Access control"), and claim hashes only tell whether to ask the nodes,
 * which answer under the caller's policy.
 *
 * One cache per federation, shared by its caller views; every function
 * takes the cache's lock.  Bounded: a source's term map is cleared when it
 * passes CG_FED_STATS_MAX_TERMS.
 *
 * Private to federation/ (its header is public only so that fed_int.h may
 * name the type).
 */
#ifndef CG_FED_STATS_H
#define CG_FED_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "page/query.h"
#include "proto/stats.h"

#define CG_FED_STATS_MAX_TERMS 20000

typedef struct cg_fed_stats cg_fed_stats;

cg_fed_stats *cg_fed_stats_new(void);
void cg_fed_stats_free(cg_fed_stats *s);

/* Stores what a node said of one of its sources for q: a stats object of
 * node/ops.h ({epoch, nrows, tot, df, df_phrase, claims?}).  Another epoch
 * than the entry's replaces the entry. */
void cg_fed_stats_put(cg_fed_stats *s, const char *node, const char *source,
                      const cg_query *q, const json_t *st);

/* Adds to g what the cache knows of (node, source) for q; false when the
 * source or one of q's terms or its phrase is not known. */
bool cg_fed_stats_add(cg_fed_stats *s, const char *node, const char *source,
                      const cg_query *q, cg_gstats *g);

/* The epoch the entry of (node, source) is kept under, as a new JSON
 * string, or NULL when there is none. */
json_t *cg_fed_stats_epoch(cg_fed_stats *s, const char *node,
                           const char *source);

/* How many pages of (node, source) have the claim key whose hash is h; -1
 * when the source's claim keys are not known. */
int cg_fed_stats_claims(cg_fed_stats *s, const char *node, const char *source,
                        uint64_t h);

/* The pages of (node, source) whose claim key is key, as the node's claims
 * op gave them under the access policy whose signature is sig (a new
 * reference), or NULL when not asked yet under the entry's epoch. */
json_t *cg_fed_stats_claim_pages(cg_fed_stats *s, const char *node,
                                 const char *source, const char *sig,
                                 const char *key);
/* Keeps them (a copy); bounded by CG_FED_STATS_MAX_TERMS per source. */
void cg_fed_stats_put_claim_pages(cg_fed_stats *s, const char *node,
                                  const char *source, const char *sig,
                                  const char *key, const json_t *pages);

/* Whether node holds a corpus: 1, 0, or -1 not known yet. */
int cg_fed_stats_corpora(cg_fed_stats *s, const char *node);
void cg_fed_stats_set_corpora(cg_fed_stats *s, const char *node, bool yes);

#endif
