/*
 * tool_pool.h - the worker threads that run the gateway's tool calls, so
 * that no HTTP thread ever waits for a node: every call of the JSON API
 * (GET/POST /v1/<tool>) and every MCP request that reaches the nodes
 * (tools/call, resources/list, resources/read).  http.c suspends the
 * connection (libmicrohttpd suspend/resume), submits a job here, and the
 * job resumes the connection as its last act; the answer is then queued
 * from the access handler on the connection's own HTTP thread.  /healthz,
 * /readyz, /metrics, the OpenAPI document and the static pages never come
 * here.
 *
 * One pool per gateway process (`serve` owns it and lends it to the TCP
 * listener and to the local socket's, http.h opts.pool), in two lanes,
 * each with workers and a bounded queue of its own:
 * - the tools lane (CG_TOOL_POOL_WORKERS at nice CG_TOOL_POOL_NICE, at
 *   most CG_TOOL_POOL_QUEUE waiting): every tool but grep.  A call that
 *   waits for a slow or hostile node holds a worker up to the round
 *   deadline, so the lane has more workers than the HTTP pool has
 *   threads; past its queue a call is refused at once (503 busy).
 * - the grep lane (CG_TOOL_POOL_GREP_WORKERS at nice
 *   CG_TOOL_POOL_GREP_NICE, at most CG_TOOL_POOL_GREP_QUEUE waiting).
 *   The grep gate (federation/gate.h) still decides how many greps run
 *   (2) and wait (1) and refuses the rest: the lane has one worker more
 *   than the gate holds, so a grep the gate refuses is refused at once,
 *   never after the running greps, and greps never take a tool worker.
 * Greps run at a lower priority (nice, per thread on Linux), so that a
 * loaded machine serves the HTTP threads and the other tool calls first.
 * The other tool calls keep the priority they had on the HTTP threads
 * (nice 0): they mostly wait for nodes, and at nice 5 a search starved
 * on a machine shared with other processes (BENCHMARKS.md, the tool pool).
 *
 * A listener's jobs are counted in its cg_tool_client, so that a listener
 * that stops waits for its own jobs (their connections must be resumed
 * before libmicrohttpd stops) and not for another listener's.
 *
 * A job is a function and its context; the pool never reads the context
 * and never touches a job after its function has returned (the function
 * may free what it ran on, or hand it to a thread that does).  The pool
 * allocates nothing after cg_tool_pool_new, nor a client after
 * cg_tool_client_new.
 *
 * May be included by gateway/ and cli/ (`serve` owns the pool).
 */
#ifndef CG_TOOL_POOL_H
#define CG_TOOL_POOL_H

#include "common/cg_err.h"

enum cg_tool_lane {
	CG_TOOL_LANE_TOOLS, /* every tool call but grep */
	CG_TOOL_LANE_GREP,  /* greps, behind the grep gate */
	CG_TOOL_NLANES
};

#define CG_TOOL_POOL_WORKERS      16 /* the tools lane */
#define CG_TOOL_POOL_QUEUE        64 /* tool calls waiting for a worker */
#define CG_TOOL_POOL_NICE         0  /* added to each worker's niceness */
#define CG_TOOL_POOL_GREP_WORKERS 4  /* the gate's 2 + 1, one for refusals */
#define CG_TOOL_POOL_GREP_QUEUE   32 /* greps waiting for a worker */
#define CG_TOOL_POOL_GREP_NICE    10

typedef struct cg_tool_pool cg_tool_pool;
typedef struct cg_tool_client cg_tool_client;
typedef void (*cg_tool_fn)(void *ctx);

/* Starts every worker of both lanes. */
int cg_tool_pool_new(cg_tool_pool **out, cg_err *err);

/* Refuses every later job and returns once every queued and running job
 * has returned (each bounded by its own deadline).  Idempotent. */
void cg_tool_pool_drain(cg_tool_pool *p);

/* Drains, then joins the workers and frees the pool; every client must
 * be freed first.  NULL is a no-op. */
void cg_tool_pool_free(cg_tool_pool *p);

/* A listener's share of p (p must outlive it). */
int cg_tool_client_new(cg_tool_client **out, cg_tool_pool *p, cg_err *err);

/* Refuses every later job of c and returns once each of c's queued and
 * running jobs has returned.  Idempotent. */
void cg_tool_client_drain(cg_tool_client *c);

/* Drains c, then frees it.  NULL is a no-op. */
void cg_tool_client_free(cg_tool_client *c);

/* Queues fn(ctx) on lane for c: 0, or -1 (nothing queued, admitted not
 * called) when the lane's queue is full or c or the pool is draining.
 * admitted(ctx) (may be NULL) runs on the caller's thread once the job is
 * admitted and before any worker can start it, under the pool's lock: it
 * must be short and must not call into the pool (http.c suspends the
 * connection there, so that the job's resume always follows the
 * suspend). */
int cg_tool_pool_submit(cg_tool_client *c, enum cg_tool_lane lane,
                        cg_tool_fn fn, cg_tool_fn admitted, void *ctx);

/* Refuses a job of lane as a full queue does: counts it and sets err to
 * CG_EUNAVAIL ("busy", HTTP 503) with the lane's bounds.  Returns
 * CG_EUNAVAIL. */
int cg_tool_pool_refuse(cg_tool_pool *p, enum cg_tool_lane lane, cg_err *err);

/* The pool of c (borrowed). */
cg_tool_pool *cg_tool_client_pool(const cg_tool_client *c);

/* Jobs of lane running and waiting now, and refused so far (tests and
 * metrics). */
void cg_tool_pool_counts(cg_tool_pool *p, enum cg_tool_lane lane, int *running,
                         int *waiting, long *refused);

#endif
