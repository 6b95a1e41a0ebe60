/*
 * test_tool_offload.c - tool calls run off the HTTP threads (issue 15
 * finding 5 and its review; gateway/tool_pool.h), through the real
 * gateway (`corpus-gw serve --config`) over loopback.  The roster is a
 * real node (acme/root, a few pages about quokkas), the slow node of
 * tests/support/cghostile_node.h (acme/slow), which answers every grep
 * after DELAY_MS and every other op at once, and NSLOW more slow nodes
 * (acme/sN, source sN), which answer every search after SEARCH_DELAY_MS;
 * each serves one request at a time: a grep or a search of sN takes
 * seconds on any machine, and the test decides how many run.  The round
 * deadline is raised to 60 s so that the gateway waits for them.
 *
 * - While one search of each slow source runs (proved by every slow
 *   node's attack count: each has received its search), NSLOW in all,
 *   more than the gateway's HTTP threads, more /healthz and searches of
 *   the healthy source than the gateway has HTTP threads are all answered
 *   200 before any slow search is answered; the slow searches by the JSON
 *   API, then by MCP.  (Not by the search page: it asks every node's
 *   status for its source list first, and a slow node busy with another
 *   search answers it only after that one.)
 *   Before the tool pool a search ran on its HTTP thread, so this failed
 *   wherever the HTTP threads (one per CPU, at least 4) were fewer
 *   than NSLOW: they were all waiting for slow nodes.
 *
 * - While both grep slots run and the waiting slot is taken (proved by the
 *   gate's refusals: it refuses only then), more /healthz and search
 *   requests than the gateway has HTTP threads are all answered 200
 *   before any admitted grep is answered (the greps were still running).
 * - A grep client that goes away mid-grep: the gateway completes the
 *   request when the grep ends, keeps serving, and the slot comes back (a
 *   later grep is admitted and answered 200).
 * - SIGTERM with greps in flight: every client gets an answer or a closed
 *   connection, none hangs, and the gateway exits 0 (under the sanitizers
 *   a leak would make that exit non-zero).
 *
 * Only ordering is asserted, never a duration.  Every child is stopped in
 * the teardown, whatever failed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "cghostile_node.h"
#include "cgproc.h"
#include "cgtest.h"
#include "common/cg_buf.h"
#include "common/cg_fs.h"

#define DELAY_MS        3000 /* the slow node's grep (times the slowdown) */
#define NGREPS          6    /* 2 run, 1 waits, the rest are refused */
#define NCLIENTS        16   /* /healthz and search clients at once */
#define NREQS           3    /* requests each */
#define GREP_PATH       "/v1/grep?pattern=quokka"
#define SEARCH          "/v1/search?q=quokka&source=root"
#define NSLOW           6    /* slow search nodes: more than the HTTP threads */
#define SEARCH_DELAY_MS 8000 /* a slow node's search (times the slowdown) */

static struct {
	char *tmp;
	char *log;       /* the gateway's stderr */
	cgt_honest real; /* the real node beside the slow one */
	cgt_hostile *slow;
	cgt_hostile *slows[NSLOW]; /* acme/sN: slow searches */
	cgt_proc *gw;
	char *http; /* the gateway's http://127.0.0.1:PORT */
} fx;

struct client {
	const char *path;
	const char *post; /* a JSON body to POST, or NULL: GET */
	long timeout_ms;  /* curl's; a short one leaves mid-request */
	long status;      /* 0: no answer */
	json_t *body;
	CURLcode rc;
	atomic_int done;
};

static size_t
on_body(char *p, size_t size, size_t n, void *ctx)
{
	return cg_buf_append(ctx, p, size * n) == 0 ? size * n : 0;
}

static void
get(struct client *c)
{
	CURL *h = curl_easy_init();
	struct curl_slist *hdr = NULL;
	char url[1024];
	cg_buf body;

	cg_buf_init(&body, 64u << 20);
	(void)snprintf(url, sizeof(url), "%s%s", fx.http, c->path);
	(void)curl_easy_setopt(h, CURLOPT_URL, url);
	(void)curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	(void)curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
	(void)curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
	(void)curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	if (c->post != NULL) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		hdr = curl_slist_append(hdr, "Accept: application/json, "
		                             "text/event-stream");
		(void)curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
		(void)curl_easy_setopt(h, CURLOPT_POSTFIELDS, c->post);
	}
	c->status = 0;
	c->rc = curl_easy_perform(h);
	if (c->rc == CURLE_OK)
		(void)curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &c->status);
	json_decref(c->body);
	c->body = json_loadb(body.data ? body.data : "", body.len, 0, NULL);
	cg_buf_fini(&body);
	curl_easy_cleanup(h);
	curl_slist_free_all(hdr);
	atomic_store(&c->done, 1);
}

static void *
client_main(void *arg)
{
	get(arg);
	return NULL;
}

/* NREQS requests in a row; each must be 200. */
static void *
repeat_main(void *arg)
{
	struct client *c = arg;

	for (int i = 0; i < NREQS && (i == 0 || c->status == 200); i++)
		get(c);
	return NULL;
}

static void
start(pthread_t *t, struct client *c, const char *path, const char *post,
      long timeout_ms, void *(*fn)(void *))
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	c->post = post;
	c->timeout_ms = timeout_ms;
	atomic_init(&c->done, 0);
	assert_int_equal(pthread_create(t, NULL, fn, c), 0);
}

static long
long_timeout(void)
{
	return 120000L * cgt_slowdown();
}

/* The MCP tool result of an answer (borrowed), or NULL. */
static const json_t *
mcp_result(const struct client *c)
{
	return c->post != NULL ? json_object_get(c->body, "result") : NULL;
}

/* Whether a grep's answer is the gate's refusal: 503 from the JSON API,
 * a tool error saying "busy" from MCP. */
static int
is_busy(const struct client *c)
{
	const json_t *r = mcp_result(c);
	const json_t *text = json_object_get(
	    json_array_get(json_object_get(r, "content"), 0), "text");

	if (c->post == NULL)
		return c->status == 503;
	return c->status == 200 &&
	       json_is_true(json_object_get(r, "isError")) &&
	       strstr(json_string_value(text) ? json_string_value(text) : "",
	              "busy") != NULL;
}

/* The matches of a grep's answer that is not an error (borrowed). */
static const json_t *
grep_matches(const struct client *c)
{
	const json_t *r = mcp_result(c);

	if (c->post == NULL)
		return c->status == 200 ? json_object_get(c->body, "matches")
		                        : NULL;
	if (c->status != 200 || json_is_true(json_object_get(r, "isError")))
		return NULL;
	return json_object_get(json_object_get(r, "structuredContent"),
	                       "matches");
}

/* The refusals among the greps that have their answer. */
static int
refused(struct client *g, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (atomic_load(&g[i].done) && is_busy(&g[i]))
			k++;
	return k;
}

/* Times route appears in the gateway's access log (a request completed). */
static int
logged(const char *route)
{
	char *text = NULL;
	size_t len = 0;
	char want[256];
	cg_err err;
	int n = 0;

	(void)snprintf(want, sizeof(want), "route=%s ", route);
	if (cg_file_read(fx.log, 64u << 20, &text, &len, &err) != 0)
		return 0;
	for (const char *p = text; (p = strstr(p, want)) != NULL; p++)
		n++;
	free(text);
	return n;
}

static void
write_config(void)
{
	cg_buf b;

	cg_buf_init(&b, 1 << 16);
	(void)cg_buf_printf(&b,
	                    "deadline_ms: 60000\n"
	                    "nodes:\n"
	                    "  - name: acme/root\n    url: \"%s\"\n"
	                    "    workspace: acme\n    sources: [root]\n"
	                    "  - name: acme/slow\n    url: \"%s\"\n"
	                    "    workspace: acme\n    sources: [slow]\n",
	                    fx.real.url, cgt_hostile_url(fx.slow));
	for (int i = 0; i < NSLOW; i++)
		(void)cg_buf_printf(&b,
		                    "  - name: acme/s%d\n    url: \"%s\"\n"
		                    "    workspace: acme\n    sources: [s%d]\n",
		                    i, cgt_hostile_url(fx.slows[i]), i);
	cgt_write(fx.tmp, "gateway.yaml", cg_buf_str(&b));
	cg_buf_fini(&b);
}

/* A fresh slow node and gateway for each test. */
static int
setup(void **state)
{
	cgt_hostile_opts o = {CGT_HOSTILE_SLOW, "grep", 0,
	                      DELAY_MS * cgt_slowdown()};
	cgt_hostile_opts so = {CGT_HOSTILE_SLOW, "search", 0,
	                       SEARCH_DELAY_MS * cgt_slowdown()};
	char *cfg = cg_path_join(fx.tmp, "gateway.yaml");
	const char *argv[] = {
	    "corpus-gw", "serve", "--listen", "http://127.0.0.1:0",
	    "--config",  cfg,     "--cache",  fx.real.cache,
	    NULL};
	struct client ready = {0};
	int64_t until = cgt_now_ms() + 60000L * cgt_slowdown();
	char *line;

	(void)state;
	fx.slow = cgt_hostile_start(&o);
	for (int i = 0; i < NSLOW; i++)
		fx.slows[i] = cgt_hostile_start(&so);
	write_config();
	(void)unlink(fx.log);
	fx.gw = cgt_spawnv(fx.log, argv);
	line = cgt_proc_line(fx.gw, 60000 * cgt_slowdown());
	free(cfg);
	assert_non_null(line);
	assert_true(strncmp(line, "listening http://127.0.0.1:", 27) == 0);
	fx.http = strdup(line + 10);
	free(line);
	/* ready: every node has finished its first sync */
	ready.path = "/readyz";
	ready.timeout_ms = long_timeout();
	do {
		if (ready.status != 0)
			cgt_sleep_ms(50);
		get(&ready);
		json_decref(ready.body);
		ready.body = NULL;
	} while (ready.status != 200 && cgt_now_ms() < until);
	assert_int_equal(ready.status, 200);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	if (fx.gw != NULL && fx.gw->pid != 0) {
		cgt_proc_kill(fx.gw, SIGTERM);
		(void)cgt_proc_wait(fx.gw, 60000 * cgt_slowdown());
	}
	cgt_proc_free(fx.gw);
	fx.gw = NULL;
	cgt_hostile_stop(fx.slow);
	fx.slow = NULL;
	for (int i = 0; i < NSLOW; i++) {
		cgt_hostile_stop(fx.slows[i]);
		fx.slows[i] = NULL;
	}
	free(fx.http);
	fx.http = NULL;
	return 0;
}

/* NGREPS greps (GET path, or POST body when post is not NULL) fill
 * every slot of the gate; then the /healthz and search clients. */

/* The fresh clients' answers (odd ones searched the healthy source, even
 * ones asked /healthz): each 200 and whole; their bodies freed. */
static void
check_fast_answers(struct client *h)
{
	for (int i = 0; i < NCLIENTS; i++) {
		assert_int_equal(h[i].status, 200);
		if (i % 2)
			assert_true(json_array_size(json_object_get(
			                h[i].body, "hits")) > 0);
		else
			assert_true(
			    json_is_true(json_object_get(h[i].body, "ok")));
		json_decref(h[i].body);
	}
}

static void
healthz_and_search_while_greps_run(const char *path, const char *post)
{
	pthread_t gt[NGREPS];
	pthread_t ht[NCLIENTS];
	struct client g[NGREPS];
	struct client h[NCLIENTS];
	int64_t until = cgt_now_ms() + 60000L * cgt_slowdown();
	int answered = 0;

	for (int i = 0; i < NGREPS; i++)
		start(&gt[i], &g[i], path, post, long_timeout(), client_main);
	/* The gate refuses only with both slots running and the waiting
	 * slot taken: NGREPS - 3 refusals prove every slot busy. */
	while (refused(g, NGREPS) < NGREPS - 3 && cgt_now_ms() < until)
		cgt_sleep_ms(20);
	assert_true(refused(g, NGREPS) >= NGREPS - 3);
	for (int i = 0; i < NCLIENTS; i++)
		start(&ht[i], &h[i], i % 2 ? SEARCH : "/healthz", NULL,
		      long_timeout(), repeat_main);
	for (int i = 0; i < NCLIENTS; i++)
		assert_int_equal(pthread_join(ht[i], NULL), 0);
	/* Now, before any grep that was let in has its answer: */
	for (int i = 0; i < NGREPS; i++)
		if (atomic_load(&g[i].done) && !is_busy(&g[i]))
			answered++;
	assert_int_equal(answered, 0);
	check_fast_answers(h);
	/* The greps that were let in finish, with the real node's matches. */
	for (int i = 0; i < NGREPS; i++) {
		assert_int_equal(pthread_join(gt[i], NULL), 0);
		if (!is_busy(&g[i])) {
			answered++;
			assert_true(json_array_size(grep_matches(&g[i])) > 0);
		}
		json_decref(g[i].body);
	}
	assert_true(answered >= 2);
	assert_true(cgt_hostile_attacks(fx.slow) >= 2);
}

static void
test_healthz_and_search_while_greps_run(void **state)
{
	(void)state;
	healthz_and_search_while_greps_run(GREP_PATH, NULL);
}

/* The same with MCP's corpus_grep (POST /mcp): it runs on the grep lane
 * too. */
static void
test_healthz_and_search_while_mcp_greps_run(void **state)
{
	(void)state;
	healthz_and_search_while_greps_run(
	    "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	            "\"tools/call\",\"params\":{\"name\":\"corpus_grep\","
	            "\"arguments\":{\"pattern\":\"quokka\"}}}");
}

/* Whether every slow node has received its search. */
static int
slow_searches_arrived(void)
{
	for (int i = 0; i < NSLOW; i++)
		if (cgt_hostile_attacks(fx.slows[i]) < 1)
			return 0;
	return 1;
}

/* One search of each slow source (GET /v1/search, or an MCP tools/call
 * of corpus_search when mcp); then the /healthz and healthy search
 * clients, all answered before any slow search. */
static void
healthz_and_search_while_slow_searches_run(int mcp)
{
	static char paths[NSLOW][128];
	static char bodies[NSLOW][512];
	pthread_t st[NSLOW];
	pthread_t ht[NCLIENTS];
	struct client s[NSLOW];
	struct client h[NCLIENTS];
	int64_t until = cgt_now_ms() + 60000L * cgt_slowdown();
	int answered = 0;

	for (int i = 0; i < NSLOW; i++) {
		(void)snprintf(bodies[i], sizeof(bodies[i]),
		               "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
		               "\"tools/call\",\"params\":{\"name\":"
		               "\"corpus_search\",\"arguments\":{\"q\":"
		               "\"quokka\",\"source\":\"s%d\"}}}",
		               i);
		(void)snprintf(paths[i], sizeof(paths[i]),
		               "/v1/search?q=quokka&source=s%d", i);
		start(&st[i], &s[i], mcp ? "/mcp" : paths[i],
		      mcp ? bodies[i] : NULL, long_timeout(), client_main);
	}
	/* Every slow search runs in the gateway at once: each slow node has
	 * it.  (With searches on the HTTP threads, only as many as there
	 * are threads ever got there before the first was answered.) */
	while (!slow_searches_arrived() && cgt_now_ms() < until)
		cgt_sleep_ms(20);
	assert_true(slow_searches_arrived());
	for (int i = 0; i < NCLIENTS; i++)
		start(&ht[i], &h[i], i % 2 ? SEARCH : "/healthz", NULL,
		      long_timeout(), repeat_main);
	for (int i = 0; i < NCLIENTS; i++)
		assert_int_equal(pthread_join(ht[i], NULL), 0);
	/* Now, before any slow search has its answer: */
	for (int i = 0; i < NSLOW; i++)
		if (atomic_load(&s[i].done))
			answered++;
	assert_int_equal(answered, 0);
	check_fast_answers(h);
	/* The slow searches end with the slow nodes' (empty) answers. */
	for (int i = 0; i < NSLOW; i++) {
		assert_int_equal(pthread_join(st[i], NULL), 0);
		assert_int_equal(s[i].status, 200);
		if (mcp)
			assert_false(json_is_true(
			    json_object_get(mcp_result(&s[i]), "isError")));
		json_decref(s[i].body);
		assert_int_equal(cgt_hostile_attacks(fx.slows[i]), 1);
	}
}

static void
test_healthz_and_search_while_slow_searches_run(void **state)
{
	(void)state;
	healthz_and_search_while_slow_searches_run(0);
}

static void
test_healthz_and_search_while_slow_mcp_searches_run(void **state)
{
	(void)state;
	healthz_and_search_while_slow_searches_run(1);
}

static void
test_grep_client_leaves(void **state)
{
	pthread_t t[2];
	struct client c[2];
	struct client after;
	int64_t until = cgt_now_ms() + 120000L * cgt_slowdown();

	(void)state;
	/* Two clients fill both slots and leave long before the slow node
	 * answers. */
	for (int i = 0; i < 2; i++)
		start(&t[i], &c[i], GREP_PATH, NULL, 500, client_main);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(c[i].status, 0);
		json_decref(c[i].body);
	}
	/* The gateway still serves while their greps run. */
	start(&t[0], &after, "/healthz", NULL, long_timeout(), client_main);
	assert_int_equal(pthread_join(t[0], NULL), 0);
	assert_int_equal(after.status, 200);
	json_decref(after.body);
	/* Both requests complete when their greps end (the access log has
	 * them); their slots are then free: a new grep is let in. */
	while (logged("/v1/grep") < 2 && cgt_now_ms() < until)
		cgt_sleep_ms(50);
	assert_int_equal(logged("/v1/grep"), 2);
	start(&t[0], &after, GREP_PATH, NULL, long_timeout(), client_main);
	assert_int_equal(pthread_join(t[0], NULL), 0);
	assert_int_equal(after.status, 200);
	assert_true(json_array_size(json_object_get(after.body, "matches")) >
	            0);
	json_decref(after.body);
	assert_int_equal(cgt_hostile_attacks(fx.slow), 3);
}

static void
test_shutdown_with_greps_in_flight(void **state)
{
	pthread_t t[4];
	struct client c[4];
	int64_t until = cgt_now_ms() + 60000L * cgt_slowdown();

	(void)state;
	for (int i = 0; i < 4; i++)
		start(&t[i], &c[i], GREP_PATH, NULL, long_timeout(),
		      client_main);
	/* The slow node holds the first grep: SIGTERM while it runs. */
	while (cgt_hostile_attacks(fx.slow) < 1 && cgt_now_ms() < until)
		cgt_sleep_ms(20);
	assert_int_equal(cgt_hostile_attacks(fx.slow), 1);
	cgt_proc_kill(fx.gw, SIGTERM);
	assert_int_equal(cgt_proc_wait(fx.gw, 120000 * cgt_slowdown()), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		/* an answer (the grep, or busy), or the connection closed:
		 * never curl's own timeout */
		assert_true(c[i].rc != CURLE_OPERATION_TIMEDOUT);
		assert_true(c[i].status == 200 || c[i].status == 503 ||
		            c[i].status == 0);
		json_decref(c[i].body);
	}
}

static int
group_setup(void **state)
{
	(void)state;
	memset(&fx, 0, sizeof(fx));
	assert_int_equal(curl_global_init(CURL_GLOBAL_DEFAULT), 0);
	fx.tmp = cgt_tmpdir("tooloffload");
	fx.log = cg_path_join(fx.tmp, "gateway.log");
	cgt_honest_start(&fx.real, fx.tmp, 5, "type: concept");
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	cgt_honest_stop(&fx.real);
	cgt_rm(fx.tmp);
	free(fx.tmp);
	free(fx.log);
	curl_global_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
	        test_healthz_and_search_while_greps_run, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_healthz_and_search_while_mcp_greps_run, setup, teardown),
	    cmocka_unit_test_setup_teardown(
	        test_healthz_and_search_while_slow_searches_run, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(
	        test_healthz_and_search_while_slow_mcp_searches_run, setup,
	        teardown),
	    cmocka_unit_test_setup_teardown(test_grep_client_leaves, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_shutdown_with_greps_in_flight,
	                                    setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
