/*
 * log.c - the CLI's one logger: a line on stderr per event, "TIME LEVEL
 * COMPONENT MESSAGE key=value", for the levels at or above the one the
 * user asked for.  Node services, the gateway and the nodes it runs (in
 * this process or as children, whose lines the gateway reads back) all
 * log through it, so one verbosity applies to all of them.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

static int
rank(const char *level)
{
	static const char *const names[] = {"debug", "info", "warn", "error"};

	for (int i = 0; i < 4; i++)
		if (strcmp(level, names[i]) == 0)
			return i;
	return CLI_LOG_ERROR; /* an unknown level is never hidden */
}

void
cli_log(void *ctx, const char *level, const char *component, const char *msg)
{
	const cli_logger *l = ctx;
	struct timespec ts;
	struct tm tm;
	char when[32];

	if (rank(level) < l->min)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	(void)strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	(void)fprintf(stderr, "%s.%03ldZ %s %s %s\n", when,
	              ts.tv_nsec / 1000000, level, component, msg);
}
