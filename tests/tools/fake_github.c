/*
 * fake_github.c - cg-fake-github, the fake GitHub commits API of
 * tests/support/cghttpd.h as a process, for benchmarks and shell tests:
 *
 *   cg-fake-github --port N --shas FILE [--log FILE] [--delay-ms MS]
 *                  [--docroot DIR]
 *
 * FILE holds lines "owner/name ref sha" ('#' comments and blank lines
 * skipped); it is read again whenever its mtime, size or inode changes
 * (polled every 100 ms), so a bench can move a ref by rewriting it (write
 * a temporary file and rename it over FILE).  A file that fails to parse
 * is reported on stderr and the old refs stay.  Prints "listening
 * http://127.0.0.1:PORT" on stdout once serving (--port 0 picks a port)
 * and serves until SIGTERM or SIGINT, then exits 0.  With --log, appends
 * "METHOD path status bytes" per request (path %XX-escaped where not
 * printable, bytes = body bytes).  With --delay-ms, every answer waits MS
 * milliseconds (a slow API; a delay longer than the client's timeout is an
 * API that accepts connections and never answers).  With --docroot, GET
 * /site/<rel> serves DIR/<rel> with ETags (cghttpd_set_docroot: the
 * llms.txt bench).  Exit 2 on bad usage
 * or a bad FILE at
 * startup, 1 when the server cannot start.  Binds 127.0.0.1 only; must
 * never be installed with the product.
 */
#include <sys/stat.h>

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cghttpd.h"
#include "common/cg_err.h"

#define POLL_MS 100

static const char usage[] =
    "usage: cg-fake-github --port N --shas FILE [--log FILE] "
    "[--delay-ms MS] [--docroot DIR]\n";

struct opts {
	int port;
	const char *shas;
	const char *log;
	int delay_ms;        /* before every answer */
	const char *docroot; /* /site/ served from here, or NULL */
};

/* What identifies a version of the shas file. */
struct stamp {
	bool ok; /* stat succeeded */
	struct timespec mtime;
	off_t size;
	ino_t ino;
};

/* A decimal in [0, max]. */
static bool
parse_num(const char *s, long max, int *out)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 0 || v > max)
		return false;
	*out = (int)v;
	return true;
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	bool have_port = false;

	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (i + 1 >= argc)
			return CG_EINVAL;
		if (strcmp(a, "--port") == 0) {
			if (!parse_num(argv[++i], 65535, &o->port))
				return CG_EINVAL;
			have_port = true;
		} else if (strcmp(a, "--shas") == 0) {
			o->shas = argv[++i];
		} else if (strcmp(a, "--log") == 0) {
			o->log = argv[++i];
		} else if (strcmp(a, "--docroot") == 0) {
			o->docroot = argv[++i];
		} else if (strcmp(a, "--delay-ms") == 0) {
			if (!parse_num(argv[++i], 86400000L, &o->delay_ms))
				return CG_EINVAL;
		} else {
			return CG_EINVAL;
		}
	}
	return have_port && o->shas != NULL ? 0 : CG_EINVAL;
}

static struct stamp
stamp_of(const char *path)
{
	struct stamp s;
	struct stat st;

	memset(&s, 0, sizeof(s));
	if (stat(path, &st) != 0)
		return s;
	s.ok = true;
	s.mtime = st.st_mtim;
	s.size = st.st_size;
	s.ino = st.st_ino;
	return s;
}

static bool
stamp_same(const struct stamp *a, const struct stamp *b)
{
	return a->ok == b->ok && a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec && a->size == b->size &&
	       a->ino == b->ino;
}

/* Loads the file if it changed since *last; reports a bad file. */
static void
reload(cghttpd *h, const char *path, struct stamp *last)
{
	struct stamp now = stamp_of(path);
	cg_err err = {0};

	if (!now.ok || stamp_same(&now, last))
		return;
	*last = now;
	if (cghttpd_load_file(h, path, &err) != 0)
		fprintf(stderr, "cg-fake-github: %s (keeping the old refs)\n",
		        err.msg);
}

/* Serves until SIGTERM or SIGINT (blocked, so they are taken here). */
static void
serve(cghttpd *h, const char *path, struct stamp *last, const sigset_t *sigs)
{
	const struct timespec tick = {0, POLL_MS * 1000000L};
	int sig;

	for (;;) {
		sig = sigtimedwait(sigs, NULL, &tick);
		if (sig == SIGTERM || sig == SIGINT)
			return;
		reload(h, path, last);
	}
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct stamp last;
	sigset_t sigs;
	cghttpd *h = NULL;
	FILE *log = NULL;
	cg_err err = {0};

	if (parse_opts(argc, argv, &o) != 0) {
		fputs(usage, stderr);
		return 2;
	}
	/* Blocked before the server's threads start, so they inherit it. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o.log != NULL) {
		log = fopen(o.log, "a");
		if (log == NULL) {
			fprintf(stderr, "cg-fake-github: %s: %s\n", o.log,
			        strerror(errno));
			return 2;
		}
	}
	if (cghttpd_start(&h, o.port) != 0) {
		fprintf(stderr, "cg-fake-github: cannot listen on port %d\n",
		        o.port);
		if (log != NULL)
			fclose(log);
		return 1;
	}
	last = stamp_of(o.shas);
	if (cghttpd_load_file(h, o.shas, &err) != 0) {
		fprintf(stderr, "cg-fake-github: %s\n", err.msg);
		cghttpd_stop(h);
		if (log != NULL)
			fclose(log);
		return 2;
	}
	cghttpd_set_log(h, log);
	cghttpd_set_delay_ms(h, o.delay_ms);
	if (o.docroot != NULL && cghttpd_set_docroot(h, o.docroot) != 0) {
		cghttpd_stop(h);
		if (log != NULL)
			fclose(log);
		return 1;
	}
	printf("listening http://127.0.0.1:%d\n", cghttpd_port(h));
	fflush(stdout);
	serve(h, o.shas, &last, &sigs);
	cghttpd_stop(h);
	if (log != NULL)
		fclose(log);
	return 0;
}
