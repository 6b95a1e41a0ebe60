/*
 * node.h - a node: the indexes of one repository's sources, and what the
 * operation handlers share about them (which sources a request scopes,
 * its deadline, a corrupt index rebuilt once, a memo kept between
 * requests).  Answering a request is node/dispatch.h; the operations are
 * node/ops.h.
 *
 * A node is used by one thread at a time (node/server.h keeps two, one
 * per thread); so are its indexes and its memo.
 *
 * May be included by node/ and the layers above it (gateway, cli), and by
 * tests and fuzz targets.  Must not: know the operations or the wire
 * format.
 */
#ifndef CG_NODE_H
#define CG_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "conf/source.h"
#include "index/index.h"

typedef struct cg_node cg_node;

typedef struct cg_node_opts {
	const char *name;         /* node name, reported in every reply */
	const char *cache_dir;    /* index cache root */
	const cg_source *sources; /* borrowed; each index keeps a copy */
	size_t nsources;
	int oneshot; /* cg_index_opts.oneshot for every source */
} cg_node_opts;

int cg_node_new(cg_node **out, const cg_node_opts *opts, cg_err *err);
void cg_node_free(cg_node *n);

const char *cg_node_name(const cg_node *n);

/* --- the sources ------------------------------------------------------ */

size_t cg_node_nsources(const cg_node *n);
const char *cg_node_source_name(const cg_node *n, size_t i);
cg_index *cg_node_index(cg_node *n, size_t i);
/* The index of the source named name, or NULL. */
cg_index *cg_node_find(cg_node *n, const char *name);
/* {source: generation} of every source after following CURRENT (what a
 * reply reports), a new object. */
json_t *cg_node_generations(cg_node *n);

/* --- helpers for operations ------------------------------------------- */

/* True when the request's args.sources scope (absent = all) holds name. */
bool cg_node_in_scope(const json_t *args, const char *name);
/* Fills order (room for cg_node_nsources) with the indexes of the
 * sources in scope, sorted as walk results are ("source/" order); returns
 * how many. */
size_t cg_node_scope_order(const cg_node *n, const json_t *args, size_t *order);

/* Starts the deadline of the request being answered: deadline_ms from
 * now, or none when deadline_ms <= 0. */
void cg_node_set_deadline(cg_node *n, int64_t deadline_ms);
/* True once the request being answered is past its deadline (a request
 * without one never expires): long operations (grep) stop and say so
 * rather than work for a caller that stopped waiting. */
bool cg_node_expired(const cg_node *n);
/* When the request being answered expires, on the cg_mono_ms() clock;
 * 0 when it has no deadline. */
int64_t cg_node_deadline(const cg_node *n);

/* Fails with CG_EUNAVAIL while a source has no generation yet, or while
 * the one CURRENT names cannot be read (saying why). */
int cg_node_ready(cg_index *idx, cg_err *err);

/* --- sync failures ----------------------------------------------------- */

/* The sources whose last sync failed, {source: {code, message}} (taken;
 * NULL: none).  The node service (server.c) hands what its sync thread
 * saw to its serving node before each request, since the two threads
 * keep separate nodes: a source that failed its sync keeps answering
 * from its last index, and the answers say so. */
void cg_node_set_sync_failed(cg_node *n, json_t *failed);
/* Why source's last sync failed, or NULL (borrowed). */
const char *cg_node_sync_failure(const cg_node *n, const char *source);
/* Why the corpus registry of wiki source's repository cannot be read
 * ("<path>: <why>; its corpora are not served"), or NULL (borrowed).  Read
 * when the node opens, as the workspace loader reads it: a repository
 * whose registry does not read is served without its corpora, and says
 * so. */
const char *cg_node_registry_error(const cg_node *n, const char *source);
/* Appends to fu what an answer about source must say of it: {kind
 * "registry_unreadable", source, message} when its repository's registry
 * cannot be read, and {kind "source_not_updated", source, message} when
 * its last sync failed (its index answers as last built). */
void cg_node_sync_followup(const cg_node *n, const char *source, json_t *fu);

/* A source's failure in an op over several sources: recorded in
 * res.failed as {source: {code, message}} and 0 returned, so the other
 * sources still answer (a source whose corpus index does not parse must
 * not silence the wiki beside it).  Out of memory and invalid arguments
 * fail the whole op: rc, with serr's message in err. */
int cg_node_source_failed(json_t *res, cg_index *idx, int rc,
                          const cg_err *serr, cg_err *err);

/* Work on one index, for cg_node_run; must start from scratch each time
 * it is called. */
typedef int (*cg_node_index_fn)(cg_index *idx, void *ctx, cg_err *err);

/* Runs fn on idx once it is ready (cg_node_ready); when fn finds the
 * index corrupt (CG_ECORRUPT), rebuilds it and runs fn once more. */
int cg_node_run(cg_index *idx, cg_node_index_fn fn, void *ctx, cg_err *err);

/* One slot of derived data the node keeps between requests (the corpus
 * graph, ops_corpus.c): the value stored with signature sig (borrowed),
 * or NULL when there is none or it was derived from something else.
 * _set takes v. */
json_t *cg_node_memo(cg_node *n, uint64_t sig);
void cg_node_memo_set(cg_node *n, uint64_t sig, json_t *v);

#endif
