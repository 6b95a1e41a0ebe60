/*
 * test_gate.c - unit tests of the counting gate (federation/gate.c): the
 * slots, the queue, a refusal with CG_EUNAVAIL and a clear message, a
 * waiter taking a slot given back, a waiter whose wait runs out.  Real
 * threads; no sleep decides an outcome (the test waits for the gate's own
 * counts).
 */

/* cmocka.h needs these first. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "common/cg_err.h"
#include "federation/gate.h"

static void
nap(void)
{
	struct timespec ts = {0, 1000000};

	(void)nanosleep(&ts, NULL);
}

/* Waits until the gate has want waiters. */
static void
until_waiting(cg_gate *g, int want)
{
	int running;
	int waiting = -1;
	long refused;

	for (int i = 0; i < 60000 && waiting != want; i++) {
		cg_gate_counts(g, &running, &waiting, &refused);
		if (waiting != want)
			nap();
	}
	assert_int_equal(waiting, want);
}

struct waiter {
	cg_gate *g;
	int rc;
	cg_err err;
};

static void *
enter_thread(void *arg)
{
	struct waiter *w = arg;

	cg_err_clear(&w->err);
	w->rc = cg_gate_enter(w->g, &w->err);
	return NULL;
}

static void
test_slots_and_refusal(void **state)
{
	cg_gate *g = NULL;
	cg_err err;
	int running;
	int waiting;
	long refused;

	(void)state;
	cg_err_clear(&err);
	assert_int_equal(cg_gate_new(&g, "grep", 2, 0, 1000, &err), 0);
	assert_int_equal(cg_gate_enter(g, &err), 0);
	assert_int_equal(cg_gate_enter(g, &err), 0);
	/* no queue: the third is refused at once, with a clear message */
	assert_int_equal(cg_gate_enter(g, &err), CG_EUNAVAIL);
	assert_non_null(strstr(err.msg, "busy"));
	assert_non_null(strstr(err.msg, "grep"));
	cg_gate_counts(g, &running, &waiting, &refused);
	assert_int_equal(running, 2);
	assert_int_equal(refused, 1);
	cg_gate_leave(g);
	cg_err_clear(&err);
	assert_int_equal(cg_gate_enter(g, &err), 0);
	cg_gate_leave(g);
	cg_gate_leave(g);
	cg_gate_free(g);
	assert_int_equal(cg_gate_enter(NULL, &err), 0); /* no gate */
	assert_int_equal(cg_gate_new(&g, "x", 0, 0, 0, &err), CG_EINVAL);
}

/* A waiter gets the slot given back; one more than the queue is refused
 * while it waits. */
static void
test_waiter_takes_slot(void **state)
{
	cg_gate *g = NULL;
	struct waiter w;
	pthread_t t;
	cg_err err;

	(void)state;
	cg_err_clear(&err);
	assert_int_equal(cg_gate_new(&g, "grep", 1, 1, 60000, &err), 0);
	assert_int_equal(cg_gate_enter(g, &err), 0);
	w.g = g;
	assert_int_equal(pthread_create(&t, NULL, enter_thread, &w), 0);
	until_waiting(g, 1);
	assert_int_equal(cg_gate_enter(g, &err), CG_EUNAVAIL);
	cg_gate_leave(g);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.rc, 0);
	cg_gate_leave(g);
	cg_gate_free(g);
}

/* A waiter whose wait runs out is refused, not left hanging. */
static void
test_wait_runs_out(void **state)
{
	cg_gate *g = NULL;
	struct waiter w;
	pthread_t t;
	cg_err err;

	(void)state;
	cg_err_clear(&err);
	assert_int_equal(cg_gate_new(&g, "grep", 1, 1, 10, &err), 0);
	assert_int_equal(cg_gate_enter(g, &err), 0);
	w.g = g;
	assert_int_equal(pthread_create(&t, NULL, enter_thread, &w), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.rc, CG_EUNAVAIL);
	assert_non_null(strstr(w.err.msg, "busy"));
	cg_gate_leave(g);
	cg_gate_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slots_and_refusal),
	    cmocka_unit_test(test_waiter_takes_slot),
	    cmocka_unit_test(test_wait_runs_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
