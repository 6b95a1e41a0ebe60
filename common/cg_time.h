/*
 * cg_time.h - the one monotonic clock every module times and waits with
 * (deadlines, backoff, evidence timings).  Never the wall clock: a clock
 * step must not expire a deadline.
 *
 * May be included by any layer.
 */
#ifndef CG_TIME_H
#define CG_TIME_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Monotonic milliseconds. */
int64_t cg_mono_ms(void);

/* The same clock in fractional milliseconds (for timings reported). */
double cg_mono_ms_f(void);

/* The instant ms_from_now milliseconds from now on this clock, as the
 * absolute time pthread_cond_timedwait takes for a condition variable
 * made by cg_cond_init_mono; tv_nsec is normalised (below 1e9). */
struct timespec cg_mono_deadline(int64_t ms_from_now);

/* Initialises *cv to wait on this clock (so a timed wait measures the
 * same time as cg_mono_ms): 0, or the pthread error. */
int cg_cond_init_mono(pthread_cond_t *cv);

#endif
