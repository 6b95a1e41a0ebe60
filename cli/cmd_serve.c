/*
 * cmd_serve.c - `corpus-gw serve`: the gateway as a service.  It opens the
 * roster (a workspace's nodes in-process or as child processes, or the
 * workspaces and remote nodes of a config file), serves HTTP (JSON API,
 * MCP, /healthz, /readyz, /metrics) and runs until SIGINT or SIGTERM.
 *
 * /readyz turns 200 once every node has finished its first sync.  SIGHUP
 * reloads: the config is read again (roster, tokens, deadlines; --workspace
 * is looked at again), a second roster is opened beside the first and
 * synced, then swapped in (cg_http_swap: requests in flight finish on the
 * old one, none is dropped) and the old one is freed.  A config that does
 * not load, or a roster that does not open, is refused with an error line
 * and the old roster keeps serving.  The listen address is not moved by a
 * reload (a warning says to restart).  Without a signal, a repository
 * added to or removed from a served workspace is noticed (rootwatch.c,
 * and a look every RECHECK_MS) and reloads the same way.  Log lines (its
 * own and every node's, children's included) go to stderr through
 * cli_log, info and up, debug too with --verbose.
 *
 * The local socket (gateway/local.h): unless --no-socket, serve also
 * listens on $XDG_RUNTIME_DIR/corpus-gw/<roster key>.sock, where the CLI
 * of the same user finds it (cli/session.c), with the same handler as
 * HTTP (a second cg_http over the socket, swapped with the first; both
 * run their tool calls on the one tool pool serve owns).  It
 * appears once the first sync is done, so a CLI never waits on a gateway
 * still indexing, and is removed on a clean exit; a reload that changes the
 * roster (another key) moves it.  Without XDG_RUNTIME_DIR there is none; one
 * that cannot be made (another gateway serves the same roster on it, the
 * directory is not private) is a warning, never a reason not to serve.  It must
 * not answer a request itself: that is gateway/.
 */
#define _GNU_SOURCE
#include <sys/signalfd.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/cg_time.h"
#include "conf/config.h"
#include "gateway/gateway.h"
#include "gateway/http.h"
#include "gateway/local.h"
#include "gateway/tool_pool.h"
#include "proto/acl.h"

static const cli_opt serve_opts[] = {
    {"workspace", true, false, "serve this workspace's wikis"},
    {"config", true, false, "gateway config (YAML, see conf/gateway.yaml)"},
    {"spawn", false, false, "run nodes as child processes, not threads"},
    {"listen", true, false, "HTTP address (default http://127.0.0.1:7700)"},
    {"cache", true, false, "index cache directory"},
    {"deadline", true, false, "per-round deadline in ms (default 800)"},
    {"no-socket", false, false,
     "no local socket under $XDG_RUNTIME_DIR for the CLI"},
    {"verbose", false, false, "(-v) debug lines too (the nodes' included)"},
    {"help", false, false, "show this help"},
};

#define DEBOUNCE_MS 500   /* quiet time after a change at a workspace root */
#define RECHECK_MS  30000 /* the workspaces are looked at this often anyway */

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
		(*tokens)[i].name = cfg->tokens[i].name;
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

/* What requests are answered with, as one config made it: the config,
 * the gateway (nodes, federation) and the tokens.  A reload opens a
 * second one beside the first and swaps it in (cg_http_swap). */
struct live {
	cg_config cfg;
	bool have_cfg;
	cg_gateway *g;
	cg_http_token *tokens;
	cg_acl *acls;
};

static void
live_close(struct live *l)
{
	cg_gateway_free(l->g);
	if (l->have_cfg) {
		free_tokens(l->cfg.ntokens, l->tokens, l->acls);
		cg_config_fini(&l->cfg);
	}
	memset(l, 0, sizeof(*l));
}

/* Reads the config (--config FILE again, or --workspace DIR) and opens
 * its roster; generation keeps two rosters' child sockets apart. */
static int
live_open(struct live *l, const cli_args *a, unsigned generation,
          cli_logger *log, cg_err *err)
{
	cg_gateway_opts go = {0};
	int rc;

	memset(l, 0, sizeof(*l));
	rc = cli_load_config(a, &l->cfg, err);
	if (rc != 0)
		return rc;
	l->have_cfg = true;
	go.config = &l->cfg;
	go.log = cli_log;
	go.log_ctx = log;
	go.log_debug = log->min == CLI_LOG_DEBUG;
	go.generation = generation;
	rc = cg_gateway_open(&l->g, &go, err);
	if (rc == 0 && make_tokens(&l->cfg, &l->tokens, &l->acls) != 0)
		rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	if (rc != 0)
		live_close(l);
	return rc;
}

/* Asks every node to finish a sync (the first one, after a start), so
 * that what the roster answers is current; a node that fails is logged
 * and answers with what it has. */
static void
sync_nodes(struct live *l, cli_logger *log)
{
	json_t *rep = NULL;
	cg_err err;

	cg_err_clear(&err);
	if (cg_gateway_sync(l->g, &rep, &err) != 0)
		cli_log(log, "warn", "gateway", err.msg);
	else if (json_is_true(json_object_get(rep, "degraded")))
		cli_log(log, "warn", "gateway",
		        "sync: some nodes did not answer (degraded)");
	json_decref(rep);
}

/* The serve loop's state: the server, what it serves, the log. */
struct serve {
	const cli_args *a;
	cg_http *h;
	struct live cur;
	unsigned generation;
	cli_logger log;
	cli_rootwatch watch;
	cg_http *hl;        /* the local socket's server, or NULL */
	cg_local local;     /* its socket file */
	cg_tool_pool *pool; /* where both servers run tool calls */
};

/* Starts serving the current roster on its local socket (a warning when
 * it cannot; nothing without XDG_RUNTIME_DIR or with --no-socket). */
static void
local_open(struct serve *s)
{
	cg_http_opts ho = {0};
	char line[700];
	cg_err err;
	int rc;

	cg_err_clear(&err);
	s->local.fd = -1;
	if (cli_flag(s->a, "no-socket"))
		return;
	rc = cg_local_listen(&s->local, &s->cur.cfg, &err);
	if (rc == CG_ENOTFOUND)
		return;
	if (rc == 0) {
		ho.fed = cg_gateway_fed(s->cur.g);
		ho.tokens = s->cur.tokens;
		ho.ntokens = s->cur.cfg.ntokens;
		ho.log = cli_log;
		ho.log_ctx = &s->log;
		ho.local = true;
		ho.local_fd = s->local.fd;
		ho.pool = s->pool;
		rc = cg_http_new(&s->hl, &ho, &err);
		if (rc != 0)
			cg_local_close(&s->local);
	}
	if (rc != 0) {
		cli_log(&s->log, "warn", "gateway", err.msg);
		return;
	}
	cg_http_set_ready(s->hl, true); /* opened on a synced roster */
	(void)snprintf(line, sizeof(line), "local socket %s",
	               cg_http_url(s->hl));
	cli_log(&s->log, "info", "gateway", line);
}

static void
local_close(struct serve *s)
{
	cg_http_free(s->hl);
	s->hl = NULL;
	cg_local_close(&s->local);
}

/* A reload's new roster on the local socket: swapped in when its key is
 * the same, else the socket is closed (local_open moves it once the new
 * roster is current).  Called before the old roster is freed. */
static void
local_swap(struct serve *s, struct live *next)
{
	char key[CG_LOCAL_KEY_LEN + 1];
	cg_err err;

	cg_err_clear(&err);
	if (s->hl == NULL)
		return;
	if (cg_local_key(&next->cfg, key) == 0 &&
	    strcmp(key, s->local.key) == 0 &&
	    cg_http_swap(s->hl, cg_gateway_fed(next->g), next->tokens,
	                 next->cfg.ntokens, &err) == 0)
		return;
	local_close(s);
}

/* Re-reads the config and swaps the new roster in; on any error the old
 * one keeps serving and the reason is logged. */
static void
reload(struct serve *s, const char *why)
{
	struct live next;
	char line[1200];
	cg_err err;

	cg_err_clear(&err);
	(void)snprintf(line, sizeof(line), "reloading reason=%s", why);
	cli_log(&s->log, "info", "gateway", line);
	if (live_open(&next, s->a, ++s->generation, &s->log, &err) != 0) {
		(void)snprintf(line, sizeof(line),
		               "reload refused, the previous config keeps "
		               "serving reason=%s error=\"%s\"",
		               why, err.msg);
		cli_log(&s->log, "error", "gateway", line);
		return;
	}
	if (cli_get(s->a, "listen") == NULL &&
	    strcmp(next.cfg.listen, s->cur.cfg.listen) != 0)
		cli_log(&s->log, "warn", "gateway",
		        "listen changed: restart the gateway to move it");
	sync_nodes(&next, &s->log);
	if (cg_http_swap(s->h, cg_gateway_fed(next.g), next.tokens,
	                 next.cfg.ntokens, &err) != 0) {
		(void)snprintf(line, sizeof(line),
		               "reload refused, the previous config keeps "
		               "serving reason=%s error=\"%s\"",
		               why, err.msg);
		cli_log(&s->log, "error", "gateway", line);
		live_close(&next);
		return;
	}
	local_swap(s, &next);
	/* No request holds the old roster any more. */
	cli_rootwatch_close(&s->watch);
	live_close(&s->cur);
	s->cur = next;
	cli_rootwatch_open(&s->watch, &s->cur.cfg);
	if (s->hl == NULL)
		local_open(s);
	(void)snprintf(line, sizeof(line),
	               "reloaded reason=%s nodes=%zu tokens=%zu deadline_ms=%d",
	               why, cg_gateway_nnodes(s->cur.g), s->cur.cfg.ntokens,
	               s->cur.cfg.deadline_ms);
	cli_log(&s->log, "info", "gateway", line);
}

/* Whether the workspaces gained or lost a repository since the roster
 * was opened. */
static bool
roster_stale(struct serve *s)
{
	bool stale = false;
	cg_err err;

	cg_err_clear(&err);
	if (cg_gateway_stale(s->cur.g, &s->cur.cfg, &stale, &err) != 0) {
		cli_log(&s->log, "warn", "gateway", err.msg);
		return false;
	}
	return stale;
}

/* Until SIGINT or SIGTERM: SIGHUP reloads; a change at a workspace root
 * is looked at once quiet for DEBOUNCE_MS, and every RECHECK_MS anyway
 * (what inotify cannot see), and reloads when the sources changed. */
static void
loop(struct serve *s, int sfd)
{
	int64_t due = -1;
	int64_t recheck = cg_mono_ms() + RECHECK_MS;

	for (;;) {
		struct pollfd p[2] = {{sfd, POLLIN, 0},
		                      {s->watch.fd, POLLIN, 0}};
		int64_t now = cg_mono_ms();
		int64_t until = due >= 0 && due < recheck ? due : recheck;
		struct signalfd_siginfo si;

		if (poll(p, 2, until > now ? (int)(until - now) : 0) < 0 &&
		    errno != EINTR)
			return;
		if ((p[0].revents & POLLIN) &&
		    read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (si.ssi_signo != SIGHUP)
				return;
			reload(s, "signal");
			due = -1;
			recheck = cg_mono_ms() + RECHECK_MS;
			continue;
		}
		if ((p[1].revents & POLLIN) &&
		    cli_rootwatch_read(&s->watch) > 0)
			due = cg_mono_ms() + DEBOUNCE_MS;
		now = cg_mono_ms();
		if ((due >= 0 && now >= due) || now >= recheck) {
			if (roster_stale(s))
				reload(s, "workspace");
			due = -1;
			recheck = cg_mono_ms() + RECHECK_MS;
		}
	}
}

static int
run(const cli_args *a, cg_err *err)
{
	struct serve s = {.a = a};
	cg_http_opts ho = {0};
	sigset_t set;
	int sfd;
	int rc;

	/* Block the signals before any thread starts, so that only the
	 * signalfd below receives them. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0) {
		char eb[128];

		return cg_err_set(err, CG_EIO, "signalfd: %s",
		                  strerror_r(errno, eb, sizeof(eb)));
	}
	s.log.min = cli_flag(a, "verbose") ? CLI_LOG_DEBUG : CLI_LOG_INFO;
	s.watch.fd = -1;
	rc = live_open(&s.cur, a, 0, &s.log, err);
	if (rc == 0)
		rc = cg_tool_pool_new(&s.pool, err);
	if (rc == 0) {
		ho.listen = cli_get(a, "listen") ? cli_get(a, "listen")
		                                 : s.cur.cfg.listen;
		ho.fed = cg_gateway_fed(s.cur.g);
		ho.tokens = s.cur.tokens;
		ho.ntokens = s.cur.cfg.ntokens;
		ho.tokens_configured = s.cur.cfg.ntokens > 0;
		ho.log = cli_log;
		ho.log_ctx = &s.log;
		ho.pool = s.pool;
		rc = cg_http_new(&s.h, &ho, err);
	}
	if (rc == 0) {
		printf("listening %s\n", cg_http_url(s.h));
		printf("mcp %s/mcp\n", cg_http_url(s.h));
		(void)fflush(stdout);
		cli_rootwatch_open(&s.watch, &s.cur.cfg);
		sync_nodes(&s.cur, &s.log);
		cg_http_set_ready(s.h, true);
		local_open(&s);
		cli_log(&s.log, "info", "gateway", "ready");
		loop(&s, sfd);
	}
	local_close(&s);
	cg_http_free(s.h);
	cg_tool_pool_free(s.pool); /* after both servers: it ran their calls */
	cli_rootwatch_close(&s.watch);
	live_close(&s.cur);
	close(sfd);
	return rc;
}

int
cmd_serve(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	int rc;

	cli_heap_for_service();
	cg_err_clear(&err);
	rc = cli_parse(&a, serve_opts, NOPTS, argc, argv, &err);
	if (rc != 0)
		return cli_fail("serve", &err);
	if (cli_flag(&a, "help")) {
		cli_usage("serve",
		          "(--workspace DIR [--spawn] | --config FILE) "
		          "[--listen URL] [--no-socket]",
		          "Runs the gateway: every node of the roster behind "
		          "one HTTP endpoint\n(JSON API at /v1/, MCP at /mcp, "
		          "/healthz, /metrics).",
		          serve_opts, NOPTS);
		return 0;
	}
	rc = run(&a, &err);
	return rc == 0 ? 0 : cli_fail("serve", &err);
}

const cli_command cli_cmd_serve = {
    "serve",    cmd_serve, "run the gateway (HTTP JSON API and MCP)",
    serve_opts, NOPTS,     false};
