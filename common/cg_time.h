/*
 * cg_time.h - the one monotonic clock every module times and waits with
 * (deadlines, backoff, evidence timings).  Never the wall clock: a clock
 * step must not expire a deadline.
 *
 * May be included by any layer.
 */
#ifndef CG_TIME_H
#define CG_TIME_H

#include <stdint.h>

/* Monotonic milliseconds. */
int64_t cg_mono_ms(void);

/* The same clock in fractional milliseconds (for timings reported). */
double cg_mono_ms_f(void);

#endif
