/*
 * http.c - the HTTP endpoint.  Routes:
 *   GET  /healthz            {"ok":true}
 *   GET  /metrics            Prometheus text
 *   GET  /v1/<tool>?...      the JSON API (api.h); repeat a list argument
 *   POST /mcp                MCP (mcp.h); GET and DELETE /mcp answer 405
 * Every request passes the Host and Origin checks first.  Errors are JSON
 * {"error":{"code","message"}} with the status of cg_code_http().
 */
#define _GNU_SOURCE
#include "http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api.h"
#include "cg_buf.h"
#include "mcp.h"
#include "metrics.h"

struct cg_http {
	struct MHD_Daemon *d;
	cg_fed *fed;
	cg_metrics *metrics;
	int port;
	int loopback;
	char url[128];
	char **origins; /* allowed Origin values, NULL-terminated */
};

/* Per-request state across the handler's calls. */
struct req {
	cg_buf body;
	int too_big;
	struct timespec start;
};

static double
elapsed(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) +
	       (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

static enum MHD_Result
send_text(struct MHD_Connection *c, int status, const char *type,
	  const char *text, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    len, (void *)text, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ok;

	if (r == NULL)
		return MHD_NO;
	(void)MHD_add_response_header(r, "Content-Type", type);
	(void)MHD_add_response_header(r, "Cache-Control", "no-store");
	if (status == 405)
		(void)MHD_add_response_header(r, "Allow", "POST");
	ok = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result
send_json(struct MHD_Connection *c, int status, const json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
	enum MHD_Result ok;

	if (text == NULL)
		return MHD_NO;
	ok = send_text(c, status, "application/json", text, strlen(text));
	free(text);
	return ok;
}

static enum MHD_Result
send_error(struct MHD_Connection *c, int status, const char *code,
	   const char *msg)
{
	json_t *v = json_pack("{s:{s:s, s:s}}", "error", "code", code,
			      "message", msg);
	enum MHD_Result ok = send_json(c, status, v);

	json_decref(v);
	return ok;
}

/* --- request hygiene ------------------------------------------------------ */

static int
host_ok(const cg_http *h, const char *host)
{
	char want[64];
	static const char *const names[] = {"127.0.0.1", "localhost",
					    "[::1]", NULL};

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
	static const char *const names[] = {"127.0.0.1", "localhost",
					    "[::1]", NULL};

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

/* --- the JSON API ---------------------------------------------------------- */

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
typed_value(const cg_api_tool *t, const char *key, const char *val,
	    cg_err *err)
{
	char *end = NULL;
	long long n;

	if (in_list(t->ints, key)) {
		n = strtoll(val, &end, 10);
		if (end == val || *end != '\0') {
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
		cg_err_set(a->err, CG_EINVAL, "bad value for '%s'", key);
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
		(void)cg_api_call(h->fed, t->name, a.args, &out, &err);
	json_decref(a.args);
	if (err.code != 0) {
		status = cg_code_http(err.code);
		err_json = json_pack("{s:{s:s, s:s}}", "error", "code",
				     cg_code_name(err.code), "message",
				     err.msg);
		ok = send_json(c, status, err_json);
		json_decref(err_json);
	} else {
		status = 200;
		ok = send_json(c, status, out);
	}
	cg_metrics_request(h->metrics, t->name, status, elapsed(&rq->start),
			   out);
	json_decref(out);
	return ok;
}

/* --- routing --------------------------------------------------------------- */

static enum MHD_Result
route_mcp(cg_http *h, struct MHD_Connection *c, const char *method,
	  struct req *rq)
{
	const char *ver =
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					"MCP-Protocol-Version");
	json_t *answer = NULL;
	cg_buf out;
	int status;
	enum MHD_Result ok;

	if (strcmp(method, "POST") != 0)
		return send_error(c, 405, "method_not_allowed",
				  "use POST for MCP (no SSE stream here)");
	if (ver != NULL && !cg_mcp_version_ok(ver))
		return send_error(c, 400, "invalid_input",
				  "unsupported MCP-Protocol-Version");
	cg_buf_init(&out, 64u << 20);
	cg_mcp_handle(h->fed, cg_buf_str(&rq->body), rq->body.len, &status,
		      &out, &answer);
	ok = send_text(c, status, "application/json", cg_buf_str(&out),
		       out.len);
	cg_metrics_request(h->metrics, "mcp", status, elapsed(&rq->start),
			   answer);
	json_decref(answer);
	cg_buf_fini(&out);
	return ok;
}

static enum MHD_Result
route(cg_http *h, struct MHD_Connection *c, const char *url,
      const char *method, struct req *rq)
{
	if (strcmp(url, "/mcp") == 0)
		return route_mcp(h, c, method, rq);
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return send_error(c, 405, "method_not_allowed", "use GET");
	if (strcmp(url, "/healthz") == 0)
		return send_text(c, 200, "application/json", "{\"ok\":true}",
				 11);
	if (strcmp(url, "/metrics") == 0) {
		cg_buf b;
		enum MHD_Result ok;

		cg_buf_init(&b, 16u << 20);
		cg_metrics_render(h->metrics, &b);
		ok = send_text(c, 200, "text/plain; version=0.0.4",
			       cg_buf_str(&b), b.len);
		cg_buf_fini(&b);
		return ok;
	}
	if (strncmp(url, "/v1/", 4) == 0)
		return api_route(h, c, url + 4, rq);
	return send_error(c, 404, "not_found", "no such route");
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *c, const char *url,
	const char *method, const char *version, const char *upload,
	size_t *upload_size, void **con_cls)
{
	cg_http *h = cls;
	struct req *rq = *con_cls;

	if (rq == NULL) {
		rq = calloc(1, sizeof(*rq));
		if (rq == NULL)
			return MHD_NO;
		cg_buf_init(&rq->body, CG_HTTP_MAX_BODY);
		clock_gettime(CLOCK_MONOTONIC, &rq->start);
		*con_cls = rq;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (!rq->too_big &&
		    cg_buf_append(&rq->body, upload, *upload_size) != 0)
			rq->too_big = 1;
		*upload_size = 0;
		return MHD_YES;
	}
	if (!host_ok(h, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "Host")))
		return send_error(c, 403, "forbidden", "unexpected Host");
	if (!origin_ok(h, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      "Origin")))
		return send_error(c, 403, "forbidden", "foreign Origin");
	if (rq->too_big)
		return send_error(c, 413, "too_big",
				  "request body over 1 MiB");
	return route(h, c, url, method, rq);
}

static void
completed(void *cls, struct MHD_Connection *c, void **con_cls,
	  enum MHD_RequestTerminationCode toe)
{
	struct req *rq = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (rq == NULL)
		return;
	cg_buf_fini(&rq->body);
	free(rq);
	*con_cls = NULL;
}

/* --- lifecycle ------------------------------------------------------------ */

static int
parse_listen(const char *url, struct sockaddr_in *sa, cg_err *err)
{
	char host[64];
	int port;
	char tail;

	memset(sa, 0, sizeof(*sa));
	if (sscanf(url, "http://%63[^:/]:%d%c", host, &port, &tail) != 2 ||
	    port < 0 || port > 65535)
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

static char **
copy_origins(const char *const *v)
{
	size_t n = 0;
	char **out;

	while (v != NULL && v[n] != NULL)
		n++;
	out = calloc(n + 1, sizeof(*out));
	for (size_t i = 0; out != NULL && i < n; i++)
		out[i] = strdup(v[i]);
	return out;
}

int
cg_http_new(cg_http **out, const cg_http_opts *o, cg_err *err)
{
	struct sockaddr_in sa;
	const union MHD_DaemonInfo *info;
	cg_http *h;
	int rc;

	*out = NULL;
	rc = parse_listen(o->listen, &sa, err);
	if (rc != 0)
		return rc;
	if ((ntohl(sa.sin_addr.s_addr) >> 24) != 127 && !o->tokens_configured)
		return cg_err_set(err, CG_EINVAL,
				  "refusing to listen on %s without tokens: "
				  "bind to 127.0.0.1 or configure tokens",
				  o->listen);
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	h->fed = o->fed;
	h->loopback = (ntohl(sa.sin_addr.s_addr) >> 24) == 127;
	h->metrics = cg_metrics_new();
	h->origins = copy_origins(o->allowed_origins);
	h->d = MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL,
	    0, NULL, NULL, handler, h, MHD_OPTION_SOCK_ADDR, &sa,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)CG_HTTP_THREADS,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)CG_HTTP_CONN_LIMIT,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)CG_HTTP_CONN_LIMIT,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CG_HTTP_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CG_HTTP_MEMORY_LIMIT,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, h, MHD_OPTION_END);
	if (h->d == NULL || h->metrics == NULL || h->origins == NULL) {
		cg_http_free(h);
		return cg_err_set(err, CG_EIO,
				  "cannot listen on %s (address in use?)",
				  o->listen);
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : ntohs(sa.sin_port);
	(void)snprintf(h->url, sizeof(h->url), "http://%s:%d",
		       inet_ntoa(sa.sin_addr), h->port);
	*out = h;
	return 0;
}

void
cg_http_free(cg_http *h)
{
	if (h == NULL)
		return;
	if (h->d != NULL)
		MHD_stop_daemon(h->d);
	cg_metrics_free(h->metrics);
	for (size_t i = 0; h->origins != NULL && h->origins[i] != NULL; i++)
		free(h->origins[i]);
	free(h->origins);
	free(h);
}

const char *
cg_http_url(const cg_http *h)
{
	return h->url;
}
