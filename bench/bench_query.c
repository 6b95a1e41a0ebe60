/*
 * bench_query.c - in-process query latency of corpus-gw's federation path,
 * without process start: opens a workspace with cg_embed_open, syncs it
 * once (the first search, req.sync = true), then runs cg_fed_search for
 * every query of the list `runs` times with req.sync = false and prints a
 * TSV line per query: class, hits, median, p90 and min in microseconds,
 * query text.  Each query is run once unmeasured before its timed runs.
 *
 * Benchmark code only (bench/query-bench compiles it against
 * build-bench/libcgcore.a); it must not change the index beyond the one
 * sync a CLI query would do.
 *
 * Usage: bench_query WORKSPACE CACHE_DIR QUERIES RUNS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench_common.h"
#include "federation/fed_search.h"
#include "gateway/embed.h"

static int
search_once(cg_fed *fed, const char *text, bool sync, size_t *nhits, double *us)
{
	cg_search_req req;
	json_t *ans = NULL;
	cg_err err;
	double t0;
	int rc;

	memset(&req, 0, sizeof(req));
	req.text = text;
	req.sync = sync;
	cg_err_clear(&err);
	t0 = bench_now_us();
	rc = cg_fed_search(fed, &req, &ans, &err);
	*us = bench_now_us() - t0;
	if (rc != 0) {
		fprintf(stderr, "bench_query: '%s': %s: %s\n", text,
		        cg_code_name(rc), err.msg);
		return rc;
	}
	*nhits = json_array_size(json_object_get(ans, "hits"));
	json_decref(ans);
	return 0;
}

static int
run_query(cg_fed *fed, const bench_query *q, int runs, double *t)
{
	size_t nhits = 0;
	double us;
	int rc = search_once(fed, q->text, false, &nhits, &us);

	for (int r = 0; rc == 0 && r < runs; r++)
		rc = search_once(fed, q->text, false, &nhits, &t[r]);
	if (rc != 0)
		return rc;
	printf("%s\t%zu\t%.1f\t", q->cls, nhits, bench_median(t, runs));
	printf("%.1f\t%.1f\t%s\n", bench_percentile(t, runs, 90), t[0],
	       q->text);
	return 0;
}

int
main(int argc, char **argv)
{
	cg_embed *e = NULL;
	bench_query *qs = NULL;
	double *t, us;
	size_t nhits;
	cg_err err;
	int n, runs, rc;

	if (argc != 5 || (runs = (int)strtol(argv[4], NULL, 10)) < 1) {
		fprintf(stderr,
		        "usage: bench_query WORKSPACE CACHE QUERIES RUNS\n");
		return 2;
	}
	n = bench_queries_read(argv[3], &qs);
	t = calloc((size_t)runs, sizeof(*t));
	if (n < 0 || t == NULL)
		return 1;
	cg_err_clear(&err);
	rc = cg_embed_open(&e, argv[1], argv[2], &err);
	if (rc != 0) {
		fprintf(stderr, "bench_query: %s: %s\n", argv[1], err.msg);
		return 1;
	}
	rc = search_once(cg_embed_fed(e), "warm up", true, &nhits, &us);
	fprintf(stderr, "bench_query: first search with sync: %.1f us\n", us);
	printf("class\thits\tmedian_us\tp90_us\tmin_us\tquery\n");
	for (int i = 0; rc == 0 && i < n; i++)
		rc = run_query(cg_embed_fed(e), &qs[i], runs, t);
	cg_embed_free(e);
	bench_queries_free(qs, n);
	free(t);
	return rc == 0 ? 0 : 1;
}
