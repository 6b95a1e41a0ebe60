/*
 * corpus_hits.h - the facts a hit of a corpus source carries (SPEC 4.4):
 * the index entry's metadata and the freshness of a remote corpus's cache.
 *
 * May be included by index/ and every layer above it.  Must not: fetch.
 */
#ifndef CG_CORPUS_HITS_H
#define CG_CORPUS_HITS_H

#include <jansson.h>

#include "index/index.h"

/*
 * Decorates a hit of a corpus source (no-op for a wiki): moves the entry's
 * facts out of `extra` into `corpus` {entry, source, doc, summary,
 * concepts, category, stale_since, document_missing?}, sets `stale` from
 * the entry's flag, and for a remote corpus whose cache is behind its
 * remote or whose last refresh failed, `freshness` {note, cached_commit,
 * remote_commit, last_error} and `stale_cache: true`.  fresh is the
 * source's cg_corpus_hits_freshness(), read once per search by the caller (two
 * file reads), or NULL.  Returns 0, or CG_ENOMEM (the hit is then short
 * of a field: the caller fails rather than return it).
 */
int cg_corpus_hits_decorate(cg_index *idx, json_t *hit, const json_t *fresh);

/* The freshness of a remote corpus source as {cached_commit, cached_at,
 * remote_commit, checked_at, last_error, note}, or NULL for others. */
json_t *cg_corpus_hits_freshness(cg_index *idx);

#endif
