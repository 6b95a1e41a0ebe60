/*
 * test_fed_search.c - the query path of a federation that lives between
 * queries (issue 11): what it caches (statistics and claim keys per
 * source epoch, which nodes hold corpora) must never change an answer.
 * Over a workspace of four sub-guilds, each its own node, called directly
 * (gateway/embed.c: the real nodes and federation, no nng):
 * - a second search of the same query runs in steady state (no stats
 *   round; candidates, then the winners' hits) and answers exactly what a
 *   fresh federation answers;
 * - after a page changes on disk and is synced, the cached statistics are
 *   stale: the node says so, the federation scores again, and the answer
 *   is again a fresh federation's;
 * - no claims round unless a hit's claim key is shared, a shared key
 *   still finds a conflicting page that did not match the query, and its
 *   pages are asked once per epoch and access policy;
 * - the fetch op, asked directly, returns no page the policy hides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "common/cg_buf.h"
#include "common/cg_json.h"
#include "federation/fed_search.h"
#include "gateway/embed.h"

static char *ws;
static char *cache;

static const char *const words[] = {
    "archive", "backup", "cache",  "daemon", "editor", "filter",  "gateway",
    "host",    "index",  "kernel", "ledger", "mirror", "network", "queue",
    "replica", "schema", "token",  "upload", "vector", "window",  "zone"};
#define NWORDS (sizeof(words) / sizeof(words[0]))

static const char *const queries[] = {
    "archive",        "backup cache",    "kernel network queue",
    "replica schema", "gateway",         "token upload vector",
    "window zone",    "daemon editor",   "ledger mirror",
    "retry policy",   "nothing-matches", "index filter host"};
#define NQUERIES (sizeof(queries) / sizeof(queries[0]))

static unsigned
rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

static void
write_pages(const char *sub, int from, int n)
{
	cg_buf body;

	cg_buf_init(&body, 1 << 16);
	for (int i = from; i < from + n; i++) {
		unsigned s = 31u * (unsigned)i + 7u;
		char rel[128];
		char fm[128];

		cg_buf_reset(&body);
		(void)cg_buf_printf(&body, "# %s %s %d\n\n",
		                    words[rnd(&s) % NWORDS],
		                    words[rnd(&s) % NWORDS], i);
		for (int w = 0; w < 30 + (int)(rnd(&s) % 60); w++)
			(void)cg_buf_printf(&body, "%s%s",
			                    words[rnd(&s) % NWORDS],
			                    w % 12 == 11 ? ".\n" : " ");
		(void)snprintf(rel, sizeof(rel),
		               "%s/.guild/wiki/concepts/p%d.md", sub, i);
		(void)snprintf(fm, sizeof(fm),
		               "type: concept\nupdated_at: 2026-0%d-%02d",
		               1 + i % 9, 1 + i % 28);
		cgt_page(ws, rel, fm, body.data);
	}
	cg_buf_fini(&body);
}

static int
setup(void **state)
{
	static const char *const subs[] = {"a", "b", "c", "d"};

	ws = cgt_tmpdir("fedsearch");
	cache = cgt_tmpdir("fedsearch-cache");
	for (int k = 0; k < 4; k++) {
		char marker[64];

		(void)snprintf(marker, sizeof(marker), "%s/.git/HEAD", subs[k]);
		cgt_write(ws, marker, "ref: refs/heads/main\n");
		write_pages(subs[k], k * 25, 25);
	}
	/* One standard copied into two sub-guilds and edited apart (a
	 * conflict: federation/conflict.c), only one of them saying "three
	 * times". */
	cgt_page(ws, "a/.guild/wiki/standards/retry-policy.md",
	         "type: standard\nupdated_at: 2026-05-01\nconfidence: high",
	         "# Retry policy\n\nRetry three times before giving up on the "
	         "upstream call and log the failure.\n");
	cgt_page(ws, "c/.guild/wiki/standards/retry-policy.md",
	         "type: standard\nupdated_at: 2026-06-01",
	         "# Retry policy\n\nRetry 5 attempts before giving up on the "
	         "upstream call and log the failure.\n");
	return 0;
}

static int
teardown(void **state)
{
	cgt_rm(ws);
	cgt_rm(cache);
	free(ws);
	free(cache);
	return 0;
}

static cg_embed *
open_synced(void)
{
	cg_embed *e = NULL;
	json_t *rep = NULL;

	assert_int_equal(cg_embed_open(&e, ws, cache, NULL), 0);
	assert_int_equal(cg_fed_sync(cg_embed_fed(e), &rep, NULL), 0);
	json_decref(rep);
	return e;
}

static json_t *
search(cg_embed *e, const char *q)
{
	cg_search_req req;
	json_t *ans = NULL;
	cg_err err;

	memset(&req, 0, sizeof(req));
	req.text = q;
	req.limit = 10;
	cg_err_clear(&err);
	assert_int_equal(cg_fed_search(cg_embed_fed(e), &req, &ans, &err), 0);
	return ans;
}

/* What a reader sees: hits and conflicts, without the receipt. */
static char *
seen(const json_t *ans)
{
	json_t *v =
	    json_pack("{s:O, s:O, s:O}", "hits", json_object_get(ans, "hits"),
	              "conflicts", json_object_get(ans, "conflicts"),
	              "followups", json_object_get(ans, "followups"));
	char *s = json_dumps(v, JSON_SORT_KEYS | JSON_REAL_PRECISION(12));

	json_decref(v);
	return s;
}

/* How many rounds of op the answer's evidence lists. */
static int
rounds(const json_t *ans, const char *op)
{
	size_t i;
	const json_t *r;
	int n = 0;

	json_array_foreach(
	    json_object_get(json_object_get(ans, "evidence"), "rounds"), i, r)
		n += strcmp(cg_json_str(r, "op"), op) == 0;
	return n;
}

static void
test_steady_state_same_answers(void **state)
{
	cg_embed *warm = open_synced();

	for (size_t q = 0; q < NQUERIES; q++) {
		cg_embed *fresh = open_synced();
		json_t *ref = search(fresh, queries[q]);
		json_t *first = search(warm, queries[q]);
		json_t *again = search(warm, queries[q]);
		char *a = seen(ref);
		char *b = seen(again);

		assert_string_equal(a, b);
		/* Steady state: no statistics round, and the query phase
		 * over several nodes is candidates then their hits. */
		assert_int_equal(rounds(again, "stats"), 0);
		assert_int_equal(rounds(again, "rank"), 1);
		assert_true(rounds(again, "fetch") <= 1);
		assert_int_equal(rounds(again, "search"), 0);
		free(a);
		free(b);
		json_decref(ref);
		json_decref(first);
		json_decref(again);
		cg_embed_free(fresh);
	}
	cg_embed_free(warm);
}

static void
test_stale_statistics_rescored(void **state)
{
	cg_embed *warm = open_synced();
	json_t *before = search(warm, "archive kernel");
	json_t *after;
	json_t *ref;
	json_t *rep = NULL;
	cg_embed *fresh;
	char *a;
	char *b;

	json_decref(before);
	json_decref(search(warm, "archive kernel"));
	/* New pages move the document frequencies of both terms. */
	cgt_page(ws, "b/.guild/wiki/concepts/new-1.md", "type: concept",
	         "# Archive\n\narchive archive kernel kernel\n");
	cgt_page(ws, "d/.guild/wiki/concepts/new-2.md", "type: concept",
	         "# Kernel archive notes\n\nkernel archive\n");
	assert_int_equal(cg_fed_sync(cg_embed_fed(warm), &rep, NULL), 0);
	json_decref(rep);
	after = search(warm, "archive kernel");
	/* The nodes named their new epochs: scored again with new sums. */
	assert_int_equal(rounds(after, "rank"), 2);
	fresh = open_synced();
	ref = search(fresh, "archive kernel");
	a = seen(ref);
	b = seen(after);
	assert_string_equal(a, b);
	assert_non_null(cgt_hit(after, "new-1.md"));
	free(a);
	free(b);
	json_decref(ref);
	json_decref(after);
	cg_embed_free(fresh);
	cg_embed_free(warm);
}

static void
test_claims_round_only_when_shared(void **state)
{
	cg_embed *warm = open_synced();
	json_t *plain;
	json_t *shared;

	json_decref(search(warm, "archive"));
	plain = search(warm, "archive");
	assert_int_equal(rounds(plain, "claims"), 0);
	/* "three times" matches one retry page; the other shares its claim
	 * key (standard|retry policy) without matching. */
	shared = search(warm, "three times");
	assert_int_equal(rounds(shared, "claims"), 1);
	assert_int_equal(json_array_size(json_object_get(shared, "conflicts")),
	                 1);
	json_decref(shared);
	/* Asked once under this epoch and policy: kept. */
	shared = search(warm, "three times");
	assert_int_equal(rounds(shared, "claims"), 0);
	assert_int_equal(json_array_size(json_object_get(shared, "conflicts")),
	                 1);
	assert_int_equal(
	    json_array_size(json_object_get(
	        json_array_get(json_object_get(shared, "conflicts"), 0),
	        "pages")),
	    2);
	json_decref(plain);
	json_decref(shared);
	cg_embed_free(warm);
}

/* The hits of every node of a cg_fed_call answer. */
static size_t
count_hits(const json_t *all)
{
	size_t total = 0;
	size_t i;
	json_t *n;

	json_array_foreach(json_object_get(all, "nodes"), i, n)
		total += json_array_size(
		    json_object_get(json_object_get(n, "result"), "hits"));
	return total;
}

static const json_t *
first_result(const json_t *all)
{
	return json_object_get(json_array_get(json_object_get(all, "nodes"), 0),
	                       "result");
}

/* The fetch op answers only pages the caller may see: a node asked
 * directly for a hidden page's hit (its keys known from a rank round)
 * returns nothing, and the same fetch without the policy returns it. */
static void
test_fetch_respects_access(void **state)
{
	cg_embed *e = open_synced();
	cg_fed *f = cg_embed_fed(e);
	json_t *rank = NULL;
	json_t *items = json_array();
	json_t *args;
	json_t *open = NULL;
	json_t *closed = NULL;
	const char *only_a[] = {"a"};
	size_t i;
	json_t *n;

	args = json_pack("{s:s}", "q", "retry policy");
	assert_int_equal(cg_fed_call(f, "stats", args, only_a, 1, &rank, NULL),
	                 0);
	json_object_set(args, "stats",
	                json_object_get(first_result(rank), "stats"));
	json_object_set_new(args, "mode", json_string("rank"));
	json_object_set_new(args, "limit", json_integer(10));
	json_decref(rank);
	assert_int_equal(cg_fed_call(f, "search", args, only_a, 1, &rank, NULL),
	                 0);
	json_decref(args);
	json_array_foreach(json_object_get(rank, "nodes"), i, n) {
		size_t k;
		json_t *c;

		json_array_foreach(
		    json_object_get(json_object_get(n, "result"), "candidates"),
		    k, c)
			if (strstr(cg_json_str(c, "path"), "retry-policy") &&
			    strcmp(cg_json_str(c, "source"), "a") == 0)
				json_array_append(items, c);
	}
	assert_int_equal(json_array_size(items), 1);
	args = json_pack("{s:s, s:O}", "q", "retry policy", "items", items);
	assert_int_equal(cg_fed_call(f, "fetch", args, only_a, 1, &open, NULL),
	                 0);
	json_object_set_new(args, "acl",
	                    json_pack("{s:s, s:[], s:[s]}", "workspace",
	                              cg_embed_workspace(e)->name, "allow",
	                              "deny", "*retry-policy.md"));
	assert_int_equal(
	    cg_fed_call(f, "fetch", args, only_a, 1, &closed, NULL), 0);
	assert_int_equal(count_hits(open), 1);
	assert_int_equal(count_hits(closed), 0);
	json_decref(args);
	json_decref(items);
	json_decref(rank);
	json_decref(open);
	json_decref(closed);
	cg_embed_free(e);
}

/* The nodes the stats rounds of an answer asked for claim keys (the
 * evidence's claims_asked); -1 when it had no stats round. */
static int
claims_asked(const json_t *ans)
{
	size_t i;
	const json_t *r;
	int n = -1;

	json_array_foreach(
	    json_object_get(json_object_get(ans, "evidence"), "rounds"), i, r)
		if (strcmp(cg_json_str(r, "op"), "stats") == 0)
			n = (n < 0 ? 0 : n) +
			    (int)json_integer_value(
			        json_object_get(r, "claims_asked"));
	return n;
}

/* A node's claim keys are asked once per source epoch: the first stats
 * round asks every node, a stats round for new terms asks none (and a
 * shared key is still found from the cached keys), and after a source
 * moved, the next stats round asks its node again. */
static void
test_claim_keys_once_per_epoch(void **state)
{
	cg_embed *e = open_synced();
	json_t *ans = search(e, "archive");
	json_t *rep = NULL;

	assert_int_equal(claims_asked(ans), 4);
	json_decref(ans);
	ans = search(e, "backup cache");
	assert_int_equal(claims_asked(ans), 0);
	json_decref(ans);
	ans = search(e, "three times");
	assert_int_equal(json_array_size(json_object_get(ans, "conflicts")), 1);
	json_decref(ans);
	cgt_page(ws, "c/.guild/wiki/concepts/new-3.md", "type: concept",
	         "# Ledger\n\nledger mirror ledger\n");
	assert_int_equal(cg_fed_sync(cg_embed_fed(e), &rep, NULL), 0);
	json_decref(rep);
	/* The stats round of new terms learns c's new epoch (its claim
	 * keys dropped with the old one); the next one asks c again. */
	json_decref(search(e, "ledger mirror"));
	ans = search(e, "vector window");
	assert_int_equal(claims_asked(ans), 1);
	json_decref(ans);
	ans = search(e, "three times");
	assert_int_equal(json_array_size(json_object_get(ans, "conflicts")), 1);
	json_decref(ans);
	cg_embed_free(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steady_state_same_answers),
	    cmocka_unit_test(test_stale_statistics_rescored),
	    cmocka_unit_test(test_claims_round_only_when_shared),
	    cmocka_unit_test(test_fetch_respects_access),
	    cmocka_unit_test(test_claim_keys_once_per_epoch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
