/*
 * test_cli_errors.c - one error map (issue 10): every error a CLI tool
 * gets from the federation exits with the same code whether the CLI runs
 * the gateway in-process (--workspace) or talks to a running one
 * (--gateway URL), and both surfaces name it alike.
 *
 * For each case the same request goes four ways: the real binary with
 * --workspace and with --gateway against a real `corpus-gw serve` on
 * 127.0.0.1 port 0; the HTTP API of that server (the code name of its
 * error object); and the tool table in this process over the gateway the
 * CLI's embedded mode opens (the code of its cg_err).  Both names must be
 * the expected one and both exit codes cg_code_exit() of it (SPEC 6: 2
 * for the caller's mistakes, 10 for nothing provisioned).
 *
 * parse_error comes only from loading a workspace, which a running
 * gateway has done before it listens: there the embedded CLI and `serve`
 * itself must both exit with it.  Errors the CLI finds in its own options
 * (before any request) do not depend on the path and are not listed.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cgproc.h"
#include "cgtest.h"
#include "common/cg_buf.h"
#include "common/cg_err.h"
#include "conf/config.h"
#include "gateway/api.h"
#include "gateway/gateway.h"

#define BIG_PAGE_BYTES (9u << 20) /* over the 8 MiB read limit */

static char *ws;        /* a workspace with a wiki */
static char *empty;     /* a workspace without one */
static char *bad;       /* a workspace whose manifest does not parse */
static char *cache;     /* the embedded runs' indexes */
static char *srv_cache; /* the servers' indexes */
static cgt_proc *srv;   /* serve --workspace ws */
static cgt_proc *srv_empty;
static char url[128];
static char url_empty[128];

/* One request: the CLI command and its arguments after the session
 * options, and the same as a tool of the API with its arguments. */
struct ecase {
	const char *code;    /* the expected error code name */
	bool on_empty;       /* against the workspace without a wiki */
	const char *cmd;     /* CLI command */
	const char *argv[4]; /* NULL-ended */
	const char *tool;    /* API tool */
	const char *json;    /* its arguments */
};

/* --- servers ------------------------------------------------------------- */

static cgt_proc *
serve(const char *dir, char *out, size_t n)
{
	const char *argv[] = {"corpus-gw", "serve",    "--workspace",
	                      dir,         "--listen", "http://127.0.0.1:0",
	                      "--cache",   srv_cache,  NULL};
	cgt_proc *p = cgt_spawnv(NULL, argv);
	char *line = cgt_proc_line(p, 30000);
	int port = 0;

	assert_non_null(line);
	assert_int_equal(sscanf(line, "listening http://127.0.0.1:%d", &port),
	                 1);
	(void)snprintf(out, n, "http://127.0.0.1:%d", port);
	free(line);
	return p;
}

static int
setup(void **state)
{
	cg_buf big;

	(void)state;
	ws = cgt_tmpdir("clierr-ws");
	empty = cgt_tmpdir("clierr-empty");
	bad = cgt_tmpdir("clierr-bad");
	cache = cgt_tmpdir("clierr-cache");
	srv_cache = cgt_tmpdir("clierr-srv-cache");
	cgt_page(ws, ".guild/wiki/concepts/alpha.md", "type: concept",
	         "# Alpha\n\nSee [[beta]].\n");
	cgt_write(ws, "README.md", "# not a wiki page\n");
	cg_buf_init(&big, BIG_PAGE_BYTES + 1024);
	assert_int_equal(cg_buf_puts(&big, "# Big\n\n"), 0);
	while (big.len < BIG_PAGE_BYTES)
		assert_int_equal(cg_buf_puts(&big, "word word word word.\n"),
		                 0);
	cgt_write_bytes(ws, ".guild/wiki/concepts/big.md", big.data, big.len);
	cg_buf_fini(&big);
	cgt_write(empty, "README.md", "# no wiki here\n");
	cgt_page(bad, ".guild/wiki/concepts/alpha.md", "type: concept",
	         "# Alpha\n");
	cgt_write(bad, ".guild/workspace.json", "{not json");
	srv = serve(ws, url, sizeof(url));
	srv_empty = serve(empty, url_empty, sizeof(url_empty));
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	cgt_node_stop(srv, 15000);
	cgt_proc_free(srv);
	cgt_node_stop(srv_empty, 15000);
	cgt_proc_free(srv_empty);
	cgt_rm(ws);
	cgt_rm(empty);
	cgt_rm(bad);
	cgt_rm(cache);
	cgt_rm(srv_cache);
	free(ws);
	free(empty);
	free(bad);
	free(cache);
	free(srv_cache);
	return 0;
}

/* --- the four ways ------------------------------------------------------- */

/* Runs the CLI with the session options sess (NULL-ended, at most 4) and
 * the case's arguments; returns the exit code and checks the one error
 * line names the command. */
static int
cli(const struct ecase *c, const char *const *sess)
{
	const char *argv[16];
	size_t n = 0;
	char *out = NULL;
	char *err = NULL;
	char head[64];
	int rc;

	argv[n++] = "corpus-gw";
	argv[n++] = c->cmd;
	for (size_t i = 0; sess[i] != NULL; i++)
		argv[n++] = sess[i];
	for (size_t i = 0; c->argv[i] != NULL; i++)
		argv[n++] = c->argv[i];
	argv[n] = NULL;
	rc = cgt_runv(&out, &err, argv);
	(void)snprintf(head, sizeof(head), "corpus-gw %s: ", c->cmd);
	if (strstr(err, head) == NULL)
		fail_msg("%s %s: no error line in '%s'", c->cmd, c->argv[0],
		         err);
	free(out);
	free(err);
	return rc;
}

static size_t
on_body(char *p, size_t size, size_t n, void *ctx)
{
	return cg_buf_append(ctx, p, size * n) == 0 ? size * n : 0;
}

/* The code name of the error object the HTTP API answers for the case. */
static char *
http_code(const char *base, const struct ecase *c)
{
	json_t *args = json_loads(c->json, 0, NULL);
	CURL *h = curl_easy_init();
	cg_buf u;
	cg_buf body;
	const char *key;
	json_t *v;
	json_t *ans;
	char *name;
	char sep = '?';

	assert_non_null(args);
	assert_non_null(h);
	cg_buf_init(&u, 1 << 16);
	cg_buf_init(&body, 1 << 20);
	(void)cg_buf_printf(&u, "%s/v1/%s", base, c->tool);
	json_object_foreach(args, key, v) {
		char *esc = curl_easy_escape(h, json_string_value(v), 0);

		(void)cg_buf_printf(&u, "%c%s=%s", sep, key, esc);
		sep = '&';
		curl_free(esc);
	}
	(void)curl_easy_setopt(h, CURLOPT_URL, cg_buf_str(&u));
	(void)curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	(void)curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
	(void)curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
	assert_int_equal(curl_easy_perform(h), CURLE_OK);
	ans = json_loadb(body.data, body.len, 0, NULL);
	assert_non_null(ans);
	name = strdup(json_string_value(
	    json_object_get(json_object_get(ans, "error"), "code")));
	json_decref(ans);
	json_decref(args);
	cg_buf_fini(&u);
	cg_buf_fini(&body);
	curl_easy_cleanup(h);
	return name;
}

/* The code of the case's error through the tool table, over the gateway
 * the CLI's embedded mode opens on dir (its nodes synced first). */
static int
api_code(const char *dir, const struct ecase *c)
{
	cg_config cfg;
	cg_gateway_opts go = {0};
	cg_gateway *gw = NULL;
	json_t *args = json_loads(c->json, 0, NULL);
	json_t *out = NULL;
	json_t *rep = NULL;
	cg_err err;
	int rc;

	cg_err_clear(&err);
	rc = cg_config_for_workspace(&cfg, dir, cache, false, 0, &err);
	go.config = &cfg;
	go.on_demand = true;
	if (rc == 0)
		rc = cg_gateway_open(&gw, &go, &err);
	if (rc == 0) {
		(void)cg_fed_sync(cg_gateway_fed(gw), &rep, NULL);
		rc = cg_api_call(cg_gateway_fed(gw), c->tool, args, &out, &err);
	}
	json_decref(rep);
	json_decref(out);
	json_decref(args);
	cg_gateway_free(gw);
	cg_config_fini(&cfg);
	return rc;
}

/* --- the cases ----------------------------------------------------------- */

/* Runs case c the four ways; false (and a line saying how) when they do
 * not all give its code. */
static bool
agree(const struct ecase *c)
{
	const char *dir = c->on_empty ? empty : ws;
	const char *base = c->on_empty ? url_empty : url;
	const char *embedded[] = {"--workspace", dir, "--cache", cache, NULL};
	const char *remote[] = {"--gateway", base, NULL};
	int want = cg_code_exit(cg_code_from_name(c->code));
	char *http = http_code(base, c);
	const char *api = cg_code_name(api_code(dir, c));
	int in_process = cli(c, embedded);
	int over_http = cli(c, remote);
	bool ok = strcmp(api, c->code) == 0 && strcmp(http, c->code) == 0 &&
	          in_process == want && over_http == want;

	if (!ok)
		print_error("%s %.40s: want %s (exit %d); tool table %s, HTTP "
		            "%s, exit %d with --workspace, %d with --gateway\n",
		            c->cmd, c->argv[0], c->code, want, api, http,
		            in_process, over_http);
	free(http);
	return ok;
}

static const struct ecase cases[] = {
    {"invalid_input",
     false,
     "grep",
     {"(", NULL},
     "grep",
     "{\"pattern\": \"(\"}"},
    {"invalid_input",
     false,
     "read",
     {"--lines", "0:x", "root/.guild/wiki/concepts/alpha.md", NULL},
     "read",
     "{\"uri\": \"root/.guild/wiki/concepts/alpha.md\", \"lines\": "
     "\"0:x\"}"},
    {"invalid_input",
     false,
     "read",
     {"nosuchsource/a.md", NULL},
     "read",
     "{\"uri\": \"nosuchsource/a.md\"}"},
    {"invalid_input",
     false,
     "query",
     {"alpha", "--category", "nope", NULL},
     "search",
     "{\"q\": \"alpha\", \"category\": \"nope\"}"},
    {"not_found",
     false,
     "read",
     {"root/.guild/wiki/concepts/missing.md", NULL},
     "read",
     "{\"uri\": \"root/.guild/wiki/concepts/missing.md\"}"},
    {"not_found",
     false,
     "links",
     {"root/.guild/wiki/concepts/missing.md", NULL},
     "links",
     "{\"uri\": \"root/.guild/wiki/concepts/missing.md\"}"},
    {"denied",
     false,
     "read",
     {"root/README.md", NULL},
     "read",
     "{\"uri\": \"root/README.md\"}"},
    {"denied",
     false,
     "read",
     {"root/.guild/wiki/../../README.md", NULL},
     "read",
     "{\"uri\": \"root/.guild/wiki/../../README.md\"}"},
    {"too_big",
     false,
     "read",
     {"root/.guild/wiki/concepts/big.md", NULL},
     "read",
     "{\"uri\": \"root/.guild/wiki/concepts/big.md\"}"},
    {"not_provisioned",
     true,
     "query",
     {"alpha", NULL},
     "search",
     "{\"q\": \"alpha\"}"},
    {"not_provisioned",
     true,
     "read",
     {"root/a.md", NULL},
     "read",
     "{\"uri\": \"root/a.md\"}"},
};

static void
test_errors_agree(void **state)
{
	size_t failed = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		failed += !agree(&cases[i]);
	assert_int_equal(failed, 0);
}

/* A query over the length cap: too_big, its text built here. */
static void
test_long_query(void **state)
{
	char *q = malloc(5001);
	char *json = malloc(5100);
	struct ecase c = {"too_big",    false,    "query",
	                  {NULL, NULL}, "search", NULL};

	(void)state;
	memset(q, 'a', 5000);
	q[5000] = '\0';
	(void)snprintf(json, 5100, "{\"q\": \"%s\"}", q);
	c.argv[0] = q;
	c.json = json;
	assert_true(agree(&c));
	free(q);
	free(json);
}

/* A manifest that does not parse: the embedded CLI exits with
 * parse_error, and so does `serve`, before it listens. */
static void
test_parse_error(void **state)
{
	struct ecase c = {
	    "parse_error", false,
	    "read",        {"root/.guild/wiki/concepts/alpha.md", NULL},
	    "read",        "{\"uri\": \"root/.guild/wiki/concepts/alpha.md\"}"};
	const char *embedded[] = {"--workspace", bad, "--cache", cache, NULL};
	int want = cg_code_exit(CG_EPARSE);
	char *out = NULL;
	char *err = NULL;

	(void)state;
	assert_string_equal(cg_code_name(api_code(bad, &c)), "parse_error");
	assert_int_equal(cli(&c, embedded), want);
	assert_int_equal(cgt_run(&out, &err, "serve", "--workspace", bad,
	                         "--listen", "http://127.0.0.1:0", "--cache",
	                         srv_cache, NULL),
	                 want);
	assert_null(strstr(out, "listening"));
	free(out);
	free(err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_errors_agree),
	    cmocka_unit_test(test_long_query),
	    cmocka_unit_test(test_parse_error),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
