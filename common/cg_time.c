/*
 * cg_time.c - the monotonic clock (see cg_time.h).
 */
#include "common/cg_time.h"

#include <time.h>

int64_t
cg_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double
cg_mono_ms_f(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct timespec
cg_mono_deadline(int64_t ms_from_now)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)(ms_from_now / 1000);
	ts.tv_nsec += (long)(ms_from_now % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

int
cg_cond_init_mono(pthread_cond_t *cv)
{
	pthread_condattr_t ca;
	int rc = pthread_condattr_init(&ca);

	if (rc != 0)
		return rc;
	rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(cv, &ca);
	(void)pthread_condattr_destroy(&ca);
	return rc;
}
