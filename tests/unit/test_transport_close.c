/*
 * test_transport_close.c - closing the federation's transport is bounded
 * whatever a node sends (the CI hang of test_node_bounds: `corpus-gw
 * query` never exited, its main thread in nng_close).
 *
 * A real REQ transport (federation/transport.c) asks a real TCP peer, the
 * trickling hostile node of tests/support/cgdribble.h, which answers with
 * a reply it never finishes; the request times out (the deadline is
 * short) and cg_transport_free runs while the reply still trickles in,
 * so the pipe is in the middle of a read at every close.  Round after
 * round, each free must return within FREE_BOUND_MS (times the slowdown):
 * nng 1.5.2 can lose the pipe's pending receive when a close meets a read
 * in progress, and then nng_close waits for the pipe for ever (here
 * within 1 to 40 rounds).  The watchdog is a timed join, so a hang
 * fails the test instead of holding ctest until its TIMEOUT.  The rounds
 * stop at the first close left running (proto/sock_close.h): that close
 * met the hang, and it returned at CG_SOCKCLOSE_WAIT_MS.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgdribble.h"
#include "cgproc.h"
#include "cgtest.h"
#include "federation/transport.h"
#include "proto/sock_close.h"

/* Rounds at most, and the time they may take together. */
#define ROUNDS    300
#define BUDGET_MS 60000
/* A request's deadline: long enough to connect and send, short enough
 * that the trickle is under way when the transport closes. */
#define DEADLINE_MS 30
/* How long one cg_transport_free may take before the test fails. */
#define FREE_BOUND_MS 10000

static void *
free_main(void *arg)
{
	cg_transport_free(arg);
	return NULL;
}

/* Frees t on a thread of its own; its wall time in ms, or -1 when it
 * still runs after FREE_BOUND_MS (times the slowdown): the thread is
 * left behind, and the test fails. */
static int64_t
free_bounded(cg_transport *t)
{
	pthread_t th;
	struct timespec until;
	int64_t t0 = cgt_now_ms();

	assert_int_equal(pthread_create(&th, NULL, free_main, t), 0);
	(void)clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(FREE_BOUND_MS / 1000 * cgt_slowdown());
	if (pthread_timedjoin_np(th, NULL, &until) != 0)
		return -1;
	return cgt_now_ms() - t0;
}

/* One round: a request the node never finishes answering, then the
 * close.  Returns the close's wall time (-1: still running). */
static int64_t
round_trip(const char *url, int round)
{
	const char *urls[] = {url};
	cg_transport *t = NULL;
	json_t *req = json_pack("{s:i, s:I, s:s, s:{s:s}}", "v", 1, "id",
	                        (json_int_t)round + 1, "op", "search", "args",
	                        "q", "quokka");
	json_t *rep = NULL;
	cg_err err;
	cg_err cerr;

	cg_err_clear(&err);
	cg_err_clear(&cerr);
	assert_int_equal(cg_transport_new(&t, urls, 1, &cerr), 0);
	cg_transport_broadcast(t, &req, &rep, &err, 1, DEADLINE_MS);
	assert_null(rep);
	/* Never a reply: a timeout, or a refusal when the dial lost the
	 * race with the deadline on a loaded machine. */
	assert_true(strncmp(err.msg, "timeout", 7) == 0 ||
	            strcmp(err.msg, "connection refused") == 0);
	json_decref(req);
	/* Close at a varying point of the trickle. */
	cgt_sleep_ms(round % 4);
	return free_bounded(t);
}

static void
test_close_during_a_trickled_reply(void **state)
{
	cgd_dribble *d = cgd_start();
	int64_t start = cgt_now_ms();
	int64_t slowest = 0;
	int rounds = 0;

	(void)state;
	assert_non_null(d);
	/* Until the hang's conditions have been met once: after that, nng's
	 * reaper is stuck for the rest of the process and every later close
	 * takes its whole bound. */
	while (rounds < ROUNDS && cg_sockclose_abandoned() == 0 &&
	       cgt_now_ms() - start < BUDGET_MS * cgt_slowdown()) {
		int64_t ms = round_trip(cgd_url(d), rounds);

		if (ms < 0)
			fail_msg("cg_transport_free still runs after %d ms "
			         "(round %d): nng_close hangs",
			         FREE_BOUND_MS * cgt_slowdown(), rounds);
		if (ms > slowest)
			slowest = ms;
		rounds++;
	}
	fprintf(stderr,
	        "%d rounds, %d requests trickled, slowest close %lld ms, "
	        "%d close(s) left running\n",
	        rounds, cgd_requests(d), (long long)slowest,
	        cg_sockclose_abandoned());
	/* A close left running returned at its bound, not later. */
	assert_true(slowest < CG_SOCKCLOSE_WAIT_MS + 1000 * cgt_slowdown());
	/* The trickle was under way: the node began answering. */
	assert_true(cgd_requests(d) > 0);
	cgd_stop(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_close_during_a_trickled_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
