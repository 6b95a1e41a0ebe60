/*
 * grep_pool.c - the worker pool of grep_pool.h.  Invariants, under mu:
 * 0 <= n <= CG_GREP_POOL_QUEUE jobs wait in the ring from head; running
 * counts the jobs a worker has taken and not finished; once draining is
 * set nothing more is queued.  A worker holds no lock while it runs a
 * job, and touches nothing of a job once its function returns.  It must
 * not allocate after cg_grep_pool_new, nor block a submitter.
 */
#define _GNU_SOURCE
#include "gateway/grep_pool.h"

#include <sys/resource.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

struct job {
	cg_grep_pool_fn fn;
	void *ctx;
};

struct cg_grep_pool {
	pthread_mutex_t mu;
	pthread_cond_t work; /* a job was queued, or draining began */
	pthread_cond_t idle; /* a job finished */
	struct job ring[CG_GREP_POOL_QUEUE];
	int head; /* the oldest waiting job */
	int n;    /* jobs waiting */
	int running;
	bool draining;
	int nthreads; /* workers started */
	pthread_t th[CG_GREP_POOL_WORKERS];
};

/* A worker: lower priority (this thread only: Linux's nice is per
 * thread), then jobs until draining leaves the ring empty. */
static void *
worker(void *arg)
{
	cg_grep_pool *p = arg;
	struct job j;

	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), CG_GREP_POOL_NICE);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->n == 0 && !p->draining)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->n == 0)
			break; /* draining and nothing left */
		j = p->ring[p->head];
		p->head = (p->head + 1) % CG_GREP_POOL_QUEUE;
		p->n--;
		p->running++;
		pthread_mutex_unlock(&p->mu);
		j.fn(j.ctx);
		pthread_mutex_lock(&p->mu);
		p->running--;
		pthread_cond_broadcast(&p->idle);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int
cg_grep_pool_new(cg_grep_pool **out, cg_err *err)
{
	cg_grep_pool *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (p == NULL)
		return cg_err_set(err, CG_ENOMEM, "grep pool: out of memory");
	if (pthread_mutex_init(&p->mu, NULL) != 0) {
		free(p);
		return cg_err_set(err, CG_ENOMEM, "grep pool: out of memory");
	}
	(void)pthread_cond_init(&p->work, NULL);
	(void)pthread_cond_init(&p->idle, NULL);
	for (int i = 0; i < CG_GREP_POOL_WORKERS; i++) {
		if (pthread_create(&p->th[i], NULL, worker, p) != 0) {
			cg_grep_pool_free(p);
			return cg_err_set(err, CG_ENOMEM,
			                  "grep pool: cannot start a thread");
		}
		p->nthreads++;
	}
	*out = p;
	return 0;
}

int
cg_grep_pool_submit(cg_grep_pool *p, cg_grep_pool_fn fn,
                    cg_grep_pool_fn admitted, void *ctx)
{
	int rc = -1;

	pthread_mutex_lock(&p->mu);
	if (!p->draining && p->n < CG_GREP_POOL_QUEUE) {
		if (admitted != NULL)
			admitted(ctx);
		p->ring[(p->head + p->n) % CG_GREP_POOL_QUEUE] =
		    (struct job){fn, ctx};
		p->n++;
		pthread_cond_signal(&p->work);
		rc = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

void
cg_grep_pool_drain(cg_grep_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->draining = true;
	pthread_cond_broadcast(&p->work);
	while (p->n > 0 || p->running > 0)
		pthread_cond_wait(&p->idle, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void
cg_grep_pool_free(cg_grep_pool *p)
{
	if (p == NULL)
		return;
	cg_grep_pool_drain(p);
	for (int i = 0; i < p->nthreads; i++)
		(void)pthread_join(p->th[i], NULL);
	pthread_cond_destroy(&p->idle);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
