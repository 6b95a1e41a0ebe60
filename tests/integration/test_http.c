/*
 * test_http.c - the gateway's HTTP and MCP hygiene through the real
 * binary (issue 5, acceptance 4): `corpus-gw serve` on port 0 with a 2 s
 * request deadline (CORPUS_GW_HTTP_TIMEOUT), driven over raw sockets so
 * that hostile clients can misbehave exactly.
 *
 * A foreign Origin and a wrong Host get 403; GET and DELETE /mcp get 405;
 * a 100 MB body (declared or chunked) is refused without the server's
 * memory growing by anything like 100 MB; 10,000 headers are refused;
 * slowloris connections (idle, and trickling a header line faster than the
 * idle timeout) are cut at the deadline; and in each case other clients
 * are served meanwhile.  MCP: an unsupported MCP-Protocol-Version is 400,
 * malformed JSON-RPC an error object, an unknown method -32601,
 * notifications 202, the stateless 2026-07-28 style works without
 * initialize, and initialize with an unknown version answers 2025-11-25.
 * Hostile clients run in threads that only record what happened; every
 * assertion is made on the main thread.
 */
#define _GNU_SOURCE
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cghostile.h"
#include "cgproc.h"
#include "cgtest.h"
#include "common/cg_buf.h"

#define TIMEOUT_S  2 /* the server's request deadline in this test */
#define IO_MS      10000
#define HUGE_BYTES (100u << 20)
#define SLOW_CONNS 16

static char *ws;
static char *cache;
static cgt_proc *server;
static int port;

/* --- a raw HTTP client ------------------------------------------------- */

static int
dial(void)
{
	struct sockaddr_in sa = {0};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* One request on a new connection (the caller writes Connection: close);
 * returns the status, *resp (may be NULL) gets the whole response. */
static int
exchange(const char *raw, size_t len, char **resp)
{
	int fd = dial();
	cg_buf b;
	int st;

	cg_buf_init(&b, 64u << 20);
	assert_int_equal(cgh_send_all(fd, raw, len), 0);
	assert_int_equal(cgh_read_to_end(fd, &b, IO_MS), 1);
	close(fd);
	st = cgh_status(cg_buf_str(&b));
	if (resp != NULL)
		*resp = cg_buf_take(&b);
	cg_buf_fini(&b);
	return st;
}

/* method path, extra header lines ("" or "Name: v\r\n..."), a body or
 * NULL.  Returns the status; *body_out (may be NULL) gets the body. */
static int
request(const char *method, const char *path, const char *extra,
        const char *body, char **body_out)
{
	cg_buf rq;
	char *resp = NULL;
	const char *sep;
	int st;

	cg_buf_init(&rq, 4u << 20);
	assert_int_equal(
	    cg_buf_printf(&rq,
	                  "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	                  "Connection: close\r\n%s",
	                  method, path, port, extra),
	    0);
	if (body != NULL)
		assert_int_equal(
		    cg_buf_printf(&rq,
		                  "Content-Type: application/json\r\n"
		                  "Content-Length: %zu\r\n",
		                  strlen(body)),
		    0);
	assert_int_equal(cg_buf_printf(&rq, "\r\n%s", body ? body : ""), 0);
	st = exchange(cg_buf_str(&rq), rq.len, &resp);
	sep = strstr(resp, "\r\n\r\n");
	if (body_out != NULL)
		*body_out = strdup(sep ? sep + 4 : "");
	free(resp);
	cg_buf_fini(&rq);
	return st;
}

/* POST /mcp; returns the status, *reply gets the parsed body (NULL when
 * the body is empty or not JSON). */
static int
mcp(const char *extra, const char *body, json_t **reply)
{
	char *text = NULL;
	int st = request("POST", "/mcp", extra, body, &text);

	*reply = json_loads(text, 0, NULL);
	free(text);
	return st;
}

/* A normal client: /healthz answers 200 and MCP ping answers. */
static void
assert_served(void)
{
	json_t *r = NULL;

	assert_int_equal(request("GET", "/healthz", "", NULL, NULL), 200);
	assert_int_equal(
	    mcp("", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}", &r),
	    200);
	assert_non_null(json_object_get(r, "result"));
	json_decref(r);
}

/* --- the server ---------------------------------------------------------- */

static long
proc_kb(const char *field)
{
	char path[64];
	char line[256];
	long kb = -1;
	FILE *f;

	(void)snprintf(path, sizeof(path), "/proc/%d/status", (int)server->pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, field, strlen(field)) == 0)
			kb = strtol(line + strlen(field) + 1, NULL, 10);
	fclose(f);
	assert_true(kb > 0);
	return kb;
}

static int
setup(void **state)
{
	char *line;
	const char *argv[] = {"corpus-gw", "serve",    "--workspace",
	                      NULL,        "--listen", "http://127.0.0.1:0",
	                      "--cache",   NULL,       NULL};
	char tmo[16];

	(void)state;
	(void)signal(SIGPIPE, SIG_IGN);
	ws = cgt_tmpdir("http-ws");
	cache = cgt_tmpdir("http-cache");
	cgt_page(ws, ".guild/wiki/decisions/use-postgres.md",
	         "type: decision\ntitle: Use Postgres",
	         "# Use Postgres\n\nWe chose Postgres. See [[caching]].\n");
	cgt_page(ws, ".guild/wiki/concepts/caching.md", "type: concept",
	         "# Caching\n\nRedis in front of [[use-postgres]].\n");
	argv[3] = ws;
	argv[7] = cache;
	(void)snprintf(tmo, sizeof(tmo), "%d", TIMEOUT_S);
	assert_int_equal(setenv("CORPUS_GW_HTTP_TIMEOUT", tmo, 1), 0);
	server = cgt_spawnv(NULL, argv);
	line = cgt_proc_line(server, 30000);
	assert_non_null(line);
	assert_int_equal(sscanf(line, "listening http://127.0.0.1:%d", &port),
	                 1);
	free(line);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	if (server != NULL) {
		cgt_node_stop(server,
		              15000); /* clean exit: no leak, no crash */
		cgt_proc_free(server);
	}
	cgt_rm(ws);
	cgt_rm(cache);
	free(ws);
	free(cache);
	return 0;
}

/* --- Host, Origin, methods ------------------------------------------------ */

static void
test_origin(void **state)
{
	char hdr[128];
	json_t *r = NULL;

	(void)state;
	assert_int_equal(request("GET", "/healthz",
	                         "Origin: http://evil.example\r\n", NULL, NULL),
	                 403);
	assert_int_equal(mcp("Origin: https://attacker.test\r\n",
	                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	                     "\"tools/list\"}",
	                     &r),
	                 403);
	json_decref(r);
	assert_int_equal(
	    request("GET", "/healthz", "Origin: null\r\n", NULL, NULL), 403);
	(void)snprintf(hdr, sizeof(hdr), "Origin: http://localhost:%d\r\n",
	               port);
	assert_int_equal(request("GET", "/healthz", hdr, NULL, NULL), 200);
	(void)snprintf(hdr, sizeof(hdr), "Origin: http://127.0.0.1:%d\r\n",
	               port);
	assert_int_equal(request("GET", "/healthz", hdr, NULL, NULL), 200);
}

static void
test_host(void **state)
{
	char raw[256];

	(void)state;
	(void)snprintf(raw, sizeof(raw),
	               "GET /healthz HTTP/1.1\r\nHost: evil.example:%d\r\n"
	               "Connection: close\r\n\r\n",
	               port);
	assert_int_equal(exchange(raw, strlen(raw), NULL), 403);
	(void)snprintf(raw, sizeof(raw),
	               "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	               "Connection: close\r\n\r\n",
	               port + 1 > 65535 ? 1 : port + 1);
	assert_int_equal(exchange(raw, strlen(raw), NULL), 403);
	(void)snprintf(raw, sizeof(raw),
	               "GET /healthz HTTP/1.1\r\nHost: localhost:%d\r\n"
	               "Connection: close\r\n\r\n",
	               port);
	assert_int_equal(exchange(raw, strlen(raw), NULL), 200);
}

static void
test_mcp_methods(void **state)
{
	char *resp = NULL;
	char raw[256];

	(void)state;
	(void)snprintf(raw, sizeof(raw),
	               "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	               "Accept: text/event-stream\r\nConnection: close\r\n\r\n",
	               port);
	assert_int_equal(exchange(raw, strlen(raw), &resp), 405);
	assert_non_null(strstr(resp, "Allow: POST"));
	free(resp);
	assert_int_equal(request("DELETE", "/mcp", "", NULL, NULL), 405);
	assert_int_equal(request("PUT", "/mcp", "", "{}", NULL), 405);
	/* POST /v1/<tool> takes a JSON body (test_http_api); other methods
	 * are refused. */
	assert_int_equal(request("PUT", "/v1/search", "", "{}", NULL), 405);
	assert_int_equal(request("POST", "/healthz", "", "{}", NULL), 405);
}

/* --- hostile clients -------------------------------------------------------
 */

struct hostile {
	const char *head; /* request line and headers, without the end */
	int chunked;      /* else a Content-Length of HUGE_BYTES */
	size_t sent;      /* body bytes the server took */
	int status;       /* of the answer, 0 when none came */
	atomic_int done;  /* set by the thread when it is finished */
};

static void *
huge_body(void *arg)
{
	struct hostile *hb = arg;
	static char chunk[65536];
	char frame[16];
	int fd = dial();
	cg_buf resp;

	memset(chunk, 'x', sizeof(chunk));
	(void)snprintf(frame, sizeof(frame), "%zx\r\n", sizeof(chunk));
	cg_buf_init(&resp, 1u << 20);
	if (cgh_send_all(fd, hb->head, strlen(hb->head)) == 0)
		while (hb->sent < HUGE_BYTES) {
			if (hb->chunked &&
			    cgh_send_all(fd, frame, strlen(frame)) != 0)
				break;
			if (cgh_send_all(fd, chunk, sizeof(chunk)) != 0)
				break;
			if (hb->chunked && cgh_send_all(fd, "\r\n", 2) != 0)
				break;
			hb->sent += sizeof(chunk);
		}
	(void)cgh_read_to_end(fd, &resp, IO_MS);
	hb->status = cgh_status(cg_buf_str(&resp));
	cg_buf_fini(&resp);
	close(fd);
	hb->done = 1;
	return NULL;
}

/* Runs a huge upload in a thread while serving normal clients; asserts
 * refusal and bounded memory. */
static void
run_huge(int chunked)
{
	char head[256];
	struct hostile hb = {head, chunked, 0, 0, 0};
	long rss0 = proc_kb("VmRSS:");
	long hwm0 = proc_kb("VmHWM:");
	int served = 0;
	pthread_t t;

	(void)snprintf(head, sizeof(head),
	               "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	               "Content-Type: application/json\r\n%s\r\n",
	               port,
	               chunked ? "Transfer-Encoding: chunked\r\n"
	                       : "Content-Length: 104857600\r\n");
	assert_int_equal(pthread_create(&t, NULL, huge_body, &hb), 0);
	while (!hb.done || served < 3) {
		assert_served();
		served++;
	}
	pthread_join(t, NULL);
	/* Refused: a 413, or the connection closed before 100 MB went in. */
	assert_true(hb.status == 413 ||
	            (hb.status == 0 && hb.sent < HUGE_BYTES));
	if (!chunked)
		assert_int_equal(hb.status, 413);
	print_message("huge %s body: status %d after %zu bytes; RSS %ld -> "
	              "%ld kB, peak %ld -> %ld kB\n",
	              chunked ? "chunked" : "declared", hb.status, hb.sent,
	              rss0, proc_kb("VmRSS:"), hwm0, proc_kb("VmHWM:"));
	assert_true(proc_kb("VmRSS:") - rss0 < 32 * 1024);
	assert_true(proc_kb("VmHWM:") - hwm0 < 32 * 1024);
	assert_served();
}

static void
test_huge_body_declared(void **state)
{
	(void)state;
	run_huge(0);
}

static void
test_huge_body_chunked(void **state)
{
	(void)state;
	run_huge(1);
}

static void *
many_headers(void *arg)
{
	struct hostile *hb = arg;
	cg_buf rq;
	cg_buf resp;
	int fd = dial();

	cg_buf_init(&rq, 1u << 20);
	cg_buf_init(&resp, 1u << 20);
	(void)cg_buf_printf(
	    &rq, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n", port);
	for (int i = 0; i < 10000; i++)
		(void)cg_buf_printf(&rq, "X-Header-%d: value-%d\r\n", i, i);
	(void)cg_buf_puts(&rq, "\r\n");
	hb->sent = cgh_send_all(fd, rq.data, rq.len) == 0 ? rq.len : 0;
	(void)cgh_read_to_end(fd, &resp, IO_MS);
	hb->status = cgh_status(cg_buf_str(&resp));
	cg_buf_fini(&rq);
	cg_buf_fini(&resp);
	close(fd);
	hb->done = 1;
	return NULL;
}

static void
test_many_headers(void **state)
{
	struct hostile hb = {NULL, 0, 0, 0, 0};
	int served = 0;
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, many_headers, &hb), 0);
	while (!hb.done || served < 3) {
		assert_served();
		served++;
	}
	pthread_join(t, NULL);
	print_message("10,000 headers: status %d\n", hb.status);
	/* 431 or 400 when answered; 0 when the connection was just closed */
	assert_true(hb.status == 431 || hb.status == 400 || hb.status == 0);
	assert_served();
}

/* Whether fd was closed by the peer (EOF or reset), polling up to ms;
 * trickle sends a header line every 300 ms meanwhile. */
static int
closed_within(int fd, int ms, int trickle)
{
	int64_t deadline = cgt_now_ms() + ms;
	char buf[512];

	while (cgt_now_ms() < deadline) {
		struct pollfd pf = {fd, POLLIN, 0};
		ssize_t k;

		if (trickle && cgh_send_all(fd, "X-Slow: 1\r\n", 11) != 0)
			return 1;
		if (poll(&pf, 1, 300) <= 0)
			continue;
		k = recv(fd, buf, sizeof(buf), 0);
		if (k <= 0)
			return 1;
	}
	return 0;
}

static void
test_slowloris(void **state)
{
	int fds[SLOW_CONNS];
	char head[128];
	int64_t t0 = cgt_now_ms();

	(void)state;
	(void)snprintf(
	    head, sizeof(head),
	    "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-A: ", port);
	for (int i = 0; i < SLOW_CONNS; i++) {
		fds[i] = dial();
		assert_int_equal(cgh_send_all(fds[i], head, strlen(head)), 0);
	}
	/* Others are served while the slow connections hang on. */
	for (int i = 0; i < 5; i++)
		assert_served();
	/* Even the connections that keep trickling bytes (so the idle
	 * timeout never fires) are cut at the deadline. */
	for (int i = 0; i < SLOW_CONNS; i++) {
		int64_t left = t0 + (TIMEOUT_S + 4) * 1000 - cgt_now_ms();

		assert_true(
		    closed_within(fds[i], left > 0 ? (int)left : 1, i % 2));
		close(fds[i]);
	}
	print_message("%d slow connections cut after %lld ms (deadline %d s)\n",
	              SLOW_CONNS, (long long)(cgt_now_ms() - t0), TIMEOUT_S);
	assert_true(cgt_now_ms() - t0 >= (TIMEOUT_S - 1) * 1000);
	assert_served();
}

/* A slow body (R.U.D.Y.): headers at once, then a byte at a time. */
static void
test_slow_body(void **state)
{
	char head[256];
	int fd = dial();
	int64_t t0 = cgt_now_ms();
	int cut = 0;

	(void)state;
	(void)snprintf(head, sizeof(head),
	               "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	               "Content-Type: application/json\r\n"
	               "Content-Length: 100000\r\n\r\n{",
	               port);
	assert_int_equal(cgh_send_all(fd, head, strlen(head)), 0);
	while (!cut && cgt_now_ms() - t0 < (TIMEOUT_S + 4) * 1000) {
		char buf[256];
		struct pollfd pf = {fd, POLLIN, 0};

		if (cgh_send_all(fd, " ", 1) != 0)
			cut = 1;
		else if (poll(&pf, 1, 300) > 0 &&
		         recv(fd, buf, sizeof(buf), 0) <= 0)
			cut = 1;
	}
	close(fd);
	assert_true(cut);
	assert_served();
}

/* --- MCP ------------------------------------------------------------------ */

static void
test_protocol_version_header(void **state)
{
	static const char *const ok[] = {"2025-03-26", "2025-06-18",
	                                 "2025-11-25", "2026-07-28"};
	const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
	char hdr[96];
	json_t *r = NULL;

	(void)state;
	assert_int_equal(mcp("MCP-Protocol-Version: 1999-01-01\r\n", ping, &r),
	                 400);
	json_decref(r);
	assert_int_equal(mcp("MCP-Protocol-Version: \r\n", ping, &r), 400);
	json_decref(r);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		(void)snprintf(hdr, sizeof(hdr), "MCP-Protocol-Version: %s\r\n",
		               ok[i]);
		assert_int_equal(mcp(hdr, ping, &r), 200);
		assert_non_null(json_object_get(r, "result"));
		json_decref(r);
	}
}

/* The error code of a JSON-RPC error reply, 0 when it is not one. */
static int
rpc_code(const json_t *r)
{
	return (int)json_integer_value(
	    json_object_get(json_object_get(r, "error"), "code"));
}

static void
test_malformed(void **state)
{
	static const struct {
		const char *body;
		int code;
	} cases[] = {
	    {"{bad", -32700},
	    {"", -32700},
	    {"[]", -32600},
	    {"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", -32600},
	    {"42", -32600},
	    {"{\"jsonrpc\":\"2.0\",\"id\":1}", -32600},
	    {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", -32600},
	    {"{\"id\":1,\"method\":\"ping\"}", -32600},
	    {"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", -32600},
	    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":3}",
	     -32600},
	    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}",
	     -32700},
	};
	json_t *r = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int st = mcp("", cases[i].body, &r);

		print_message("%s -> %d %d\n", cases[i].body, st, rpc_code(r));
		assert_int_equal(st, 400);
		assert_string_equal(
		    json_string_value(json_object_get(r, "jsonrpc")), "2.0");
		assert_int_equal(rpc_code(r), cases[i].code);
		assert_non_null(json_string_value(
		    json_object_get(json_object_get(r, "error"), "message")));
		json_decref(r);
	}
}

static void
test_unknown_method(void **state)
{
	json_t *r = NULL;

	(void)state;
	assert_int_equal(mcp("",
	                     "{\"jsonrpc\":\"2.0\",\"id\":\"x9\",\"method\":"
	                     "\"resources/frobnicate\"}",
	                     &r),
	                 200);
	assert_int_equal(rpc_code(r), -32601);
	assert_string_equal(json_string_value(json_object_get(r, "id")), "x9");
	json_decref(r);
	assert_int_equal(mcp("",
	                     "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	                     "\"tools/call\",\"params\":{\"name\":"
	                     "\"corpus_nope\"}}",
	                     &r),
	                 200);
	assert_int_equal(rpc_code(r), -32602);
	json_decref(r);
}

static void
test_notifications(void **state)
{
	char *body = NULL;

	(void)state;
	assert_int_equal(request("POST", "/mcp", "",
	                         "{\"jsonrpc\":\"2.0\",\"method\":"
	                         "\"notifications/initialized\"}",
	                         &body),
	                 202);
	assert_string_equal(body, "");
	free(body);
	assert_int_equal(request("POST", "/mcp", "",
	                         "{\"jsonrpc\":\"2.0\",\"method\":"
	                         "\"notifications/cancelled\",\"params\":"
	                         "{\"requestId\":1}}",
	                         &body),
	                 202);
	free(body);
	/* a client's response to a server request (none are sent): 202 */
	assert_int_equal(request("POST", "/mcp", "",
	                         "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}",
	                         &body),
	                 202);
	assert_string_equal(body, "");
	free(body);
}

#define META                                                             \
	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"%s\"," \
	"\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* A stateless request: no initialize, the version in _meta and in the
 * header. */
static int
stateless(const char *ver, const char *method, const char *params, json_t **r)
{
	char body[1024];
	char hdr[96];

	(void)snprintf(hdr, sizeof(hdr), "MCP-Protocol-Version: %s\r\n",
	               strcmp(ver, "2099-01-01") ? ver : "2026-07-28");
	(void)snprintf(body, sizeof(body),
	               "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"%s\","
	               "\"params\":{%s" META "}}",
	               method, params, ver);
	return mcp(hdr, body, r);
}

static void
test_stateless(void **state)
{
	json_t *r = NULL;
	json_t *res;

	(void)state;
	assert_int_equal(stateless("2026-07-28", "tools/list", "", &r), 200);
	res = json_object_get(r, "result");
	assert_true(json_array_size(json_object_get(res, "tools")) >= 5);
	assert_string_equal(
	    json_string_value(json_object_get(res, "resultType")), "complete");
	json_decref(r);
	assert_int_equal(stateless("2026-07-28", "tools/call",
	                           "\"name\":\"corpus_search\",\"arguments\":"
	                           "{\"q\":\"postgres\"},",
	                           &r),
	                 200);
	res = json_object_get(r, "result");
	assert_true(json_is_false(json_object_get(res, "isError")));
	assert_true(json_array_size(json_object_get(
	                json_object_get(res, "structuredContent"), "hits")) >=
	            1);
	json_decref(r);
	assert_int_equal(stateless("2026-07-28", "server/discover", "", &r),
	                 200);
	res = json_object_get(r, "result");
	assert_non_null(json_object_get(res, "supportedVersions"));
	assert_string_equal(json_string_value(json_object_get(
	                        json_object_get(res, "serverInfo"), "name")),
	                    "corpus-gw");
	json_decref(r);
	/* an unsupported version in _meta: an error listing the supported */
	assert_int_equal(stateless("2099-01-01", "tools/list", "", &r), 400);
	assert_int_equal(rpc_code(r), -32602);
	assert_true(json_array_size(json_object_get(
	                json_object_get(json_object_get(r, "error"), "data"),
	                "supported")) >= 4);
	json_decref(r);
}

/* initialize asking for ver; returns the version answered (malloc'd). */
static char *
initialize(const char *ver)
{
	char body[512];
	json_t *r = NULL;
	char *got;

	(void)snprintf(
	    body, sizeof(body),
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	    "\"params\":{\"protocolVersion\":\"%s\",\"capabilities\":"
	    "{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
	    ver);
	assert_int_equal(mcp("", body, &r), 200);
	got = strdup(json_string_value(
	    json_object_get(json_object_get(r, "result"), "protocolVersion")));
	assert_non_null(json_object_get(
	    json_object_get(json_object_get(r, "result"), "capabilities"),
	    "tools"));
	json_decref(r);
	return got;
}

static void
test_initialize(void **state)
{
	static const char *const cases[][2] = {
	    {"2025-03-26", "2025-03-26"}, {"2025-06-18", "2025-06-18"},
	    {"2025-11-25", "2025-11-25"}, {"2099-12-31", "2025-11-25"},
	    {"2024-11-05", "2025-11-25"}, {"2026-07-28", "2025-11-25"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = initialize(cases[i][0]);

		assert_string_equal(got, cases[i][1]);
		free(got);
	}
}

static void
test_tool_error(void **state)
{
	json_t *r = NULL;
	json_t *res;

	(void)state;
	assert_int_equal(mcp("",
	                     "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
	                     "\"tools/call\",\"params\":{\"name\":"
	                     "\"corpus_read\",\"arguments\":{\"uri\":"
	                     "\"cg://nowhere/x/../../etc/passwd\"}}}",
	                     &r),
	                 200);
	res = json_object_get(r, "result");
	assert_true(json_is_true(json_object_get(res, "isError")));
	assert_non_null(json_string_value(json_object_get(
	    json_array_get(json_object_get(res, "content"), 0), "text")));
	json_decref(r);
}

/* A ping of exactly len bytes (len >= 64), malloc'd. */
static char *
padded_ping(size_t len)
{
	static const char head[] =
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\","
	    "\"params\":{\"_pad\":\"";
	char *body = malloc(len + 1);

	assert_non_null(body);
	memcpy(body, head, sizeof(head) - 1);
	memset(body + sizeof(head) - 1, 'a', len - (sizeof(head) - 1) - 3);
	memcpy(body + len - 3, "\"}}", 4);
	assert_int_equal(strlen(body), len);
	return body;
}

/* A body of exactly the cap (1 MiB) is read; one byte more is refused
 * with 413 from the headers alone, before a body byte is sent. */
static void
test_body_cap(void **state)
{
	char *body = padded_ping(1u << 20);
	char raw[256];
	json_t *r = NULL;

	(void)state;
	assert_int_equal(mcp("", body, &r), 200);
	assert_non_null(json_object_get(r, "result"));
	json_decref(r);
	free(body);
	(void)snprintf(raw, sizeof(raw),
	               "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	               "Content-Type: application/json\r\n"
	               "Content-Length: %u\r\n\r\n",
	               port, (1u << 20) + 1);
	assert_int_equal(exchange(raw, strlen(raw), NULL), 413);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_origin),
	    cmocka_unit_test(test_host),
	    cmocka_unit_test(test_mcp_methods),
	    cmocka_unit_test(test_huge_body_declared),
	    cmocka_unit_test(test_huge_body_chunked),
	    cmocka_unit_test(test_many_headers),
	    cmocka_unit_test(test_slowloris),
	    cmocka_unit_test(test_slow_body),
	    cmocka_unit_test(test_protocol_version_header),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_unknown_method),
	    cmocka_unit_test(test_notifications),
	    cmocka_unit_test(test_stateless),
	    cmocka_unit_test(test_initialize),
	    cmocka_unit_test(test_tool_error),
	    cmocka_unit_test(test_body_cap),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
