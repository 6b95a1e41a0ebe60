/*
 * test_node_pool.c - a node answering on a pool of workers (issue 11,
 * "Concurrency"): the real binary (`corpus-gw node --workers N`) over
 * tcp://127.0.0.1:0, many client threads with their own REQ sockets.
 *
 * - The answers of a 4-worker node to many parallel clients equal, one by
 *   one, those of a 1-worker node over the same pages (search, stats,
 *   list, grep, read, links).
 * - Parallel searches during re-indexing (a page renamed over, back and
 *   forth, each change synced) each equal the answer of the index before
 *   or the one after the change, never a mix and never an error.
 * - SIGTERM with requests in flight: the node exits 0 in time and every
 *   client gets a reply or a transport error, none hangs.
 * - Two handles meeting the same damage: the second's rebuild follows
 *   the generation the first published instead of building it again over
 *   the live file (index.h, cg_index_rebuild).
 *
 * Client threads never call cmocka (its failure path is not
 * thread-safe): they count what they saw, the main thread asserts.
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>

#include "cgproc.h"
#include "cgtest.h"
#include "index/index.h"

#define WIKI     ".guild/wiki/"
#define NPAGES   60
#define NCLIENTS 8

/* NPAGES pages: every third mentions "lighthouse", every fifth "harbor",
 * each its own "uniqueN", links between neighbours; one sub-guild. */
static void
workspace(const char *ws)
{
	for (int i = 0; i < NPAGES; i++) {
		char rel[128];
		char body[512];

		(void)snprintf(rel, sizeof(rel), WIKI "concepts/page-%02d.md",
		               i);
		(void)snprintf(body, sizeof(body),
		               "# Page %d\n\nKeepers %s and %s. Unique%d "
		               "marker, see [[page-%02d]].\n\n## Notes\n\n"
		               "Tide tables for the %s season.\n",
		               i, i % 3 == 0 ? "of the lighthouse" : "at sea",
		               i % 5 == 0 ? "the harbor" : "the coast", i,
		               (i + 1) % NPAGES, i % 2 ? "winter" : "summer");
		cgt_page(ws, rel, "type: concept\nupdated_at: 2026-01-01",
		         body);
	}
	cgt_page(ws, "api/" WIKI "entities/gateway.md", "type: entity",
	         "# API gateway\n\nThe lighthouse of the api sub-guild.\n");
}

/* --- a thread-safe client: no cmocka here ------------------------------ */

/* One request: the reply, or NULL when none came (transport error). */
static json_t *
call(nng_socket s, const char *op, json_t *args)
{
	static atomic_long next_id;
	long id = atomic_fetch_add(&next_id, 1) + 1;
	json_t *req =
	    json_pack("{s:i, s:I, s:s, s:o}", "v", 1, "id", (json_int_t)id,
	              "op", op, "args", args != NULL ? args : json_object());
	char *text = req != NULL ? json_dumps(req, JSON_COMPACT) : NULL;
	char *rbuf = NULL;
	size_t rlen = 0;
	json_t *reply = NULL;
	int rv = text != NULL ? nng_send(s, text, strlen(text), 0) : -1;

	if (rv == 0)
		rv = nng_recv(s, &rbuf, &rlen, NNG_FLAG_ALLOC);
	if (rv == 0) {
		reply = json_loadb(rbuf, rlen, 0, NULL);
		nng_free(rbuf, rlen);
		if (json_integer_value(json_object_get(reply, "id")) != id) {
			json_decref(reply);
			reply = json_pack("{s:b, s:s}", "ok", 0, "why",
			                  "reply to another request");
		}
	}
	free(text);
	json_decref(req);
	return reply;
}

/* A REQ socket dialed to url; a request unanswered for timeout_ms fails. */
static nng_socket
client(const char *url, int timeout_ms)
{
	nng_socket s = NNG_SOCKET_INITIALIZER;

	if (nng_req0_open(&s) != 0)
		return s;
	(void)nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, timeout_ms);
	(void)nng_socket_set_ms(s, NNG_OPT_SENDTIMEO, timeout_ms);
	(void)nng_socket_set_size(s, NNG_OPT_RECVMAXSZ, 64u << 20);
	(void)nng_socket_set_ms(s, NNG_OPT_REQ_RESENDTIME,
	                        NNG_DURATION_INFINITE);
	(void)nng_dial(s, url, NULL, 0);
	return s;
}

/* The result of a reply, without what differs between runs ("ms"). */
static json_t *
result_of(json_t *reply)
{
	json_t *r;

	if (!json_is_true(json_object_get(reply, "ok"))) {
		json_decref(reply);
		return NULL;
	}
	r = json_incref(json_object_get(reply, "result"));
	json_decref(reply);
	return r;
}

/* A search as the federation asks it: stats (with epochs), then search
 * scored with them; asked again while an epoch moved in between (stale).
 * The result, or NULL on an error or no reply. */
static json_t *
search(nng_socket s, const char *q)
{
	for (int tries = 0; tries < 50; tries++) {
		json_t *st =
		    result_of(call(s, "stats", json_pack("{s:s}", "q", q)));
		json_t *ep = json_object();
		json_t *res;
		const char *name;
		json_t *v;

		if (st == NULL) {
			json_decref(ep);
			return NULL;
		}
		json_object_foreach(json_object_get(st, "per_source"), name, v)
			json_object_set(ep, name, json_object_get(v, "epoch"));
		res = result_of(
		    call(s, "search",
		         json_pack("{s:s, s:i, s:O, s:o}", "q", q, "limit", 50,
		                   "stats", json_object_get(st, "stats"),
		                   "epochs", ep)));
		json_decref(st);
		if (res == NULL || json_object_get(res, "stale") == NULL)
			return res;
		json_decref(res);
	}
	return NULL;
}

/* The fixed set of requests every node is asked. */
static const char *const queries[] = {
    "lighthouse", "harbor",      "keepers coast", "\"tide tables\"",
    "unique17",   "winter tide", "gateway",       "nothing-matches-this",
};
#define NQ   (sizeof(queries) / sizeof(queries[0]))
#define NREQ (NQ + 6)

/* Request k of the fixed set (k < NREQ), its result or NULL. */
static json_t *
request(nng_socket s, size_t k)
{
	if (k < NQ)
		return search(s, queries[k]);
	switch (k - NQ) {
	case 0:
		return result_of(
		    call(s, "stats", json_pack("{s:s}", "q", "lighthouse")));
	case 1:
		return result_of(
		    call(s, "list", json_pack("{s:i}", "limit", 500)));
	case 2:
		return result_of(
		    call(s, "grep",
		         json_pack("{s:s, s:i}", "pattern",
		                   "Unique[0-9]+ marker", "max", 1000)));
	case 3:
		return result_of(
		    call(s, "read",
		         json_pack("{s:s, s:s}", "source", "root", "path",
		                   WIKI "concepts/page-07.md")));
	case 4:
		return result_of(
		    call(s, "links",
		         json_pack("{s:s, s:s}", "source", "root", "path",
		                   WIKI "concepts/page-07.md")));
	default:
		return result_of(call(s, "map", NULL));
	}
}

/* --- parallel clients ------------------------------------------------- */

struct run {
	const char *url;
	json_t *const *want_a; /* NREQ (or NQ) results */
	json_t *const *want_b; /* NULL: only want_a */
	size_t nreq;           /* requests asked, from the fixed set */
	int rounds;            /* passes over them per client */
	atomic_bool *stop;     /* NULL: rounds bound the run */
	atomic_long answered;  /* equal to an expected result */
	atomic_long wrong;     /* a result equal to neither */
	atomic_long failed;    /* no reply or an error reply */
	atomic_long as_b;      /* answered as want_b */
	unsigned seed;
};

static void
report_wrong(size_t k, const json_t *got, const json_t *want)
{
	char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
	char *w = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS);

	fprintf(stderr, "request %zu answered\n  %.1500s\nwanted\n  %.1500s\n",
	        k, g ? g : "(null)", w ? w : "(null)");
	free(g);
	free(w);
}

static void *
client_main(void *arg)
{
	struct run *r = arg;
	nng_socket s = client(r->url, 60000 * cgt_slowdown());
	unsigned seed = (unsigned)atomic_fetch_add(&r->answered, 0) ^
	                (unsigned)(uintptr_t)&seed;

	for (int round = 0; r->stop != NULL || round < r->rounds; round++) {
		if (r->stop != NULL && atomic_load(r->stop))
			break;
		for (size_t i = 0; i < r->nreq; i++) {
			size_t k = (size_t)rand_r(&seed) % r->nreq;
			json_t *got = request(s, k);

			if (got == NULL) {
				atomic_fetch_add(&r->failed, 1);
			} else if (json_equal(got, r->want_a[k])) {
				atomic_fetch_add(&r->answered, 1);
			} else if (r->want_b != NULL &&
			           json_equal(got, r->want_b[k])) {
				atomic_fetch_add(&r->answered, 1);
				atomic_fetch_add(&r->as_b, 1);
			} else {
				if (atomic_fetch_add(&r->wrong, 1) < 2)
					report_wrong(k, got, r->want_a[k]);
			}
			json_decref(got);
		}
	}
	(void)nng_close(s);
	return NULL;
}

static void
run_clients(struct run *r, pthread_t *th, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pthread_create(&th[i], NULL, client_main, r),
		                 0);
}

static void
join_clients(pthread_t *th, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
}

/* Every request of the fixed set, answered by one client. */
static void
answers(const char *url, json_t **out, size_t n)
{
	nng_socket s = client(url, 60000 * cgt_slowdown());

	for (size_t k = 0; k < n; k++) {
		out[k] = request(s, k);
		if (out[k] == NULL)
			fprintf(stderr, "request %zu failed\n", k);
		assert_non_null(out[k]);
	}
	(void)nng_close(s);
}

static void
sync_node(const char *url)
{
	nng_socket s = cgt_client(url, 60000 * cgt_slowdown());
	json_t *r = cgt_call_ok(s, "sync", NULL, 60000 * cgt_slowdown());

	json_decref(r);
	(void)nng_close(s);
}

static cgt_proc *
start(cgt_nodefx *f, const char *cache, const char *workers, char **url)
{
	return cgt_node_start(f->ws, cache, f->log, url, "--listen",
	                      "tcp://127.0.0.1:0", "--workers", workers,
	                      "--reconcile", "3600", NULL);
}

/* --- the tests ---------------------------------------------------------- */

static void
test_same_answers_as_one_worker(void **state)
{
	cgt_nodefx *f = *state;
	char *cache1 = cgt_path(f->dir, "cache1");
	char *url1 = NULL;
	char *url4 = NULL;
	json_t *want[NREQ];
	pthread_t th[NCLIENTS];
	struct run r = {0};
	cgt_proc *one;
	cgt_proc *four;

	workspace(f->ws);
	one = start(f, cache1, "1", &url1);
	four = start(f, f->cache, "4", &url4);
	sync_node(url1);
	sync_node(url4);
	answers(url1, want, NREQ);
	/* The answers are not trivial: hits, matches, a page. */
	assert_int_equal(json_array_size(json_object_get(want[0], "hits")),
	                 NPAGES / 3 + 1);
	assert_int_equal(
	    json_array_size(json_object_get(want[NQ + 2], "matches")), NPAGES);
	r.url = url4;
	r.want_a = want;
	r.nreq = NREQ;
	r.rounds = 6;
	run_clients(&r, th, NCLIENTS);
	join_clients(th, NCLIENTS);
	assert_int_equal(atomic_load(&r.wrong), 0);
	assert_int_equal(atomic_load(&r.failed), 0);
	assert_int_equal(atomic_load(&r.answered),
	                 (long)(NCLIENTS * r.rounds * NREQ));
	cgt_node_stop(one, 30000 * cgt_slowdown());
	cgt_node_stop(four, 30000 * cgt_slowdown());
	cgt_proc_free(one);
	cgt_proc_free(four);
	for (size_t k = 0; k < NREQ; k++)
		json_decref(want[k]);
	free(url1);
	free(url4);
	free(cache1);
}

/* The two states of the changing page: A mentions the lighthouse many
 * times (moving every lighthouse score through the global statistics),
 * B not at all. */
static const char page_a[] =
    "---\ntype: concept\nupdated_at: 2026-03-01\n---\n# Page 40\n\n"
    "Lighthouse lighthouse lighthouse: the lighthouse keepers of the "
    "lighthouse coast.\n";
static const char page_b[] =
    "---\ntype: concept\nupdated_at: 2026-03-02\n---\n# Page 40\n\n"
    "Keepers at sea and the harbor; tide tables for winter.\n";

/* Writes state (a or b) to a staging folder the scan skips, then renames
 * it over the page: each sync sees one state or the other. */
static void
flip(cgt_nodefx *f, bool a)
{
	char *dst = cgt_path(f->ws, WIKI "concepts/page-40.md");
	char *tmp = cgt_path(f->ws, WIKI "_stage/page-40.md");

	cgt_write(f->ws, WIKI "_stage/page-40.md", a ? page_a : page_b);
	assert_int_equal(rename(tmp, dst), 0);
	free(dst);
	free(tmp);
}

static void
test_parallel_during_reindex(void **state)
{
	cgt_nodefx *f = *state;
	char *url = NULL;
	json_t *want_a[NQ];
	json_t *want_b[NQ];
	pthread_t th[NCLIENTS];
	atomic_bool stop = false;
	struct run r = {0};
	cgt_proc *p;

	workspace(f->ws);
	flip(f, true);
	p = start(f, f->cache, "4", &url);
	sync_node(url);
	answers(url, want_a, NQ);
	flip(f, false);
	sync_node(url);
	answers(url, want_b, NQ);
	/* The change moves the answers: lighthouse loses a hit and every
	 * score. */
	assert_false(json_equal(want_a[0], want_b[0]));
	assert_int_equal(json_array_size(json_object_get(want_a[0], "hits")),
	                 json_array_size(json_object_get(want_b[0], "hits")) +
	                     1);
	r.url = url;
	r.want_a = want_a;
	r.want_b = want_b;
	r.nreq = NQ;
	r.stop = &stop;
	run_clients(&r, th, NCLIENTS);
	for (int i = 0; i < 12; i++) {
		flip(f, i % 2 == 0);
		sync_node(url);
		cgt_sleep_ms(50);
	}
	atomic_store(&stop, true);
	join_clients(th, NCLIENTS);
	fprintf(stderr, "answers %ld (%ld after the change), failed %ld\n",
	        atomic_load(&r.answered), atomic_load(&r.as_b),
	        atomic_load(&r.failed));
	assert_int_equal(atomic_load(&r.wrong), 0);
	assert_int_equal(atomic_load(&r.failed), 0);
	assert_true(atomic_load(&r.answered) > 0);
	cgt_node_stop(p, 30000 * cgt_slowdown());
	cgt_proc_free(p);
	for (size_t k = 0; k < NQ; k++) {
		json_decref(want_a[k]);
		json_decref(want_b[k]);
	}
	free(url);
}

/* Clients asking until the node goes away. */
struct drain {
	const char *url;
	atomic_long replies;
	atomic_long errors; /* transport errors: the node went away */
};

static void *
drain_main(void *arg)
{
	struct drain *d = arg;
	/* A request sent while the node is closing may find no
	 * connection and wait: a short bound. */
	nng_socket s = client(d->url, 5000 * cgt_slowdown());

	for (;;) {
		json_t *r = call(s, "grep",
		                 json_pack("{s:s, s:i}", "pattern", "(a|e)+.*s",
		                           "max", 10000));

		if (r == NULL) {
			atomic_fetch_add(&d->errors, 1);
			break;
		}
		atomic_fetch_add(&d->replies, 1);
		json_decref(r);
	}
	(void)nng_close(s);
	return NULL;
}

static void
test_stop_with_requests_in_flight(void **state)
{
	cgt_nodefx *f = *state;
	char *url = NULL;
	pthread_t th[NCLIENTS];
	struct drain d = {0};
	cgt_proc *p;

	workspace(f->ws);
	p = start(f, f->cache, "4", &url);
	sync_node(url);
	d.url = url;
	for (size_t i = 0; i < NCLIENTS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, drain_main, &d),
		                 0);
	while (atomic_load(&d.replies) < NCLIENTS)
		cgt_sleep_ms(10);
	/* Exits 0, promptly, with greps in flight; every client ends on a
	 * transport error (its request dropped or refused), none hangs. */
	cgt_node_stop(p, 30000 * cgt_slowdown());
	join_clients(th, NCLIENTS);
	assert_int_equal(atomic_load(&d.errors), NCLIENTS);
	cgt_proc_free(p);
	free(url);
}

/* Two handles on one source, as two workers hold them: the first
 * rebuilds; the second, asked to rebuild the generation it still reads,
 * follows the new one instead of building the same generation number
 * again over the live file (which the first reads). */
static void
test_rebuild_follows_newer_generation(void **state)
{
	cgt_nodefx *f = *state;
	cg_source src = {0};
	cg_index_opts o = {f->cache, &src, 0};
	cg_index *a = NULL;
	cg_index *b = NULL;
	cg_sync_stats st;
	struct stat before;
	struct stat after;
	char *wiki = cgt_path(f->ws, ".guild/wiki");
	char *gen2 = NULL;
	cg_err err;

	workspace(f->ws);
	src.name = "root";
	src.repo = f->ws;
	src.wiki = wiki;
	cg_err_clear(&err);
	assert_int_equal(cg_index_open(&a, &o, &err), 0);
	assert_int_equal(cg_index_sync(a, &st, &err), 0);
	assert_int_equal(cg_index_open(&b, &o, &err), 0);
	assert_int_equal(cg_index_generation(b), 1);
	assert_int_equal(cg_index_rebuild(a, "test", &st, &err), 0);
	assert_int_equal(cg_index_generation(a), 2);
	gen2 = cgt_sh_out("ls -d %s/*/gen-000002.db", f->cache);
	assert_int_equal(stat(gen2, &before), 0);
	assert_int_equal(cg_index_rebuild(b, "corrupt at query", &st, &err), 0);
	assert_int_equal(st.rebuilt, 0);
	assert_int_equal(cg_index_generation(b), 2);
	assert_int_equal(stat(gen2, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	cg_index_free(a);
	cg_index_free(b);
	free(gen2);
	free(wiki);
}

/* A reader's refresh keeps the CURRENT file it followed and checks it with
 * one fstat (index.c, current_kept): every generation another handle
 * publishes after that is still followed, one after another, and a refresh
 * with nothing published keeps the generation. */
static void
test_refresh_follows_each_publish(void **state)
{
	cgt_nodefx *f = *state;
	cg_source src = {0};
	cg_index_opts o = {f->cache, &src, 0};
	cg_index *a = NULL;
	cg_index *b = NULL;
	cg_sync_stats st;
	char *wiki = cgt_path(f->ws, ".guild/wiki");
	cg_err err;

	workspace(f->ws);
	src.name = "root";
	src.repo = f->ws;
	src.wiki = wiki;
	cg_err_clear(&err);
	assert_int_equal(cg_index_open(&a, &o, &err), 0);
	assert_int_equal(cg_index_sync(a, &st, &err), 0);
	assert_int_equal(cg_index_open(&b, &o, &err), 0);
	cg_index_refresh(b);
	cg_index_refresh(b);
	assert_int_equal(cg_index_generation(b), 1);
	for (int64_t gen = 2; gen <= 4; gen++) {
		assert_int_equal(cg_index_rebuild(a, "test", &st, &err), 0);
		assert_int_equal(cg_index_generation(a), gen);
		cg_index_refresh(b);
		assert_int_equal(cg_index_generation(b), gen);
		cg_index_refresh(b);
		assert_int_equal(cg_index_generation(b), gen);
	}
	cg_index_free(a);
	cg_index_free(b);
	free(wiki);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
	        test_rebuild_follows_newer_generation, cgt_nodefx_setup,
	        cgt_nodefx_teardown),
	    cmocka_unit_test_setup_teardown(test_refresh_follows_each_publish,
	                                    cgt_nodefx_setup,
	                                    cgt_nodefx_teardown),
	    cmocka_unit_test_setup_teardown(test_same_answers_as_one_worker,
	                                    cgt_nodefx_setup,
	                                    cgt_nodefx_teardown),
	    cmocka_unit_test_setup_teardown(test_parallel_during_reindex,
	                                    cgt_nodefx_setup,
	                                    cgt_nodefx_teardown),
	    cmocka_unit_test_setup_teardown(test_stop_with_requests_in_flight,
	                                    cgt_nodefx_setup,
	                                    cgt_nodefx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
