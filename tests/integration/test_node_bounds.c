/*
 * test_node_bounds.c - issue 15, findings 2 and 14: what a node may send
 * and be sent is bounded by what was asked.
 *
 * Finding 2: a real node and a hostile one (tests/support/cghostile_node.h)
 * listed in a gateway.yaml, asked with `corpus-gw query --config` (the real
 * gateway, federation and nng transport).  Whatever the hostile node
 * sends to the search — more hits than the limit, two hundred thousand
 * empty hits, one hit holding two hundred thousand values, 15 or 60 MiB of
 * junk, a reply past the deadline, a reply to another request — the query
 * answers with the real node's hits, the hostile node is reported with
 * why ("bad reply: ...", "timeout ..."), never "ok", and the answer is
 * degraded.  Wall-clock bounds are generous (the outcome is what is
 * checked; bench/hostile-node measures the time and memory).
 *
 * A node that trickles a reply it never finishes (tests/support/
 * cgdribble.h): every `query` still exits, TRICKLE_RUNS times in a row
 * (the CI hang: the CLI's nng_close met the reply being read and waited
 * for ever; proto/sock_close.h); and a node stopped while a client
 * trickles a request it never finishes exits, STOP_RUNS times.
 *
 * Finding 14: a node refuses a peek of more than CG_PEEK_MAX_ITEMS items
 * and a claims of more than CG_CLAIMS_MAX_KEYS keys with invalid_input,
 * before doing any work, and still answers requests within the caps.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nng/nng.h>

#include "cgdribble.h"
#include "cghostile_node.h"
#include "cgproc.h"
#include "cgtest.h"
#include "common/cg_fs.h"
#include "common/cg_json.h"
#include "proto/limits.h"

/* The gateway's deadline, times cgt_slowdown() (a sanitizer build sends
 * and parses several times slower: a 600 KB reply refused on its shape
 * must not reach the deadline first and read as a timeout). */
#define DEADLINE_MS 800
/* A whole `query` run, from exec to exit, hostile node included: the
 * bound only tells "answered" from "held for many seconds" (a run takes
 * well under a second on an idle machine). */
#define QUERY_BOUND_MS 15000
/* Runs of `query` against the trickling node (test_trickle_exit), and
 * node stops under a trickled request (test_node_stop_mid_request). */
#define TRICKLE_RUNS 12
#define STOP_RUNS    8

static struct {
	char *tmp;
	char *cache_cli;
	char *cfg;
	cgt_honest real; /* the real node beside the hostile one */
} fx;

/* Waits until the real node answers a search with hits: "listening"
 * comes before the first index, and a query that beats it is answered
 * "index not built yet", which is not what these tests are about. */
static void
wait_indexed(void)
{
	nng_socket s = cgt_client(fx.real.url, 5000);
	int64_t deadline = cgt_now_ms() + 60000LL * cgt_slowdown();
	bool found = false;

	while (!found && cgt_now_ms() < deadline) {
		json_t *r = cgt_node_search(s, "quokka", 5);

		found = json_array_size(cgt_hits(r)) > 0;
		json_decref(r);
		if (!found)
			cgt_sleep_ms(50);
	}
	nng_close(s);
	if (!found)
		fail_msg("the node did not index its wiki in time");
}

static int
setup(void **state)
{
	(void)state;
	fx.tmp = cgt_tmpdir("nodebounds");
	fx.cache_cli = cg_path_join(fx.tmp, "cache-cli");
	fx.cfg = cg_path_join(fx.tmp, "gateway.yaml");
	cgt_honest_start(&fx.real, fx.tmp, 30,
	                 "type: concept\nconfidence: high");
	wait_indexed();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	cgt_honest_stop(&fx.real);
	cgt_rm(fx.tmp);
	free(fx.tmp);
	free(fx.cache_cli);
	free(fx.cfg);
	return 0;
}

/* gateway.yaml: the real node and the hostile one at evil_url. */
static void
write_config(const char *evil_url)
{
	cgt_hostile_config(fx.tmp, &fx.real, evil_url, "evil",
	                   DEADLINE_MS * cgt_slowdown());
}

/* The evidence entry of node name in ans (borrowed), or NULL. */
static const json_t *
node_entry(const json_t *ans, const char *name)
{
	size_t i;
	const json_t *n;

	json_array_foreach(
	    json_object_get(json_object_get(ans, "evidence"), "nodes"), i, n)
		if (strcmp(cg_json_str(n, "node"), name) == 0)
			return n;
	return NULL;
}

/* Runs the query with the hostile node h beside the real one and checks
 * the outcome: the real node's hits, the hostile node reported with a
 * reason starting with want (or want2 when not NULL), a degraded
 * answer. */
static void
query_against2(const cgt_hostile_opts *o, const char *want, const char *want2)
{
	cgt_hostile *h = cgt_hostile_start(o);
	const char *argv[] = {"corpus-gw", "query",   "--json",     "--config",
	                      fx.cfg,      "--cache", fx.cache_cli, "--limit",
	                      "5",         "quokka",  NULL};
	char *out = NULL;
	char *err = NULL;
	int64_t t0;
	int64_t ms;
	int rc;
	json_t *ans;
	const json_t *evil;

	write_config(cgt_hostile_url(h));
	t0 = cgt_now_ms();
	rc = cgt_runv(&out, &err, argv);
	ms = cgt_now_ms() - t0;
	if (rc != 0)
		fprintf(stderr, "query exited %d: %s\n", rc, err);
	assert_int_equal(rc, 0);
	ans = json_loads(out, 0, NULL);
	assert_non_null(ans);
	evil = node_entry(ans, "acme/evil");
	fprintf(stderr, "hostile mode %d n %zu: %lld ms, outcome '%s'\n",
	        (int)o->mode, o->n, (long long)ms,
	        cg_json_str(evil, "outcome"));
	assert_true(cgt_hostile_attacks(h) >= 1);
	assert_non_null(evil);
	assert_string_not_equal(cg_json_str(evil, "outcome"), "ok");
	assert_true(
	    strncmp(cg_json_str(evil, "outcome"), want, strlen(want)) == 0 ||
	    (want2 != NULL &&
	     strncmp(cg_json_str(evil, "outcome"), want2, strlen(want2)) == 0));
	assert_string_equal(
	    cg_json_str(node_entry(ans, "acme/root"), "outcome"), "ok");
	assert_true(json_is_true(
	    json_object_get(json_object_get(ans, "evidence"), "degraded")));
	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 5);
	assert_true(ms < QUERY_BOUND_MS * cgt_slowdown());
	json_decref(ans);
	free(out);
	free(err);
	cgt_hostile_stop(h);
}

static void
query_against(const cgt_hostile_opts *o, const char *want)
{
	query_against2(o, want, NULL);
}

/* More hits than the limit asked: refused after parsing, however small. */
static void
test_more_hits_than_asked(void **state)
{
	cgt_hostile_opts o = {CGT_HOSTILE_HITS, NULL, 100, 0};

	(void)state;
	query_against(&o, "bad reply");
}

/* Two hundred thousand empty hits (600 KB): refused before parsing. */
static void
test_huge_hit_array(void **state)
{
	cgt_hostile_opts o = {CGT_HOSTILE_HITS, NULL, 200000, 0};

	(void)state;
	query_against(&o, "bad reply");
}

/* One hit holding two hundred thousand values: refused before parsing. */
static void
test_fat_hit(void **state)
{
	cgt_hostile_opts o = {CGT_HOSTILE_FAT_HIT, NULL, 200000, 0};

	(void)state;
	query_against(&o, "bad reply");
}

/* 15 MiB of junk (under the 16 MiB reply cap), then 60 MiB (over it):
 * refused on its length before parsing ("bad reply: N bytes..."), or, on
 * a loaded machine where sending it takes the whole deadline, a timeout;
 * never a parse of the junk past the deadline (plain "bad reply"). */
static void
test_junk(void **state)
{
	cgt_hostile_opts o = {CGT_HOSTILE_JUNK, NULL, (size_t)15 << 20, 0};
	cgt_hostile_opts big = {CGT_HOSTILE_JUNK, NULL, (size_t)60 << 20, 0};

	(void)state;
	query_against2(&o, "bad reply: ", "timeout");
	query_against(&big, "");
}

/* A reply after the deadline is a timeout, and only one deadline. */
static void
test_slow(void **state)
{
	cgt_hostile_opts o = {CGT_HOSTILE_SLOW, NULL, 0,
	                      DEADLINE_MS * cgt_slowdown() + 700};

	(void)state;
	query_against(&o, "timeout");
}

/* A well-formed reply to another request. */
static void
test_wrong_id(void **state)
{
	cgt_hostile_opts o = {CGT_HOSTILE_WRONG_ID, NULL, 0, 0};

	(void)state;
	query_against(&o, "bad reply");
}

/* The stats round is bounded too: junk there retires the node early. */
static void
test_junk_stats(void **state)
{
	cgt_hostile_opts o = {CGT_HOSTILE_HITS, "stats", 200000, 0};

	(void)state;
	query_against(&o, "bad reply: more than");
}

/* A node that never finishes its reply: the query answers without it
 * and exits, run after run, while the reply still trickles in (each run
 * closes its sockets in the middle of a read). */
static void
test_trickle_exit(void **state)
{
	cgd_dribble *d = cgd_start();
	const char *argv[] = {"corpus-gw", "query",   "--json",     "--config",
	                      fx.cfg,      "--cache", fx.cache_cli, "--limit",
	                      "5",         "quokka",  NULL};

	(void)state;
	assert_non_null(d);
	write_config(cgd_url(d));
	for (int i = 0; i < TRICKLE_RUNS; i++) {
		cgt_proc *p = cgt_spawnv(fx.real.log, argv);
		int rc = cgt_proc_wait(p, QUERY_BOUND_MS * cgt_slowdown());

		if (rc < 0) {
			cgt_proc_free(p); /* SIGKILL */
			fail_msg("run %d: `corpus-gw query` still runs after "
			         "%d ms",
			         i, QUERY_BOUND_MS * cgt_slowdown());
		}
		assert_int_equal(rc, 0);
		cgt_proc_free(p);
	}
	assert_true(cgd_requests(d) >= TRICKLE_RUNS);
	cgd_stop(d);
}

/* A node stopped while a client trickles it a request (its pipe in the
 * middle of a read at the close) exits, stop after stop. */
static void
test_node_stop_mid_request(void **state)
{
	char *cache = cg_path_join(fx.tmp, "cache-stop");

	(void)state;
	for (int i = 0; i < STOP_RUNS; i++) {
		char *url = NULL;
		cgt_proc *node =
		    cgt_node_start(fx.real.ws, cache, fx.real.log, &url,
		                   "--source", "root", "--name", "acme/root",
		                   "--listen", "tcp://127.0.0.1:0", NULL);
		cgd_dribble *d = cgd_client_start(url);
		int64_t until = cgt_now_ms() + 10000LL * cgt_slowdown();
		int rc;

		assert_non_null(d);
		while (cgd_requests(d) < 1 && cgt_now_ms() < until)
			cgt_sleep_ms(5);
		assert_true(cgd_requests(d) >= 1);
		cgt_sleep_ms(1 + i % 4); /* the trickle under way */
		cgt_proc_kill(node, SIGTERM);
		rc = cgt_proc_wait(node, QUERY_BOUND_MS * cgt_slowdown());
		cgd_stop(d);
		cgt_proc_free(node); /* SIGKILL when still running */
		if (rc < 0)
			fail_msg("stop %d: the node still runs %d ms after "
			         "SIGTERM",
			         i, QUERY_BOUND_MS * cgt_slowdown());
		assert_int_equal(rc, 0);
		free(url);
	}
	free(cache);
}

/* --- finding 14: the caps of peek and claims ----------------------------- */

/* Sends op with an array of n copies of item under key; returns the
 * reply. */
static json_t *
call_many(nng_socket s, const char *op, const char *key, const json_t *item,
          size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_deep_copy(item));
	return cgt_call(s, op,
	                json_pack("{s:o, s:[s]}", key, a, "sources", "root"));
}

static void
assert_refused(const json_t *reply, const char *words)
{
	const json_t *e = json_object_get(reply, "error");

	assert_true(json_is_false(json_object_get(reply, "ok")));
	assert_string_equal(cg_json_str(e, "code"), "invalid_input");
	if (strstr(cg_json_str(e, "message"), words) == NULL)
		fprintf(stderr, "message: %s\n", cg_json_str(e, "message"));
	assert_non_null(strstr(cg_json_str(e, "message"), words));
}

static void
test_peek_and_claims_capped(void **state)
{
	nng_socket s = cgt_client(fx.real.url, 10000);
	json_t *item = json_pack("{s:s, s:s}", "source", "root", "path",
	                         "concepts/q01.md");
	json_t *key = json_string("concept|quokka notes");
	json_t *r;
	char words[64];

	(void)state;
	/* The node answers once its first sync is done. */
	r = json_pack("{s:[O], s:[s]}", "items", item, "sources", "root");
	json_decref(cgt_call_ok(s, "peek", r, 30000 * cgt_slowdown()));
	json_decref(r);
	r = call_many(s, "peek", "items", item, CG_PEEK_MAX_ITEMS);
	assert_true(cgt_reply_ok(r));
	assert_int_equal(json_array_size(json_object_get(
	                     json_object_get(r, "result"), "pages")),
	                 CG_PEEK_MAX_ITEMS);
	json_decref(r);
	(void)snprintf(words, sizeof(words), "at most %d", CG_PEEK_MAX_ITEMS);
	r = call_many(s, "peek", "items", item, 5000);
	assert_refused(r, words);
	json_decref(r);
	r = call_many(s, "claims", "keys", key, CG_CLAIMS_MAX_KEYS);
	if (!cgt_reply_ok(r))
		fprintf(stderr, "claims: %.300s\n",
		        cg_json_str(json_object_get(r, "error"), "message"));
	assert_true(cgt_reply_ok(r));
	json_decref(r);
	(void)snprintf(words, sizeof(words), "at most %d", CG_CLAIMS_MAX_KEYS);
	r = call_many(s, "claims", "keys", key, CG_CLAIMS_MAX_KEYS + 1);
	assert_refused(r, words);
	json_decref(r);
	json_decref(item);
	json_decref(key);
	(void)nng_close(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_peek_and_claims_capped),
	    cmocka_unit_test(test_more_hits_than_asked),
	    cmocka_unit_test(test_huge_hit_array),
	    cmocka_unit_test(test_fat_hit),
	    cmocka_unit_test(test_junk),
	    cmocka_unit_test(test_slow),
	    cmocka_unit_test(test_wrong_id),
	    cmocka_unit_test(test_junk_stats),
	    cmocka_unit_test(test_trickle_exit),
	    cmocka_unit_test(test_node_stop_mid_request),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
