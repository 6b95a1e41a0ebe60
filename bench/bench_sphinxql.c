/*
 * bench_sphinxql.c - the Sphinx peer of bench/gateway-bench: times queries
 * sent to searchd over SphinxQL (the MySQL protocol, libmariadb), one
 * persistent connection per client, from outside the server process.
 *
 *   lat  PORT QUERIES RUNS   every query once unmeasured, then RUNS timed
 *                            runs; one TSV line per timed run: class,
 *                            query number, microseconds, hits, query.
 *   load PORT QUERIES CONNS SECONDS
 *                            CONNS child processes, each with its own
 *                            connection, cycle through the queries (child
 *                            k starts at query k) until SECONDS pass;
 *                            prints "queries errors seconds qps".
 *
 * A query is SELECT id FROM dist WHERE MATCH('...') LIMIT 10: every word
 * of the text as a term (implicit AND); a word holding a non-ASCII byte
 * is quoted as a phrase, so with ngram_len = 1 a Chinese substring must
 * appear as one run of characters, the way corpus-gw matches it.
 *
 * Benchmark code only: it talks to the searchd that gateway-bench
 * started and must not be linked into corpus-gw.
 */
#include <sys/wait.h>

#include <errno.h>
#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"

enum { SQL_MAX = 2048 };

/* Appends c to buf at *n, escaped for a Sphinx query inside an SQL
 * string literal; returns -1 when it does not fit. */
static int
put_char(char *buf, size_t *n, char c)
{
	const char *special = "\\()|-!@~\"&/^$=<'";

	if (*n + 4 >= SQL_MAX)
		return -1;
	if (c != '\0' && strchr(special, c) != NULL) {
		buf[(*n)++] = '\\';
		buf[(*n)++] = '\\';
	}
	buf[(*n)++] = c;
	return 0;
}

/* Builds the SphinxQL statement for text into buf. */
static int
make_sql(char *buf, const char *text)
{
	const char *head = "SELECT id FROM dist WHERE MATCH('";
	const char *tail = "') LIMIT 10";
	size_t n = strlen(head);
	const char *p = text;

	memcpy(buf, head, n);
	while (*p != '\0') {
		size_t len = strcspn(p, " \t");
		int wide = 0;

		for (size_t i = 0; i < len; i++)
			wide |= (unsigned char)p[i] >= 0x80;
		if (len > 0 && n + 2 < SQL_MAX)
			buf[n++] = wide ? '"' : ' ';
		for (size_t i = 0; i < len; i++)
			if (put_char(buf, &n, p[i]) != 0)
				return -1;
		if (len > 0 && n + 2 < SQL_MAX)
			buf[n++] = wide ? '"' : ' ';
		p += len;
		p += strspn(p, " \t");
	}
	if (n + strlen(tail) + 1 >= SQL_MAX)
		return -1;
	memcpy(buf + n, tail, strlen(tail) + 1);
	return 0;
}

static MYSQL *
connect_to(int port)
{
	MYSQL *m = mysql_init(NULL);

	if (m == NULL)
		return NULL;
	if (mysql_real_connect(m, "127.0.0.1", "", "", NULL, (unsigned)port,
	                       NULL, 0) == NULL) {
		fprintf(stderr, "bench_sphinxql: connect %d: %s\n", port,
		        mysql_error(m));
		mysql_close(m);
		return NULL;
	}
	return m;
}

/* Runs one statement; *hits gets the row count.  Returns 0 or -1. */
static int
run_sql(MYSQL *m, const char *sql, long *hits)
{
	MYSQL_RES *r;

	if (mysql_real_query(m, sql, strlen(sql)) != 0) {
		fprintf(stderr, "bench_sphinxql: %s: %s\n", sql,
		        mysql_error(m));
		return -1;
	}
	r = mysql_store_result(m);
	if (r == NULL)
		return -1;
	*hits = (long)mysql_num_rows(r);
	mysql_free_result(r);
	return 0;
}

static int
latency(int port, const bench_query *qs, int n, int runs)
{
	char sql[SQL_MAX];
	MYSQL *m = connect_to(port);
	long hits = 0;

	if (m == NULL)
		return 1;
	for (int i = 0; i < n; i++) {
		if (make_sql(sql, qs[i].text) != 0 ||
		    run_sql(m, sql, &hits) != 0)
			return 1;
		for (int r = 0; r < runs; r++) {
			double t0 = bench_now_us();

			if (run_sql(m, sql, &hits) != 0)
				return 1;
			printf("%s\t%d\t%.1f\t%ld\t%s\n", qs[i].cls, i,
			       bench_now_us() - t0, hits, qs[i].text);
		}
	}
	mysql_close(m);
	return 0;
}

/* One load client: writes "done errors" to fd when the time is up. */
static void
load_child(int port, const bench_query *qs, int n, int k, double end, int fd)
{
	char sql[SQL_MAX], msg[64];
	MYSQL *m = connect_to(port);
	long done = 0, errors = 0, hits;
	int len;

	for (int i = k; m != NULL && bench_now_us() < end; i++) {
		if (make_sql(sql, qs[i % n].text) != 0 ||
		    run_sql(m, sql, &hits) != 0)
			errors++;
		else
			done++;
	}
	if (m == NULL)
		errors++;
	len = snprintf(msg, sizeof(msg), "%ld %ld\n", done, errors);
	if (write(fd, msg, (size_t)len) != len)
		_exit(1);
	_exit(0);
}

static int
load(int port, const bench_query *qs, int n, int conns, double secs)
{
	int fds[2];
	double t0 = bench_now_us(), end = t0 + secs * 1e6;
	long done = 0, errors = 0, d, e;
	FILE *in;

	if (pipe(fds) != 0)
		return 1;
	for (int k = 0; k < conns; k++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(fds[0]);
			load_child(port, qs, n, k, end, fds[1]);
		}
		if (pid < 0)
			return 1;
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	while (in != NULL && fscanf(in, "%ld %ld", &d, &e) == 2) {
		done += d;
		errors += e;
	}
	while (wait(NULL) > 0 || errno == EINTR)
		;
	secs = (bench_now_us() - t0) / 1e6;
	printf("%ld\t%ld\t%.2f\t%.1f\n", done, errors, secs, done / secs);
	return in == NULL;
}

int
main(int argc, char **argv)
{
	bench_query *qs = NULL;
	int n, port, rc = 2;

	if (argc < 5) {
		fprintf(stderr, "usage: bench_sphinxql lat PORT QUERIES RUNS\n"
		                "       bench_sphinxql load PORT QUERIES CONNS "
		                "SECONDS\n");
		return 2;
	}
	port = (int)strtol(argv[2], NULL, 10);
	n = bench_queries_read(argv[3], &qs);
	if (n <= 0)
		return 1;
	if (mysql_library_init(0, NULL, NULL) != 0)
		return 1;
	if (strcmp(argv[1], "lat") == 0)
		rc = latency(port, qs, n, (int)strtol(argv[4], NULL, 10));
	else if (strcmp(argv[1], "load") == 0 && argc == 6)
		rc = load(port, qs, n, (int)strtol(argv[4], NULL, 10),
		          strtod(argv[5], NULL));
	bench_queries_free(qs, n);
	mysql_library_end();
	return rc;
}
