/*
 * test_reload - `corpus-gw serve` reloads without a restart (issue 14):
 * SIGHUP during a stream of queries from several clients fails none of
 * them (nodes as child processes, so the swap also replaces processes);
 * a reload applies new tokens and a new deadline; a repository added to a
 * served workspace is served without any signal; a config broken on
 * reload is refused with a log line while the old one keeps serving.
 * Also: /readyz, and the children's log lines going through the parent's
 * logger at the verbosity asked for (`serve` and `query --spawn`).
 *
 * Everything is real: the binary ($CG_BIN), its HTTP server on loopback
 * (libcurl here), nodes, and a TCP listener that accepts and never answers
 * (a node that misses every deadline).
 */
#define _GNU_SOURCE
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "cgproc.h"
#include "cgtest.h"
#include "common/cg_buf.h"

#define WAIT_MS 60000 /* a reload under load (sanitizers) stays well under */

static struct {
	char *dir;
	char ws[1024];
	char cfg[1024];
	char log[1024];
	char url[256];
	cgt_proc *gw;
} fx;

static size_t
on_body(char *p, size_t size, size_t n, void *ctx)
{
	return cg_buf_append(ctx, p, size * n) == 0 ? size * n : 0;
}

/* GET url + path with a bearer token (or none): the status, and the JSON
 * body in *out when out is not NULL.  -1 when the request itself failed
 * (refused, reset, timed out). */
static long
get(const char *path, const char *token, json_t **out)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	char url[1024];
	char auth[256];
	cg_buf body;
	long status = -1;

	if (c == NULL)
		return -1;
	cg_buf_init(&body, 16u << 20);
	(void)snprintf(url, sizeof(url), "%s%s", fx.url, path);
	if (token != NULL) {
		(void)snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		               token);
		h = curl_slist_append(h, auth);
	}
	(void)curl_easy_setopt(c, CURLOPT_URL, url);
	(void)curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	(void)curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	(void)curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
	(void)curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	(void)curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (curl_easy_perform(c) == CURLE_OK)
		(void)curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (out != NULL)
		*out =
		    json_loadb(body.data ? body.data : "", body.len, 0, NULL);
	cg_buf_fini(&body);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return status;
}

/* How many lines of the gateway's log contain needle. */
static int
log_count(const char *needle)
{
	FILE *f = fopen(fx.log, "r");
	char line[8192];
	int n = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, needle) != NULL)
			n++;
	fclose(f);
	return n;
}

/* Waits until the log holds n lines with needle. */
static void
wait_log(const char *needle, int n)
{
	int64_t until = cgt_now_ms() + WAIT_MS;

	while (log_count(needle) < n && cgt_now_ms() < until)
		cgt_sleep_ms(20);
	if (log_count(needle) < n) {
		char *all = cgt_sh_out("cat '%s'", fx.log);

		fprintf(stderr, "log has %d x '%s', want %d:\n%s\n",
		        log_count(needle), needle, n, all);
		free(all);
	}
	assert_true(log_count(needle) >= n);
}

/* The example workspace: a root wiki with a corpus, billing and web. */
static void
make_workspace(void)
{
	fx.dir = cgt_tmpdir("reload");
	(void)snprintf(fx.ws, sizeof(fx.ws), "%s/ws", fx.dir);
	(void)snprintf(fx.cfg, sizeof(fx.cfg), "%s/gateway.yaml", fx.dir);
	(void)snprintf(fx.log, sizeof(fx.log), "%s/serve.log", fx.dir);
	cgt_sh("cp -r '%s/conf/example' '%s'", getenv("CG_SRC"), fx.ws);
	cgt_write(fx.dir, "alpha.token", "alpha-secret-0123456789\n");
	cgt_write(fx.dir, "beta.token", "beta-secret-0123456789\n");
}

/* Writes the config: token from <name>.token, the deadline, children or
 * threads, and a remote node at dead_port when it is not 0. */
static void
write_config(const char *token, int deadline_ms, bool spawn, int dead_port)
{
	char text[2048];
	char dead[512] = "";

	if (dead_port != 0)
		(void)snprintf(dead, sizeof(dead),
		               "nodes:\n  - name: dead\n    url: "
		               "tcp://127.0.0.1:%d\n    workspace: ws\n    "
		               "sources: [ghost]\n",
		               dead_port);
	(void)snprintf(text, sizeof(text),
	               "listen: http://127.0.0.1:0\ndeadline_ms: %d\n"
	               "cache: cache\nworkspaces:\n  - name: ws\n    path: ws\n"
	               "    spawn: %s\n%stokens:\n  - name: t\n    "
	               "secret_file: %s/%s.token\n",
	               deadline_ms, spawn ? "true" : "false", dead, fx.dir,
	               token);
	cgt_write(fx.dir, "gateway.yaml.tmp", text);
	cgt_sh("mv '%s/gateway.yaml.tmp' '%s'", fx.dir, fx.cfg);
}

/* Starts serve over the config and waits for /readyz. */
static void
start_gateway(const char *extra)
{
	const char *argv[] = {"corpus-gw", "serve", "--config",
	                      fx.cfg,      extra,   NULL};
	char *line;
	int64_t until;
	long st = 0;

	fx.gw = cgt_spawnv(fx.log, argv);
	line = cgt_proc_line(fx.gw, WAIT_MS);
	assert_non_null(line);
	assert_true(strncmp(line, "listening http://127.0.0.1:", 27) == 0);
	(void)snprintf(fx.url, sizeof(fx.url), "%s", line + 10);
	free(line);
	until = cgt_now_ms() + WAIT_MS;
	while ((st = get("/readyz", NULL, NULL)) != 200 &&
	       cgt_now_ms() < until) {
		/* Before the first sync ends it says why it is not ready. */
		assert_true(st == 503);
		cgt_sleep_ms(20);
	}
	assert_int_equal(st, 200);
}

static void
stop_gateway(void)
{
	cgt_proc_kill(fx.gw, SIGTERM);
	assert_int_equal(cgt_proc_wait(fx.gw, WAIT_MS), 0);
	cgt_proc_free(fx.gw);
	fx.gw = NULL;
	cgt_rm(fx.dir);
	free(fx.dir);
}

/* --- a stream of queries across reloads ----------------------------------- */

struct client {
	pthread_t th;
	atomic_bool *stop;
	long ok;
	long failed;
	long last_status;
};

static void *
client_main(void *arg)
{
	struct client *c = arg;

	while (!atomic_load(c->stop)) {
		json_t *ans = NULL;
		long st = get("/v1/search?q=refund+window",
		              "alpha-secret-0123456789", &ans);

		/* Every answer is complete: the two billing and web pages. */
		if (st == 200 &&
		    json_array_size(json_object_get(ans, "hits")) >= 2)
			c->ok++;
		else {
			c->failed++;
			c->last_status = st;
		}
		json_decref(ans);
	}
	return NULL;
}

static void
test_sighup_during_queries(void **state)
{
	struct client cl[3];
	atomic_bool stop;
	long total = 0;

	(void)state;
	make_workspace();
	write_config("alpha", 2000, true, 0);
	start_gateway(NULL);
	atomic_init(&stop, false);
	for (size_t i = 0; i < 3; i++) {
		cl[i] = (struct client){.stop = &stop};
		assert_int_equal(
		    pthread_create(&cl[i].th, NULL, client_main, &cl[i]), 0);
	}
	for (int i = 1; i <= 3; i++) {
		cgt_sleep_ms(150); /* queries before each reload */
		cgt_proc_kill(fx.gw, SIGHUP);
		wait_log("reloaded reason=signal", i);
	}
	cgt_sleep_ms(150);
	atomic_store(&stop, true);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(pthread_join(cl[i].th, NULL), 0);
		if (cl[i].failed > 0)
			fprintf(stderr, "client %zu: %ld failed (last %ld)\n",
			        i, cl[i].failed, cl[i].last_status);
		assert_int_equal(cl[i].failed, 0);
		total += cl[i].ok;
	}
	assert_true(total >= 6);
	/* The children's lines came through the gateway's logger: the
	 * child nodes listen on ipc:// (in-process ones on inproc://), and
	 * each of the four rosters started its own. */
	assert_true(log_count("info node serving node=ws/billing url=ipc://") >=
	            4);
	assert_int_equal(log_count("reload refused"), 0);
	stop_gateway();
}

/* --- tokens, deadlines, a new repository, a broken config ----------------- */

/* A TCP listener that accepts (the kernel does) and never answers. */
static int
silent_listener(int *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t n = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &n), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* How long the search waited for the silent node ("timeout after N
 * ms" in the receipt): the deadline, give or take the clock. */
static int
dead_wait_ms(const char *token)
{
	json_t *ans = NULL;
	const json_t *n;
	size_t i;
	char *out = NULL;
	int ms = -1;

	assert_int_equal(get("/v1/search?q=refund", token, &ans), 200);
	json_array_foreach(
	    json_object_get(json_object_get(ans, "evidence"), "nodes"), i, n)
		if (strcmp(json_string_value(json_object_get(n, "node")),
		           "dead") == 0)
			out = strdup(
			    json_string_value(json_object_get(n, "outcome")));
	json_decref(ans);
	assert_non_null(out);
	if (sscanf(out, "timeout after %d ms", &ms) != 1)
		fail_msg("silent node: outcome '%s'", out);
	free(out);
	return ms;
}

/* Adds sub-guild payments (a copy of billing) to the manifest. */
static void
add_repository(void)
{
	json_t *m;
	json_error_t e;
	char path[1200];

	cgt_sh("cp -r '%s/billing' '%s/payments'", fx.ws, fx.ws);
	(void)snprintf(path, sizeof(path), "%s/.guild/workspace.json", fx.ws);
	m = json_load_file(path, 0, &e);
	assert_non_null(m);
	assert_int_equal(
	    json_array_append_new(json_object_get(m, "sub_guilds"),
	                          json_pack("{s:s, s:s, s:s, s:b}", "name",
	                                    "payments", "path", "payments",
	                                    "kind", "service", "has_wiki", 1)),
	    0);
	(void)snprintf(path, sizeof(path), "%s/.guild/workspace.json.new",
	               fx.ws);
	assert_int_equal(json_dump_file(m, path, JSON_INDENT(2)), 0);
	json_decref(m);
	cgt_sh("mv '%s/.guild/workspace.json.new' '%s/.guild/workspace.json'",
	       fx.ws, fx.ws);
}

static void
test_reload_applies_config(void **state)
{
	int port;
	int dead = silent_listener(&port);
	int ms;
	json_t *ans = NULL;

	(void)state;
	make_workspace();
	write_config("alpha", 250, false, port);
	start_gateway(NULL);
	assert_int_equal(
	    get("/v1/search?q=refund", "alpha-secret-0123456789", NULL), 200);
	assert_int_equal(
	    get("/v1/search?q=refund", "beta-secret-0123456789", NULL), 401);
	ms = dead_wait_ms("alpha-secret-0123456789");
	assert_true(ms >= 250 && ms < 700);

	/* New token, new deadline. */
	write_config("beta", 700, false, port);
	cgt_proc_kill(fx.gw, SIGHUP);
	wait_log("reloaded reason=signal", 1);
	assert_int_equal(
	    get("/v1/search?q=refund", "alpha-secret-0123456789", NULL), 401);
	assert_true(dead_wait_ms("beta-secret-0123456789") >= 700);

	/* A repository added to the workspace: served, no signal. */
	assert_int_equal(get("/v1/search?q=refund&source=payments",
	                     "beta-secret-0123456789", NULL),
	                 400);
	add_repository();
	wait_log("reloaded reason=workspace", 1);
	assert_int_equal(get("/v1/search?q=refund&source=payments",
	                     "beta-secret-0123456789", &ans),
	                 200);
	assert_true(json_array_size(json_object_get(ans, "hits")) > 0);
	json_decref(ans);

	/* A broken config: refused, logged, the old one keeps serving. */
	cgt_write(fx.dir, "gateway.yaml", "workspaces: [\n");
	cgt_proc_kill(fx.gw, SIGHUP);
	wait_log("reload refused", 1);
	assert_int_equal(log_count("reloaded reason=signal"), 1);
	assert_int_equal(get("/v1/search?q=refund&source=payments",
	                     "beta-secret-0123456789", NULL),
	                 200);
	assert_int_equal(
	    get("/v1/search?q=refund", "alpha-secret-0123456789", NULL), 401);
	close(dead);
	stop_gateway();
}

/* --- the children's log lines ----------------------------------------------
 */

static void
test_child_logs_follow_verbosity(void **state)
{
	char *out = NULL;
	char *err = NULL;
	char cache[1200];

	(void)state;
	make_workspace();
	(void)snprintf(cache, sizeof(cache), "%s/cache", fx.dir);
	/* Default: warnings and errors only; the children's info lines
	 * ("serving ...") are not printed. */
	assert_int_equal(cgt_run(&out, &err, "query", "--workspace", fx.ws,
	                         "--cache", cache, "--spawn", "refund",
	                         (char *)NULL),
	                 0);
	assert_non_null(strstr(out, "Refund window"));
	assert_string_equal(err, "");
	free(out);
	free(err);
	/* -v: every line, in the parent's format, naming its node. */
	assert_int_equal(cgt_run(&out, &err, "query", "--workspace", fx.ws,
	                         "--cache", cache, "--spawn", "-v", "refund",
	                         (char *)NULL),
	                 0);
	assert_non_null(strstr(err, " info node serving node=ws/billing "));
	assert_non_null(strstr(err, " debug node "));
	free(out);
	free(err);
	cgt_rm(fx.dir);
	free(fx.dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sighup_during_queries),
	    cmocka_unit_test(test_reload_applies_config),
	    cmocka_unit_test(test_child_logs_follow_verbosity),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
