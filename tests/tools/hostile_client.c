/*
 * hostile_client.c - cg-hostile, the hostile HTTP client of
 * tests/support/cghostile.h as a process, for bench/http-flood-bench:
 *
 *   cg-hostile --port N [--flood none|slowloris|idle] [--conns N]
 *              [--requests N] [--fresh ADDR] [--path PATH] [--budget-s S]
 *              [--pause-ms MS]
 *
 * Floods 127.0.0.1:N from 127.0.0.1 with --conns connections (default
 * 600) in the given mode (default slowloris; none: no flood), waits until
 * the flood has made that many connections (20 s at most) and one more
 * second, then sends --requests (default 200) GET PATH (default /healthz)
 * one after another from the loopback address --fresh (default
 * 127.0.0.2), each on a new connection with a 5 s bound and --pause-ms
 * (default 0) after it, stopping early once --budget-s seconds (default
 * 60) have passed, and prints one line:
 *
 *   answered=A/N p50_ms=X p99_ms=Y max_ms=Z flood_made=M flood_cut=C
 *
 * N is the number of requests sent; one that is not answered 200 within
 * 5 s counts 5,000 ms in the percentiles.  Exit 2 on bad usage, 1 when the
 * flood cannot start. Talks only to loopback; must never be installed with the
 * product.
 */
#define _GNU_SOURCE
#include <sys/resource.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cghostile.h"

#define ANSWER_MS 5000

static const char usage[] =
    "usage: cg-hostile --port N [--flood none|slowloris|idle] [--conns N]\n"
    "                  [--requests N] [--fresh ADDR] [--path PATH]\n"
    "                  [--budget-s S] [--pause-ms MS]\n";

struct opts {
	int port;
	const char *flood;
	int conns;
	int requests;
	const char *fresh;
	const char *path;
	int budget_s;
	int pause_ms;
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){0,           "slowloris", 600, 200,
	                   "127.0.0.2", "/healthz",  60,  0};
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i];
		const char *v = argv[i + 1];

		if (strcmp(k, "--port") == 0)
			o->port = (int)strtol(v, NULL, 10);
		else if (strcmp(k, "--flood") == 0)
			o->flood = v;
		else if (strcmp(k, "--conns") == 0)
			o->conns = (int)strtol(v, NULL, 10);
		else if (strcmp(k, "--requests") == 0)
			o->requests = (int)strtol(v, NULL, 10);
		else if (strcmp(k, "--fresh") == 0)
			o->fresh = v;
		else if (strcmp(k, "--path") == 0)
			o->path = v;
		else if (strcmp(k, "--budget-s") == 0)
			o->budget_s = (int)strtol(v, NULL, 10);
		else if (strcmp(k, "--pause-ms") == 0)
			o->pause_ms = (int)strtol(v, NULL, 10);
		else
			return -1;
	}
	if (argc % 2 == 0 || o->port <= 0 || o->port > 65535 ||
	    o->requests <= 0 || o->requests > 100000 || o->budget_s <= 0 ||
	    o->pause_ms < 0 || o->pause_ms > 60000)
		return -1;
	if (strcmp(o->flood, "none") != 0 &&
	    strcmp(o->flood, "slowloris") != 0 && strcmp(o->flood, "idle") != 0)
		return -1;
	return 0;
}

/* Starts the flood and waits until it is fully built (20 s at most). */
static int
start_flood(const struct opts *o, cgh_flood **f)
{
	double t0 = now_ms();
	struct rlimit rl;

	*f = NULL;
	if (strcmp(o->flood, "none") == 0)
		return 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (cgh_flood_start(f, "127.0.0.1", o->port, o->conns,
	                    strcmp(o->flood, "idle") == 0 ? CGH_IDLE
	                                                  : CGH_SLOWLORIS) != 0)
		return -1;
	while (cgh_flood_made(*f) < o->conns && now_ms() - t0 < 20000)
		usleep(50000);
	sleep(1);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o;
	cgh_flood *f = NULL;
	double *lat;
	int answered = 0;
	int sent = 0;
	double t0;

	if (parse(argc, argv, &o) != 0) {
		fputs(usage, stderr);
		return 2;
	}
	(void)signal(SIGPIPE, SIG_IGN);
	lat = calloc((size_t)o.requests, sizeof(*lat));
	if (lat == NULL || start_flood(&o, &f) != 0) {
		fprintf(stderr, "cg-hostile: cannot start the flood\n");
		free(lat);
		return 1;
	}
	t0 = now_ms();
	while (sent < o.requests && now_ms() - t0 < o.budget_s * 1000.0) {
		double t = now_ms();
		int st = cgh_get(o.fresh, o.port, o.path, ANSWER_MS);

		lat[sent++] = st == 200 ? now_ms() - t : ANSWER_MS;
		answered += st == 200;
		if (o.pause_ms > 0)
			usleep((useconds_t)o.pause_ms * 1000);
	}
	qsort(lat, (size_t)sent, sizeof(*lat), cmp_double);
	printf("answered=%d/%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f "
	       "flood_made=%ld flood_cut=%ld\n",
	       answered, sent, lat[(sent - 1) / 2],
	       lat[(sent * 99 + 99) / 100 - 1], lat[sent - 1],
	       f ? cgh_flood_made(f) : 0L, f ? cgh_flood_cut(f) : 0L);
	cgh_flood_stop(f);
	free(lat);
	return 0;
}
