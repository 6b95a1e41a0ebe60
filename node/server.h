/*
 * server.h - the node service: a workspace's node answering over nng and
 * keeping its indexes current while it serves.
 *
 * A cg_server loads a workspace (its root wiki and every sub-guild: one
 * source per wiki), listens on one nng REP socket and runs a pool of serve
 * workers and one sync thread:
 *
 * - serve workers (cg_server_opts.workers; default one per two online CPUs, at
 *   most CG_SERVER_WORKERS_MAX; one when the node syncs on demand): each
 *   has its own nng context and its own *reader* cg_node (so its own
 *   SQLite read connections, WAL readers, and statement caches); it
 *   receives a request, decodes it (wire.h), answers it and sends the
 *   reply, while the others answer theirs.  A "sync" request is handed,
 *   with its nng context, to the sync thread, which replies on that
 *   context, so a long sync never blocks queries.
 * - sync: owns the *writer* cg_node (same sources, same cache).  It syncs
 *   once at start (the reader serves the previous generation, or answers
 *   "index not built yet", meanwhile), then after file changes seen by
 *   inotify (every directory of every wiki, recursively, debounced), after
 *   each client "sync" request, and every reconcile period as the safety
 *   net.  Each reconcile also checks one source's index file (PRAGMA
 *   quick_check, the sources in turn) and rebuilds a damaged one from its
 *   pages, so damage is found before a query reads it.  A source whose
 *   sync fails is logged, keeps its last index, and the reader's answers
 *   and status say so (node.h, cg_node_set_sync_failed).  The reader
 *   follows new generations before each request; an incremental sync is
 *   one transaction, so no reader sees an empty index.
 *
 * A direct server (cg_server_opts.direct: a one-shot CLI command) has
 * neither: one node, no socket, no thread; the caller's thread answers
 * each request with cg_server_call, syncs included, only when asked.
 *
 * A cg_node is single-threaded: no node is shared between threads.  A
 * reader never writes except to rebuild an index a query found corrupt
 * (node.h, cg_node_run), serialised with every other writer by the
 * index's lock; a generation published meanwhile is followed instead
 * (index.h, cg_index_rebuild).  The
 * server keeps no process-wide state and never prints: log lines go to the
 * caller's callback (which may be called from either thread).
 *
 * Limits: the socket's receive limit is CG_SERVER_RECV_MAX (nng's default
 * is unlimited); a larger message is dropped by nng together with its
 * connection.  Requests above CG_WIRE_MAX_REQUEST get an error reply.
 * A reply send times out after CG_SERVER_SEND_TIMEOUT_MS.
 *
 * May be included by node/ and the layers above it (gateway, cli), and by
 * tests.
 */
#ifndef CG_SERVER_H
#define CG_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cg_err.h"
#include "node/node.h"

#define CG_SERVER_RECV_MAX        (2u << 20) /* 2 MiB */
#define CG_SERVER_SEND_TIMEOUT_MS 5000
#define CG_SERVER_RECONCILE_S     30
#define CG_SERVER_DEBOUNCE_MS     100
#define CG_SERVER_SYNC_QUEUE      16 /* client syncs waiting, then busy */
/* Greps (operations that read the page files themselves) are answered by
 * a grep worker of their own, at this added niceness, so that searches
 * never wait behind one; this many wait for it, then busy.  A node that
 * syncs on demand (one-shot) answers them on its one worker. */
#define CG_SERVER_GREP_QUEUE 8
#define CG_SERVER_GREP_NICE  10
/* The most serve workers a node runs: each holds one SQLite connection
 * per source, and a gateway runs one node per repository. */
#define CG_SERVER_WORKERS_MAX 8

typedef struct cg_server cg_server;

/* A log line: level "debug", "info", "warn" or "error"; component "node";
 * msg "what happened key=value ...". */
typedef void (*cg_log_fn)(void *ctx, const char *level, const char *component,
                          const char *msg);

typedef struct cg_server_opts {
	/* What to serve: the workspace at root (cg_workspace_load()), or,
	 * when sources is not NULL, these sources (copied). */
	const char *root;
	const cg_source *sources;
	size_t nsources;
	const char *cache_dir; /* index cache root (created when missing) */
	const char *listen;    /* nng URL; NULL: ipc://<cache>/<name>.ipc */
	const char *name;      /* node name; NULL: the workspace name */
	int reconcile_s;       /* seconds between reconciles; <= 0: default */
	int debounce_ms;       /* quiet time after a change; <= 0: default */
	bool on_demand;        /* sync only when a client asks: no start
	                          sync, no inotify, no reconcile (for a
	                          one-shot CLI run) */
	bool oneshot;          /* the process exits after one command: the
	                          indexes read on read-only connections
	                          (index.h, cg_index_opts.oneshot) */
	bool direct;           /* no socket and no thread: requests are
	                          answered on the caller's thread by
	                          cg_server_call (implies on_demand; listen
	                          is then only the node's address in the
	                          roster) */
	int workers;           /* serve workers; <= 0: $CORPUS_GW_NODE_WORKERS
	                          when set, else one per two online CPUs (one
	                          when on_demand); at most
	                          CG_SERVER_WORKERS_MAX */
	cg_log_fn log;         /* may be NULL */
	void *log_ctx;
} cg_server_opts;

/*
 * Loads the workspace (or takes opts->sources when given: the gateway's
 * in-process nodes), opens the nodes and starts listening (no thread
 * yet).  CG_ENOPROV when there is no wiki; CG_EINVAL for a URL nng cannot
 * listen on (tls+tcp:// is not supported yet).
 */
int cg_server_new(cg_server **out, const cg_server_opts *opts, cg_err *err);

/* The address actually listened on (a tcp port 0 replaced by the bound
 * port); borrowed. */
const char *cg_server_url(const cg_server *s);

/* Starts the serve workers and the sync thread. */
int cg_server_start(cg_server *s, cg_err *err);

/*
 * Answers one request (its wire bytes) on the calling thread, as a serve
 * worker would over the socket: decoded with the wire limits, a "sync" run
 * on the writer, any other op on the same node, told first which sources
 * the last sync failed; returns the reply's bytes (malloc'd, *out_len
 * set), NULL when out of memory.  Only for a server opened with
 * opts.direct, and by one thread at a time.
 */
char *cg_server_call(cg_server *s, const void *buf, size_t len,
                     size_t *out_len);

/* Stops the threads (waiting for a sync in progress to finish) and closes
 * the socket; idempotent.  Not callable from the server's own threads. */
void cg_server_stop(cg_server *s);

/* Stops if needed and frees; NULL is accepted. */
void cg_server_free(cg_server *s);

#endif
