/*
 * cmd_fetch.c - `corpus-gw fetch`: refreshes the remote corpora registered
 * by the repositories of a workspace (or of every workspace of a gateway
 * config), for cron.  The work is cache/fetch.c's; this file finds the
 * repositories, parses options and turns the report into an exit code:
 * 0 every corpus fresh or updated, 1 some failed (their old caches keep
 * serving, marked stale) or another run holds the lock, 2 bad
 * configuration (a registry that does not parse, an unknown --corpus).
 * Quiet on success unless -v; one line per problem on stderr.  --deadline
 * bounds the whole run, over every repository (CG_FETCH_DEADLINE_S by
 * default: see cache/fetch.h for why).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/fetch.h"
#include "cache/httpc.h"
#include "cli/cli.h"
#include "common/cg_fs.h"
#include "common/cg_time.h"
#include "conf/config.h"
#include "conf/workspace.h"

static const cli_opt fetch_opts[] = {
    {"refresh", false, false, "ask every remote now, ignoring the TTL"},
    {"corpus", true, true, "only this corpus id (repeatable)"},
    {"workspace", true, false, "workspace directory (default: .)"},
    {"config", true, false, "gateway config: every workspace in it"},
    {"api-base", true, false,
     "freshness API (default $CORPUS_GW_API_BASE or https://api.github.com)"},
    {"git-base", true, false,
     "git URLs prefix (default $CORPUS_GW_GIT_BASE or https://github.com)"},
    {"wait", true, false, "seconds to wait for another run's lock (30)"},
    {"deadline", true, false,
     "seconds the whole run may take (1800); what it cuts off keeps its "
     "old cache"},
    {"verbose", false, false, "(-v) a line per corpus and a summary"},
    {"help", false, false, "show this help"},
};

#define NOPTS(t) (sizeof(t) / sizeof((t)[0]))

/* The distinct repositories to refresh, in order. */
struct repos {
	char **v;
	size_t n;
};

static int
add_repo(struct repos *r, const char *path)
{
	char **v;

	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i], path) == 0)
			return 0;
	v = realloc(r->v, (r->n + 1) * sizeof(*v));
	if (v == NULL)
		return CG_ENOMEM;
	r->v = v;
	r->v[r->n] = strdup(path);
	return r->v[r->n++] ? 0 : CG_ENOMEM;
}

static void
repos_fini(struct repos *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i]);
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

/* A workspace's root and the repository of each of its sources. */
static int
add_workspace(struct repos *r, const char *dir, cg_err *err)
{
	cg_workspace ws;
	int rc = cg_workspace_load(&ws, dir, err);

	if (rc != 0)
		return rc;
	rc = add_repo(r, ws.root);
	for (size_t i = 0; rc == 0 && i < ws.nsources; i++)
		rc = add_repo(r, ws.sources[i].repo);
	cg_workspace_fini(&ws);
	return rc ? cg_err_set(err, rc, "out of memory") : 0;
}

static int
find_repos(const cli_args *a, struct repos *r, cg_err *err)
{
	const char *conf = cli_get(a, "config");
	cg_config cfg;
	int rc;

	if (conf == NULL) {
		const char *ws = cli_get(a, "workspace");

		return add_workspace(r, ws ? ws : ".", err);
	}
	if (cli_get(a, "workspace") != NULL)
		return cg_err_set(err, CG_EINVAL,
		                  "give --workspace or --config, not both");
	rc = cg_config_load(&cfg, conf, err);
	if (rc != 0)
		return rc; /* the loader cleans up after itself */
	for (size_t i = 0; rc == 0 && i < cfg.nworkspaces; i++)
		rc = add_workspace(r, cfg.workspaces[i].path, err);
	cg_config_fini(&cfg);
	return rc;
}

static void
summary(const cg_fetch_report *rep)
{
	(void)fprintf(
	    stderr,
	    "fetch: %d corpora: %d fresh, %d unchanged, %d updated, %d "
	    "failed; %d HTTP requests on %d connections (%llu bytes), %u "
	    "git objects (%llu bytes)\n",
	    rep->corpora, rep->fresh, rep->unchanged, rep->updated, rep->failed,
	    rep->http_requests, rep->http_connections,
	    (unsigned long long)rep->http_bytes, rep->git_objects,
	    (unsigned long long)rep->git_bytes);
}

/* Runs every repository; returns the exit code. */
static int
run_repos(const cg_fetch_opts *o, const struct repos *r, cg_fetch_report *rep)
{
	int code = 0;

	for (size_t i = 0; i < r->n; i++) {
		cg_err e;
		int rc;

		cg_err_clear(&e);
		rc = cg_fetch_repo(o, r->v[i], rep, &e);
		if (rc == CG_EPARSE || rc == CG_EINVAL) {
			(void)fprintf(stderr, "corpus-gw fetch: %s\n", e.msg);
			code = 2;
		} else if (rc != 0) {
			(void)fprintf(stderr, "corpus-gw fetch: %s\n", e.msg);
			code = code ? code : 1;
		}
	}
	for (size_t i = 0; i < o->nonly; i++)
		if (!rep->matched[i]) {
			(void)fprintf(
			    stderr,
			    "corpus-gw fetch: no github corpus '%s' is "
			    "registered\n",
			    o->only[i]);
			code = 2;
		}
	if (code == 0 && rep->failed > 0)
		code = 1;
	return code;
}

static int
setup(const cli_args *a, cg_fetch_opts *o, cg_err *err)
{
	const char **only = NULL;
	int deadline_s = CG_FETCH_DEADLINE_S;
	int wait_s;

	cg_fetch_opts_init(o);
	wait_s = o->lock_wait_ms / 1000;
	o->refresh = cli_flag(a, "refresh");
	o->verbose = cli_flag(a, "verbose");
	o->progress = isatty(2) != 0;
	o->nonly = cli_all(a, "corpus", &only);
	o->only = o->nonly > 0 ? only : NULL;
	if (cli_get(a, "api-base") != NULL)
		o->api_base = cli_get(a, "api-base");
	if (cli_get(a, "git-base") != NULL)
		o->git_base = cli_get(a, "git-base");
	if (strncmp(o->api_base, "http://", 7) != 0 &&
	    strncmp(o->api_base, "https://", 8) != 0)
		return cg_err_set(err, CG_EINVAL,
		                  "the API base must be an http(s) URL, not "
		                  "'%s'",
		                  o->api_base);
	if (cg_httpc_global_init(err) != 0)
		return CG_ERR;
	if (cli_int(a, "wait", 0, 86400, &wait_s, err) != 0)
		return CG_EINVAL;
	o->lock_wait_ms = wait_s * 1000;
	if (cli_int(a, "deadline", 1, 7L * 86400, &deadline_s, err) != 0)
		return CG_EINVAL;
	o->deadline_ms = cg_mono_ms() + (int64_t)deadline_s * 1000;
	return 0;
}

int
cmd_fetch(int argc, char **argv)
{
	cli_args a;
	cg_fetch_opts o;
	cg_fetch_report rep;
	struct repos r = {NULL, 0};
	cg_err err;
	int code;

	cg_err_clear(&err);
	if (cli_parse(&a, fetch_opts, NOPTS(fetch_opts), argc, argv, &err))
		return cli_fail("fetch", &err);
	if (cli_flag(&a, "help")) {
		cli_usage("fetch",
		          "[--refresh] [--corpus ID]... [--workspace DIR | "
		          "--config FILE] [--deadline S] [-v]",
		          "Refresh the remote corpora of the registries "
		          "(.hiivmind/corpus/registry.yaml) of a workspace's "
		          "repositories.",
		          fetch_opts, NOPTS(fetch_opts));
		return 0;
	}
	/* find_repos may fail after it added some repositories (the second
	 * workspace of a --config): r is freed on every path. */
	if (setup(&a, &o, &err) != 0 || find_repos(&a, &r, &err) != 0) {
		repos_fini(&r);
		return cli_fail("fetch", &err);
	}
	memset(&rep, 0, sizeof(rep));
	rep.matched = calloc(o.nonly + 1, sizeof(bool));
	code = rep.matched ? run_repos(&o, &r, &rep) : 1;
	if (o.verbose)
		summary(&rep);
	repos_fini(&r);
	free(rep.matched);
	return code;
}

const cli_command cli_cmd_fetch = {
    "fetch",    cmd_fetch,         "refresh the remote corpora (for cron)",
    fetch_opts, NOPTS(fetch_opts), false};
