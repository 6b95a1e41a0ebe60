/*
 * node.h - a node: the indexes of one repository's sources and the request
 * handler that answers for them.
 *
 * Requests and replies are JSON objects (the wire format of PROTOCOL in
 * ARCHITECTURE.md) so that the same handler serves an in-process caller,
 * nng inproc, ipc and tcp alike:
 *
 *   request  {"v":1, "id":N, "op":"search", "deadline_ms":N?,
 *             "args":{...}}
 *   reply    {"v":1, "id":N, "node":"name", "ok":true, "result":{...}}
 *            {"v":1, "id":N, "node":"name", "ok":false,
 *             "error":{"code":"invalid_input", "message":"..."}}
 *
 * Operations: sync, stats, search, claims, problems.  A node is used by one
 * thread at a time.
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
} cg_node_opts;

int cg_node_new(cg_node **out, const cg_node_opts *opts, cg_err *err);
void cg_node_free(cg_node *n);

/* Handles one request; returns a new reply object, never NULL except on
 * allocation failure. */
json_t *cg_node_handle(cg_node *n, const json_t *req);

const char *cg_node_name(const cg_node *n);

/* The node's sources, for operation handlers (node/tools*.c). */
size_t cg_node_nsources(const cg_node *n);
const char *cg_node_source_name(const cg_node *n, size_t i);
cg_index *cg_node_index(cg_node *n, size_t i);
/* The index of the source named name, or NULL. */
cg_index *cg_node_find(cg_node *n, const char *name);
/* True when the request's args.sources scope (absent = all) holds name. */
bool cg_node_in_scope(const json_t *args, const char *name);
/* True once the request being answered is past its deadline_ms (a
 * request without one never expires): long operations (grep) stop and
 * say so rather than work for a caller that stopped waiting. */
bool cg_node_expired(const cg_node *n);

/* One slot of derived data the node keeps between requests (the corpus
 * graph, tools_corpus.c): the value stored with signature sig (borrowed),
 * or NULL when there is none or it was derived from something else.
 * _set takes v.  A node is used by one thread at a time, so is its memo. */
json_t *cg_node_memo(cg_node *n, uint64_t sig);
void cg_node_memo_set(cg_node *n, uint64_t sig, json_t *v);

/* Fails with CG_EUNAVAIL while a source has no generation yet. */
int cg_node_ready(cg_index *idx, cg_err *err);

#endif
