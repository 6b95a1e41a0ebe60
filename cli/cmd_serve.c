/*
 * cmd_serve.c - `corpus-gw serve`: the gateway as a service.  It opens the
 * roster (a workspace's nodes in-process or as child processes, or the
 * workspaces and remote nodes of a config file), serves HTTP (JSON API,
 * MCP, /healthz, /metrics) and runs until SIGINT or SIGTERM.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "conf/config.h"
#include "gateway/gateway.h"
#include "gateway/http.h"
#include "proto/acl.h"

static const cli_opt serve_opts[] = {
    {"workspace", true, false, "serve this workspace's wikis"},
    {"config", true, false, "gateway config (YAML, see conf/gateway.yaml)"},
    {"spawn", false, false, "run nodes as child processes, not threads"},
    {"listen", true, false, "HTTP address (default http://127.0.0.1:7700)"},
    {"cache", true, false, "index cache directory"},
    {"deadline", true, false, "per-round deadline in ms (default 800)"},
    {"help", false, false, "show this help"},
};

#define NOPTS (sizeof(serve_opts) / sizeof(serve_opts[0]))

/* --config FILE, with --deadline (when > 0) and --cache over it. */
static int
load_config_file(const cli_args *a, const char *file, int deadline,
                 cg_config *cfg, cg_err *err)
{
	const char *cache = cli_get(a, "cache");
	int rc = cg_config_load(cfg, file, err);

	if (rc != 0)
		return rc;
	if (deadline > 0)
		cfg->deadline_ms = deadline;
	if (cache != NULL) {
		free(cfg->cache);
		cfg->cache = strdup(cache);
		if (cfg->cache == NULL) {
			cg_config_fini(cfg);
			return cg_err_set(err, CG_ENOMEM, "out of memory");
		}
	}
	return 0;
}

int
cli_load_config(const cli_args *a, cg_config *cfg, cg_err *err)
{
	const char *ws = cli_get(a, "workspace");
	const char *file = cli_get(a, "config");
	const char *dl = cli_get(a, "deadline");
	int deadline = 0;

	if (ws != NULL && file != NULL)
		return cg_err_set(err, CG_EINVAL,
		                  "give --workspace or --config, not both");
	if (dl != NULL) {
		char *end = NULL;
		long v = strtol(dl, &end, 10);

		if (end == dl || *end != '\0' || v < 1 || v > 60000)
			return cg_err_set(err, CG_EINVAL,
			                  "invalid --deadline '%s' (valid: "
			                  "1-60000 ms)",
			                  dl);
		deadline = (int)v;
	}
	if (file != NULL)
		return load_config_file(a, file, deadline, cfg, err);
	return cg_config_for_workspace(cfg, ws ? ws : ".", cli_get(a, "cache"),
	                               cli_flag(a, "spawn"), deadline, err);
}

/* The config's tokens as the HTTP layer wants them; acls[i] is token i's
 * policy.  Freed with free_tokens. */
static int
make_tokens(const cg_config *cfg, cg_http_token **tokens, cg_acl **acls)
{
	*tokens = calloc(cfg->ntokens + 1, sizeof(**tokens));
	*acls = calloc(cfg->ntokens + 1, sizeof(**acls));
	if (*tokens == NULL || *acls == NULL)
		return CG_ENOMEM;
	for (size_t i = 0; i < cfg->ntokens; i++) {
		(*acls)[i].allow = json_incref(cfg->tokens[i].allow);
		(*acls)[i].deny = json_incref(cfg->tokens[i].deny);
		(*tokens)[i].secret = cfg->tokens[i].secret;
		(*tokens)[i].acl = &(*acls)[i];
	}
	return 0;
}

static void
free_tokens(size_t n, cg_http_token *tokens, cg_acl *acls)
{
	for (size_t i = 0; acls != NULL && i < n; i++)
		cg_acl_fini(&acls[i]);
	free(acls);
	free(tokens);
}

static int
run(const cli_args *a, cg_err *err)
{
	cg_http_token *tokens = NULL;
	cg_acl *acls = NULL;
	cg_config cfg;
	cg_gateway *g = NULL;
	cg_http *h = NULL;
	cg_gateway_opts go = {0};
	cg_http_opts ho = {0};
	sigset_t set;
	int sig = 0;
	int rc;

	/* Block the stop signals before any thread starts, so that only
	 * sigwait below receives them. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	rc = cli_load_config(a, &cfg, err);
	if (rc != 0)
		return rc;
	go.config = &cfg;
	rc = cg_gateway_open(&g, &go, err);
	if (rc == 0) {
		ho.listen =
		    cli_get(a, "listen") ? cli_get(a, "listen") : cfg.listen;
		ho.fed = cg_gateway_fed(g);
		if (make_tokens(&cfg, &tokens, &acls) != 0)
			rc = cg_err_set(err, CG_ENOMEM, "out of memory");
		ho.tokens = tokens;
		ho.ntokens = cfg.ntokens;
		ho.tokens_configured = cfg.ntokens > 0;
	}
	if (rc == 0) {
		rc = cg_http_new(&h, &ho, err);
	}
	if (rc == 0) {
		printf("listening %s\n", cg_http_url(h));
		printf("mcp %s/mcp\n", cg_http_url(h));
		(void)fflush(stdout);
		(void)sigwait(&set, &sig);
	}
	cg_http_free(h);
	cg_gateway_free(g);
	free_tokens(cfg.ntokens, tokens, acls);
	cg_config_fini(&cfg);
	return rc;
}

int
cmd_serve(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	int rc;

	cg_err_clear(&err);
	rc = cli_parse(&a, serve_opts, NOPTS, argc, argv, &err);
	if (rc != 0)
		return cli_fail("serve", &err);
	if (cli_flag(&a, "help")) {
		cli_usage("serve",
		          "(--workspace DIR [--spawn] | --config FILE) "
		          "[--listen URL]",
		          "Runs the gateway: every node of the roster behind "
		          "one HTTP endpoint\n(JSON API at /v1/, MCP at /mcp, "
		          "/healthz, /metrics).",
		          serve_opts, NOPTS);
		return 0;
	}
	rc = run(&a, &err);
	return rc == 0 ? 0 : cli_fail("serve", &err);
}
