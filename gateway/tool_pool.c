/*
 * tool_pool.c - the worker pool of tool_pool.h.  Invariants, under mu:
 * in each lane 0 <= n <= cap jobs wait in the ring from head, and running
 * counts the jobs a worker of the lane has taken and not finished; a
 * client's pending counts its jobs queued or running; once the pool or a
 * client is draining nothing more is queued for it.  A worker holds no
 * lock while it runs a job, and touches nothing of a job once its
 * function returns but the job's client, under mu, before signalling
 * idle (a drained client may be freed right after).  It must not
 * allocate after cg_tool_pool_new, nor block a submitter.
 */
#define _GNU_SOURCE
#include "gateway/tool_pool.h"

#include <sys/resource.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct job {
	cg_tool_fn fn;
	void *ctx;
	cg_tool_client *client;
};

/* One lane: its bounds, its ring and its workers. */
struct lane {
	const char *what; /* for the busy message */
	int workers;      /* threads of the lane */
	int cap;          /* most jobs waiting */
	int nice;         /* added to each worker's niceness */
	struct job *ring; /* cap slots */
	int head;         /* the oldest waiting job */
	int n;            /* jobs waiting */
	int running;
	long refused;
	pthread_cond_t work; /* a job was queued, or draining began */
};

/* What a worker runs on: its pool and its lane. */
struct worker {
	cg_tool_pool *p;
	struct lane *l;
	pthread_t th;
};

struct cg_tool_pool {
	pthread_mutex_t mu;
	pthread_cond_t idle; /* a job finished */
	struct lane lanes[CG_TOOL_NLANES];
	bool draining;
	int nthreads; /* workers started */
	struct worker w[CG_TOOL_POOL_WORKERS + CG_TOOL_POOL_GREP_WORKERS];
};

struct cg_tool_client {
	cg_tool_pool *p;
	int pending; /* jobs queued or running */
	bool draining;
};

/* A worker: lower priority (this thread only: Linux's nice is per
 * thread), then its lane's jobs until draining leaves the ring empty. */
static void *
worker(void *arg)
{
	struct worker *w = arg;
	cg_tool_pool *p = w->p;
	struct lane *l = w->l;
	struct job j;

	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), l->nice);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (l->n == 0 && !p->draining)
			pthread_cond_wait(&l->work, &p->mu);
		if (l->n == 0)
			break; /* draining and nothing left */
		j = l->ring[l->head];
		l->head = (l->head + 1) % l->cap;
		l->n--;
		l->running++;
		pthread_mutex_unlock(&p->mu);
		j.fn(j.ctx);
		pthread_mutex_lock(&p->mu);
		l->running--;
		j.client->pending--;
		pthread_cond_broadcast(&p->idle);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static int
lane_init(struct lane *l, const char *what, int workers, int cap, int nice)
{
	*l = (struct lane){
	    .what = what, .workers = workers, .cap = cap, .nice = nice};
	l->ring = calloc((size_t)cap, sizeof(*l->ring));
	if (l->ring == NULL)
		return -1;
	if (pthread_cond_init(&l->work, NULL) != 0) {
		free(l->ring);
		l->ring = NULL;
		return -1;
	}
	return 0;
}

/* Starts the workers of every lane; -1 when a thread cannot start (the
 * ones started are counted in nthreads). */
static int
start_workers(cg_tool_pool *p)
{
	for (int k = 0; k < CG_TOOL_NLANES; k++)
		for (int i = 0; i < p->lanes[k].workers; i++) {
			struct worker *w = &p->w[p->nthreads];

			w->p = p;
			w->l = &p->lanes[k];
			if (pthread_create(&w->th, NULL, worker, w) != 0)
				return -1;
			p->nthreads++;
		}
	return 0;
}

int
cg_tool_pool_new(cg_tool_pool **out, cg_err *err)
{
	cg_tool_pool *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (p == NULL)
		return cg_err_set(err, CG_ENOMEM, "tool pool: out of memory");
	if (pthread_mutex_init(&p->mu, NULL) != 0) {
		free(p);
		return cg_err_set(err, CG_ENOMEM, "tool pool: out of memory");
	}
	(void)pthread_cond_init(&p->idle, NULL);
	if (lane_init(&p->lanes[CG_TOOL_LANE_TOOLS], "tool call",
	              CG_TOOL_POOL_WORKERS, CG_TOOL_POOL_QUEUE,
	              CG_TOOL_POOL_NICE) != 0 ||
	    lane_init(&p->lanes[CG_TOOL_LANE_GREP], "grep",
	              CG_TOOL_POOL_GREP_WORKERS, CG_TOOL_POOL_GREP_QUEUE,
	              CG_TOOL_POOL_GREP_NICE) != 0) {
		cg_tool_pool_free(p);
		return cg_err_set(err, CG_ENOMEM, "tool pool: out of memory");
	}
	if (start_workers(p) != 0) {
		cg_tool_pool_free(p);
		return cg_err_set(err, CG_ENOMEM,
		                  "tool pool: cannot start a thread");
	}
	*out = p;
	return 0;
}

void
cg_tool_pool_drain(cg_tool_pool *p)
{
	bool busy = true;

	pthread_mutex_lock(&p->mu);
	p->draining = true;
	for (int k = 0; k < CG_TOOL_NLANES; k++)
		if (p->lanes[k].ring != NULL)
			pthread_cond_broadcast(&p->lanes[k].work);
	while (busy) {
		busy = false;
		for (int k = 0; k < CG_TOOL_NLANES; k++)
			busy = busy || p->lanes[k].n > 0 ||
			       p->lanes[k].running > 0;
		if (busy)
			pthread_cond_wait(&p->idle, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
}

void
cg_tool_pool_free(cg_tool_pool *p)
{
	if (p == NULL)
		return;
	cg_tool_pool_drain(p);
	for (int i = 0; i < p->nthreads; i++)
		(void)pthread_join(p->w[i].th, NULL);
	for (int k = 0; k < CG_TOOL_NLANES; k++) {
		if (p->lanes[k].ring == NULL)
			continue; /* never initialised (out of memory) */
		pthread_cond_destroy(&p->lanes[k].work);
		free(p->lanes[k].ring);
	}
	pthread_cond_destroy(&p->idle);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

int
cg_tool_client_new(cg_tool_client **out, cg_tool_pool *p, cg_err *err)
{
	cg_tool_client *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (c == NULL)
		return cg_err_set(err, CG_ENOMEM, "tool pool: out of memory");
	c->p = p;
	*out = c;
	return 0;
}

void
cg_tool_client_drain(cg_tool_client *c)
{
	cg_tool_pool *p = c->p;

	pthread_mutex_lock(&p->mu);
	c->draining = true;
	while (c->pending > 0)
		pthread_cond_wait(&p->idle, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void
cg_tool_client_free(cg_tool_client *c)
{
	if (c == NULL)
		return;
	cg_tool_client_drain(c);
	free(c);
}

int
cg_tool_pool_submit(cg_tool_client *c, enum cg_tool_lane lane, cg_tool_fn fn,
                    cg_tool_fn admitted, void *ctx)
{
	cg_tool_pool *p = c->p;
	struct lane *l = &p->lanes[lane];
	int rc = -1;

	pthread_mutex_lock(&p->mu);
	if (!p->draining && !c->draining && l->n < l->cap) {
		if (admitted != NULL)
			admitted(ctx);
		l->ring[(l->head + l->n) % l->cap] = (struct job){fn, ctx, c};
		l->n++;
		c->pending++;
		pthread_cond_signal(&l->work);
		rc = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

int
cg_tool_pool_refuse(cg_tool_pool *p, enum cg_tool_lane lane, cg_err *err)
{
	struct lane *l = &p->lanes[lane];

	pthread_mutex_lock(&p->mu);
	l->refused++;
	pthread_mutex_unlock(&p->mu);
	return cg_err_set(err, CG_EUNAVAIL,
	                  "busy: %d %s workers are taken and %d more wait; "
	                  "try again in a moment",
	                  l->workers, l->what, l->cap);
}

cg_tool_pool *
cg_tool_client_pool(const cg_tool_client *c)
{
	return c->p;
}

void
cg_tool_pool_counts(cg_tool_pool *p, enum cg_tool_lane lane, int *running,
                    int *waiting, long *refused)
{
	const struct lane *l = &p->lanes[lane];

	pthread_mutex_lock(&p->mu);
	*running = l->running;
	*waiting = l->n;
	*refused = l->refused;
	pthread_mutex_unlock(&p->mu);
}
