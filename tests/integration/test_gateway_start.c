/*
 * test_gateway_start.c - the gateway's start-up, in-process: cg_http_new
 * (gateway/http.c) on a real libmicrohttpd daemon on loopback, and
 * cg_config_for_workspace (gateway/gateway.c).
 *
 * - A request that arrives the moment libmicrohttpd's workers run is
 *   screened against the port actually bound: the port is known before
 *   the daemon starts (a client may connect as soon as the socket
 *   listens; reading the port back after the start raced with the
 *   workers, and such a request got 403 for a Host of port 0).  This
 *   program's MHD_start_daemon replaces libmicrohttpd's: it starts the
 *   daemon through MHD_start_daemon_va and, before returning it to
 *   cg_http_new, sends that request.
 * - The listen address's port is checked as a number: one past int's
 *   range used to wrap into a valid port.
 * - An out-of-memory copy fails the start instead of leaving a hole: a
 *   NULL allowed origin used to end the list early (origins after it were
 *   refused), a NULL workspace name, cache or listen address was returned
 *   as success.  This program's strdup replaces libc's: it fails for the
 *   one string fail_dup names.
 */
#define _GNU_SOURCE
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <libgen.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cgtest.h"
#include "common/cg_err.h"
#include "conf/config.h"
#include "gateway/gateway.h"
#include "gateway/http.h"

#define IO_MS 10000

/* --- strdup, failing on demand ------------------------------------------ */

static const char *fail_dup; /* the string whose copy fails, or NULL */

/* libc's strdup, but NULL with ENOMEM for the string fail_dup names.
 * Defined here, it is the strdup of every call in this program. */
char *
strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p;

	if (fail_dup != NULL && strcmp(s, fail_dup) == 0) {
		errno = ENOMEM;
		return NULL;
	}
	p = malloc(n);
	if (p != NULL)
		memcpy(p, s, n);
	return p;
}

/* --- a raw HTTP client ---------------------------------------------------- */

/* The status of `GET /healthz` on 127.0.0.1:port with the given Host and
 * Origin (NULL: none); -1 when there is no answer.  No assertion here: it
 * runs inside cg_http_new. */
static int
healthz_status(int port, const char *host, const char *origin)
{
	struct sockaddr_in sa = {0};
	char req[512];
	char resp[4096];
	size_t len = 0;
	int st = -1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	(void)snprintf(req, sizeof(req),
	               "GET /healthz HTTP/1.1\r\nHost: %s\r\n%s%s%s"
	               "Connection: close\r\n\r\n",
	               host, origin ? "Origin: " : "", origin ? origin : "",
	               origin ? "\r\n" : "");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req)) {
		close(fd);
		return -1;
	}
	while (len < sizeof(resp) - 1) {
		struct pollfd pf = {fd, POLLIN, 0};
		ssize_t k;

		if (poll(&pf, 1, IO_MS) <= 0)
			break;
		k = recv(fd, resp + len, sizeof(resp) - 1 - len, 0);
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	resp[len] = '\0';
	if (sscanf(resp, "HTTP/1.%*d %d", &st) != 1)
		return -1;
	return st;
}

/* --- libmicrohttpd's start, with a first request ------------------------ */

static int starts;       /* daemons started */
static int early_port;   /* the port the first request went to */
static int early_status; /* its status */

/* The port a daemon listens on. */
static int
daemon_port(struct MHD_Daemon *d)
{
	const union MHD_DaemonInfo *info =
	    MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
	struct sockaddr_in sa;
	socklen_t n = sizeof(sa);

	if (info == NULL ||
	    getsockname(info->listen_fd, (struct sockaddr *)&sa, &n) != 0)
		return -1;
	return ntohs(sa.sin_port);
}

/* libmicrohttpd's, then GET /healthz with the right Host while its
 * workers already run and cg_http_new has not returned yet. */
struct MHD_Daemon *
MHD_start_daemon(unsigned int flags, uint16_t port,
                 MHD_AcceptPolicyCallback apc, void *apc_cls,
                 MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
	struct MHD_Daemon *d;
	va_list ap;
	char host[64];

	va_start(ap, dh_cls);
	d = MHD_start_daemon_va(flags, port, apc, apc_cls, dh, dh_cls, ap);
	va_end(ap);
	if (d == NULL)
		return NULL;
	starts++;
	early_port = daemon_port(d);
	(void)snprintf(host, sizeof(host), "127.0.0.1:%d", early_port);
	early_status = healthz_status(early_port, host, NULL);
	return d;
}

/* --- tests ---------------------------------------------------------------- */

static void
test_port_known_before_workers(void **state)
{
	cg_http_opts o = {.listen = "http://127.0.0.1:0"};
	cg_http *h = NULL;
	cg_err err;
	char want[64];

	(void)state;
	cg_err_clear(&err);
	starts = 0;
	early_status = -1;
	assert_int_equal(cg_http_new(&h, &o, &err), 0);
	assert_int_equal(starts, 1);
	assert_true(early_port > 0);
	assert_int_equal(early_status, 200);
	(void)snprintf(want, sizeof(want), "http://127.0.0.1:%d", early_port);
	assert_string_equal(cg_http_url(h), want);
	cg_http_free(h);
}

/* A port past int's range is refused, not wrapped into 0-65535 (2^32 is
 * port 0 wrapped, 2^32 + 8096 port 8096); the ends of the range are
 * accepted. */
static void
test_listen_port_range(void **state)
{
	static const char *const bad[] = {"http://127.0.0.1:4294967296",
	                                  "http://127.0.0.1:4294975392",
	                                  "http://127.0.0.1:65536",
	                                  "http://127.0.0.1:-1",
	                                  "http://127.0.0.1:80x",
	                                  "http://127.0.0.1:",
	                                  "http://127.0.0.1"};
	cg_http_opts o = {.listen = "http://127.0.0.1:0"};
	cg_http *h = NULL;
	cg_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cg_err_clear(&err);
		o.listen = bad[i];
		assert_int_equal(cg_http_new(&h, &o, &err), CG_EINVAL);
		assert_null(h);
		assert_non_null(strstr(err.msg, "expected http://HOST:PORT"));
	}
	cg_err_clear(&err);
	o.listen = "http://localhost:0";
	assert_int_equal(cg_http_new(&h, &o, &err), 0);
	cg_http_free(h);
}

static const char *const origins[] = {"http://a.example", "http://b.example",
                                      "http://c.example", NULL};

/* Every allowed origin is allowed, and only those. */
static void
test_origins_copied(void **state)
{
	cg_http_opts o = {.listen = "http://127.0.0.1:0",
	                  .allowed_origins = origins};
	cg_http *h = NULL;
	cg_err err;
	char host[64];

	(void)state;
	cg_err_clear(&err);
	fail_dup = NULL;
	assert_int_equal(cg_http_new(&h, &o, &err), 0);
	(void)snprintf(host, sizeof(host), "127.0.0.1:%d", early_port);
	for (size_t i = 0; origins[i] != NULL; i++)
		assert_int_equal(healthz_status(early_port, host, origins[i]),
		                 200);
	assert_int_equal(healthz_status(early_port, host, "http://d.example"),
	                 403);
	cg_http_free(h);
}

/* A copy that fails fails the start; it does not end the list early. */
static void
test_origin_copy_fails(void **state)
{
	cg_http_opts o = {.listen = "http://127.0.0.1:0",
	                  .allowed_origins = origins};
	cg_http *h = NULL;
	cg_err err;

	(void)state;
	cg_err_clear(&err);
	starts = 0;
	fail_dup = origins[1];
	assert_int_equal(cg_http_new(&h, &o, &err), CG_ENOMEM);
	fail_dup = NULL;
	assert_null(h);
	assert_int_equal(err.code, CG_ENOMEM);
	assert_int_equal(starts, 0);
}

static void
test_config_for_workspace(void **state)
{
	char *dir = cgt_tmpdir("start");
	cg_config cfg;
	cg_err err;
	char *real = realpath(dir, NULL);

	(void)state;
	cg_err_clear(&err);
	assert_int_equal(
	    cg_config_for_workspace(&cfg, dir, "/tmp/cgt-cache", true, 0, &err),
	    0);
	assert_int_equal(cfg.nworkspaces, 1);
	assert_string_equal(cfg.workspaces[0].path, real);
	assert_string_equal(cfg.workspaces[0].name, basename(real));
	assert_true(cfg.workspaces[0].spawn);
	assert_string_equal(cfg.cache, "/tmp/cgt-cache");
	assert_string_equal(cfg.listen, "http://127.0.0.1:7700");
	assert_int_equal(cfg.deadline_ms, 800);
	cg_config_fini(&cfg);
	free(real);
	cgt_rm(dir);
	free(dir);
}

/* Each copy that fails (the workspace's name, the cache, the listen
 * address) fails the call, with nothing left to free. */
static void
test_config_copy_fails(void **state)
{
	char *dir = cgt_tmpdir("start");
	char *real = realpath(dir, NULL);
	const char *const fail[] = {basename(real), "/tmp/cgt-cache",
	                            "http://127.0.0.1:7700"};

	(void)state;
	for (size_t i = 0; i < sizeof(fail) / sizeof(fail[0]); i++) {
		cg_config cfg;
		cg_err err;
		int rc;

		cg_err_clear(&err);
		fail_dup = fail[i];
		rc = cg_config_for_workspace(&cfg, dir, "/tmp/cgt-cache", false,
		                             0, &err);
		fail_dup = NULL;
		assert_int_equal(rc, CG_ENOMEM);
		assert_int_equal(err.code, CG_ENOMEM);
		assert_null(cfg.workspaces);
		assert_int_equal(cfg.nworkspaces, 0);
		assert_null(cfg.cache);
		assert_null(cfg.listen);
	}
	free(real);
	cgt_rm(dir);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_port_known_before_workers),
	    cmocka_unit_test(test_listen_port_range),
	    cmocka_unit_test(test_origins_copied),
	    cmocka_unit_test(test_origin_copy_fails),
	    cmocka_unit_test(test_config_for_workspace),
	    cmocka_unit_test(test_config_copy_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
