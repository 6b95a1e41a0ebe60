/*
 * fed_int.h - what the federation's own files share: the roster behind a
 * cg_fed handle, its scope resolution, and one round (a request to every
 * node in scope, then each node's result or why there is none).  fed.c
 * implements it; fed_search.c builds the search's rounds on it.
 *
 * Private to federation/: only the .c files of federation/ include it;
 * nothing else may.  It must not grow a second way to send to the nodes:
 * every request goes through cg_fed_round_run and the roster's broadcast
 * function.
 */
#ifndef CG_FED_INT_H
#define CG_FED_INT_H

#include <stdatomic.h>
#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "federation/fed.h"
#include "federation/fed_stats.h"
#include "federation/gate.h"
#include "proto/acl.h"

struct cg_fed {
	char *workspace;    /* default workspace name */
	cg_fed_node *nodes; /* names and sources point into strs */
	size_t nnodes;
	cg_fed_broadcast_fn broadcast;
	void *ctx;
	int deadline_ms;      /* per query round */
	json_t *strs;         /* owns every string of nodes[] */
	atomic_llong next_id; /* request ids; broadcasts run concurrently */
	const cg_acl *acl;    /* a view's access policy, sent to every node */
	int is_view;          /* shares everything above with its base */
	cg_fed_stats *stats;  /* what searches learnt (fed_stats.h); the
	                         base's, shared by its views */
	cg_gate *grep_gate;   /* greps running at once (gate.h); the base's,
	                         shared by its views */
};

/* One round: per node, the request sent (NULL: not in scope), the reply
 * (NULL: none) and why there is none. */
struct cg_fed_round {
	json_t **reqs;
	json_t **replies;
	cg_err *errs;
	size_t n;  /* the roster's node count */
	double ms; /* wall time of the broadcast */
	/* Set by the caller before cg_fed_round_run, or NULL: per node, an
	 * object (borrowed, may be NULL) whose keys are added to that node's
	 * arguments (what differs per node: epochs, fetch items). */
	json_t *const *extra;
};

/* Per node: a new array of its sources named by sources[0..nsources)
 * (NULL = every source), or NULL to skip the node; a view leaves out
 * the sources its caller cannot see.  A name no node holds, or a hidden
 * one, is CG_EINVAL listing the visible ones, before anything is stored.
 * scope has f->nnodes slots. */
int cg_fed_scope(const cg_fed *f, const char *const *sources, size_t nsources,
                 json_t **scope, cg_err *err);

/* Sends op with args (borrowed; "sources" set per node from scope, "acl"
 * from a view's policy) to every node in scope, all at once, and waits
 * for the replies until the op's deadline.  Fails only for memory; a
 * node's failure is read with cg_fed_round_result. */
int cg_fed_round_run(cg_fed *f, struct cg_fed_round *r, const char *op,
                     const json_t *args, json_t *const *scope, cg_err *err);

/* The result of node i (borrowed from r), or NULL with *code and *msg
 * saying why: no reply (the transport's reason), or the node's error
 * reply (its own code and words).  A node not asked gives NULL with
 * *code 0. */
const json_t *cg_fed_round_result(const struct cg_fed_round *r, size_t i,
                                  int *code, const char **msg);

void cg_fed_round_fini(struct cg_fed_round *r);

#endif
