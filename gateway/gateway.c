/*
 * gateway.c - builds the roster: in-process node servers, child node
 * processes and remote nodes, one nng transport over all of them (or, for
 * a one-shot command, the in-process ones called directly: direct.h), and
 * the federation on top.  It owns what it starts and stops it in reverse
 * order; it must not leave a child process behind.  A child's stderr
 * comes back on a pipe that one thread of the gateway reads, and every
 * line it writes is passed to the caller's log function (gateway.h).
 */
#define _GNU_SOURCE
#include "gateway/gateway.h"

#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cg_analyzer.h"
#include "common/cg_buf.h"
#include "common/cg_fs.h"
#include "common/cg_time.h"
#include "conf/workspace.h"
#include "federation/transport.h"
#include "gateway/direct.h"
#include "node/node.h"
#include "node/server.h"

#define SPAWN_TIMEOUT_MS 15000
#define LOG_LINE_MAX     4096 /* a longer line of a child is cut */

/* The read end of a child's stderr and the line being read. */
struct errpipe {
	int fd; /* -1 once at end of file */
	char node[256];
	char buf[LOG_LINE_MAX];
	size_t len;
};

struct cg_gateway {
	cg_server **servers; /* in-process nodes */
	size_t nservers;
	pid_t *children;      /* spawned nodes */
	struct errpipe *errs; /* per child, when logging: its stderr */
	size_t nchildren;
	pthread_t log_thread; /* reads errs; runs until every child is gone */
	bool log_running;
	cg_log_fn log;
	void *log_ctx;
	bool log_debug;
	unsigned generation;
	cg_transport *transport; /* every node over nng, or NULL when direct */
	cg_direct *direct; /* direct: in-process nodes called (direct.h) */
	cg_fed *fed;
	/* The roster being built: per node its url, name, workspace and
	 * sources; the strings are owned by strs. */
	const char **urls;
	cg_fed_node *nodes;
	size_t nnodes;
	size_t nlocal; /* nodes[0, nlocal) run here; the rest are remote */
	size_t cap;
	json_t *strs;
	bool on_demand; /* in-process nodes sync only when asked */
	bool oneshot;   /* gateway.h */
	bool direct_on; /* gateway.h: in-process nodes answer on the caller's
	                   thread */
};

static const char *
keep(cg_gateway *g, const char *s)
{
	json_t *v = json_string(s);

	json_array_append_new(g->strs, v);
	return json_string_value(v);
}

static int
add_node(cg_gateway *g, const char *url, const char *name, const char *ws,
         const char *const *sources, size_t nsources)
{
	const char **src = calloc(nsources + 1, sizeof(*src));

	if (src == NULL)
		return CG_ENOMEM;
	/* urls and nodes are NULL exactly while cap is 0. */
	if (g->nnodes == g->cap || g->urls == NULL || g->nodes == NULL) {
		size_t cap = g->cap ? g->cap * 2 : 8;
		const char **u = realloc(g->urls, cap * sizeof(*u));
		cg_fed_node *n;

		if (u == NULL) {
			free(src);
			return CG_ENOMEM;
		}
		g->urls = u;
		n = realloc(g->nodes, cap * sizeof(*n));
		if (n == NULL) {
			free(src);
			return CG_ENOMEM;
		}
		g->nodes = n;
		g->cap = cap;
	}
	for (size_t i = 0; i < nsources; i++)
		src[i] = keep(g, sources[i]);
	g->urls[g->nnodes] = keep(g, url);
	g->nodes[g->nnodes] =
	    (cg_fed_node){keep(g, name), keep(g, ws), src, nsources};
	g->nnodes++;
	return 0;
}

/* --- in-process nodes ------------------------------------------------------
 */

/* A repository's node: its wiki (first) and the corpora it registered. */
struct group {
	const cg_source *v[64];
	size_t n;
};

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): srv is stored in
 * g->servers, which cg_gateway_free frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
start_inproc(cg_gateway *g, const char *ws, const struct group *gr,
             const char *cache, cg_err *err)
{
	const cg_source *s = gr->v[0];
	char url[256];
	char name[256];
	cg_source ns[64];
	const char *names[64];
	cg_server_opts o;
	cg_server *srv = NULL;
	cg_server **v;
	int rc;

	for (size_t i = 0; i < gr->n; i++) {
		const cg_source *x = gr->v[i];

		ns[i] = *x; /* borrowed strings */
		names[i] = x->name;
	}
	(void)snprintf(url, sizeof(url), "inproc://cg-%p-%s-%s", (void *)g, ws,
	               s->name);
	(void)snprintf(name, sizeof(name), "%s/%s", ws, s->name);
	memset(&o, 0, sizeof(o));
	o.sources = ns;
	o.nsources = gr->n;
	o.cache_dir = cache;
	o.listen = url;
	o.name = name;
	o.on_demand = g->on_demand;
	o.oneshot = g->oneshot;
	o.direct = g->direct_on;
	o.log = g->log;
	o.log_ctx = g->log_ctx;
	v = realloc(g->servers, (g->nservers + 1) * sizeof(cg_server *));
	if (v == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	g->servers = v;
	rc = cg_server_new(&srv, &o, err);
	if (rc == 0)
		rc = cg_server_start(srv, err);
	if (rc != 0) {
		cg_server_free(srv);
		return rc;
	}
	g->servers[g->nservers++] = srv;
	return add_node(g, url, name, ws, names, gr->n)
	           ? cg_err_set(err, CG_ENOMEM, "out of memory")
	           : 0;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* --- child processes -------------------------------------------------------
 */

/* Room for one more child.  A grown array is kept as soon as realloc
 * returns it: the old block is gone, and cg_gateway_free frees both. */
static int
grow_children(cg_gateway *g)
{
	pid_t *v = realloc(g->children, (g->nchildren + 1) * sizeof(*v));
	struct errpipe *e;

	if (v == NULL)
		return -1;
	g->children = v;
	e = realloc(g->errs, (g->nchildren + 1) * sizeof(*e));
	if (e == NULL)
		return -1;
	g->errs = e;
	return 0;
}

static void
close_pair(int fds[2])
{
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
}

/* One line a child wrote: "TIME LEVEL COMPONENT MESSAGE" (cmd_node.c's
 * format) keeps its level and component; anything else (a usage error,
 * a crash report) is an error line of the node. */
static void
forward_line(const cg_gateway *g, const struct errpipe *e, char *line)
{
	static const char *const levels[] = {"debug", "info", "warn", "error"};
	char msg[LOG_LINE_MAX + 300];
	const char *level = "error";
	const char *component = "node";
	char *p = strchr(line, ' ');
	char *q = p ? strchr(p + 1, ' ') : NULL;
	char *r = q ? strchr(q + 1, ' ') : NULL;

	if (r != NULL) {
		*q = *r = '\0';
		for (size_t i = 0; i < 4; i++)
			if (strcmp(p + 1, levels[i]) == 0)
				level = levels[i];
		if (strcmp(level, p + 1) == 0) {
			component = q + 1;
			line = r + 1;
		} else {
			*q = *r = ' ';
		}
	}
	/* A node's own lines already name it; others get its name. */
	if (strstr(line, "node=") != NULL)
		(void)snprintf(msg, sizeof(msg), "%s", line);
	else
		(void)snprintf(msg, sizeof(msg), "%s node=%s", line, e->node);
	g->log(g->log_ctx, level, component, msg);
}

/* Reads what is in e's pipe and forwards every complete line; a line
 * longer than the buffer is forwarded cut.  0 at end of file. */
static int
drain(const cg_gateway *g, struct errpipe *e)
{
	ssize_t n = read(e->fd, e->buf + e->len, sizeof(e->buf) - 1 - e->len);
	char *nl;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n > 0)
		e->len += (size_t)n;
	e->buf[e->len] = '\0';
	while ((nl = strchr(e->buf, '\n')) != NULL) {
		size_t used = (size_t)(nl - e->buf) + 1;

		*nl = '\0';
		forward_line(g, e, e->buf);
		memmove(e->buf, e->buf + used, e->len - used + 1);
		e->len -= used;
	}
	if (e->len == sizeof(e->buf) - 1 || (n <= 0 && e->len > 0)) {
		forward_line(g, e, e->buf);
		e->len = 0;
	}
	return n > 0;
}

/* The log thread: every child's stderr until each reaches end of file
 * (its child has exited: cg_gateway_free waits for that). */
static void *
log_main(void *arg)
{
	cg_gateway *g = arg;
	struct pollfd *p = calloc(g->nchildren, sizeof(*p));
	size_t open = g->nchildren;

	while (p != NULL && open > 0) {
		for (size_t i = 0; i < g->nchildren; i++)
			p[i] = (struct pollfd){g->errs[i].fd, POLLIN, 0};
		if (poll(p, g->nchildren, -1) < 0 && errno != EINTR)
			break;
		for (size_t i = 0; i < g->nchildren; i++) {
			if (p[i].fd < 0 || p[i].revents == 0)
				continue;
			if (drain(g, &g->errs[i]) == 0) {
				close(g->errs[i].fd);
				g->errs[i].fd = -1;
				open--;
			}
		}
	}
	free(p);
	return NULL;
}

/* Reads the child's "listening <url>" line within the timeout. */
static int
read_listening(int fd, char *url, size_t n)
{
	char buf[512];
	size_t len = 0;
	struct pollfd p = {fd, POLLIN, 0};
	int64_t start = cg_mono_ms();

	while (len < sizeof(buf) - 1) {
		ssize_t r;
		int64_t waited = cg_mono_ms() - start;

		if (waited >= SPAWN_TIMEOUT_MS ||
		    poll(&p, 1, (int)(SPAWN_TIMEOUT_MS - waited)) <= 0)
			return -1;
		r = read(fd, buf + len, 1);
		if (r <= 0)
			return -1;
		if (buf[len] == '\n')
			break;
		len++;
	}
	buf[len] = '\0';
	if (strncmp(buf, "listening ", 10) != 0)
		return -1;
	(void)snprintf(url, n, "%s", buf + 10);
	return 0;
}

static int
start_child(cg_gateway *g, const char *exe, const char *ws,
            const struct group *gr, const char *cache, cg_err *err)
{
	const cg_source *s = gr->v[0];
	const char *names[64];

	char listen[4096];
	char url[512];
	char name[256];
	int fds[2];
	int efds[2] = {-1, -1};
	pid_t pid;

	(void)snprintf(listen, sizeof(listen), "ipc://%s/gw-%ld-%u-%zu.ipc",
	               cache, (long)getpid(), g->generation, g->nchildren);
	(void)snprintf(name, sizeof(name), "%s/%s", ws, s->name);
	if (grow_children(g) != 0)
		return cg_err_set(err, CG_EIO, "spawn: %s",
		                  cg_strerror(errno).s);
	if (pipe2(fds, O_CLOEXEC) != 0)
		return cg_err_set(err, CG_EIO, "spawn: %s",
		                  cg_strerror(errno).s);
	if (g->log != NULL && pipe2(efds, O_CLOEXEC) != 0) {
		int e = errno;

		close(fds[0]);
		close(fds[1]);
		return cg_err_set(err, CG_EIO, "spawn: %s", cg_strerror(e).s);
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(fds[0]);
		close(fds[1]);
		close_pair(efds);
		return cg_err_set(err, CG_EIO, "fork: %s", cg_strerror(e).s);
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		if (efds[1] >= 0)
			dup2(efds[1], 2);
		execl(exe, exe, "node", "--root", s->repo, "--source", s->name,
		      "--name", name, "--listen", listen, "--cache", cache,
		      g->log_debug ? "--verbose" : (char *)NULL, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (efds[1] >= 0)
		close(efds[1]);
	g->errs[g->nchildren] = (struct errpipe){.fd = efds[0]};
	(void)snprintf(g->errs[g->nchildren].node,
	               sizeof(g->errs[g->nchildren].node), "%s", name);
	g->children[g->nchildren++] = pid;
	if (read_listening(fds[0], url, sizeof(url)) != 0) {
		close(fds[0]);
		return cg_err_set(err, CG_EUNAVAIL,
		                  "node %s did not start (no listening line "
		                  "within %d ms)",
		                  name, SPAWN_TIMEOUT_MS);
	}
	close(fds[0]);
	for (size_t i = 0; i < gr->n; i++)
		names[i] = gr->v[i]->name;
	return add_node(g, url, name, ws, names, gr->n)
	           ? cg_err_set(err, CG_ENOMEM, "out of memory")
	           : 0;
}

/* --- assembly --------------------------------------------------------------
 */

/* The sources of node i: source i and, when it is a wiki, the corpora its
 * repository registered (a corpus whose registrar has no wiki is a node of
 * its own).  Marks them taken. */
static void
group_of(const cg_workspace *ws, size_t i, bool *taken, struct group *gr)
{
	const cg_source *s = &ws->sources[i];

	gr->n = 0;
	gr->v[gr->n++] = s;
	taken[i] = true;
	for (size_t j = 0; j < ws->nsources && gr->n < 64; j++) {
		const cg_source *c = &ws->sources[j];

		if (taken[j] || c->kind == CG_SRC_WIKI || c->registrar == NULL)
			continue;
		if (strcmp(c->registrar,
		           s->kind != CG_SRC_WIKI ? s->registrar : s->repo) ==
		    0) {
			gr->v[gr->n++] = c;
			taken[j] = true;
		}
	}
}

static int
open_workspace(cg_gateway *g, const cg_conf_workspace *w, const char *cache,
               const char *exe, cg_err *err)
{
	cg_workspace ws;
	struct group gr;
	bool *taken;
	int rc = cg_workspace_load(&ws, w->path, err);

	if (rc != 0)
		return rc;
	taken = calloc(ws.nsources + 1, sizeof(*taken));
	if (taken == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < ws.nsources; i++) {
		if (taken[i])
			continue;
		group_of(&ws, i, taken, &gr);
		/* A child serves a repository's wiki and its corpora;
		 * corpora without a wiki stay in-process. */
		rc = w->spawn && gr.v[0]->kind == CG_SRC_WIKI
		         ? start_child(g, exe, w->name, &gr, cache, err)
		         : start_inproc(g, w->name, &gr, cache, err);
	}
	free(taken);
	cg_workspace_fini(&ws);
	return rc;
}

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): add_node stores
 * each node's source list in g->nodes, which cg_gateway_free frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
open_roster(cg_gateway *g, const cg_config *c, const char *cache,
            const char *exe, cg_err *err)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < c->nworkspaces; i++)
		rc = open_workspace(g, &c->workspaces[i], cache, exe, err);
	g->nlocal = g->nnodes;
	for (size_t i = 0; rc == 0 && i < c->nnodes; i++) {
		const cg_conf_node *n = &c->nodes[i];

		if (add_node(g, n->url, n->name, n->workspace,
		             (const char *const *)n->sources, n->nsources))
			rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	return rc;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* The direct broadcast: each node's in-process server (found by its
 * address), or none for a child or a remote node. */
static int
open_direct(cg_gateway *g, cg_err *err)
{
	cg_server **srv = calloc(g->nnodes + 1, sizeof(cg_server *));
	int rc;

	if (srv == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	for (size_t i = 0; i < g->nnodes; i++)
		for (size_t k = 0; k < g->nservers && srv[i] == NULL; k++)
			if (strcmp(cg_server_url(g->servers[k]), g->urls[i]) ==
			    0)
				srv[i] = g->servers[k];
	rc = cg_direct_new(&g->direct, srv, g->urls, g->nnodes, err);
	free(srv);
	return rc;
}

int
cg_gateway_open(cg_gateway **out, const cg_gateway_opts *opts, cg_err *err)
{
	const cg_config *c = opts->config;
	cg_gateway *g = calloc(1, sizeof(*g));
	char *cache = c->cache ? strdup(c->cache) : cg_default_cache_dir();
	char self[4096];
	ssize_t sn = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *exe = opts->self_exe;
	cg_fed_opts fo;
	int rc;

	*out = NULL;
	if (g == NULL || cache == NULL || (g->strs = json_array()) == NULL) {
		free(g);
		free(cache);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	if (exe == NULL) {
		self[sn > 0 ? sn : 0] = '\0';
		exe = sn > 0 ? self : "/proc/self/exe";
	}
	g->on_demand = opts->on_demand;
	g->oneshot = opts->oneshot;
	g->direct_on = opts->direct;
	g->log = opts->log;
	g->log_ctx = opts->log_ctx;
	g->log_debug = opts->log_debug;
	g->generation = opts->generation;
	rc = cg_mkdir_p(cache, err);
	if (rc == 0)
		rc = open_roster(g, c, cache, exe, err);
	if (g->log != NULL && g->nchildren > 0) {
		g->log_running =
		    pthread_create(&g->log_thread, NULL, log_main, g) == 0;
		if (!g->log_running && rc == 0)
			rc =
			    cg_err_set(err, CG_ENOMEM, "cannot start a thread");
	}
	if (rc == 0 && g->direct_on)
		rc = open_direct(g, err);
	else if (rc == 0)
		rc = cg_transport_new(&g->transport, g->urls, g->nnodes, err);
	if (rc == 0) {
		fo = (cg_fed_opts){
		    c->nworkspaces ? c->workspaces[0].name : "remote",
		    g->nodes,
		    g->nnodes,
		    g->direct ? cg_direct_broadcast : cg_transport_broadcast,
		    g->direct ? (void *)g->direct : (void *)g->transport,
		    c->deadline_ms};
		rc = cg_fed_new(&g->fed, &fo, err);
	}
	free(cache);
	if (rc != 0) {
		cg_gateway_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

void
cg_gateway_free(cg_gateway *g)
{
	if (g == NULL)
		return;
	cg_fed_free(g->fed);
	cg_transport_free(g->transport);
	cg_direct_free(g->direct);
	for (size_t i = 0; i < g->nservers; i++)
		cg_server_free(g->servers[i]);
	for (size_t i = 0; i < g->nchildren; i++)
		(void)kill(g->children[i], SIGTERM);
	for (size_t i = 0; i < g->nchildren; i++)
		while (waitpid(g->children[i], NULL, 0) < 0 && errno == EINTR)
			;
	/* Every child is gone: each pipe reaches end of file. */
	if (g->log_running)
		pthread_join(g->log_thread, NULL);
	for (size_t i = 0; g->errs != NULL && i < g->nchildren; i++)
		if (g->errs[i].fd >= 0)
			close(g->errs[i].fd);
	free(g->errs);
	for (size_t i = 0; i < g->nnodes; i++)
		free((void *)g->nodes[i].sources);
	free(g->servers);
	free(g->children);
	free(g->urls);
	free(g->nodes);
	json_decref(g->strs);
	free(g);
}

cg_fed *
cg_gateway_fed(cg_gateway *g)
{
	return g->fed;
}

size_t
cg_gateway_nnodes(const cg_gateway *g)
{
	return g->nnodes;
}

int
cg_gateway_sync(cg_gateway *g, json_t **out, cg_err *err)
{
	size_t n = 0;
	const char **names;
	json_t *keep = json_array();
	int rc;

	*out = NULL;
	if (g->nlocal == 0) {
		json_decref(keep);
		*out = json_pack("{s:[], s:b}", "nodes", "degraded", 0);
		return *out ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	names = calloc(64 * g->nlocal + 1, sizeof(*names));
	for (size_t i = 0; names && keep && i < g->nlocal; i++)
		for (size_t k = 0; k < g->nodes[i].nsources; k++) {
			json_t *s = json_sprintf("%s/%s", g->nodes[i].workspace,
			                         g->nodes[i].sources[k]);

			if (s != NULL && json_array_append_new(keep, s) == 0)
				names[n++] = json_string_value(s);
		}
	if (names == NULL || keep == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	else
		rc = cg_fed_call(g->fed, "sync", NULL,
		                 g->nlocal == g->nnodes ? NULL : names,
		                 g->nlocal == g->nnodes ? 0 : n, out, err);
	free(names);
	json_decref(keep);
	return rc;
}

/* Whether the gateway's local nodes serve source src of workspace ws. */
static bool
serves(const cg_gateway *g, const char *ws, const char *src)
{
	for (size_t i = 0; i < g->nlocal; i++)
		for (size_t k = 0; k < g->nodes[i].nsources; k++)
			if (strcmp(g->nodes[i].workspace, ws) == 0 &&
			    strcmp(g->nodes[i].sources[k], src) == 0)
				return true;
	return false;
}

int
cg_gateway_stale(const cg_gateway *g, const cg_config *c, bool *stale,
                 cg_err *err)
{
	size_t now = 0;
	size_t had = 0;

	*stale = false;
	for (size_t i = 0; i < g->nlocal; i++)
		had += g->nodes[i].nsources;
	for (size_t i = 0; i < c->nworkspaces; i++) {
		cg_workspace ws;
		int rc = cg_workspace_load(&ws, c->workspaces[i].path, err);

		if (rc != 0)
			return rc;
		for (size_t k = 0; k < ws.nsources; k++)
			if (!serves(g, c->workspaces[i].name,
			            ws.sources[k].name))
				*stale = true;
		now += ws.nsources;
		cg_workspace_fini(&ws);
	}
	if (now != had)
		*stale = true;
	return 0;
}

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the name is stored
 * in cfg->workspaces, which cg_config_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
int
cg_config_for_workspace(cg_config *cfg, const char *dir, const char *cache,
                        bool spawn, int deadline_ms, cg_err *err)
{
	char *real = realpath(dir, NULL);
	char *copy;

	memset(cfg, 0, sizeof(*cfg));
	if (real == NULL)
		return cg_err_set(err, CG_EINVAL, "workspace %s: %s", dir,
		                  cg_strerror(errno).s);
	cfg->workspaces = calloc(1, sizeof(*cfg->workspaces));
	copy = strdup(real);
	if (cfg->workspaces != NULL) {
		cfg->nworkspaces = 1;
		cfg->workspaces[0].path = real;
		cfg->workspaces[0].spawn = spawn;
		real = NULL;
		if (copy != NULL)
			cfg->workspaces[0].name = strdup(basename(copy));
	}
	free(real);
	free(copy);
	cfg->cache = cache ? strdup(cache) : NULL;
	cfg->listen = strdup("http://127.0.0.1:7700");
	cfg->deadline_ms = deadline_ms > 0 ? deadline_ms : 800;
	if (cfg->workspaces == NULL || cfg->workspaces[0].name == NULL ||
	    (cache != NULL && cfg->cache == NULL) || cfg->listen == NULL) {
		cg_config_fini(cfg);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	return 0;
}
CG_ANALYZER_STORE_INTO_ARRAY_END
