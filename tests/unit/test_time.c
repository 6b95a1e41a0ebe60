/*
 * test_time.c - unit tests of the monotonic clock's wait helpers
 * (common/cg_time.c): a deadline is normalised and lies ms ahead on the
 * clock cg_mono_ms reads, and a condition variable made by
 * cg_cond_init_mono times out on that clock, not before the deadline.
 */

/* cmocka.h needs these first. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "common/cg_time.h"

static int64_t
ts_ms(struct timespec ts)
{
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Every remainder of a second, and whole seconds, carry into tv_sec. */
static void
test_deadline_normalised(void **state)
{
	static const int64_t cases[] = {0,    1,    999,  1000,
	                                1001, 1999, 2500, 59999};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t before = cg_mono_ms();
		struct timespec d = cg_mono_deadline(cases[i]);
		int64_t after = cg_mono_ms();

		assert_true(d.tv_nsec >= 0 && d.tv_nsec < 1000000000L);
		assert_true(ts_ms(d) >= before + cases[i]);
		assert_true(ts_ms(d) <= after + cases[i]);
	}
}

/* A timed wait on cg_cond_init_mono's variable ends with ETIMEDOUT, and
 * not before its deadline on cg_mono_ms's clock. */
static void
test_timed_wait_on_the_same_clock(void **state)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv;
	int64_t t0 = cg_mono_ms();
	struct timespec until = cg_mono_deadline(30);
	int rc = 0;

	(void)state;
	assert_int_equal(cg_cond_init_mono(&cv), 0);
	pthread_mutex_lock(&mu);
	while (rc == 0)
		rc = pthread_cond_timedwait(&cv, &mu, &until);
	pthread_mutex_unlock(&mu);
	assert_int_equal(rc, ETIMEDOUT);
	assert_true(cg_mono_ms() >= t0 + 30);
	pthread_cond_destroy(&cv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_deadline_normalised),
	    cmocka_unit_test(test_timed_wait_on_the_same_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
