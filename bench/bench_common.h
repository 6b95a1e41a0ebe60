/*
 * bench_common.h - helpers shared by the benchmark programs under bench/:
 * the query list (bench/queries-tldr.txt: CLASS<TAB>TEXT per line), a
 * monotonic clock in microseconds and order statistics of timings.
 *
 * Benchmark code only: it is not part of libcgcore and must not be linked
 * into corpus-gw or its tests.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>

typedef struct bench_query {
	char *cls;  /* en, rare, common, zh, mixed */
	char *text; /* the query text */
} bench_query;

/* Reads the query list; returns the count, or -1 with a message on
 * stderr.  *out is malloc'd; free with bench_queries_free. */
int bench_queries_read(const char *path, bench_query **out);
void bench_queries_free(bench_query *q, int n);

/* Monotonic time in microseconds. */
double bench_now_us(void);

/* Sorts v in place; the median (mean of the middle two when n is even)
 * and the nearest-rank p-th percentile (0 < p <= 100). */
double bench_median(double *v, int n);
double bench_percentile(double *v, int n, double p);

#endif
