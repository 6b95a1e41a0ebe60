/*
 * server.c - the node service (see server.h): one nng REP socket, a pool
 * of serve workers (one nng context, one aio and one reader node each)
 * answering requests in parallel, a grep worker the serve workers hand
 * greps to (so no search waits behind the files a grep reads), a sync
 * thread that owns the writer node and keeps the indexes current (start,
 * changes the watcher reports, client sync requests, periodic
 * reconcile).  What is served is sources.h; what counts as a change is
 * watch.h.  A direct server (a one-shot CLI command) opens only the
 * writer node, and cg_server_call answers on the caller's thread what a
 * worker or the sync thread would.
 *
 * What it must not do: share a cg_node between threads (each worker has
 * its own reader node, so its own SQLite connections, statement caches,
 * rank contexts and memo; nothing below node/ keeps process-wide mutable
 * state), keep state outside the cg_server, print (log lines go to the
 * caller's callback), or block queries behind a sync.  The only data the
 * threads share is the sync and grep job queues, the stop flag and the
 * sources whose last sync failed, all under the mutex.
 */
#define _GNU_SOURCE
#include "node/server.h"

#include <sys/resource.h>
#include <sys/sysinfo.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/rep.h>

#include "common/cg_buf.h"
#include "common/cg_fs.h"
#include "common/cg_time.h"
#include "conf/workspace.h"
#include "node/dispatch.h"
#include "node/node.h"
#include "node/sources.h"
#include "node/watch.h"
#include "proto/sock_close.h"
#include "proto/wire.h"

/* Longest a burst of changes may postpone a sync. */
#define DEBOUNCE_MAX_MS 1000
/* sun_path holds 108 bytes including the NUL. */
#define IPC_PATH_MAX 107

/* A client "sync" request handed from the serve to the sync thread. */
struct job {
	nng_ctx ctx; /* the request's context: the reply goes there */
	json_t *req; /* the decoded request (owned) */
};

/* A grep handed from a serve worker to the grep worker. */
struct grep_job {
	nng_ctx ctx; /* the request's context: the reply goes there */
	json_t *req; /* the decoded request (owned) */
	size_t len;  /* its bytes, for the log line */
};

/* One serve worker (or the grep worker): its thread, its receive/send aio
 * and the reader node only it uses. */
struct worker {
	cg_server *s;
	cg_node *reader; /* this worker's thread only */
	nng_aio *aio;    /* its receive and send; cancelled by stop */
	pthread_t th;
	bool running;
	unsigned sync_seen; /* this worker only: the sync_seq its reader has */
};

struct cg_server {
	cg_workspace ws;      /* the sources: one per wiki */
	char *name;           /* node name, in every reply */
	char *cache;          /* index cache root */
	char *url;            /* the address listened on */
	int64_t reconcile_ms; /* period of the full reconcile */
	bool on_demand;       /* syncs only on request */
	bool oneshot;         /* indexes opened oneshot (server.h) */
	int64_t debounce_ms;  /* quiet time after a change */
	cg_log_fn log;        /* may be NULL */
	void *log_ctx;
	struct worker *workers; /* the serve pool */
	size_t nworkers;
	cg_node *writer; /* used by the sync thread only */
	nng_socket sock; /* the REP socket */
	bool sock_open;
	int wake[2];       /* pipe: wakes the sync thread */
	nng_aio *sync_aio; /* the sync thread's replies */
	pthread_t sync_th;
	bool sync_running;
	pthread_mutex_t mu; /* guards stopping, jobs, njobs, sync_failed,
	                       sync_seq, and the start of each worker's aio
	                       operation */
	bool stopping;
	struct job jobs[CG_SERVER_SYNC_QUEUE];
	size_t njobs;
	/* The grep worker: it exists (grep.reader != NULL) unless
	 * on_demand.  greps[0..ngreps) wait for it, oldest first, under the
	 * mutex; grep_cv is signalled when one is queued and when stopping. */
	struct worker grep;
	pthread_cond_t grep_cv;
	struct grep_job greps[CG_SERVER_GREP_QUEUE];
	size_t ngreps;
	/* The sources whose last sync failed, {source: {code, message}}:
	 * written by the sync thread, handed to the reader before each
	 * request (its answers say the source was not updated).  Under
	 * the mutex, with sync_seq bumped on each change. */
	json_t *sync_failed;
	unsigned sync_seq;
	size_t check_next;    /* sync thread only: the source the next
	                         reconcile checks (check_one) */
	bool direct;          /* no socket, no thread (server.h) */
	unsigned direct_seen; /* direct: the sync_seq the writer has seen as
	                         a reader (pass_sync_failed) */
};

/* --- small helpers --------------------------------------------------- */

static void slog(const cg_server *s, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
slog(const cg_server *s, const char *level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (s->log == NULL)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Messages may quote request bytes: one line, no control codes. */
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = '?';
	s->log(s->log_ctx, level, "node", msg);
}

static void
wake(cg_server *s)
{
	ssize_t n;

	do
		n = write(s->wake[1], "w", 1);
	while (n < 0 && errno == EINTR);
	/* EAGAIN: the pipe is full, the thread is woken anyway. */
}

static void
drain_fd(int fd)
{
	char buf[64];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static bool
is_stopping(cg_server *s)
{
	bool v;

	pthread_mutex_lock(&s->mu);
	v = s->stopping;
	pthread_mutex_unlock(&s->mu);
	return v;
}

/* --- setup ----------------------------------------------------------- */

static int
copy_names(cg_server *s, const cg_server_opts *o, cg_err *err)
{
	s->name = strdup(o->name != NULL && *o->name ? o->name : s->ws.name);
	s->cache = strdup(o->cache_dir);
	if (s->name == NULL || s->cache == NULL)
		return cg_err_set(err, CG_ENOMEM, "node: out of memory");
	return 0;
}

/* The pool size: opts->workers, else $CORPUS_GW_NODE_WORKERS, else one
 * per two online CPUs; bounded by CG_SERVER_WORKERS_MAX.  Half the CPUs
 * because a gateway runs a node per repository beside its HTTP threads:
 * on 2 cores a second worker per node cost 16-25% of the queries per
 * second at 4 nodes (BENCHMARKS.md, bench/node-pool-bench).  A node that
 * syncs on demand (a one-shot CLI run) answers one request at a time:
 * one. */
static size_t
pool_size(const cg_server_opts *o)
{
	const char *env = getenv("CORPUS_GW_NODE_WORKERS");
	long n = o->workers;

	if (n <= 0 && o->on_demand)
		n = 1;
	if (n <= 0 && env != NULL && *env) {
		char *end = NULL;

		n = strtol(env, &end, 10);
		if (end == NULL || *end != '\0')
			n = 0;
	}
	if (n <= 0)
		n = get_nprocs() / 2;
	if (n < 1)
		n = 1;
	return n > CG_SERVER_WORKERS_MAX ? CG_SERVER_WORKERS_MAX : (size_t)n;
}

/* The writer, then one reader per worker: each its own SQLite
 * connections. */
static int
open_nodes(cg_server *s, size_t nworkers, cg_err *err)
{
	cg_node_opts o = {s->name, s->cache, s->ws.sources, s->ws.nsources,
	                  s->oneshot};
	int rc = cg_node_new(&s->writer, &o, err);

	/* A direct server has no worker: room for one keeps calloc off 0. */
	s->workers = calloc(nworkers ? nworkers : 1, sizeof(*s->workers));
	if (rc == 0 && s->workers == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "node: out of memory");
	for (size_t i = 0; rc == 0 && i < nworkers; i++) {
		s->workers[i].s = s;
		rc = cg_node_new(&s->workers[i].reader, &o, err);
		s->nworkers++;
	}
	s->grep.s = s;
	if (rc == 0 && !s->on_demand && !s->direct)
		rc = cg_node_new(&s->grep.reader, &o, err);
	return rc;
}

static int
open_wake(cg_server *s, cg_err *err)
{
	if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0)
		return cg_err_set(err, CG_EIO, "node: pipe: %s",
		                  cg_strerror(errno).s);
	return 0;
}

/* ipc://<cache>/<name>.ipc, the name reduced to a safe file name. */
static char *
default_url(const cg_server *s, cg_err *err)
{
	cg_buf b;
	size_t path_len;

	cg_buf_init(&b, 8192);
	(void)cg_buf_printf(&b, "ipc://%s/", s->cache);
	for (const char *p = s->name; *p; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		          (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		          c == '_';

		(void)cg_buf_putc(&b, (char)(ok ? c : '_'));
	}
	if (cg_buf_puts(&b, ".ipc") != 0) {
		cg_buf_fini(&b);
		cg_err_set(err, CG_ENOMEM, "node: out of memory");
		return NULL;
	}
	path_len = b.len - strlen("ipc://");
	if (path_len > IPC_PATH_MAX) {
		cg_err_set(err, CG_EINVAL,
		           "default socket path %s is %zu bytes, longer than "
		           "the %d an ipc socket allows: pass --listen or a "
		           "shorter --cache",
		           b.data + strlen("ipc://"), path_len, IPC_PATH_MAX);
		cg_buf_fini(&b);
		return NULL;
	}
	return cg_buf_take(&b);
}

static int
check_url(const char *url, cg_err *err)
{
	static const char *const unsupported[] = {"tls+tcp", "wss"};

	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(unsupported[i]);

		if (strncmp(url, unsupported[i], n) == 0 &&
		    (url[n] == ':' || url[n] == '4' || url[n] == '6'))
			return cg_err_set(err, CG_EINVAL,
			                  "cannot listen on %s: TLS needs a "
			                  "certificate configuration, not "
			                  "supported yet (use ipc:// or tcp:// "
			                  "on loopback)",
			                  url);
	}
	if (strncmp(url, "ipc://", 6) == 0 && strlen(url + 6) > IPC_PATH_MAX)
		return cg_err_set(err, CG_EINVAL,
		                  "cannot listen on %s: an ipc path is at most "
		                  "%d bytes",
		                  url, IPC_PATH_MAX);
	return 0;
}

/* The URL with a ":0" port replaced by the port the listener bound. */
static char *
bound_url(nng_listener l, const char *url)
{
	nng_url *u = NULL;
	int port = 0;
	cg_buf b;

	if (nng_url_parse(&u, url) != 0)
		return strdup(url);
	/* u_port and u_hostname are NULL for ipc:// and inproc://. */
	if (u->u_port == NULL || u->u_hostname == NULL ||
	    strcmp(u->u_port, "0") != 0 ||
	    nng_listener_get_int(l, NNG_OPT_TCP_BOUND_PORT, &port) != 0) {
		nng_url_free(u);
		return strdup(url);
	}
	cg_buf_init(&b, 8192);
	(void)cg_buf_printf(
	    &b, strchr(u->u_hostname, ':') ? "%s://[%s]:%d%s" : "%s://%s:%d%s",
	    u->u_scheme, u->u_hostname, port, u->u_requri ? u->u_requri : "");
	nng_url_free(u);
	return cg_buf_take(&b);
}

static int
listen_at(cg_server *s, const char *url, cg_err *err)
{
	nng_listener l;
	int rv;

	rv = nng_rep0_open(&s->sock);
	if (rv != 0)
		return cg_err_set(err, CG_EIO, "node: nng socket: %s",
		                  nng_strerror(rv));
	s->sock_open = true;
	/* nng's default receive limit is unlimited (FACTS.md). */
	rv =
	    nng_socket_set_size(s->sock, NNG_OPT_RECVMAXSZ, CG_SERVER_RECV_MAX);
	if (rv != 0)
		return cg_err_set(err, CG_EIO, "node: receive limit: %s",
		                  nng_strerror(rv));
	rv = nng_listener_create(&l, s->sock, url);
	if (rv != 0)
		return cg_err_set(err, CG_EINVAL, "cannot listen on %s: %s",
		                  url, nng_strerror(rv));
	(void)nng_listener_set_size(l, NNG_OPT_RECVMAXSZ, CG_SERVER_RECV_MAX);
	rv = nng_listener_start(l, 0);
	if (rv != 0)
		return cg_err_set(
		    err,
		    rv == NNG_EADDRINVAL || rv == NNG_ENOTSUP ? CG_EINVAL
		                                              : CG_EIO,
		    "cannot listen on %s: %s", url, nng_strerror(rv));
	s->url = bound_url(l, url);
	if (s->url == NULL)
		return cg_err_set(err, CG_ENOMEM, "node: out of memory");
	return 0;
}

static int
listen_on(cg_server *s, const char *url, cg_err *err)
{
	char *def = NULL;
	int rc;

	if (url == NULL) {
		def = default_url(s, err);
		if (def == NULL)
			return err != NULL && err->code ? err->code : CG_ENOMEM;
		url = def;
	}
	rc = check_url(url, err);
	if (rc == 0)
		rc = listen_at(s, url, err);
	free(def);
	return rc;
}

static void
log_warnings(const cg_server *s)
{
	for (char **w = s->ws.warnings; w != NULL && *w != NULL; w++)
		slog(s, "warn", "workspace warning root=%s message=\"%s\"",
		     s->ws.root, *w);
	for (size_t i = 0; i < cg_node_nsources(s->writer); i++) {
		const char *name = cg_node_source_name(s->writer, i);
		const char *why = cg_node_registry_error(s->writer, name);

		if (why != NULL)
			slog(s, "warn",
			     "registry unreadable source=%s error=\"%s\"", name,
			     why);
	}
}

int
cg_server_new(cg_server **out, const cg_server_opts *opts, cg_err *err)
{
	cg_server *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (s == NULL)
		return cg_err_set(err, CG_ENOMEM, "node: out of memory");
	s->wake[0] = s->wake[1] = -1;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->grep_cv, NULL);
	s->sync_failed = json_object();
	s->on_demand = opts->on_demand;
	s->oneshot = opts->oneshot;
	s->reconcile_ms =
	    (int64_t)(opts->reconcile_s > 0 ? opts->reconcile_s
	                                    : CG_SERVER_RECONCILE_S) *
	    1000;
	s->debounce_ms =
	    opts->debounce_ms > 0 ? opts->debounce_ms : CG_SERVER_DEBOUNCE_MS;
	s->log = opts->log;
	s->log_ctx = opts->log_ctx;
	rc = cg_sources_load(&s->ws, opts->root, opts->sources, opts->nsources,
	                     opts->name, err);
	if (rc == 0)
		rc = copy_names(s, opts, err);
	if (rc == 0)
		rc = cg_mkdir_p(s->cache, err);
	s->direct = opts->direct;
	if (rc == 0)
		rc = open_nodes(s, s->direct ? 0 : pool_size(opts), err);
	if (rc == 0)
		log_warnings(s);
	if (rc == 0 && !s->direct)
		rc = open_wake(s, err);
	if (rc == 0 && !s->direct)
		rc = listen_on(s, opts->listen, err);
	if (rc == 0 && s->direct &&
	    (s->url = strdup(opts->listen ? opts->listen : s->name)) == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "node: out of memory");
	if (rc != 0) {
		cg_server_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

const char *
cg_server_url(const cg_server *s)
{
	return s->url;
}

/* --- replies --------------------------------------------------------- */

/* Starts op on aio unless the server is stopping; under the mutex, so
 * that cg_server_stop()'s cancel can never miss an operation. */
static bool
start_op(cg_server *s, void (*op)(nng_ctx, nng_aio *), nng_ctx ctx,
         nng_aio *aio)
{
	bool go;

	pthread_mutex_lock(&s->mu);
	go = !s->stopping;
	if (go)
		op(ctx, aio);
	pthread_mutex_unlock(&s->mu);
	return go;
}

/* The bytes of reply (consumed), malloc'd; a reply too large to send is
 * replaced by an error reply.  NULL (logged) when out of memory. */
static char *
encode_reply(const cg_server *s, const cg_node *n, json_t *reply, size_t *len)
{
	char *buf = NULL;
	cg_err err;

	*len = 0;
	cg_err_clear(&err);
	if (reply != NULL && cg_wire_encode(reply, &buf, len, &err) != 0) {
		json_t *e = cg_wire_reply_error(cg_node_name(n),
		                                json_object_get(reply, "id"),
		                                err.code, err.msg);

		slog(s, "warn", "reply replaced by an error reason=\"%s\"",
		     err.msg);
		json_decref(reply);
		reply = e;
		if (reply != NULL && cg_wire_encode(reply, &buf, len, NULL))
			buf = NULL;
	}
	json_decref(reply);
	if (buf == NULL)
		slog(s, "error", "reply lost reason=out_of_memory");
	return buf;
}

/* Encodes reply (consumed) and sends it on ctx (encode_reply).  guarded:
 * start the send with start_op (a worker's aio, which cg_server_stop()
 * cancels). */
static void
send_reply(cg_server *s, const cg_node *n, nng_ctx ctx, nng_aio *aio,
           bool guarded, json_t *reply)
{
	size_t len = 0;
	char *buf = encode_reply(s, n, reply, &len);
	nng_msg *m = NULL;
	int rv;

	if (buf == NULL)
		return;
	rv = nng_msg_alloc(&m, 0);
	if (rv == 0)
		rv = nng_msg_append(m, buf, len);
	free(buf);
	if (rv != 0) {
		if (m != NULL)
			nng_msg_free(m);
		slog(s, "error", "reply lost reason=\"%s\"", nng_strerror(rv));
		return;
	}
	nng_aio_set_msg(aio, m);
	nng_aio_set_timeout(aio, CG_SERVER_SEND_TIMEOUT_MS);
	if (guarded && !start_op(s, nng_ctx_send, ctx, aio)) {
		nng_aio_set_msg(aio, NULL);
		nng_msg_free(m);
		return;
	}
	if (!guarded)
		nng_ctx_send(ctx, aio);
	nng_aio_wait(aio);
	rv = nng_aio_result(aio);
	if (rv != 0) {
		/* Ownership moves only when a send succeeds. */
		nng_msg_free(nng_aio_get_msg(aio));
		nng_aio_set_msg(aio, NULL);
		slog(s, "debug", "reply not delivered reason=\"%s\"",
		     nng_strerror(rv));
	}
}

/* --- serve workers --------------------------------------------------- */

/* The op for a log line: at most 32 printable characters. */
static const char *
op_name(const json_t *req)
{
	const char *op = json_string_value(json_object_get(req, "op"));

	if (op == NULL || strlen(op) > 32)
		return "?";
	for (const char *p = op; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '"' || *p == 0x7f)
			return "?";
	return op;
}

static bool
is_sync(const json_t *req)
{
	const char *op = json_string_value(json_object_get(req, "op"));

	return op != NULL && strcmp(op, "sync") == 0;
}

/* Queues a client sync for the sync thread; false when the queue is full
 * or the server is stopping.  Takes req on success. */
static bool
enqueue_sync(cg_server *s, nng_ctx ctx, json_t *req)
{
	bool ok;

	pthread_mutex_lock(&s->mu);
	ok = !s->stopping && s->njobs < CG_SERVER_SYNC_QUEUE;
	if (ok)
		s->jobs[s->njobs++] = (struct job){ctx, req};
	pthread_mutex_unlock(&s->mu);
	if (ok)
		wake(s);
	return ok;
}

/* Hands reader what the sync thread saw fail since *seen, its last
 * request (cg_node_set_sync_failed): a copy of its own, made under the
 * mutex. */
static void
pass_sync_failed(cg_server *s, cg_node *reader, unsigned *seen)
{
	json_t *copy = NULL;
	bool changed;

	pthread_mutex_lock(&s->mu);
	changed = s->sync_seq != *seen;
	if (changed) {
		if (json_object_size(s->sync_failed) > 0)
			copy = json_deep_copy(s->sync_failed);
		*seen = s->sync_seq;
	}
	pthread_mutex_unlock(&s->mu);
	if (changed)
		cg_node_set_sync_failed(reader, copy);
}

/* Queues a grep for the grep worker; false when its queue is full or the
 * server is stopping.  Takes req on success. */
static bool
enqueue_grep(cg_server *s, nng_ctx ctx, json_t *req, size_t len)
{
	bool ok;

	pthread_mutex_lock(&s->mu);
	ok = !s->stopping && s->ngreps < CG_SERVER_GREP_QUEUE;
	if (ok) {
		s->greps[s->ngreps++] = (struct grep_job){ctx, req, len};
		pthread_cond_signal(&s->grep_cv);
	}
	pthread_mutex_unlock(&s->mu);
	return ok;
}

/* reader's reply to req (borrowed, len bytes on the wire), logged; *seen
 * is the sync_seq reader was last handed (pass_sync_failed). */
static json_t *
answer(cg_server *s, cg_node *reader, unsigned *seen, const json_t *req,
       size_t len)
{
	int64_t t0 = cg_mono_ms();
	json_t *reply;

	pass_sync_failed(s, reader, seen);
	reply = cg_node_handle(reader, req);
	slog(s, "debug", "request op=%s bytes=%zu ok=%d ms=%lld", op_name(req),
	     len, json_is_true(json_object_get(reply, "ok")),
	     (long long)(cg_mono_ms() - t0));
	return reply;
}

/* Answers one received message (consumed) with w's reader; true when ctx
 * was handed to the sync thread or the grep worker, which replies on it
 * and closes it. */
static bool
serve_one(struct worker *w, nng_ctx ctx, nng_msg *msg)
{
	cg_server *s = w->s;
	const void *body = nng_msg_body(msg);
	size_t len = nng_msg_len(msg);
	json_t *req = NULL;
	json_t *reply;
	cg_err err;

	cg_err_clear(&err);
	if (cg_wire_decode(body, len, &req, &err) != 0) {
		slog(s, "warn",
		     "request refused code=%s bytes=%zu reason=\"%s\"",
		     cg_code_name(err.code), len, err.msg);
		reply = cg_wire_reply_refused(cg_node_name(w->reader), body,
		                              len, &err);
	} else if (is_sync(req) ||
	           (s->grep.reader != NULL && cg_node_op_scans_files(req))) {
		bool sync = is_sync(req);

		if (sync ? enqueue_sync(s, ctx, req)
		         : enqueue_grep(s, ctx, req, len)) {
			nng_msg_free(msg);
			return true;
		}
		reply = cg_wire_reply_error(
		    cg_node_name(w->reader), json_object_get(req, "id"),
		    CG_EUNAVAIL,
		    sync ? "node busy: too many sync requests waiting, or "
		           "shutting down"
		         : "node busy: too many greps waiting, or shutting "
		           "down");
		json_decref(req);
	} else {
		reply = answer(s, w->reader, &w->sync_seen, req, len);
		json_decref(req);
	}
	nng_msg_free(msg);
	send_reply(s, w->reader, ctx, w->aio, true, reply);
	return false;
}

/* A worker: receives on its own context and answers, until
 * cg_server_stop() cancels its aio.  The REP socket hands each request to
 * one waiting context, so the workers answer in parallel. */
static void *
serve_main(void *arg)
{
	struct worker *w = arg;
	cg_server *s = w->s;
	nng_aio *aio = w->aio;
	nng_ctx ctx;
	bool have_ctx = false;
	int rv = 0;

	while (rv == 0) {
		if (!have_ctx) {
			rv = nng_ctx_open(&ctx, s->sock);
			if (rv != 0)
				break;
			have_ctx = true;
		}
		nng_aio_set_timeout(aio, NNG_DURATION_INFINITE);
		if (!start_op(s, nng_ctx_recv, ctx, aio))
			break;
		nng_aio_wait(aio);
		rv = nng_aio_result(aio);
		if (rv == NNG_ECLOSED || rv == NNG_ECANCELED) {
			rv = 0;
			break;
		}
		if (rv != 0) {
			slog(s, "warn", "receive failed reason=\"%s\"",
			     nng_strerror(rv));
			/* Back off rather than spin on a failing socket. */
			(void)nanosleep(&(struct timespec){0, 10000000}, NULL);
			rv = 0;
			continue;
		}
		if (serve_one(w, ctx, nng_aio_get_msg(aio)))
			have_ctx = false;
	}
	if (rv != 0)
		slog(s, "error", "serve worker stopped reason=\"%s\"",
		     nng_strerror(rv));
	if (have_ctx)
		nng_ctx_close(ctx);
	return NULL;
}

/* --- the grep worker ------------------------------------------------- */

/* The oldest queued grep into *job; false when the server is stopping
 * (the jobs left are answered by refuse_greps). */
static bool
take_grep(cg_server *s, struct grep_job *job)
{
	bool go;

	pthread_mutex_lock(&s->mu);
	while (!s->stopping && s->ngreps == 0)
		pthread_cond_wait(&s->grep_cv, &s->mu);
	go = !s->stopping;
	if (go) {
		*job = s->greps[0];
		memmove(s->greps, s->greps + 1,
		        --s->ngreps * sizeof(s->greps[0]));
	}
	pthread_mutex_unlock(&s->mu);
	return go;
}

/* Answers the greps still queued at stop with "node shutting down". */
static void
refuse_greps(cg_server *s)
{
	struct grep_job jobs[CG_SERVER_GREP_QUEUE];
	size_t n;

	pthread_mutex_lock(&s->mu);
	n = s->ngreps;
	memcpy(jobs, s->greps, n * sizeof(*jobs));
	s->ngreps = 0;
	pthread_mutex_unlock(&s->mu);
	for (size_t i = 0; i < n; i++) {
		json_t *reply =
		    cg_wire_reply_error(cg_node_name(s->grep.reader),
		                        json_object_get(jobs[i].req, "id"),
		                        CG_EUNAVAIL, "node shutting down");

		send_reply(s, s->grep.reader, jobs[i].ctx, s->grep.aio, false,
		           reply);
		nng_ctx_close(jobs[i].ctx);
		json_decref(jobs[i].req);
	}
}

/* The grep worker: answers the greps the serve workers hand it, one at a
 * time, at a lower priority (Linux's nice is per thread), until stop. */
static void *
grep_main(void *arg)
{
	struct worker *w = arg;
	cg_server *s = w->s;
	struct grep_job job;

	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), CG_SERVER_GREP_NICE);
	while (take_grep(s, &job)) {
		json_t *reply =
		    answer(s, w->reader, &w->sync_seen, job.req, job.len);

		json_decref(job.req);
		send_reply(s, w->reader, job.ctx, w->aio, true, reply);
		nng_ctx_close(job.ctx);
	}
	refuse_greps(s);
	return NULL;
}

/* --- sync thread: syncing -------------------------------------------- */

/* Records which sources a sync reply says failed (and which synced),
 * for the reader (pass_sync_failed). */
static void
note_sync(cg_server *s, const json_t *reply)
{
	json_t *res = json_object_get(reply, "result");
	const char *name;
	json_t *v;

	if (!json_is_true(json_object_get(reply, "ok")) || res == NULL)
		return;
	pthread_mutex_lock(&s->mu);
	json_object_foreach(json_object_get(res, "sources"), name, v)
		if (json_object_del(s->sync_failed, name) == 0)
			s->sync_seq++;
	json_object_foreach(json_object_get(res, "failed"), name, v) {
		json_object_set_new(s->sync_failed, name, json_deep_copy(v));
		s->sync_seq++;
	}
	pthread_mutex_unlock(&s->mu);
}

/* One log line per source that changed (every source at start), and one
 * per source that failed. */
static void
log_sync(cg_server *s, const char *why, const json_t *reply, int64_t ms)
{
	const json_t *res = json_object_get(reply, "result");
	const json_t *per = json_object_get(res, "sources");
	const char *name;
	json_t *st;

	if (!json_is_true(json_object_get(reply, "ok"))) {
		slog(s, "error", "sync failed reason=%s error=\"%s\"", why,
		     json_string_value(json_object_get(
		         json_object_get(reply, "error"), "message")));
		return;
	}
	json_object_foreach(json_object_get(res, "failed"), name, st)
		slog(s, "error",
		     "sync failed reason=%s source=%s code=%s error=\"%s\"",
		     why, name, json_string_value(json_object_get(st, "code")),
		     json_string_value(json_object_get(st, "message")));
	json_object_foreach((json_t *)per, name, st) {
		long long v[6] = {0};
		static const char *const k[6] = {"generation", "files",
		                                 "reparsed",   "added",
		                                 "deleted",    "skipped"};
		bool changed = strcmp(why, "start") == 0 ||
		               json_is_true(json_object_get(st, "rebuilt"));

		for (int i = 0; i < 6; i++) {
			v[i] = json_integer_value(json_object_get(st, k[i]));
			changed = changed || (i >= 2 && i <= 4 && v[i] > 0);
		}
		slog(s, changed ? "info" : "debug",
		     "sync done reason=%s source=%s generation=%lld files=%lld "
		     "reparsed=%lld added=%lld deleted=%lld skipped=%lld "
		     "ms=%lld",
		     why, name, v[0], v[1], v[2], v[3], v[4], v[5],
		     (long long)ms);
	}
}

static void
run_sync(cg_server *s, const char *why)
{
	json_t *req = json_pack("{s:i, s:n, s:s}", "v", CG_PROTO_VERSION, "id",
	                        "op", "sync");
	int64_t t0 = cg_mono_ms();
	json_t *reply = req ? cg_node_handle(s->writer, req) : NULL;

	if (reply == NULL)
		slog(s, "error", "sync failed reason=%s error=out_of_memory",
		     why);
	else
		log_sync(s, why, reply, cg_mono_ms() - t0);
	note_sync(s, reply);
	json_decref(reply);
	json_decref(req);
}

/* --- direct calls ---------------------------------------------------- */

char *
cg_server_call(cg_server *s, const void *buf, size_t len, size_t *out_len)
{
	json_t *req = NULL;
	json_t *reply;
	int64_t t0 = cg_mono_ms();
	cg_err err;

	/* The writer is also the reader: one thread, one node. */
	cg_err_clear(&err);
	if (cg_wire_decode(buf, len, &req, &err) != 0) {
		slog(s, "warn",
		     "request refused code=%s bytes=%zu reason=\"%s\"",
		     cg_code_name(err.code), len, err.msg);
		reply = cg_wire_reply_refused(cg_node_name(s->writer), buf, len,
		                              &err);
	} else if (is_sync(req)) {
		reply = cg_node_handle(s->writer, req);
		if (reply != NULL)
			log_sync(s, "request", reply, cg_mono_ms() - t0);
		note_sync(s, reply);
	} else {
		reply = answer(s, s->writer, &s->direct_seen, req, len);
	}
	json_decref(req);
	return encode_reply(s, s->writer, reply, out_len);
}

/* The reconcile's integrity check: PRAGMA quick_check of one source per
 * reconcile, in turn (its cost is a read of the whole index: one source a
 * tick bounds it), a damaged index rebuilt from its pages before a query
 * meets the damage (cg_index_check). */
static void
check_one(cg_server *s)
{
	size_t n = cg_node_nsources(s->writer);
	size_t i = n > 0 ? s->check_next++ % n : 0;
	const char *name = cg_node_source_name(s->writer, i);
	int64_t t0 = cg_mono_ms();
	cg_sync_stats st;
	cg_err err;
	int rc;

	if (n == 0)
		return;
	cg_err_clear(&err);
	rc = cg_index_check(cg_node_index(s->writer, i), &st, &err);
	if (rc != 0)
		slog(s, "warn", "index check failed source=%s error=\"%s\"",
		     name, err.msg);
	else if (st.rebuilt)
		slog(s, "error",
		     "index damaged, rebuilt source=%s generation=%lld "
		     "reason=\"%s\" ms=%lld",
		     name, (long long)st.generation, st.rebuild_reason,
		     (long long)(cg_mono_ms() - t0));
	else
		slog(s, "debug", "index check ok source=%s ms=%lld", name,
		     (long long)(cg_mono_ms() - t0));
}

/* Answers the queued client syncs; when final, with "shutting down". */
static void
answer_jobs(cg_server *s, nng_aio *aio, bool final)
{
	struct job jobs[CG_SERVER_SYNC_QUEUE];
	size_t n;

	pthread_mutex_lock(&s->mu);
	n = s->njobs;
	memcpy(jobs, s->jobs, n * sizeof(*jobs));
	s->njobs = 0;
	pthread_mutex_unlock(&s->mu);
	for (size_t i = 0; i < n; i++) {
		int64_t t0 = cg_mono_ms();
		json_t *reply;

		if (final) {
			reply = cg_wire_reply_error(
			    cg_node_name(s->writer),
			    json_object_get(jobs[i].req, "id"), CG_EUNAVAIL,
			    "node shutting down");
		} else {
			reply = cg_node_handle(s->writer, jobs[i].req);
			if (reply != NULL)
				log_sync(s, "request", reply,
				         cg_mono_ms() - t0);
			note_sync(s, reply);
		}
		send_reply(s, s->writer, jobs[i].ctx, aio, false, reply);
		nng_ctx_close(jobs[i].ctx);
		json_decref(jobs[i].req);
	}
}

/* Milliseconds poll may wait: until the reconcile, or the end of the
 * debounce when changes are pending. */
static int
wait_ms(const cg_server *s, int64_t now, int64_t next_rec, bool dirty,
        int64_t first, int64_t last)
{
	int64_t until = next_rec;

	if (dirty) {
		int64_t d = last + s->debounce_ms;

		if (d > first + DEBOUNCE_MAX_MS)
			d = first + DEBOUNCE_MAX_MS;
		if (d < until)
			until = d;
	}
	if (until <= now)
		return 0;
	return until - now > 60000 ? 60000 : (int)(until - now);
}

static void
sync_loop(cg_server *s, cg_watch *w, nng_aio *aio)
{
	int64_t next_rec =
	    s->on_demand ? INT64_MAX : cg_mono_ms() + s->reconcile_ms;
	int64_t first = 0;
	int64_t last = 0;
	bool dirty = false;

	while (!is_stopping(s)) {
		struct pollfd p[2] = {{s->wake[0], POLLIN, 0},
		                      {w->fd, POLLIN, 0}};
		int64_t now = cg_mono_ms();

		(void)poll(p, 2, wait_ms(s, now, next_rec, dirty, first, last));
		if (p[0].revents & POLLIN)
			drain_fd(s->wake[0]);
		if (w->fd >= 0 && (p[1].revents & POLLIN) &&
		    cg_watch_read(w) > 0) {
			now = cg_mono_ms();
			if (!dirty)
				first = now;
			dirty = true;
			last = now;
		}
		if (w->rescan)
			cg_watch_rescan(w);
		answer_jobs(s, aio, false);
		now = cg_mono_ms();
		if (dirty && (now >= last + s->debounce_ms ||
		              now >= first + DEBOUNCE_MAX_MS)) {
			dirty = false;
			run_sync(s, "change");
		}
		if (now >= next_rec) {
			cg_watch_rescan(w);
			run_sync(s, "reconcile");
			check_one(s);
			next_rec = cg_mono_ms() + s->reconcile_ms;
		}
	}
}

static void
watch_warn(void *ctx, const char *msg)
{
	slog(ctx, "warn", "%s", msg);
}

static void *
sync_main(void *arg)
{
	cg_server *s = arg;
	cg_watch w;

	cg_watch_init(&w, s->ws.sources, s->ws.nsources, watch_warn, s);
	/* Watch first: a change made during the first sync is not lost. */
	if (!s->on_demand) {
		cg_watch_start(&w);
		run_sync(s, "start");
	}
	sync_loop(s, &w, s->sync_aio);
	answer_jobs(s, s->sync_aio, true);
	cg_watch_fini(&w);
	return NULL;
}

/* --- lifecycle ------------------------------------------------------- */

int
cg_server_start(cg_server *s, cg_err *err)
{
	int rc;

	if (s->direct)
		return 0; /* answers on the caller's thread */
	if (nng_aio_alloc(&s->sync_aio, NULL, NULL) != 0)
		return cg_err_set(err, CG_ENOMEM, "node: out of memory");
	for (size_t i = 0; i < s->nworkers; i++)
		if (nng_aio_alloc(&s->workers[i].aio, NULL, NULL) != 0)
			return cg_err_set(err, CG_ENOMEM,
			                  "node: out of memory");
	rc = pthread_create(&s->sync_th, NULL, sync_main, s);
	if (rc != 0)
		return cg_err_set(err, CG_ERR,
		                  "node: cannot start a thread: %s",
		                  cg_strerror(rc).s);
	s->sync_running = true;
	if (s->grep.reader != NULL) {
		if (nng_aio_alloc(&s->grep.aio, NULL, NULL) != 0) {
			cg_server_stop(s);
			return cg_err_set(err, CG_ENOMEM,
			                  "node: out of memory");
		}
		rc = pthread_create(&s->grep.th, NULL, grep_main, &s->grep);
		if (rc != 0) {
			cg_server_stop(s);
			return cg_err_set(err, CG_ERR,
			                  "node: cannot start a thread: %s",
			                  cg_strerror(rc).s);
		}
		s->grep.running = true;
	}
	for (size_t i = 0; i < s->nworkers; i++) {
		struct worker *w = &s->workers[i];

		rc = pthread_create(&w->th, NULL, serve_main, w);
		if (rc != 0) {
			cg_server_stop(s);
			return cg_err_set(err, CG_ERR,
			                  "node: cannot start a thread: %s",
			                  cg_strerror(rc).s);
		}
		w->running = true;
	}
	slog(s, "info",
	     "serving node=%s url=%s sources=%zu workers=%zu reconcile_s=%lld",
	     s->name, s->url, s->ws.nsources, s->nworkers,
	     (long long)(s->reconcile_ms / 1000));
	return 0;
}

/*
 * Every thread is joined before the socket closes: nng 1.5.2 panics when
 * nng_ctx_send() races with nng_close().  A worker starts every operation
 * under the mutex only while not stopping, so cancelling the workers' aios
 * here ends a receive (or a slow send) at once; a worker answering a
 * request finishes it, finds the server stopping and drops the reply
 * (the client's request fails when the socket closes); the grep worker
 * does the same with the grep it is answering, then answers the queued
 * greps ("shutting down"); the sync thread finishes its sync, answers the
 * queued syncs ("shutting down") and returns.
 */
void
cg_server_stop(cg_server *s)
{
	pthread_mutex_lock(&s->mu);
	s->stopping = true;
	for (size_t i = 0; i < s->nworkers; i++)
		if (s->workers[i].aio != NULL)
			nng_aio_cancel(s->workers[i].aio);
	if (s->grep.aio != NULL)
		nng_aio_cancel(s->grep.aio);
	pthread_cond_broadcast(&s->grep_cv);
	pthread_mutex_unlock(&s->mu);
	if (s->wake[1] >= 0)
		wake(s);
	for (size_t i = 0; i < s->nworkers; i++) {
		if (s->workers[i].running) {
			pthread_join(s->workers[i].th, NULL);
			s->workers[i].running = false;
		}
	}
	if (s->grep.running) {
		pthread_join(s->grep.th, NULL);
		s->grep.running = false;
	}
	if (s->sync_running) {
		pthread_join(s->sync_th, NULL);
		s->sync_running = false;
	}
	/* Bounded (proto/sock_close.h): a gateway's request still arriving
	 * in pieces can make nng_close wait for ever.  No callback of the
	 * socket points into s, so s may be freed after a close left
	 * running. */
	if (s->sock_open) {
		if (cg_sockclose_all(&s->sock, 1, CG_SOCKCLOSE_WAIT_MS) != 0)
			slog(s, "warn",
			     "socket close still running after %d ms, left "
			     "to the exit",
			     CG_SOCKCLOSE_WAIT_MS);
		s->sock_open = false;
	}
}

void
cg_server_free(cg_server *s)
{
	if (s == NULL)
		return;
	cg_server_stop(s);
	nng_aio_free(s->sync_aio);
	for (size_t i = 0; i < s->nworkers; i++) {
		nng_aio_free(s->workers[i].aio);
		cg_node_free(s->workers[i].reader);
	}
	free(s->workers);
	nng_aio_free(s->grep.aio);
	cg_node_free(s->grep.reader);
	cg_node_free(s->writer);
	for (int i = 0; i < 2; i++)
		if (s->wake[i] >= 0)
			close(s->wake[i]);
	pthread_cond_destroy(&s->grep_cv);
	pthread_mutex_destroy(&s->mu);
	json_decref(s->sync_failed);
	cg_workspace_fini(&s->ws);
	free(s->name);
	free(s->cache);
	free(s->url);
	free(s);
}
