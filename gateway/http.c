/*
 * http.c - the HTTP endpoint.  Routes:
 *   GET  /healthz            {"ok":true,"version":"x.y.z"}
 *   GET  /readyz             {"ready":true} once the owner says so
 *                            (cg_http_set_ready), else 503
 *   GET  /metrics            Prometheus text (metrics.h)
 *   GET  /v1/openapi.json    the OpenAPI 3.1 description (openapi.h)
 *   GET  /v1/<tool>?...      the JSON API (api.h); repeat a list argument
 *   POST /v1/<tool>          the same, arguments as a JSON body (api_body.h)
 *   POST /mcp                MCP (mcp.h); GET and DELETE /mcp answer 405
 *   GET  /, /page, /static/NAME, GET/POST /token: the search page (web.h);
 *                            its credential is the web.h cookie, else the
 *                            Bearer header
 * Every request is screened as soon as its headers are in (Host, Origin,
 * method, Content-Length, MCP-Protocol-Version), before any body byte is
 * read.  Errors are JSON {"error":{"code","message"}} with the status of
 * cg_code_http().  Who may hold a connection and for how long (the
 * connection limits, the header and request deadlines) is conn_limits.c's;
 * the framing of a request (Content-Length, Transfer-Encoding) is checked
 * by framing.c before anything else, and query parameters are typed by
 * query_args.c.  Each completed request is one access-log line
 * (accesslog.h).  A request holds
 * the roster (federation and tokens) it began with until it completes;
 * cg_http_swap installs a new one and waits for the holders of the old
 * one, so a reload drops no request (http.h).  A tool call (GET/POST
 * /v1/<tool>, an MCP request that reaches the nodes) never runs on an
 * HTTP thread: its connection is suspended, a worker of the tool pool
 * (tool_pool.h; greps on its grep lane) computes the answer into the
 * request and resumes the connection, and the handler, called again on
 * the connection's own thread, queues it (libmicrohttpd queues a
 * response only from the handler).  The same
 * handler serves the local socket (local.h; opts.local): its callers are
 * checked by uid instead of by token and Host.  This file must not know
 * what a tool does: that is api.c and mcp.c.
 */
#define _GNU_SOURCE
#include "gateway/http.h"

#include <sys/socket.h>
#include <sys/un.h>

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
#include "federation/gate.h"
#include "gateway/accesslog.h"
#include "gateway/api.h"
#include "gateway/api_body.h"
#include "gateway/conn_limits.h"
#include "gateway/framing.h"
#include "gateway/local.h"
#include "gateway/mcp.h"
#include "gateway/metrics.h"
#include "gateway/openapi.h"
#include "gateway/query_args.h"
#include "gateway/tool_pool.h"
#include "gateway/web.h"
#include "proto/acl.h"

#define HEALTHZ "{\"ok\":true,\"version\":\"" CG_VERSION "\"}"

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
	int local; /* the local socket (opts.local) */
	int timeout_s;
	cg_log_fn log; /* the access log; NULL: none */
	void *log_ctx;
	char url[128];
	char **origins; /* allowed Origin values, NULL-terminated */
	/* The current roster: cur and every roster's refs are guarded by
	 * ro_mu; ro_cv is signalled when an old roster's last holder goes. */
	struct roster *cur;
	atomic_bool ready; /* /readyz: cg_http_set_ready */
	pthread_mutex_t ro_mu;
	pthread_cond_t ro_cv;
	cg_conn_limits *limits; /* connection limits and deadlines */
	cg_tool_pool *own_pool; /* started here when opts.pool is NULL */
	cg_tool_client *jobs;   /* this listener's tool calls (tool_pool.h) */
	unsigned nthreads;      /* the HTTP pool: http_threads() */
};

/* A request's answer, computed on an HTTP thread or, for a tool call, on
 * a tool worker, and sent by answer_send on the connection's HTTP
 * thread. */
struct answer {
	int status;
	cg_buf text;       /* the body (JSON) */
	int ok;            /* text holds the whole body */
	json_t *json;      /* the tool answer, for metrics; NULL */
	const char *route; /* for metrics: a tool name, "mcp" or "web" */
	struct MHD_Response *resp; /* the search page's answer (instead of
	                              text), until queued; NULL */
};

/* Per-request state across the handler's calls. */
struct req {
	cg_buf body;
	struct timespec start;
	const cg_acl *acl; /* the caller's policy (NULL: everything) */
	int authed;        /* no tokens, or the caller's token matched */
	const char *token; /* the caller's token name, for the log; NULL */
	struct roster *ro; /* held from begin to completed */
	size_t dropped;    /* body bytes read past the cap and dropped */
	char method[16];   /* for the access log */
	char path[CG_ACCESSLOG_ROUTE_MAX + 1];
	/* A tool call runs on a tool worker while its connection is
	 * suspended: the worker writes ans, sets done and resumes conn as
	 * its last act; the resumed handler sends ans.  tool and args are
	 * the API call to run (tool NULL: an MCP body, or the search page
	 * when web). */
	struct MHD_Connection *conn;
	const cg_api_tool *tool;
	json_t *args;
	int web; /* a search page request: webcall */
	cg_web_call webcall;
	atomic_int done; /* 0: nothing offloaded; 1: running; 2: answered */
	struct answer ans;
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

/* --- request hygiene ------------------------------------------------------ */

static int
host_ok(const cg_http *h, const char *host)
{
	char want[64];
	static const char *const names[] = {"127.0.0.1", "localhost", "[::1]",
	                                    NULL};

	if (host == NULL)
		return 0;
	if (h->local)
		return 1; /* no browser reaches a unix socket */
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

/* A POST to a JSON API route (/v1/<tool>, not /v1/openapi.json). */
static int
api_post(const char *url, const char *method)
{
	return strcmp(method, "POST") == 0 && strncmp(url, "/v1/", 4) == 0 &&
	       strcmp(url, "/v1/openapi.json") != 0;
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
	int post = api_post(url, method);
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
	else if (!mcp && !post && strcmp(method, "GET") != 0 &&
	         strcmp(method, "HEAD") != 0 && !cg_web_takes_post(url, method))
		*ok = send_error_allow(
		    c, 405, "method_not_allowed",
		    strncmp(url, "/v1/", 4) == 0 ? "use GET or POST"
		                                 : "use GET",
		    strncmp(url, "/v1/", 4) == 0 ? "GET, HEAD, POST"
		                                 : "GET, HEAD");
	else if (declared_too_big(c))
		*ok = send_error(c, 413, "too_big", "request body over 1 MiB");
	else if (post && !cg_api_body_type_ok(MHD_lookup_connection_value(
	                     c, MHD_HEADER_KIND, "Content-Type")))
		*ok = send_error(c, 415, "unsupported_media_type",
		                 "send the arguments as Content-Type: "
		                 "application/json");
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

/* Each query parameter with its decoded length, so that a NUL in it is
 * seen (query_args.h). */
static enum MHD_Result
collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
            size_t key_size, const char *val, size_t val_size)
{
	struct argv_ctx *a = cls;

	(void)kind;
	if (a->err->code != 0)
		return MHD_NO;
	return cg_query_args_add(a->args, a->tool, key, key_size, val, val_size,
	                         a->err) == 0
	           ? MHD_YES
	           : MHD_NO;
}

/* The arguments of a POST: its JSON body, and nothing in the query. */
static void
post_args(struct MHD_Connection *c, struct req *rq, struct argv_ctx *a)
{
	json_decref(a->args);
	a->args = NULL;
	if (MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, NULL, NULL) >
	    0) {
		cg_err_set(
		    a->err, CG_EINVAL,
		    "a POST takes its arguments in the JSON body, not in "
		    "the query string");
		return;
	}
	(void)cg_api_body_args(cg_buf_str(&rq->body), rq->body.len, &a->args,
	                       a->err);
}

/* Sends rq->ans (the answer of an API call or an MCP body), with its
 * metrics. */
static enum MHD_Result
answer_send(cg_http *h, struct MHD_Connection *c, struct req *rq)
{
	struct answer *a = &rq->ans;
	enum MHD_Result ok = MHD_NO;

	if (a->resp != NULL) {
		ok = MHD_queue_response(c, (unsigned)a->status, a->resp);
		MHD_destroy_response(a->resp);
		a->resp = NULL;
	} else if (a->ok) {
		ok = send_text(c, a->status, "application/json",
		               cg_buf_str(&a->text), a->text.len, NULL);
	}
	cg_metrics_request(h->metrics, a->route, a->status, elapsed(&rq->start),
	                   a->json);
	if (rq->web)
		return ok;
	if (rq->tool != NULL)
		cg_metrics_tool(h->metrics, a->route, "http");
	else
		cg_metrics_mcp(h->metrics, cg_buf_str(&rq->body), rq->body.len);
	return ok;
}

/* a's status and body: the JSON answer out, or err's error when it holds
 * one. */
static void
answer_json(struct answer *a, const json_t *out, const cg_err *err)
{
	json_t *v;
	char *text;

	if (err->code != 0) {
		a->status = cg_code_http(err->code);
		v = json_pack("{s:{s:s, s:s}}", "error", "code",
		              cg_code_name(err->code), "message", err->msg);
	} else {
		a->status = 200;
		v = json_incref((json_t *)out);
	}
	text = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	a->ok = text != NULL && cg_buf_puts(&a->text, text) == 0;
	free(text);
	json_decref(v);
}

/* Runs the API call rq->tool with rq->args into rq->ans: its answer, or
 * the error err already holds (bad arguments) or the call gives. */
static void
api_run(struct req *rq, cg_err *err)
{
	json_t *out = NULL;

	if (err->code == 0)
		(void)cg_api_call_as(rq->ro->fed, rq->acl, rq->tool->name,
		                     rq->args, &out, err);
	answer_json(&rq->ans, out, err);
	rq->ans.json = out;
	rq->ans.route = rq->tool->name;
}

/* Runs the MCP body of rq into rq->ans. */
static void
mcp_run(struct req *rq)
{
	struct answer *a = &rq->ans;

	cg_mcp_handle(rq->ro->fed, rq->acl, cg_buf_str(&rq->body), rq->body.len,
	              &a->status, &a->text, &a->json);
	a->ok = 1;
	a->route = "mcp";
}

/* A tool worker's job (tool_pool.h): runs the request, then resumes its
 * connection, after which rq may be gone (the client may have left: its
 * completion frees rq), so nothing is touched after the resume. */
static void
tool_job(void *ctx)
{
	struct req *rq = ctx;
	struct MHD_Connection *c = rq->conn;
	cg_err err;

	cg_err_clear(&err);
	if (rq->tool != NULL)
		api_run(rq, &err);
	else if (rq->web)
		rq->ans.resp = cg_web_build(&rq->webcall, &rq->ans.status);
	else
		mcp_run(rq);
	atomic_store(&rq->done, 2);
	MHD_resume_connection(c);
}

/* Under the pool's lock, before any worker can start the job. */
static void
tool_admitted(void *ctx)
{
	struct req *rq = ctx;

	atomic_store(&rq->done, 1);
	MHD_suspend_connection(rq->conn);
}

/*
 * Hands a tool call to the tool pool's lane: the connection is suspended
 * until a worker has its answer (the handler is called again then:
 * resumed).  A full lane, or a listener draining for shutdown, is
 * answered busy at once: 503 from the JSON API, a tool error from MCP (as
 * the grep gate's refusal is, whose message a grep gets).
 */
static enum MHD_Result
offload(cg_http *h, struct MHD_Connection *c, struct req *rq,
        enum cg_tool_lane lane)
{
	cg_err err;

	rq->conn = c;
	if (cg_tool_pool_submit(h->jobs, lane, tool_job, tool_admitted, rq) ==
	    0)
		return MHD_YES;
	cg_err_clear(&err);
	if (lane == CG_TOOL_LANE_GREP)
		(void)cg_gate_refuse(cg_fed_grep_gate(rq->ro->fed), &err);
	else
		(void)cg_tool_pool_refuse(cg_tool_client_pool(h->jobs), lane,
		                          &err);
	if (rq->tool != NULL || rq->web) {
		answer_json(&rq->ans, NULL, &err);
		rq->ans.route = rq->web ? "web" : rq->tool->name;
	} else {
		cg_mcp_refuse(cg_buf_str(&rq->body), rq->body.len, &err,
		              &rq->ans.status, &rq->ans.text);
		rq->ans.ok = 1;
		rq->ans.route = "mcp";
	}
	return answer_send(h, c, rq);
}

/* The handler's call after a tool worker resumed the connection. */
static enum MHD_Result
resumed(cg_http *h, struct MHD_Connection *c, struct req *rq)
{
	if (atomic_load(&rq->done) != 2)
		return MHD_NO; /* never: only the finished job resumes */
	return answer_send(h, c, rq);
}

static enum MHD_Result
api_route(cg_http *h, struct MHD_Connection *c, const char *name,
          struct req *rq)
{
	const cg_api_tool *t = cg_api_find(name);
	struct argv_ctx a;
	cg_err err;

	cg_err_clear(&err);
	if (t == NULL || strncmp(name, "corpus_", 7) == 0)
		return send_error(c, 404, "not_found", "no such API route");
	a = (struct argv_ctx){t, json_object(), &err};
	if (strcmp(rq->method, "POST") == 0)
		post_args(c, rq, &a);
	else
		(void)MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND,
		                                  collect_arg, &a);
	rq->tool = t;
	rq->args = a.args;
	if (err.code == 0)
		return offload(h, c, rq,
		               t->scans_files ? CG_TOOL_LANE_GREP
		                              : CG_TOOL_LANE_TOOLS);
	api_run(rq, &err); /* bad arguments: answered here, at once */
	return answer_send(h, c, rq);
}

/* --- routing ---------------------------------------------------------------
 */

static enum MHD_Result
route_mcp(cg_http *h, struct MHD_Connection *c, struct req *rq)
{
	switch (cg_mcp_work(cg_buf_str(&rq->body), rq->body.len)) {
	case CG_MCP_WORK_NODES:
		return offload(h, c, rq, CG_TOOL_LANE_TOOLS);
	case CG_MCP_WORK_GREP:
		return offload(h, c, rq, CG_TOOL_LANE_GREP);
	case CG_MCP_WORK_LOCAL:
		break;
	}
	mcp_run(rq); /* no node is asked: answered here, at once */
	return answer_send(h, c, rq);
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
	cg_metrics_render(h->metrics, rq->ro->fed, rq->acl, &b,
	                  metrics_node_shown, rq);
	ok = send_text(c, 200, "text/plain; version=0.0.4", cg_buf_str(&b),
	               b.len, NULL);
	cg_buf_fini(&b);
	return ok;
}

static enum MHD_Result
route_openapi(struct MHD_Connection *c)
{
	json_t *doc = cg_openapi_doc();
	enum MHD_Result ok =
	    doc != NULL ? send_json(c, 200, doc, NULL)
	                : send_error(c, 500, "out_of_memory", "out of memory");

	json_decref(doc);
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

/* With tokens configured, finds the caller's; 0 when it has none.  The
 * search page's routes take the token from their cookie (web.h), every
 * other route from the Authorization header only. */
static int
authenticate(struct MHD_Connection *c, const char *url, struct req *rq)
{
	const char *v =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	const char *cookie;
	const struct roster *r = rq->ro;
	int found = 0;

	if (r->ntokens == 0) {
		rq->authed = 1;
		return 1;
	}
	/* The search page's routes take the cookie, else the header; every
	 * other route only the header. */
	cookie =
	    cg_web_owns(url)
	        ? MHD_lookup_connection_value(c, MHD_COOKIE_KIND, CG_WEB_COOKIE)
	        : NULL;
	if (cookie != NULL)
		v = cookie;
	else if (v == NULL || strncasecmp(v, "Bearer ", 7) != 0)
		v = NULL;
	else
		v += 7;
	for (size_t i = 0; v != NULL && i < r->ntokens; i++)
		if (secret_eq(v, r->tokens[i].secret) && !found) {
			rq->acl = r->tokens[i].acl;
			rq->token = r->tokens[i].name;
			found = 1;
		}
	rq->authed = found;
	return found;
}

/* A caller on the local socket: authed, with the unrestricted policy,
 * when it runs as this uid (local.h says why), else refused. */
static int
local_peer(struct MHD_Connection *c, struct req *rq)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

	rq->authed = ci != NULL && cg_local_peer_ok(ci->connect_fd);
	rq->token = rq->authed ? "local" : NULL;
	return rq->authed;
}

/* The search page: a caller without a matching token still reaches it
 * (rq->authed 0: the page shows its token form and runs no tool).  A page
 * that runs tools is built on the tool pool, as a tool call is; an asset
 * and the token form are answered here. */
static enum MHD_Result
web_route(cg_http *h, struct MHD_Connection *c, const char *url, struct req *rq)
{
	rq->web = 1;
	rq->ans.route = "web";
	rq->webcall = (cg_web_call){.fed = rq->ro->fed,
	                            .acl = rq->acl,
	                            .authed = rq->authed != 0,
	                            .tokens = rq->ro->ntokens > 0,
	                            .method = rq->method,
	                            .url = url,
	                            .body = cg_buf_str(&rq->body),
	                            .len = rq->body.len};
	if (cg_web_read(c, &rq->webcall) != 0)
		return send_error(c, 500, "out_of_memory", "out of memory");
	if (cg_web_runs_tools(&rq->webcall)) {
		/* "/" or "/page": rq's own copy, whole, for the worker */
		rq->webcall.url = rq->path;
		return offload(h, c, rq, CG_TOOL_LANE_TOOLS);
	}
	rq->ans.resp = cg_web_build(&rq->webcall, &rq->ans.status);
	return answer_send(h, c, rq);
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
	if (strcmp(url, "/v1/openapi.json") == 0)
		return route_openapi(c);
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
	cg_buf_init(&rq->ans.text, 64u << 20);
	clock_gettime(CLOCK_MONOTONIC, &rq->start);
	rq->ro = roster_hold(h);
	(void)snprintf(rq->method, sizeof(rq->method), "%s", method);
	(void)snprintf(rq->path, sizeof(rq->path), "%s", url);
	*con_cls = rq;
	cg_conn_limits_headers_in(h->limits, c);
	if (cg_framing_check(c, &ok) || screen(h, c, url, method, &ok)) {
		cg_conn_limits_busy(h->limits, c, 1);
		return ok;
	}
	/* Authenticated on the headers alone: no body is read for a caller
	 * without a valid token, but for the search page's (web.h), which
	 * answers with its token form and reads only POST /token's. */
	if (strcmp(url, "/healthz") != 0 && strcmp(url, "/readyz") != 0 &&
	    !(h->local ? local_peer(c, rq) : authenticate(c, url, rq)) &&
	    !cg_web_owns(url)) {
		cg_conn_limits_busy(h->limits, c, 1);
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
	if (atomic_load(&rq->done) != 0)
		return resumed(h, c, rq);
	if (*upload_size > 0) {
		if (rq->dropped == 0 &&
		    cg_buf_append(&rq->body, upload, *upload_size) == 0) {
			*upload_size = 0;
			return MHD_YES;
		}
		/* A chunked body past the cap: the rest is read and dropped
		 * (nothing more is kept) so that the client, still sending,
		 * reads the 413 instead of a reset; past CG_HTTP_MAX_DROP
		 * it is answered at once and the connection closes. */
		rq->dropped += *upload_size;
		*upload_size = 0;
		if (rq->dropped <= CG_HTTP_MAX_DROP)
			return MHD_YES;
	}
	cg_conn_limits_busy(h->limits, c, 1);
	if (rq->dropped > 0)
		return send_error(c, 413, "too_big", "request body over 1 MiB");
	if (cg_web_owns(url))
		return web_route(h, c, url, rq);
	return route(h, c, url, rq);
}

/* The access-log line of a request (accesslog.h); status 0 when no
 * answer was queued (the client went away first). */
static void
log_request(cg_http *h, struct MHD_Connection *c, const struct req *rq)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_HTTP_STATUS);

	cg_accesslog_write(h->log, h->log_ctx, rq->method, rq->path,
	                   ci ? (int)ci->http_status : 0,
	                   elapsed(&rq->start) * 1000.0, rq->token);
}

static void
completed(void *cls, struct MHD_Connection *c, void **con_cls,
          enum MHD_RequestTerminationCode toe)
{
	cg_http *h = cls;
	struct req *rq = *con_cls;

	(void)toe;
	cg_conn_limits_busy(h->limits, c, 0);
	if (rq == NULL)
		return;
	log_request(h, c, rq);
	roster_release(h, rq->ro);
	cg_buf_fini(&rq->body);
	cg_buf_fini(&rq->ans.text);
	json_decref(rq->ans.json);
	json_decref(rq->args);
	json_decref(rq->webcall.query);
	if (rq->ans.resp != NULL) /* built, never queued: the client left */
		MHD_destroy_response(rq->ans.resp);
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

/* The local socket's listening fd (taken): its url is "unix:PATH". */
static int
local_listener(cg_http *h, int fd, int *out)
{
	struct sockaddr_un sa = {0};
	socklen_t len = sizeof(sa);

	if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0 ||
	    sa.sun_family != AF_UNIX) {
		close(fd);
		return -1;
	}
	(void)snprintf(h->url, sizeof(h->url), "unix:%.*s",
	               (int)strnlen(sa.sun_path, sizeof(sa.sun_path)),
	               sa.sun_path);
	*out = fd;
	return 0;
}

/* The connection limits and deadlines (conn_limits.h). */
static int
start_limits(cg_http *h)
{
	const cg_conn_limits_cfg cfg = {
	    CG_HTTP_CONN_LIMIT, CG_HTTP_CONN_PER_ADDR, CG_HTTP_HEADER_TIMEOUT_S,
	    h->timeout_s,       CG_HTTP_MEMORY_LIMIT,
	};

	return cg_conn_limits_new(&h->limits, &cfg);
}

/* The HTTP pool's threads: one per online CPU, bounded (http.h).  No
 * tool call runs on them (tool_pool.h), so each request they run is
 * short, but at least 4 still: /metrics asks the nodes for their status
 * on its thread (up to the round deadline), and on a 2-core machine
 * shared with other processes 2 threads answered /healthz later than 4
 * while greps ran (BENCHMARKS.md, the tool pool). */
static unsigned
http_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < CG_HTTP_THREADS_MIN)
		return CG_HTTP_THREADS_MIN;
	if (n > CG_HTTP_THREADS_MAX)
		return CG_HTTP_THREADS_MAX;
	return (unsigned)n;
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
	struct MHD_OptionItem limits[CG_CONN_LIMITS_NOPTS];

	cg_conn_limits_options(h->limits, limits);
	return MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
	        MHD_ALLOW_SUSPEND_RESUME,
	    0, NULL, NULL, handler, h, MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_THREAD_POOL_SIZE, h->nthreads, MHD_OPTION_ARRAY, limits,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, h, MHD_OPTION_END);
}

/* The server's state before it listens; NULL when out of memory. */
static cg_http *
http_alloc(const cg_http_opts *opts, const struct sockaddr_in *sa, int timeout)
{
	cg_http *h = calloc(1, sizeof(*h));
	cg_err perr; /* a pool that cannot start is out of resources */
	cg_tool_pool *pool = opts->pool;

	if (h == NULL)
		return NULL;
	cg_err_clear(&perr);
	if (start_roster(h, opts) != 0) {
		free(h);
		return NULL;
	}
	h->timeout_s = timeout;
	h->log = opts->log;
	h->log_ctx = opts->log_ctx;
	h->loopback = (ntohl(sa->sin_addr.s_addr) >> 24) == 127;
	h->local = opts->local;
	h->metrics = cg_metrics_new();
	h->origins = copy_origins(opts->allowed_origins);
	h->nthreads = http_threads();
	if (pool == NULL && cg_tool_pool_new(&h->own_pool, &perr) == 0)
		pool = h->own_pool;
	if (h->metrics == NULL || h->origins == NULL || start_limits(h) != 0 ||
	    pool == NULL || cg_tool_client_new(&h->jobs, pool, &perr) != 0) {
		cg_http_free(h);
		return NULL;
	}
	return h;
}

int
cg_http_new(cg_http **out, const cg_http_opts *opts, cg_err *err)
{
	struct sockaddr_in sa = {0};
	cg_http *h = NULL;
	int timeout = 0;
	int fd;
	int rc;

	*out = NULL;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* the local socket */
	rc = opts->local ? 0 : parse_listen(opts->listen, &sa, err);
	if (rc == 0)
		rc = pick_timeout(opts->timeout_s, &timeout, err);
	if (rc == 0 && (ntohl(sa.sin_addr.s_addr) >> 24) != 127 &&
	    !opts->tokens_configured)
		rc = cg_err_set(err, CG_EINVAL,
		                "refusing to listen on %s without tokens: "
		                "bind to 127.0.0.1 or configure tokens",
		                opts->listen);
	if (rc == 0) {
		h = http_alloc(opts, &sa, timeout);
		if (h == NULL)
			rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	if (rc != 0) {
		if (opts->local)
			close(opts->local_fd); /* taken, even on failure */
		return rc;
	}
	if ((opts->local ? local_listener(h, opts->local_fd, &fd)
	                 : open_listener(h, &sa, &fd)) == 0)
		h->d = start_daemon(h, fd);
	if (h->d == NULL) {
		cg_http_free(h);
		return cg_err_set(
		    err, CG_EIO, "cannot listen on %s (address in use?)",
		    opts->local ? "the local socket" : opts->listen);
	}
	*out = h;
	return 0;
}

void
cg_http_free(cg_http *h)
{
	if (h == NULL)
		return;
	cg_conn_limits_stop(h->limits);
	/* Every tool call of this listener finishes (its deadline bounds
	 * it) and resumes its connection, and later ones are answered busy:
	 * libmicrohttpd must not be stopped with a connection suspended.
	 * Another listener's calls on a shared pool are not waited for. */
	if (h->jobs != NULL)
		cg_tool_client_drain(h->jobs);
	/* Stopping the daemon notifies every close to the limits. */
	if (h->d != NULL)
		MHD_stop_daemon(h->d);
	cg_tool_client_free(h->jobs);
	cg_tool_pool_free(h->own_pool);
	cg_conn_limits_free(h->limits);
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
