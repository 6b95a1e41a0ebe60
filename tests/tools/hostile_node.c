/*
 * hostile_node.c - cg-hostile-node, the hostile node of
 * tests/support/cghostile_node.h as a process, for benchmarks and by-hand
 * checks (bench/hostile-node):
 *
 *   cg-hostile-node MODE N [OP]
 *
 * MODE is hits (N empty hits), fat (one hit holding N values), junk (N
 * bytes of junk), slow (a reply after N ms) or wrong-id; OP is the op
 * attacked (default search).  Prints "listening tcp://127.0.0.1:PORT" on
 * stdout once serving and serves until SIGTERM or SIGINT, then prints
 * "attacks K" and exits 0.  Exit 2 on bad usage.  Binds 127.0.0.1 only;
 * must never be installed with the product.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cghostile_node.h"
#include "cgtest.h"

static const char usage[] = "usage: cg-hostile-node hits|fat|junk|slow|"
                            "wrong-id N [OP]\n";

static int
parse_mode(const char *s, enum cgt_hostile_mode *m)
{
	static const struct {
		const char *name;
		enum cgt_hostile_mode mode;
	} modes[] = {{"hits", CGT_HOSTILE_HITS},
	             {"fat", CGT_HOSTILE_FAT_HIT},
	             {"junk", CGT_HOSTILE_JUNK},
	             {"slow", CGT_HOSTILE_SLOW},
	             {"wrong-id", CGT_HOSTILE_WRONG_ID}};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(s, modes[i].name) == 0) {
			*m = modes[i].mode;
			return 0;
		}
	return -1;
}

int
main(int argc, char **argv)
{
	cgt_hostile_opts o = {CGT_HOSTILE_HITS, NULL, 0, 0};
	cgt_hostile *h;
	sigset_t set;
	char *end = NULL;
	unsigned long long n;
	int sig = 0;

	if (argc < 3 || argc > 4 || parse_mode(argv[1], &o.mode) != 0) {
		fputs(usage, stderr);
		return 2;
	}
	n = strtoull(argv[2], &end, 10);
	if (end == argv[2] || *end != '\0' || n > (1ull << 30)) {
		fputs(usage, stderr);
		return 2;
	}
	o.n = (size_t)n;
	o.delay_ms = (int)(n < 600000 ? n : 600000);
	o.op = argc == 4 ? argv[3] : NULL;
	/* Signals are taken with sigwait, before nng starts a thread. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	h = cgt_hostile_start(&o);
	printf("listening %s\n", cgt_hostile_url(h));
	fflush(stdout);
	(void)sigwait(&set, &sig);
	printf("attacks %d\n", cgt_hostile_attacks(h));
	cgt_hostile_stop(h);
	return 0;
}
