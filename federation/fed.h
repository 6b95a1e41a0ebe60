/*
 * fed.h - the federation core: a roster of nodes (each holding some
 * sources of a workspace), views of it for one caller, and one call to
 * every node in scope with each node's outcome.  This is the gateway's
 * path and the CLI's embedded path alike; only the transport differs (a
 * direct call, nng inproc, ipc, tcp), plugged in as cg_fed_broadcast_fn.
 * The search (fed_search.h), the page tools (fed_page.h, fed_links.h),
 * the walk tools (fed_walk.h) and the corpora (fed_corpus.h) are built on
 * cg_fed_call.
 *
 * Nodes that do not answer are reported, never waited on past the
 * deadline of the round.
 *
 * May be included by federation/ and the layers above it (gateway, cli).
 */
#ifndef CG_FED_H
#define CG_FED_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"

/*
 * Transport: sends reqs[i] to node i (skipping i when reqs[i] is NULL) and
 * stores each reply in replies[i] (a new reference) or, on failure, NULL
 * and the reason in errs[i] ("timeout after N ms", "connection refused",
 * "bad reply").  All requests are in flight at once; returns when every
 * node answered or deadline_ms passed.
 */
typedef void (*cg_fed_broadcast_fn)(void *ctx, json_t *const *reqs,
                                    json_t **replies, cg_err *errs, size_t n,
                                    int deadline_ms);

/* Deadlines of the rounds that are not queries (see fed.c, op_deadline). */
#define CG_FED_SYNC_DEADLINE_MS 600000
#define CG_FED_GREP_DEADLINE_MS 60000

typedef struct cg_fed_node {
	const char *name;           /* node name */
	const char *workspace;      /* its workspace, NULL = the default one */
	const char *const *sources; /* its source names */
	size_t nsources;
} cg_fed_node;

typedef struct cg_fed_opts {
	const char *workspace; /* default workspace name (first part of uris) */
	const cg_fed_node *nodes;
	size_t nnodes;
	cg_fed_broadcast_fn broadcast;
	void *ctx;
	int deadline_ms; /* per round */
} cg_fed_opts;

typedef struct cg_fed cg_fed;

int cg_fed_new(cg_fed **out, const cg_fed_opts *opts, cg_err *err);
void cg_fed_free(cg_fed *fed);

/* The gate greps pass (federation/gate.h: CG_GREP_SLOTS at once), owned
 * by the base federation and shared by its views: one per roster, so a
 * reload starts a new one while the old roster's greps finish. */
struct cg_gate;
struct cg_gate *cg_fed_grep_gate(const cg_fed *fed);

/* A view of base for one caller: the same roster, and every request it
 * sends carries acl (borrowed; outlives the view), so nodes answer only
 * about the pages the caller may see.  Freed with cg_fed_free (which then
 * frees the view alone); base must outlive it. */
struct cg_acl;
int cg_fed_view_new(cg_fed **out, const cg_fed *base, const struct cg_acl *acl,
                    cg_err *err);

/* False when the caller of view fed can see no page of node n's source
 * (proto/acl.h, cg_acl_sees_source); always true for the base roster.  A
 * hidden source is out of every scope and named nowhere. */
bool cg_fed_source_visible(const cg_fed *fed, const cg_fed_node *n,
                           const char *source);

/*
 * Sends op with args (borrowed; "sources" is set per node) to every node
 * holding a source in scope (sources/nsources; NULL = all the caller can
 * see; an unknown or hidden name is CG_EINVAL listing the visible ones)
 * and returns
 *   {"nodes": [{"node", "workspace", "sources", "outcome", "code"?,
 *               "result"?}], "degraded": b}
 * where outcome is "ok" or why the node gave no result, and code the
 * name of its error code (cg_code_name) when there is none.  A node's error
 * reply of kind invalid_input is returned as CG_EINVAL with its message.
 * The tools (read, list, grep...) are built on this.
 */
int cg_fed_call(cg_fed *fed, const char *op, const json_t *args,
                const char *const *sources, size_t nsources, json_t **out,
                cg_err *err);

/* Sets item's `uri` (cg://ws/source/path, from its source and path) and
 * `workspace`. *
 * Returns 0, or CG_ENOMEM when the item could not be tagged. */
int cg_fed_tag(json_t *item, const char *ws);

/* The workspace of a node entry of a cg_fed_call answer (borrowed): its
 * "workspace", else the roster's default workspace. */
const char *cg_fed_entry_ws(const cg_fed *fed, const json_t *entry);

/* Appends a followup {kind, uri (null when NULL), message} to the array
 * fu, as every answer's "followups" holds them. */
void cg_fed_followup(json_t *fu, const char *kind, const char *uri,
                     const char *msg);

/* The roster: *n nodes (borrowed, as long as fed lives), each with its
 * workspace set (the default one filled in). */
const cg_fed_node *cg_fed_roster(const cg_fed *fed, size_t *n);

/* The workspace name (borrowed). */
const char *cg_fed_workspace(const cg_fed *fed);

/* Asks every node to sync; returns {source: stats} per node. */
int cg_fed_sync(cg_fed *fed, json_t **out, cg_err *err);

#endif
