/*
 * gate.c - the counting gate of gate.h.  Invariants, under mu: 0 <=
 * running <= slots and 0 <= waiting <= queue; a waiter is woken when a
 * slot is given back and takes it only if one is free (a late arrival
 * may take it first: fairness is not promised, only the bounds).  It must
 * not block longer than wait_ms in cg_gate_enter, and must not allocate
 * there.
 */
#include "federation/gate.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common/cg_time.h"

struct cg_gate {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* signalled when a slot is given back */
	char what[32];     /* names the requests in the busy message */
	int slots;         /* requests running at most */
	int queue;         /* requests waiting at most */
	int wait_ms;       /* a waiter's longest wait */
	int running;
	int waiting;
	long refused; /* answered busy so far */
};

int
cg_gate_new(cg_gate **out, const char *what, int slots, int queue, int wait_ms,
            cg_err *err)
{
	cg_gate *g;

	*out = NULL;
	if (slots < 1 || queue < 0 || wait_ms < 0)
		return cg_err_set(err, CG_EINVAL, "gate: bad bounds");
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return cg_err_set(err, CG_ENOMEM, "gate: out of memory");
	(void)snprintf(g->what, sizeof(g->what), "%s", what);
	g->slots = slots;
	g->queue = queue;
	g->wait_ms = wait_ms;
	if (pthread_mutex_init(&g->mu, NULL) != 0) {
		free(g);
		return cg_err_set(err, CG_ENOMEM, "gate: out of memory");
	}
	if (cg_cond_init_mono(&g->cv) != 0) {
		pthread_mutex_destroy(&g->mu);
		free(g);
		return cg_err_set(err, CG_ENOMEM, "gate: out of memory");
	}
	*out = g;
	return 0;
}

void
cg_gate_free(cg_gate *g)
{
	if (g == NULL)
		return;
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

/* Waits (mu held) until a slot is free or wait_ms has passed. */
static void
wait_slot(cg_gate *g)
{
	struct timespec ts = cg_mono_deadline(g->wait_ms);

	g->waiting++;
	while (g->running >= g->slots)
		if (pthread_cond_timedwait(&g->cv, &g->mu, &ts) == ETIMEDOUT)
			break;
	g->waiting--;
}

int
cg_gate_enter(cg_gate *g, cg_err *err)
{
	int busy;

	if (g == NULL)
		return 0;
	pthread_mutex_lock(&g->mu);
	if (g->running >= g->slots && g->waiting < g->queue)
		wait_slot(g);
	busy = g->running >= g->slots;
	if (!busy)
		g->running++;
	pthread_mutex_unlock(&g->mu);
	return busy ? cg_gate_refuse(g, err) : 0;
}

int
cg_gate_refuse(cg_gate *g, cg_err *err)
{
	if (g == NULL)
		return cg_err_set(err, CG_EUNAVAIL,
		                  "busy: try again in a moment");
	pthread_mutex_lock(&g->mu);
	g->refused++;
	pthread_mutex_unlock(&g->mu);
	return cg_err_set(err, CG_EUNAVAIL,
	                  "busy: %d %s requests are running and %d may "
	                  "wait (up to %d ms); try again in a moment",
	                  g->slots, g->what, g->queue, g->wait_ms);
}

void
cg_gate_leave(cg_gate *g)
{
	if (g == NULL)
		return;
	pthread_mutex_lock(&g->mu);
	g->running--;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

void
cg_gate_counts(cg_gate *g, int *running, int *waiting, long *refused)
{
	pthread_mutex_lock(&g->mu);
	*running = g->running;
	*waiting = g->waiting;
	*refused = g->refused;
	pthread_mutex_unlock(&g->mu);
}
