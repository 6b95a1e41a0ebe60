/*
 * test_tool_workers.c - unit tests of the tool pool (gateway/tool_pool.c),
 * for each of its lanes: its workers run at once and its queue's worth
 * more wait, the next is refused (with a busy error) while the other lane
 * still runs jobs; admitted runs before its job starts; the workers run
 * at the lane's nice; a client's drain waits for every queued and running
 * job of its own, and for no other client's, and refuses its later ones;
 * the pool's drain refuses everyone.  Real threads; the jobs block on a
 * latch the test opens, and no sleep decides an outcome (the test waits
 * for the jobs' own counts).
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
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cg_err.h"
#include "gateway/tool_pool.h"

#define MAXJOBS (CG_TOOL_POOL_WORKERS + CG_TOOL_POOL_QUEUE + 1)

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int open; /* the latch the blocking jobs wait on */
	atomic_int started;
	atomic_int finished;
	atomic_int admitted_first; /* jobs that saw their admission */
	atomic_int nice_ok;        /* jobs that ran at their lane's nice */
	int base_nice;
} L = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

struct job {
	atomic_int admitted;
	atomic_int done;
	int nice;   /* the lane's */
	int blocks; /* waits for the latch */
};

static void
reset(void)
{
	pthread_mutex_lock(&L.mu);
	L.open = 0;
	pthread_mutex_unlock(&L.mu);
	atomic_store(&L.started, 0);
	atomic_store(&L.finished, 0);
	atomic_store(&L.admitted_first, 0);
	atomic_store(&L.nice_ok, 0);
	L.base_nice = getpriority(PRIO_PROCESS, 0);
}

static void
open_latch(void)
{
	pthread_mutex_lock(&L.mu);
	L.open = 1;
	pthread_cond_broadcast(&L.cv);
	pthread_mutex_unlock(&L.mu);
}

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
	int want = L.base_nice + j->nice;

	if (atomic_load(&j->admitted))
		atomic_fetch_add(&L.admitted_first, 1);
	if (getpriority(PRIO_PROCESS, (id_t)gettid()) ==
	    (want > 19 ? 19 : want))
		atomic_fetch_add(&L.nice_ok, 1);
	atomic_fetch_add(&L.started, 1);
	pthread_mutex_lock(&L.mu);
	while (j->blocks && !L.open)
		pthread_cond_wait(&L.cv, &L.mu);
	pthread_mutex_unlock(&L.mu);
	atomic_store(&j->done, 1);
	atomic_fetch_add(&L.finished, 1);
}

static void
nap(void)
{
	struct timespec ts = {0, 1000000};

	(void)nanosleep(&ts, NULL);
}

static void
lane_bounds(enum cg_tool_lane lane, int workers, int queue, int nice)
{
	static struct job jobs[MAXJOBS];
	struct job other = {.nice = CG_TOOL_POOL_NICE};
	enum cg_tool_lane olane =
	    lane == CG_TOOL_LANE_GREP ? CG_TOOL_LANE_TOOLS : CG_TOOL_LANE_GREP;
	cg_tool_pool *p = NULL;
	cg_tool_client *c = NULL;
	cg_tool_client *c2 = NULL;
	int running = -1;
	int waiting = -1;
	long refused = -1;
	int n = workers + queue;
	cg_err err;

	reset();
	memset(jobs, 0, sizeof(jobs));
	for (int i = 0; i <= n; i++) {
		jobs[i].nice = nice;
		jobs[i].blocks = 1;
	}
	other.nice = olane == CG_TOOL_LANE_GREP ? CG_TOOL_POOL_GREP_NICE
	                                        : CG_TOOL_POOL_NICE;
	assert_int_equal(cg_tool_pool_new(&p, &err), 0);
	assert_int_equal(cg_tool_client_new(&c, p, &err), 0);
	for (int i = 0; i < workers; i++)
		assert_int_equal(
		    cg_tool_pool_submit(c, lane, job, admitted, &jobs[i]), 0);
	/* every worker of the lane has taken a job and blocks in it */
	while (atomic_load(&L.started) < workers)
		nap();
	for (int i = workers; i < n; i++)
		assert_int_equal(
		    cg_tool_pool_submit(c, lane, job, admitted, &jobs[i]), 0);
	/* the queue is full: refused, and admitted is not called */
	assert_int_equal(cg_tool_pool_submit(c, lane, job, admitted, &jobs[n]),
	                 -1);
	assert_int_equal(atomic_load(&jobs[n].admitted), 0);
	assert_int_equal(atomic_load(&L.started), workers);
	cg_tool_pool_counts(p, lane, &running, &waiting, &refused);
	assert_int_equal(running, workers);
	assert_int_equal(waiting, queue);
	cg_err_clear(&err);
	assert_int_equal(cg_tool_pool_refuse(p, lane, &err), CG_EUNAVAIL);
	assert_non_null(strstr(err.msg, "busy"));
	cg_tool_pool_counts(p, lane, &running, &waiting, &refused);
	assert_int_equal(refused, 1);
	/* the other lane is not held up by this one */
	assert_int_equal(cg_tool_pool_submit(c, olane, job, admitted, &other),
	                 0);
	while (!atomic_load(&other.done))
		nap();
	open_latch();
	cg_tool_client_drain(c);
	/* the drain returned after every job, queued ones included */
	assert_int_equal(atomic_load(&L.finished), n + 1);
	assert_int_equal(atomic_load(&L.admitted_first), n + 1);
	assert_int_equal(atomic_load(&L.nice_ok), n + 1);
	/* and refuses what this client sends after it, not another's */
	assert_int_equal(cg_tool_pool_submit(c, lane, job, admitted, &jobs[n]),
	                 -1);
	assert_int_equal(cg_tool_client_new(&c2, p, &err), 0);
	assert_int_equal(cg_tool_pool_submit(c2, lane, job, admitted, &jobs[n]),
	                 0);
	cg_tool_client_free(c2);
	assert_int_equal(atomic_load(&jobs[n].done), 1);
	/* the pool's drain refuses everyone */
	assert_int_equal(cg_tool_client_new(&c2, p, &err), 0);
	cg_tool_pool_drain(p);
	assert_int_equal(cg_tool_pool_submit(c2, lane, job, admitted, &other),
	                 -1);
	cg_tool_client_free(c2);
	cg_tool_client_free(c);
	cg_tool_pool_free(p);
}

static void
test_tools_lane(void **state)
{
	(void)state;
	lane_bounds(CG_TOOL_LANE_TOOLS, CG_TOOL_POOL_WORKERS,
	            CG_TOOL_POOL_QUEUE, CG_TOOL_POOL_NICE);
}

static void
test_grep_lane(void **state)
{
	(void)state;
	lane_bounds(CG_TOOL_LANE_GREP, CG_TOOL_POOL_GREP_WORKERS,
	            CG_TOOL_POOL_GREP_QUEUE, CG_TOOL_POOL_GREP_NICE);
}

/* Two listeners on one pool: the one that stops waits for its own job,
 * not for the other's, which is still running when its drain returns. */
static void
test_client_drain_waits_for_its_own(void **state)
{
	struct job mine = {.nice = CG_TOOL_POOL_NICE, .blocks = 0};
	struct job theirs = {.nice = CG_TOOL_POOL_NICE, .blocks = 1};
	cg_tool_pool *p = NULL;
	cg_tool_client *a = NULL;
	cg_tool_client *b = NULL;
	cg_err err;

	(void)state;
	reset();
	assert_int_equal(cg_tool_pool_new(&p, &err), 0);
	assert_int_equal(cg_tool_client_new(&a, p, &err), 0);
	assert_int_equal(cg_tool_client_new(&b, p, &err), 0);
	assert_int_equal(
	    cg_tool_pool_submit(b, CG_TOOL_LANE_TOOLS, job, admitted, &theirs),
	    0);
	while (atomic_load(&L.started) < 1)
		nap();
	assert_int_equal(
	    cg_tool_pool_submit(a, CG_TOOL_LANE_TOOLS, job, admitted, &mine),
	    0);
	cg_tool_client_free(a);
	assert_int_equal(atomic_load(&mine.done), 1);
	assert_int_equal(atomic_load(&theirs.done), 0);
	open_latch();
	cg_tool_client_free(b);
	assert_int_equal(atomic_load(&theirs.done), 1);
	cg_tool_pool_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tools_lane),
	    cmocka_unit_test(test_grep_lane),
	    cmocka_unit_test(test_client_drain_waits_for_its_own),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
