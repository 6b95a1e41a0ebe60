/*
 * sock_close.c - bounded nng closes (sock_close.h).  One job per call: a
 * thread closes the sockets and marks the job done; the caller waits on
 * a monotonic condition variable until done or the bound.  Invariant:
 * whichever of the two comes last frees the job (the caller when done in
 * time, the thread when the caller has given up on it), so a job is
 * never freed while the other side still reads it.  It must not call
 * into nng for anything but nng_close.
 */
#include "proto/sock_close.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cg_time.h"

struct job {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done;      /* every nng_close returned */
	bool abandoned; /* the caller stopped waiting: the thread frees */
	size_t n;
	nng_socket socks[];
};

static atomic_int abandoned_total;

static void
job_free(struct job *j)
{
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	free(j);
}

static void *
close_main(void *arg)
{
	struct job *j = arg;
	bool mine;

	for (size_t i = 0; i < j->n; i++)
		(void)nng_close(j->socks[i]);
	pthread_mutex_lock(&j->mu);
	j->done = true;
	mine = j->abandoned;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	if (mine)
		job_free(j);
	return NULL;
}

/* A job for the n sockets with a monotonic condition variable, or
 * NULL. */
static struct job *
job_new(const nng_socket *socks, size_t n)
{
	struct job *j = calloc(1, sizeof(*j) + n * sizeof(nng_socket));
	int rc;

	if (j == NULL)
		return NULL;
	rc = cg_cond_init_mono(&j->cv);
	if (rc != 0 || pthread_mutex_init(&j->mu, NULL) != 0) {
		if (rc == 0)
			pthread_cond_destroy(&j->cv);
		free(j);
		return NULL;
	}
	j->n = n;
	if (n > 0)
		memcpy(j->socks, socks, n * sizeof(nng_socket));
	return j;
}

int
cg_sockclose_all(const nng_socket *socks, size_t n, int wait_ms)
{
	struct job *j = job_new(socks, n);
	struct timespec until;
	pthread_t th;
	bool done;
	int rc = 0;

	if (j == NULL || pthread_create(&th, NULL, close_main, j) != 0) {
		if (j != NULL)
			job_free(j);
		for (size_t i = 0; i < n; i++)
			(void)nng_close(socks[i]);
		return 0;
	}
	until = cg_mono_deadline(wait_ms);
	pthread_mutex_lock(&j->mu);
	while (!j->done && rc == 0)
		rc = pthread_cond_timedwait(&j->cv, &j->mu, &until);
	done = j->done;
	j->abandoned = !done;
	pthread_mutex_unlock(&j->mu);
	if (done) {
		pthread_join(th, NULL);
		job_free(j);
		return 0;
	}
	(void)pthread_detach(th);
	atomic_fetch_add(&abandoned_total, 1);
	return -1;
}

int
cg_sockclose_abandoned(void)
{
	return atomic_load(&abandoned_total);
}
