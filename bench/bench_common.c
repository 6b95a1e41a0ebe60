/*
 * bench_common.c - the query list reader, the clock and the order
 * statistics shared by the benchmark programs (see bench_common.h).
 *
 * Benchmark code only: no project code depends on it.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int
add_query(bench_query **v, int *n, int *cap, const char *line)
{
	const char *tab = strchr(line, '\t');
	bench_query *nv;

	if (tab == NULL || tab[1] == '\0')
		return -1;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		nv = realloc(*v, (size_t)*cap * sizeof(**v));
		if (nv == NULL)
			return -1;
		*v = nv;
	}
	(*v)[*n].cls = strndup(line, (size_t)(tab - line));
	(*v)[*n].text = strdup(tab + 1);
	if ((*v)[*n].cls == NULL || (*v)[*n].text == NULL)
		return -1;
	(*n)++;
	return 0;
}

int
bench_queries_read(const char *path, bench_query **out)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int n = 0, vcap = 0, lineno = 0;

	*out = NULL;
	if (f == NULL) {
		perror(path);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len > 0 &&
		       (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		if (add_query(out, &n, &vcap, line) != 0) {
			fprintf(stderr, "%s:%d: expected CLASS<TAB>TEXT\n",
			        path, lineno);
			n = -1;
			break;
		}
	}
	free(line);
	fclose(f);
	return n;
}

void
bench_queries_free(bench_query *q, int n)
{
	for (int i = 0; q != NULL && i < n; i++) {
		free(q[i].cls);
		free(q[i].text);
	}
	free(q);
}

double
bench_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
bench_median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
bench_percentile(double *v, int n, double p)
{
	int k;

	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	k = (int)ceil(p / 100.0 * n);
	if (k < 1)
		k = 1;
	return v[k - 1];
}
