/*
 * bench_fts5.c - the peer for bench_query: in-process query latency of
 * plain SQLite FTS5 over the same pages (a table docs(path, body) built by
 * bench/index-bench with the unicode61 or the trigram tokenizer).  Each
 * query's words (split on spaces) are quoted, embedded '"' doubled, and
 * joined with spaces (implicit AND), bound as a parameter:
 *   SELECT path FROM docs WHERE docs MATCH ?1 ORDER BY rank LIMIT 20
 * Prepare, bind, step to the end and finalize are timed, like one search.
 * Prints the same TSV as bench_query.
 *
 * Benchmark code only; it opens the database read-only.
 *
 * Usage: bench_fts5 DB QUERIES RUNS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "bench_common.h"

#define SQL "SELECT path FROM docs WHERE docs MATCH ?1 ORDER BY rank LIMIT 20"

/* The safe MATCH form of text (FACTS.md): every word a quoted string. */
static char *
match_expr(const char *text)
{
	size_t n = strlen(text);
	char *out = malloc(3 * n + 3), *o = out;
	int in_word = 0;

	if (out == NULL)
		return NULL;
	for (const char *p = text; *p != '\0'; p++) {
		if (*p == ' ' || *p == '\t') {
			if (in_word)
				*o++ = '"';
			in_word = 0;
			continue;
		}
		if (!in_word) {
			if (o != out)
				*o++ = ' ';
			*o++ = '"';
			in_word = 1;
		}
		if (*p == '"')
			*o++ = '"';
		*o++ = *p;
	}
	if (in_word)
		*o++ = '"';
	*o = '\0';
	return out;
}

static int
search_once(sqlite3 *db, const char *expr, int *nhits, double *us)
{
	sqlite3_stmt *st = NULL;
	double t0 = bench_now_us();
	int rc = sqlite3_prepare_v2(db, SQL, -1, &st, NULL);

	*nhits = 0;
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		(*nhits)++;
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	*us = bench_now_us() - t0;
	if (rc != SQLITE_DONE) {
		fprintf(stderr, "bench_fts5: %s: %s\n", expr,
		        sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

static int
run_query(sqlite3 *db, const bench_query *q, int runs, double *t)
{
	char *expr = match_expr(q->text);
	int nhits = 0, rc;
	double us;

	if (expr == NULL)
		return -1;
	rc = search_once(db, expr, &nhits, &us);
	for (int r = 0; rc == 0 && r < runs; r++)
		rc = search_once(db, expr, &nhits, &t[r]);
	free(expr);
	if (rc != 0)
		return rc;
	printf("%s\t%d\t%.1f\t", q->cls, nhits, bench_median(t, runs));
	printf("%.1f\t%.1f\t%s\n", bench_percentile(t, runs, 90), t[0],
	       q->text);
	return 0;
}

int
main(int argc, char **argv)
{
	sqlite3 *db = NULL;
	bench_query *qs = NULL;
	double *t;
	int n, runs, rc = 0;

	if (argc != 4 || (runs = (int)strtol(argv[3], NULL, 10)) < 1) {
		fprintf(stderr, "usage: bench_fts5 DB QUERIES RUNS\n");
		return 2;
	}
	n = bench_queries_read(argv[2], &qs);
	t = calloc((size_t)runs, sizeof(*t));
	if (n < 0 || t == NULL)
		return 1;
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "bench_fts5: %s: %s\n", argv[1],
		        sqlite3_errmsg(db));
		return 1;
	}
	printf("class\thits\tmedian_us\tp90_us\tmin_us\tquery\n");
	for (int i = 0; rc == 0 && i < n; i++)
		rc = run_query(db, &qs[i], runs, t);
	sqlite3_close(db);
	bench_queries_free(qs, n);
	free(t);
	return rc == 0 ? 0 : 1;
}
