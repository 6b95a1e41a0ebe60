/*
 * test_grep_workers.c - unit tests of the grep pool (gateway/grep_pool.c):
 * CG_GREP_POOL_WORKERS jobs run at once and CG_GREP_POOL_QUEUE more wait,
 * the next is refused; admitted runs before its job starts; the workers
 * run at CG_GREP_POOL_NICE; a drain waits for every queued and running job
 * and refuses later ones.  Real threads; the jobs block on a latch the
 * test opens, and no sleep decides an outcome (the test waits for the
 * jobs' own counts).
 */

#define _GNU_SOURCE
/* cmocka.h needs these first. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <sys/resource.h>

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "common/cg_err.h"
#include "gateway/grep_pool.h"

#define NJOBS (CG_GREP_POOL_WORKERS + CG_GREP_POOL_QUEUE)

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int open; /* the latch the jobs wait on */
	atomic_int started;
	atomic_int finished;
	atomic_int admitted_first; /* jobs that saw their admission */
	atomic_int nice_ok;        /* jobs that ran at the pool's nice */
	int base_nice;
} L = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

struct job {
	atomic_int admitted;
};

static void
admitted(void *ctx)
{
	struct job *j = ctx;

	atomic_store(&j->admitted, 1);
}

static void
job(void *ctx)
{
	struct job *j = ctx;
	int want = L.base_nice + CG_GREP_POOL_NICE;

	if (atomic_load(&j->admitted))
		atomic_fetch_add(&L.admitted_first, 1);
	if (getpriority(PRIO_PROCESS, (id_t)gettid()) ==
	    (want > 19 ? 19 : want))
		atomic_fetch_add(&L.nice_ok, 1);
	atomic_fetch_add(&L.started, 1);
	pthread_mutex_lock(&L.mu);
	while (!L.open)
		pthread_cond_wait(&L.cv, &L.mu);
	pthread_mutex_unlock(&L.mu);
	atomic_fetch_add(&L.finished, 1);
}

static void
nap(void)
{
	struct timespec ts = {0, 1000000};

	(void)nanosleep(&ts, NULL);
}

static void
test_bounds_admission_nice_drain(void **state)
{
	static struct job jobs[NJOBS + 1];
	cg_grep_pool *p = NULL;
	cg_err err;

	(void)state;
	L.base_nice = getpriority(PRIO_PROCESS, 0);
	assert_int_equal(cg_grep_pool_new(&p, &err), 0);
	for (int i = 0; i < CG_GREP_POOL_WORKERS; i++)
		assert_int_equal(
		    cg_grep_pool_submit(p, job, admitted, &jobs[i]), 0);
	/* every worker has taken a job and blocks in it */
	while (atomic_load(&L.started) < CG_GREP_POOL_WORKERS)
		nap();
	for (int i = CG_GREP_POOL_WORKERS; i < NJOBS; i++)
		assert_int_equal(
		    cg_grep_pool_submit(p, job, admitted, &jobs[i]), 0);
	/* the queue is full: refused, and admitted is not called */
	assert_int_equal(cg_grep_pool_submit(p, job, admitted, &jobs[NJOBS]),
	                 -1);
	assert_int_equal(atomic_load(&jobs[NJOBS].admitted), 0);
	assert_int_equal(atomic_load(&L.started), CG_GREP_POOL_WORKERS);
	pthread_mutex_lock(&L.mu);
	L.open = 1;
	pthread_cond_broadcast(&L.cv);
	pthread_mutex_unlock(&L.mu);
	cg_grep_pool_drain(p);
	/* the drain returned after every job, queued ones included */
	assert_int_equal(atomic_load(&L.finished), NJOBS);
	assert_int_equal(atomic_load(&L.admitted_first), NJOBS);
	assert_int_equal(atomic_load(&L.nice_ok), NJOBS);
	/* and refuses what comes after it */
	assert_int_equal(cg_grep_pool_submit(p, job, admitted, &jobs[NJOBS]),
	                 -1);
	cg_grep_pool_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bounds_admission_nice_drain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
