/*
 * grep_pool.h - a bounded pool of worker threads of their own for the
 * HTTP endpoint's heavy requests (greps: GET/POST /v1/grep and an MCP
 * tools/call of corpus_grep), so that no HTTP thread ever waits for one.
 * http.c suspends the connection (libmicrohttpd suspend/resume), submits
 * a job here, and the job resumes the connection as its last act; the
 * answer is then queued from the access handler on the connection's own
 * HTTP thread.
 *
 * Bounds: CG_GREP_POOL_WORKERS threads and at most CG_GREP_POOL_QUEUE jobs
 * waiting for one; a job past them is refused at once (the caller answers
 * 503 busy).  The grep gate (federation/gate.h) still decides how many
 * greps run (2) and wait (1) and refuses the rest: the pool has one worker
 * more than the gate holds (running plus waiting), so a grep the gate
 * refuses is refused at once, never after the running greps.  Workers run at a
 * lower scheduling priority (nice CG_GREP_POOL_NICE, per thread on Linux) so
 * that a loaded machine serves the HTTP threads first.
 *
 * A job is a function and its context; the pool never reads the context
 * and never touches a job after its function has returned (the function
 * may free what it ran on, or hand it to a thread that does).  The pool
 * allocates nothing after cg_grep_pool_new.
 *
 * May be included by gateway/ only.
 */
#ifndef CG_GREP_POOL_H
#define CG_GREP_POOL_H

#include "common/cg_err.h"

#define CG_GREP_POOL_WORKERS 4  /* the gate's 2 + 1, and one for refusals */
#define CG_GREP_POOL_QUEUE   32 /* jobs waiting for a worker */
#define CG_GREP_POOL_NICE    10 /* added to each worker's niceness */

typedef struct cg_grep_pool cg_grep_pool;
typedef void (*cg_grep_pool_fn)(void *ctx);

int cg_grep_pool_new(cg_grep_pool **out, cg_err *err);

/* Queues fn(ctx) for a worker: 0, or -1 (nothing queued, admitted not
 * called) when the queue is full or the pool is draining.  admitted(ctx)
 * (may be NULL) runs on the caller's thread once the job is admitted and
 * before any worker can start it, under the pool's lock: it must be short
 * and must not call into the pool (http.c suspends the connection there,
 * so that the job's resume always follows the suspend). */
int cg_grep_pool_submit(cg_grep_pool *p, cg_grep_pool_fn fn,
                        cg_grep_pool_fn admitted, void *ctx);

/* Refuses every later job and returns once every queued and running job
 * has returned (each bounded by its own deadline).  Idempotent. */
void cg_grep_pool_drain(cg_grep_pool *p);

/* Drains, then joins the workers and frees the pool.  NULL is a no-op. */
void cg_grep_pool_free(cg_grep_pool *p);

#endif
