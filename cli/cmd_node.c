/*
 * cmd_node.c - `corpus-gw node`: runs a workspace's node service (see
 * node/server.h) until SIGTERM or SIGINT.
 *
 * Once listening it prints exactly one line to stdout, "listening <url>"
 * with the real address (a tcp port 0 replaced by the bound port), so a
 * test or a supervisor can read it; everything else is a log line on
 * stderr, "time level component message key=value".  Signals are blocked
 * in every thread and taken with sigwait() here, so there is no signal
 * handler and no process-wide state.  It must not contain service logic.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "common/cg_fs.h"
#include "conf/workspace.h"
#include "node/server.h"

static const cli_opt node_opts[] = {
    {"root", true, false, "workspace directory (default: .)"},
    {"listen", true, false,
     "ipc://PATH or tcp://HOST:PORT (default ipc://CACHE/NAME.ipc)"},
    {"cache", true, false, "index cache directory"},
    {"name", true, false, "node name in replies (default: workspace name)"},
    {"source", true, false,
     "serve only ROOT's own wiki, as this source (no sub-guilds)"},
    {"reconcile", true, false, "seconds between full reconciles (default 30)"},
    {"workers", true, false,
     "threads answering requests (default: one per two CPUs, 1 to 8)"},
    {"verbose", false, false, "log debug lines too"},
    {"help", false, false, "show this help"},
};

#define NOPTS(t) (sizeof(t) / sizeof((t)[0]))

/* --source: one repository's own wiki under a given source name, and the
 * corpora the repository registered. */
struct one_source {
	cg_source ns[64];
	size_t n;
	char *name;
	char *repo;
	char *wiki;
	cg_workspace corpora;
};

static int
single_source(const char *root, const char *name, struct one_source *o,
              cg_err *err)
{
	o->repo = cg_realpath(root);
	if (o->repo == NULL)
		return cg_err_set(err, CG_EINVAL, "--root %s: no such folder",
		                  root);
	o->wiki = cg_path_join(o->repo, ".guild/wiki");
	if (o->wiki == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	if (!cg_is_dir(o->wiki))
		return cg_err_set(err, CG_ENOPROV,
		                  "nothing provisioned: %s has no .guild/wiki",
		                  o->repo);
	o->name = strdup(name);
	if (o->name == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	o->ns[0] =
	    (cg_source){.name = o->name, .repo = o->repo, .wiki = o->wiki};
	o->n = 1;
	if (cg_workspace_add_corpora(&o->corpora, o->repo, err) != 0)
		return CG_ENOMEM;
	for (size_t i = 0; i < o->corpora.nsources && o->n < 64; i++) {
		const cg_source *s = &o->corpora.sources[i];

		o->ns[o->n++] = *s; /* borrowed strings */
	}
	return 0;
}

/* Blocks the stop signals (and SIGPIPE) in this thread and every thread
 * created after, nng's included: they are taken by sigwait(). */
static void
block_signals(sigset_t *stop)
{
	sigset_t all;

	sigemptyset(stop);
	sigaddset(stop, SIGTERM);
	sigaddset(stop, SIGINT);
	all = *stop;
	sigaddset(&all, SIGPIPE);
	(void)pthread_sigmask(SIG_BLOCK, &all, NULL);
}

static int
run(const cli_args *a, cli_logger *log, cg_err *err)
{
	cg_server_opts o = {0};
	cg_server *s = NULL;
	char *def = NULL;
	sigset_t stop;
	struct one_source one = {0};
	int sig = 0;
	int rc;

	rc = cli_int(a, "reconcile", 1, 86400, &o.reconcile_s, err);
	if (rc == 0)
		rc = cli_int(a, "workers", 1, CG_SERVER_WORKERS_MAX, &o.workers,
		             err);
	if (rc != 0)
		return rc;
	o.root = cli_get(a, "root") ? cli_get(a, "root") : ".";
	if (cli_get(a, "source") != NULL) {
		rc = single_source(o.root, cli_get(a, "source"), &one, err);
		if (rc != 0)
			return rc;
		o.sources = one.ns;
		o.nsources = one.n;
	}
	o.cache_dir = cli_get(a, "cache");
	if (o.cache_dir == NULL)
		o.cache_dir = def = cg_default_cache_dir();
	if (o.cache_dir == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	o.listen = cli_get(a, "listen");
	o.name = cli_get(a, "name");
	o.log = cli_log;
	o.log_ctx = log;
	block_signals(&stop);
	rc = cg_server_new(&s, &o, err);
	if (rc == 0)
		rc = cg_server_start(s, err);
	if (rc == 0) {
		printf("listening %s\n", cg_server_url(s));
		(void)fflush(stdout);
		while (sigwait(&stop, &sig) != 0)
			;
		cli_log(log, "info", "node",
		        sig == SIGINT ? "stopping signal=SIGINT"
		                      : "stopping signal=SIGTERM");
	}
	cg_server_free(s);
	free(def);
	free(one.name);
	free(one.repo);
	free(one.wiki);
	cg_workspace_fini(&one.corpora);
	return rc;
}

int
cmd_node(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	cli_logger log;
	int rc;

	cli_heap_for_service();
	cg_err_clear(&err);
	rc = cli_parse(&a, node_opts, NOPTS(node_opts), argc, argv, &err);
	if (rc != 0)
		return cli_fail("node", &err);
	if (cli_flag(&a, "help")) {
		cli_usage(
		    "node",
		    "[--root DIR] [--listen URL] [--cache DIR] "
		    "[--name NAME] [--reconcile SECONDS] [--workers N]",
		    "Serves a workspace's indexes over nng and keeps them "
		    "current as files change.\nPrints \"listening URL\" "
		    "once ready; logs go to stderr; SIGTERM or SIGINT\n"
		    "stops it cleanly.",
		    node_opts, NOPTS(node_opts));
		return 0;
	}
	if (a.npos > 0) {
		cg_err_set(&err, CG_EINVAL, "unexpected argument '%s'",
		           a.pos[0]);
		return cli_fail("node", &err);
	}
	log.min = cli_flag(&a, "verbose") ? CLI_LOG_DEBUG : CLI_LOG_INFO;
	rc = run(&a, &log, &err);
	if (rc == 0)
		cli_log(&log, "info", "node", "stopped");
	return rc == 0 ? 0 : cli_fail("node", &err);
}

const cli_command cli_cmd_node = {
    "node",    cmd_node,         "serve a workspace over nng, re-indexing live",
    node_opts, NOPTS(node_opts), false};
