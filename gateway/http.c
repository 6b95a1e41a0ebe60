/*
 * http.c - the HTTP endpoint.  Routes:
 *   GET  /healthz            {"ok":true,"version":"x.y.z"}
 *   GET  /readyz             {"ready":true} once the owner says so
 *                            (cg_http_set_ready), else 503
 *   GET  /metrics            Prometheus text
 *   GET  /v1/<tool>?...      the JSON API (api.h); repeat a list argument
 *   POST /mcp                MCP (mcp.h); GET and DELETE /mcp answer 405
 * Every request is screened as soon as its headers are in (Host, Origin,
 * method, Content-Length, MCP-Protocol-Version), before any body byte is
 * read.  Errors are JSON {"error":{"code","message"}} with the status of
 * cg_code_http().  A watchdog thread enforces the request deadline
 * (http.h); it shuts down only sockets of connections libmicrohttpd has
 * not closed yet (the close notification unlinks them under the same
 * mutex, before libmicrohttpd closes the descriptor).  A request holds
 * the roster (federation and tokens) it began with until it completes;
 * cg_http_swap installs a new one and waits for the holders of the old
 * one, so a reload drops no request (http.h).  This file must not know
 * what a tool does: that is api.c and mcp.c.
 */
#define _GNU_SOURCE
#include "gateway/http.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "common/cg_analyzer.h"
#include "common/cg_buf.h"
#include "common/cg_time.h"
#include "common/cg_version.h"
#include "gateway/api.h"
#include "gateway/mcp.h"
#include "gateway/metrics.h"
#include "proto/acl.h"

#define WATCHDOG_TICK_MS 100
#define HEALTHZ          "{\"ok\":true,\"version\":\"" CG_VERSION "\"}"

/* One open connection, for the deadline watchdog. */
struct conn {
	struct conn *prev;
	struct conn *next;
	int fd;
	int busy;         /* a complete request is being answered */
	int cut;          /* already shut down by the watchdog */
	int64_t since_ms; /* waiting for a complete request since */
};

/* What requests are answered with.  refs counts the requests holding it;
 * a roster that is no longer h->cur is released by its last holder's
 * completion (the swapper waits for that, then frees it). */
struct roster {
	cg_fed *fed;
	const cg_http_token *tokens; /* borrowed from the caller */
	size_t ntokens;
	int refs;
};

struct cg_http {
	struct MHD_Daemon *d;
	cg_metrics *metrics;
	int port;
	int loopback;
	int timeout_s;
	char url[128];
	char **origins; /* allowed Origin values, NULL-terminated */
	/* The current roster: cur and every roster's refs are guarded by
	 * ro_mu; ro_cv is signalled when an old roster's last holder goes. */
	struct roster *cur;
	atomic_bool ready; /* /readyz: cg_http_set_ready */
	pthread_mutex_t ro_mu;
	pthread_cond_t ro_cv;
	/* The watchdog: conns and stop are guarded by mu. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t watchdog;
	int watchdog_running;
	int stop;
	struct conn conns; /* sentinel of a circular list */
};

/* Per-request state across the handler's calls. */
struct req {
	cg_buf body;
	struct timespec start;
	const cg_acl *acl; /* the caller's policy (NULL: everything) */
	struct roster *ro; /* held from begin to completed */
};

/* --- the roster: held by each request, swapped by a reload -----------------
 */

static struct roster *
roster_hold(cg_http *h)
{
	struct roster *r;

	pthread_mutex_lock(&h->ro_mu);
	r = h->cur;
	r->refs++;
	pthread_mutex_unlock(&h->ro_mu);
	return r;
}

static void
roster_release(cg_http *h, struct roster *r)
{
	pthread_mutex_lock(&h->ro_mu);
	if (--r->refs == 0 && r != h->cur)
		pthread_cond_broadcast(&h->ro_cv);
	pthread_mutex_unlock(&h->ro_mu);
}

static double
elapsed(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) +
	       (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

/* --- responses ------------------------------------------------------------ */

/* allow: the Allow header of a 405, else NULL. */
static enum MHD_Result
send_text(struct MHD_Connection *c, int status, const char *type,
          const char *text, size_t len, const char *allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    len, (void *)text, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ok;

	if (r == NULL)
		return MHD_NO;
	(void)MHD_add_response_header(r, "Content-Type", type);
	(void)MHD_add_response_header(r, "Cache-Control", "no-store");
	if (allow != NULL)
		(void)MHD_add_response_header(r, "Allow", allow);
	ok = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result
send_json(struct MHD_Connection *c, int status, const json_t *v,
          const char *allow)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
	enum MHD_Result ok;

	if (text == NULL)
		return MHD_NO;
	ok =
	    send_text(c, status, "application/json", text, strlen(text), allow);
	free(text);
	return ok;
}

static enum MHD_Result
send_error_allow(struct MHD_Connection *c, int status, const char *code,
                 const char *msg, const char *allow)
{
	json_t *v =
	    json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", msg);
	enum MHD_Result ok = v ? send_json(c, status, v, allow) : MHD_NO;

	json_decref(v);
	return ok;
}

static enum MHD_Result
send_error(struct MHD_Connection *c, int status, const char *code,
           const char *msg)
{
	return send_error_allow(c, status, code, msg, NULL);
}

/* --- the request deadline ------------------------------------------------- */

static struct conn *
conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* busy 1: a complete request (or a refusal) is being answered, so the
 * deadline is off; busy 0: the answer is done, a new request is awaited
 * from now on. */
static void
conn_busy(cg_http *h, struct MHD_Connection *c, int busy)
{
	struct conn *k = conn_of(c);

	if (k == NULL)
		return;
	pthread_mutex_lock(&h->mu);
	k->busy = busy;
	if (!busy)
		k->since_ms = cg_mono_ms();
	pthread_mutex_unlock(&h->mu);
}

static void
notify_conn(void *cls, struct MHD_Connection *c, void **socket_context,
            enum MHD_ConnectionNotificationCode code)
{
	cg_http *h = cls;
	struct conn *k = *socket_context;
	const union MHD_ConnectionInfo *ci;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c,
		                             MHD_CONNECTION_INFO_CONNECTION_FD);
		k = ci ? calloc(1, sizeof(*k)) : NULL;
		if (k == NULL)
			return; /* untracked: the idle timeout still holds */
		k->fd = ci->connect_fd;
		k->since_ms = cg_mono_ms();
		pthread_mutex_lock(&h->mu);
		k->next = h->conns.next;
		k->prev = &h->conns;
		h->conns.next->prev = k;
		h->conns.next = k;
		pthread_mutex_unlock(&h->mu);
		*socket_context = k;
		return;
	}
	if (k == NULL)
		return;
	pthread_mutex_lock(&h->mu);
	k->prev->next = k->next;
	k->next->prev = k->prev;
	pthread_mutex_unlock(&h->mu);
	free(k);
	*socket_context = NULL;
}

/* Shuts down every connection past its deadline; under h->mu. */
static void
cut_late(cg_http *h, int64_t now)
{
	int64_t limit = (int64_t)h->timeout_s * 1000;

	for (struct conn *k = h->conns.next; k != &h->conns; k = k->next) {
		if (k->busy || k->cut || now - k->since_ms < limit)
			continue;
		/* libmicrohttpd sees end of file and closes the connection;
		 * the fd is still its own (not yet closed, see above). */
		(void)shutdown(k->fd, SHUT_RDWR);
		k->cut = 1;
	}
}

static void *
watchdog_main(void *arg)
{
	cg_http *h = arg;
	struct timespec ts;

	pthread_mutex_lock(&h->mu);
	while (!h->stop) {
		cut_late(h, cg_mono_ms());
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += WATCHDOG_TICK_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		(void)pthread_cond_timedwait(&h->cv, &h->mu, &ts);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* --- request hygiene ------------------------------------------------------ */

static int
host_ok(const cg_http *h, const char *host)
{
	char want[64];
	static const char *const names[] = {"127.0.0.1", "localhost", "[::1]",
	                                    NULL};

	if (host == NULL)
		return 0;
	if (!h->loopback)
		return 1; /* a public bind is protected by tokens */
	for (size_t i = 0; names[i] != NULL; i++) {
		(void)snprintf(want, sizeof(want), "%s:%d", names[i], h->port);
		if (strcasecmp(host, want) == 0)
			return 1;
	}
	return 0;
}

static int
origin_ok(const cg_http *h, const char *origin)
{
	char want[64];
	static const char *const names[] = {"127.0.0.1", "localhost", "[::1]",
	                                    NULL};

	if (origin == NULL)
		return 1; /* not a browser */
	for (size_t i = 0; names[i] != NULL; i++) {
		(void)snprintf(want, sizeof(want), "http://%s:%d", names[i],
		               h->port);
		if (strcasecmp(origin, want) == 0)
			return 1;
	}
	for (size_t i = 0; h->origins != NULL && h->origins[i] != NULL; i++)
		if (strcmp(origin, h->origins[i]) == 0)
			return 1;
	return 0;
}

/* A declared body over the cap (libmicrohttpd has already refused a
 * malformed Content-Length with 400). */
static int
declared_too_big(struct MHD_Connection *c)
{
	const char *cl =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
	char *end = NULL;
	unsigned long long n;

	if (cl == NULL)
		return 0;
	errno = 0;
	n = strtoull(cl, &end, 10);
	return errno != 0 || n > CG_HTTP_MAX_BODY;
}

/*
 * The checks that headers alone decide, run before any body byte is read.
 * Returns 1 when it queued a refusal (*ok gets the queueing result), 0
 * when the request may go on.
 */
static int
screen(cg_http *h, struct MHD_Connection *c, const char *url,
       const char *method, enum MHD_Result *ok)
{
	int mcp = strcmp(url, "/mcp") == 0;
	const char *ver;

	*ok = MHD_YES;
	if (!host_ok(h,
	             MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host")))
		*ok = send_error(c, 403, "forbidden", "unexpected Host");
	else if (!origin_ok(h, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	                                                   "Origin")))
		*ok = send_error(c, 403, "forbidden", "foreign Origin");
	else if (mcp && strcmp(method, "POST") != 0)
		*ok = send_error_allow(c, 405, "method_not_allowed",
		                       "use POST for MCP (no SSE stream here)",
		                       "POST");
	else if (!mcp && strcmp(method, "GET") != 0 &&
	         strcmp(method, "HEAD") != 0)
		*ok = send_error_allow(c, 405, "method_not_allowed", "use GET",
		                       "GET, HEAD");
	else if (declared_too_big(c))
		*ok = send_error(c, 413, "too_big", "request body over 1 MiB");
	else if (mcp &&
	         (ver = MHD_lookup_connection_value(
	              c, MHD_HEADER_KIND, "MCP-Protocol-Version")) != NULL &&
	         !cg_mcp_version_ok(ver))
		*ok = send_error(c, 400, "invalid_input",
		                 "unsupported MCP-Protocol-Version");
	else
		return 0;
	return 1;
}

/* --- the JSON API ----------------------------------------------------------
 */

struct argv_ctx {
	const cg_api_tool *tool;
	json_t *args;
	cg_err *err;
};

static int
in_list(const char *const *v, const char *key)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		if (strcmp(v[i], key) == 0)
			return 1;
	return 0;
}

static json_t *
typed_value(const cg_api_tool *t, const char *key, const char *val, cg_err *err)
{
	char *end = NULL;
	long long n;

	if (in_list(t->ints, key)) {
		errno = 0;
		n = strtoll(val, &end, 10);
		if (end == val || *end != '\0' || errno != 0) {
			cg_err_set(err, CG_EINVAL, "'%s' must be an integer",
			           key);
			return NULL;
		}
		return json_integer(n);
	}
	if (in_list(t->bools, key)) {
		if (strcmp(val, "true") == 0 || strcmp(val, "1") == 0)
			return json_true();
		if (strcmp(val, "false") == 0 || strcmp(val, "0") == 0)
			return json_false();
		cg_err_set(err, CG_EINVAL, "'%s' must be true or false", key);
		return NULL;
	}
	return json_string(val);
}

static enum MHD_Result
collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
            const char *val)
{
	struct argv_ctx *a = cls;
	json_t *v;
	json_t *old;

	(void)kind;
	if (a->err->code != 0)
		return MHD_NO;
	v = typed_value(a->tool, key, val ? val : "", a->err);
	if (v == NULL) {
		if (a->err->code == 0)
			cg_err_set(a->err, CG_EINVAL, "bad value for '%s'",
			           key);
		return MHD_NO;
	}
	old = json_object_get(a->args, key);
	if (in_list(a->tool->lists, key)) {
		if (old == NULL) {
			old = json_array();
			json_object_set_new(a->args, key, old);
		}
		json_array_append_new(old, v);
		return MHD_YES;
	}
	if (old != NULL) {
		json_decref(v);
		cg_err_set(a->err, CG_EINVAL, "'%s' given twice", key);
		return MHD_NO;
	}
	json_object_set_new(a->args, key, v);
	return MHD_YES;
}

static enum MHD_Result
api_route(cg_http *h, struct MHD_Connection *c, const char *name,
          struct req *rq)
{
	const cg_api_tool *t = cg_api_find(name);
	struct argv_ctx a;
	json_t *out = NULL;
	json_t *err_json;
	cg_err err;
	int status;
	enum MHD_Result ok;

	cg_err_clear(&err);
	if (t == NULL || strncmp(name, "corpus_", 7) == 0)
		return send_error(c, 404, "not_found", "no such API route");
	a = (struct argv_ctx){t, json_object(), &err};
	(void)MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg,
	                                &a);
	if (err.code == 0)
		(void)cg_api_call_as(rq->ro->fed, rq->acl, t->name, a.args,
		                     &out, &err);
	json_decref(a.args);
	if (err.code != 0) {
		status = cg_code_http(err.code);
		err_json =
		    json_pack("{s:{s:s, s:s}}", "error", "code",
		              cg_code_name(err.code), "message", err.msg);
		ok = send_json(c, status, err_json, NULL);
		json_decref(err_json);
	} else {
		status = 200;
		ok = send_json(c, status, out, NULL);
	}
	cg_metrics_request(h->metrics, t->name, status, elapsed(&rq->start),
	                   out);
	json_decref(out);
	return ok;
}

/* --- routing ---------------------------------------------------------------
 */

static enum MHD_Result
route_mcp(cg_http *h, struct MHD_Connection *c, struct req *rq)
{
	json_t *answer = NULL;
	cg_buf out;
	int status;
	enum MHD_Result ok;

	cg_buf_init(&out, 64u << 20);
	cg_mcp_handle(rq->ro->fed, rq->acl, cg_buf_str(&rq->body), rq->body.len,
	              &status, &out, &answer);
	ok = send_text(c, status, "application/json", cg_buf_str(&out), out.len,
	               NULL);
	cg_metrics_request(h->metrics, "mcp", status, elapsed(&rq->start),
	                   answer);
	json_decref(answer);
	cg_buf_fini(&out);
	return ok;
}

/* Whether the caller rq may see node's series: it sees one of the node's
 * sources (a node gone from the roster: only an unrestricted caller). */
static bool
metrics_node_shown(void *ctx, const char *node)
{
	const struct req *rq = ctx;
	size_t n;
	const cg_fed_node *r = cg_fed_roster(rq->ro->fed, &n);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(r[i].name, node) != 0)
			continue;
		for (size_t k = 0; k < r[i].nsources; k++)
			if (cg_acl_sees_source(rq->acl, r[i].workspace,
			                       r[i].sources[k]))
				return true;
		return false;
	}
	return !cg_acl_active(rq->acl);
}

static enum MHD_Result
route_metrics(cg_http *h, struct MHD_Connection *c, struct req *rq)
{
	cg_buf b;
	enum MHD_Result ok;

	cg_buf_init(&b, 16u << 20);
	cg_metrics_render(h->metrics, &b, metrics_node_shown, rq);
	ok = send_text(c, 200, "text/plain; version=0.0.4", cg_buf_str(&b),
	               b.len, NULL);
	cg_buf_fini(&b);
	return ok;
}

/* Equal strings, in time that does not depend on where they differ. */
static int
secret_eq(const char *a, const char *b)
{
	size_t la = strlen(a);
	size_t lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la; i++)
		d |= (unsigned char)(a[i] ^ b[i < lb ? i : 0]);
	return d == 0;
}

/* With tokens configured, finds the caller's; 0 when it has none. */
static int
authenticate(struct MHD_Connection *c, struct req *rq)
{
	const char *v =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	const struct roster *r = rq->ro;
	int found = 0;

	if (r->ntokens == 0)
		return 1;
	if (v == NULL || strncasecmp(v, "Bearer ", 7) != 0)
		return 0;
	v += 7;
	for (size_t i = 0; i < r->ntokens; i++)
		if (secret_eq(v, r->tokens[i].secret) && !found) {
			rq->acl = r->tokens[i].acl;
			found = 1;
		}
	return found;
}

/* A screened request with its whole body. */
static enum MHD_Result
route(cg_http *h, struct MHD_Connection *c, const char *url, struct req *rq)
{
	if (strcmp(url, "/mcp") == 0)
		return route_mcp(h, c, rq);
	if (strcmp(url, "/healthz") == 0)
		return send_text(c, 200, "application/json", HEALTHZ,
		                 sizeof(HEALTHZ) - 1, NULL);
	if (strcmp(url, "/readyz") == 0)
		return atomic_load(&h->ready)
		           ? send_text(c, 200, "application/json",
		                       "{\"ready\":true}", 14, NULL)
		           : send_error(c, 503, "not_ready",
		                        "the nodes are still indexing");
	if (strcmp(url, "/metrics") == 0)
		return route_metrics(h, c, rq);
	if (strncmp(url, "/v1/", 4) == 0)
		return api_route(h, c, url + 4, rq);
	return send_error(c, 404, "not_found", "no such route");
}

/* The first call: headers are in, no body byte has been read. */
static enum MHD_Result
begin(cg_http *h, struct MHD_Connection *c, const char *url, const char *method,
      void **con_cls)
{
	struct req *rq = calloc(1, sizeof(*rq));
	enum MHD_Result ok;

	if (rq == NULL)
		return MHD_NO;
	cg_buf_init(&rq->body, CG_HTTP_MAX_BODY);
	clock_gettime(CLOCK_MONOTONIC, &rq->start);
	rq->ro = roster_hold(h);
	*con_cls = rq;
	if (screen(h, c, url, method, &ok)) {
		conn_busy(h, c, 1);
		return ok;
	}
	/* Authenticated on the headers alone: no body is read for a caller
	 * without a valid token. */
	if (strcmp(url, "/healthz") != 0 && strcmp(url, "/readyz") != 0 &&
	    !authenticate(c, rq)) {
		conn_busy(h, c, 1);
		return send_error(c, 401, "unauthorized",
		                  "a valid 'Authorization: Bearer <token>' "
		                  "header is required");
	}
	return MHD_YES;
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *c, const char *url,
        const char *method, const char *version, const char *upload,
        size_t *upload_size, void **con_cls)
{
	cg_http *h = cls;
	struct req *rq = *con_cls;

	(void)version;
	if (rq == NULL)
		return begin(h, c, url, method, con_cls);
	if (*upload_size > 0) {
		if (cg_buf_append(&rq->body, upload, *upload_size) != 0) {
			/* A chunked body past the cap: answer now, read no
			 * more of it (the connection closes after). */
			conn_busy(h, c, 1);
			return send_error(c, 413, "too_big",
			                  "request body over 1 MiB");
		}
		*upload_size = 0;
		return MHD_YES;
	}
	conn_busy(h, c, 1);
	return route(h, c, url, rq);
}

static void
completed(void *cls, struct MHD_Connection *c, void **con_cls,
          enum MHD_RequestTerminationCode toe)
{
	cg_http *h = cls;
	struct req *rq = *con_cls;

	(void)toe;
	conn_busy(h, c, 0);
	if (rq == NULL)
		return;
	roster_release(h, rq->ro);
	cg_buf_fini(&rq->body);
	free(rq);
	*con_cls = NULL;
}

/* --- lifecycle ------------------------------------------------------------ */

/* The port after "http://HOST:" (strtol: a number past int's range must
 * not wrap into 0-65535); -1 when it is not a port. */
static long
parse_port(const char *s)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < 0 || v > 65535)
		return -1;
	return v;
}

static int
parse_listen(const char *url, struct sockaddr_in *sa, cg_err *err)
{
	char host[64];
	int n = 0;
	long port = -1;

	memset(sa, 0, sizeof(*sa));
	if (sscanf(url, "http://%63[^:/]:%n", host, &n) == 1 && n > 0)
		port = parse_port(url + n);
	if (port < 0)
		return cg_err_set(err, CG_EINVAL,
		                  "listen '%s': expected http://HOST:PORT "
		                  "(IPv4)",
		                  url);
	if (strcmp(host, "localhost") == 0)
		(void)snprintf(host, sizeof(host), "127.0.0.1");
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sa->sin_addr) != 1)
		return cg_err_set(err, CG_EINVAL,
		                  "listen '%s': host must be an IPv4 address",
		                  url);
	return 0;
}

/* The timeout: opts, else the environment, else the default. */
static int
pick_timeout(int opt, int *out, cg_err *err)
{
	const char *env = getenv(CG_HTTP_TIMEOUT_ENV);
	char *end = NULL;
	long v;

	*out = CG_HTTP_TIMEOUT_S;
	if (opt > 0) {
		*out = opt;
		return 0;
	}
	if (env == NULL || env[0] == '\0')
		return 0;
	errno = 0;
	v = strtol(env, &end, 10);
	if (end == env || *end != '\0' || errno != 0 || v < 1 || v > 3600)
		return cg_err_set(err, CG_EINVAL,
		                  "%s='%s': expected 1-3600 seconds",
		                  CG_HTTP_TIMEOUT_ENV, env);
	*out = (int)v;
	return 0;
}

static void
free_origins(char **v)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* A NULL-terminated copy of v (NULL: an empty list); NULL when out of
 * memory, never a shortened list. */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): each copy is stored
 * in out, which is returned (or freed whole). */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static char **
copy_origins(const char *const *v)
{
	size_t n = 0;
	char **out;

	while (v != NULL && v[n] != NULL)
		n++;
	out = calloc(n + 1, sizeof(*out));
	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		out[i] = strdup(v[i]);
		if (out[i] == NULL) {
			free_origins(out);
			return NULL;
		}
	}
	return out;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* The first roster (the opts'), its mutex and condition variable. */
static int
start_roster(cg_http *h, const cg_http_opts *o)
{
	h->cur = calloc(1, sizeof(*h->cur));
	if (h->cur == NULL)
		return -1;
	*h->cur = (struct roster){o->fed, o->tokens, o->ntokens, 0};
	if (pthread_mutex_init(&h->ro_mu, NULL) != 0) {
		free(h->cur);
		return -1;
	}
	if (pthread_cond_init(&h->ro_cv, NULL) != 0) {
		pthread_mutex_destroy(&h->ro_mu);
		free(h->cur);
		return -1;
	}
	return 0;
}

int
cg_http_swap(cg_http *h, cg_fed *fed, const cg_http_token *tokens,
             size_t ntokens, cg_err *err)
{
	struct roster *r = calloc(1, sizeof(*r));
	struct roster *old;

	if (!h->loopback && ntokens == 0) {
		free(r);
		return cg_err_set(err, CG_EINVAL,
		                  "%s is not a loopback address: tokens are "
		                  "required",
		                  h->url);
	}
	if (r == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	*r = (struct roster){fed, tokens, ntokens, 0};
	pthread_mutex_lock(&h->ro_mu);
	old = h->cur;
	h->cur = r;
	while (old->refs > 0)
		pthread_cond_wait(&h->ro_cv, &h->ro_mu);
	pthread_mutex_unlock(&h->ro_mu);
	free(old);
	return 0;
}

/* The mutex, the monotonic condition variable and the watchdog thread. */
static int
start_watchdog(cg_http *h)
{
	pthread_condattr_t ca;
	int rc;

	h->conns.next = h->conns.prev = &h->conns;
	if (pthread_mutex_init(&h->mu, NULL) != 0)
		return -1;
	(void)pthread_condattr_init(&ca);
	(void)pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&h->cv, &ca);
	(void)pthread_condattr_destroy(&ca);
	if (rc != 0) {
		pthread_mutex_destroy(&h->mu);
		return -1;
	}
	if (pthread_create(&h->watchdog, NULL, watchdog_main, h) != 0) {
		pthread_cond_destroy(&h->cv);
		pthread_mutex_destroy(&h->mu);
		return -1;
	}
	h->watchdog_running = 1;
	return 0;
}

/*
 * The listening socket, bound (port 0 picks one) and listening before
 * libmicrohttpd starts, so that h->port and h->url are written before any
 * of its threads exists: a worker reads h->port for every request
 * (host_ok, origin_ok), and a client may connect the moment the socket
 * listens.  SO_REUSEADDR as libmicrohttpd sets on a socket of its own.
 */
static int
open_listener(cg_http *h, const struct sockaddr_in *want, int *out)
{
	struct sockaddr_in sa = {0};
	socklen_t len = sizeof(sa);
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)want, sizeof(*want)) != 0 ||
	    listen(fd, SOMAXCONN) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
		close(fd);
		return -1;
	}
	h->port = ntohs(sa.sin_port);
	(void)snprintf(h->url, sizeof(h->url), "http://%s:%d",
	               inet_ntoa(sa.sin_addr), h->port);
	*out = fd;
	return 0;
}

/* The daemon on the listening socket fd, which it owns once started and
 * closes when stopped.  When it fails to start after taking fd (its
 * threads, epoll), libmicrohttpd 0.9.75 closes fd itself; it keeps fd
 * only when it rejects the options, which are fixed here.  So fd is not
 * closed on failure: a descriptor closed twice could be another thread's
 * by then. */
static struct MHD_Daemon *
start_daemon(cg_http *h, int fd)
{
	return MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL,
	    handler, h, MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)CG_HTTP_THREADS,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)CG_HTTP_CONN_LIMIT,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)CG_HTTP_CONN_LIMIT,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)h->timeout_s,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CG_HTTP_MEMORY_LIMIT,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, h,
	    MHD_OPTION_NOTIFY_CONNECTION, notify_conn, h, MHD_OPTION_END);
}

int
cg_http_new(cg_http **out, const cg_http_opts *opts, cg_err *err)
{
	struct sockaddr_in sa;
	cg_http *h;
	int timeout;
	int fd;
	int rc;

	*out = NULL;
	rc = parse_listen(opts->listen, &sa, err);
	if (rc == 0)
		rc = pick_timeout(opts->timeout_s, &timeout, err);
	if (rc != 0)
		return rc;
	if ((ntohl(sa.sin_addr.s_addr) >> 24) != 127 &&
	    !opts->tokens_configured)
		return cg_err_set(err, CG_EINVAL,
		                  "refusing to listen on %s without tokens: "
		                  "bind to 127.0.0.1 or configure tokens",
		                  opts->listen);
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	if (start_roster(h, opts) != 0) {
		free(h);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	h->timeout_s = timeout;
	h->loopback = (ntohl(sa.sin_addr.s_addr) >> 24) == 127;
	h->metrics = cg_metrics_new();
	h->origins = copy_origins(opts->allowed_origins);
	if (h->metrics == NULL || h->origins == NULL ||
	    start_watchdog(h) != 0) {
		cg_http_free(h);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	if (open_listener(h, &sa, &fd) == 0)
		h->d = start_daemon(h, fd);
	if (h->d == NULL) {
		cg_http_free(h);
		return cg_err_set(err, CG_EIO,
		                  "cannot listen on %s (address in use?)",
		                  opts->listen);
	}
	*out = h;
	return 0;
}

void
cg_http_free(cg_http *h)
{
	if (h == NULL)
		return;
	if (h->watchdog_running) {
		pthread_mutex_lock(&h->mu);
		h->stop = 1;
		pthread_cond_signal(&h->cv);
		pthread_mutex_unlock(&h->mu);
		pthread_join(h->watchdog, NULL);
	}
	/* Stopping the daemon notifies every close, which takes h->mu. */
	if (h->d != NULL)
		MHD_stop_daemon(h->d);
	if (h->watchdog_running) {
		pthread_cond_destroy(&h->cv);
		pthread_mutex_destroy(&h->mu);
	}
	/* Every request has completed: nothing holds a roster now. */
	pthread_cond_destroy(&h->ro_cv);
	pthread_mutex_destroy(&h->ro_mu);
	free(h->cur);
	cg_metrics_free(h->metrics);
	free_origins(h->origins);
	free(h);
}

void
cg_http_set_ready(cg_http *h, bool ready)
{
	atomic_store(&h->ready, ready);
}

const char *
cg_http_url(const cg_http *h)
{
	return h->url;
}
