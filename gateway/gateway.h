/*
 * gateway.h - a roster of nodes behind one federation: the gateway's core,
 * used by `corpus-gw serve` and by the CLI's embedded mode alike.
 *
 * For each configured workspace it runs one node per repository — the root
 * when it has a wiki, each sub-guild with a wiki — either inside this
 * process over nng's inproc:// transport or, with spawn, as child
 * processes (`corpus-gw node`) over ipc://.  Remote nodes from the config
 * are dialled over their URL.  Every request goes through the nng
 * transport (transport.h): there is one search path.  With opts.direct (a
 * one-shot CLI command) the in-process nodes are called on the caller's
 * thread instead, with the same request and reply bytes (direct.h): no
 * socket and no thread per node.
 *
 * Logs: in-process nodes log through opts.log; a child's stderr is read
 * by a thread of the gateway and each of its lines goes through opts.log
 * too, with its level and node=NAME added, so the caller's verbosity
 * applies to every node alike.  Without opts.log nodes are silent and
 * children write to the inherited stderr.
 *
 * A reload (`serve` on SIGHUP) opens a second gateway beside the first
 * (opts.generation keeps their child sockets apart), syncs it, swaps it
 * in and frees the first: nothing here is shared between two gateways
 * but the index files, whose writers take turns on a lock.
 *
 * May be included by gateway/ and cli/.
 */
#ifndef CG_GATEWAY_H
#define CG_GATEWAY_H

#include <stdbool.h>

#include "common/cg_err.h"
#include "conf/config.h"
#include "federation/fed.h"
#include "node/server.h"

typedef struct cg_gateway cg_gateway;

typedef struct cg_gateway_opts {
	const cg_config *config; /* borrowed during cg_gateway_open */
	const char *self_exe;    /* corpus-gw binary for spawn; NULL:
	                            /proc/self/exe */
	bool on_demand;          /* in-process nodes sync only when asked
	                            (a CLI run) */
	bool oneshot;            /* and the process exits after one command:
	                            the indexes read on read-only connections,
	                            so a no-change query writes nothing (not
	                            for a long-lived process: a read-only
	                            wal-index no other process holds costs
	                            every read transaction a re-validation) */
	bool direct;             /* in-process nodes answer on the calling
	                            thread (gateway/direct.h): no nng socket,
	                            no thread per node, for a one-shot
	                            command; needs on_demand */
	cg_log_fn log;           /* every node's log lines; NULL: none */
	void *log_ctx;
	bool log_debug;      /* children log debug lines too (--verbose) */
	unsigned generation; /* one per gateway a process opens at once:
	                        part of the children's ipc paths */
} cg_gateway_opts;

int cg_gateway_open(cg_gateway **out, const cg_gateway_opts *opts, cg_err *err);
void cg_gateway_free(cg_gateway *g);

cg_fed *cg_gateway_fed(cg_gateway *g);

/* Asks the nodes this gateway runs (in-process and children, not the
 * config's remote nodes, which keep their own indexes current) to sync
 * now, and waits for them (CG_FED_SYNC_DEADLINE_MS at most): the
 * cg_fed_call answer in *out.  The CLI runs it before a tool; a reload
 * before its swap, so the new roster answers from current indexes. */
int cg_gateway_sync(cg_gateway *g, json_t **out, cg_err *err);

/* Whether the workspaces of c (the config g was opened with) now hold
 * other sources than g's local nodes serve: a repository added, removed
 * or renamed.  Reads the workspaces (manifests, sub-guild folders,
 * registries) as cg_gateway_open does; opens nothing. */
int cg_gateway_stale(const cg_gateway *g, const cg_config *c, bool *stale,
                     cg_err *err);

/* The number of nodes in the roster (local and remote). */
size_t cg_gateway_nnodes(const cg_gateway *g);

/* Fills cfg (caller runs cg_config_fini) for one workspace directory, as
 * `--workspace DIR [--spawn]` does. */
int cg_config_for_workspace(cg_config *cfg, const char *dir, const char *cache,
                            bool spawn, int deadline_ms, cg_err *err);

#endif
