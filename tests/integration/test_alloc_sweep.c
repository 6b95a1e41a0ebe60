/*
 * test_alloc_sweep.c - allocation failures in a sweep (STYLE.md; issue
 * 15): a query and a sync of a small workspace, in-process
 * (gateway/embed.h: the real nodes, indexes and federation, no nng), are
 * run once to count their allocations N, then again for chosen k in 1..N
 * with the k-th allocation failing (common/cg_alloc.h; the hooks and what
 * they cover: tests/support/cgalloc.h).  Each run must:
 * - not crash or hang (an alarm per run kills a hung one);
 * - return an error with its message, or a correct answer (the reference
 *   answer, or one whose followups say which source failed and why);
 * - not leak: LeakSanitizer checks the whole process at its exit in the
 *   ASan build (CI runs the suite so); the plain build cannot tell (the
 *   heap in use moves by a few hundred bytes from run to run without a
 *   leak, so glibc's mallinfo2 is no judge);
 * - leave the index intact: afterwards, with no fault, a query gives the
 *   reference answer (after a failed sync, without syncing: each source
 *   old or new, since each source's sync is a transaction of its own and
 *   one that fails does not hold the others back; the new one after a
 *   sync).
 * The workspace: a root wiki, two sub-guilds whose refund standards
 * conflict, and two local hiivmind corpora joined by a registry-graph
 * bridge (five sources, three nodes).  The operations: open + two
 * searches (the conflict and the bridge); the first index of an empty
 * cache; an incremental re-index after a page changed, one was added and
 * one deleted.
 *
 * Runtime bound: every k while N is at most the sweep's runs, else a
 * deterministic stride (N / runs rounded up, from k = 1) plus the first
 * and the last few ks (set-up and tear-down paths); the numbers of a run
 * are printed.  The query: 150 runs, the first 64 and the last 16.  A
 * sync run costs two syncs (the faulted one and the check), so the sync
 * sweeps run light by default (48 runs each and the last 4, about half a
 * minute together in the plain build) and deep by hand (CG_SWEEP_SYNC=1:
 * 150 runs, the first 64 and the last 16, a few minutes each).
 *
 * CG_SWEEP_STRICT=1 makes a wrong answer that says nothing failed a
 * finding (strict() says why it is not the default yet).
 *
 * Needs the CG_ALLOC_WRAP link (tests/CMakeLists.txt).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgalloc.h"
#include "cgfixture.h"
#include "cgtest.h"
#include "common/cg_alloc.h"
#include "common/cg_json.h"
#include "federation/fed_search.h"
#include "gateway/embed.h"

/* How many faulted runs a sweep gets at most (plus its first and last
 * ks when it is strided): the query, and a sync (light, deep). */
#define CG_SWEEP_MAX       150
#define CG_SWEEP_HEAD      64
#define CG_SWEEP_TAIL      16
#define CG_SWEEP_SYNC_MAX  48
#define CG_SWEEP_SYNC_TAIL 4

static char *ws;
static char *cache;
static char *tmpl; /* a cache synced at state A, copied for each run */

static const char *const queries[] = {"refund window", "zebrafish"};
#define NQ (sizeof(queries) / sizeof(queries[0]))

/* --- the workspace ------------------------------------------------------ */

static void
state_a(void)
{
	cgt_page(ws, ".guild/wiki/context/overview.md", "type: context",
	         "# Overview\n\nThe workspace keeps refund rules and the "
	         "zebrafish handbook.\n");
	cgt_page(ws, ".guild/wiki/concepts/window.md", "type: concept",
	         "# Window\n\nA refund window is counted in days.\n");
	cgt_refund_conflict(ws);
	cgt_page(ws, "web/.guild/wiki/context/checkout.md", "type: context",
	         "# Checkout\n\nThe checkout page links the refund window.\n");
	cgt_local_registry(ws, "handbook", "extra", NULL);
	cgt_write(ws, ".hiivmind/corpus/registry-graph.yaml",
	          "bridges:\n"
	          "  - concept_a: \"handbook:start\"\n"
	          "    concept_b: \"extra:useful\"\n    type: see-also\n");
	cgt_corpus(ws, "handbook", "start.md", "start", "Getting started",
	           "The zebrafish tank comes first.");
	cgt_corpus(ws, "extra", "useful.md", "useful", "Useful guide",
	           "Feeding schedules for zebrafish.");
}

/* The sources state B changes, one bit each: a sync that fails part-way
 * leaves each source at A or B (a source's sync is one transaction), so
 * the index may answer any of the 2^3 mixes. */
enum { PART_BILLING = 1, PART_ROOT = 2, PART_WEB = 4, NMIX = 8 };

static void
rm_page(const char *rel)
{
	char *p;

	if (asprintf(&p, "%s/%s", ws, rel) < 0)
		fail();
	(void)unlink(p);
	free(p);
}

/* The workspace with the parts in mask at state B, the others at A.
 * State B: a page changed (billing), one added (root), one deleted (web). */
static void
to_state(unsigned mask)
{
	state_a();
	if (mask & PART_BILLING)
		cgt_page(ws, "billing/.guild/wiki/standards/refunds.md",
		         "type: standard\nconfidence: high\nupdated_at: "
		         "2026-07-10",
		         "# Refund Window\n\nRefunds are accepted for 45 "
		         "days.\n");
	if (mask & PART_ROOT)
		cgt_page(ws, ".guild/wiki/decisions/zebrafish-feed.md",
		         "type: decision",
		         "# Zebrafish feed\n\nWe feed the zebrafish twice a "
		         "day; the refund window does not apply to fish.\n");
	else
		rm_page(".guild/wiki/decisions/zebrafish-feed.md");
	if (mask & PART_WEB)
		rm_page("web/.guild/wiki/context/checkout.md");
}

static int
setup(void **state)
{
	ws = cgt_tmpdir("allocsweep");
	cache = cgt_tmpdir("allocsweep-cache");
	tmpl = cgt_tmpdir("allocsweep-tmpl");
	state_a();
	return 0;
}

static int
teardown(void **state)
{
	cgt_rm(ws);
	cgt_rm(cache);
	cgt_rm(tmpl);
	free(ws);
	free(cache);
	free(tmpl);
	return 0;
}

/* --- operations ----------------------------------------------------------- */

/* What a reader sees of an answer: hits, conflicts, related, followups,
 * and "failed": the outcome of each node of the evidence that did not
 * answer "ok" (a node that failed is reported there, a source that
 * failed also in a followup). */
static json_t *
seen(const json_t *ans)
{
	const json_t *ev = json_object_get(ans, "evidence");
	json_t *failed = json_array();
	size_t i;
	const json_t *n;

	json_array_foreach(json_object_get(ev, "nodes"), i, n)
		if (strcmp(cg_json_str(n, "outcome"), "ok") != 0)
			json_array_append(failed,
			                  json_object_get(n, "outcome"));
	if (json_is_true(json_object_get(ev, "degraded")) &&
	    json_array_size(failed) == 0)
		json_array_append_new(failed, json_string("degraded"));
	return json_pack("{s:O?, s:O?, s:O?, s:O?, s:o}", "hits",
	                 json_object_get(ans, "hits"), "conflicts",
	                 json_object_get(ans, "conflicts"), "related",
	                 json_object_get(ans, "related"), "followups",
	                 json_object_get(ans, "followups"), "failed", failed);
}

/* Runs the queries over an open workspace; *out is [seen answer...]. */
static int
run_queries(cg_embed *e, json_t **out, cg_err *err)
{
	json_t *all = json_array();
	int rc =
	    all == NULL ? cg_err_set(err, CG_ENOMEM, "test: no memory") : 0;

	for (size_t q = 0; q < NQ && rc == 0; q++) {
		cg_search_req req;
		json_t *ans = NULL;

		memset(&req, 0, sizeof(req));
		req.text = queries[q];
		req.limit = 10;
		rc = cg_fed_search(cg_embed_fed(e), &req, &ans, err);
		if (rc == 0 && json_array_append_new(all, seen(ans)) != 0)
			rc = cg_err_set(err, CG_ENOMEM, "test: no memory");
		json_decref(ans);
	}
	if (rc != 0)
		json_decref(all);
	*out = rc == 0 ? all : NULL;
	return rc;
}

/* The query: opens the workspace and runs the queries. */
static int
op_query(cg_embed **e, json_t **out, cg_err *err)
{
	int rc = cg_embed_open(e, ws, cache, err);

	return rc == 0 ? run_queries(*e, out, err) : rc;
}

/* The sync: opens the workspace and syncs it; *out is the report. */
static int
op_sync(cg_embed **e, json_t **out, cg_err *err)
{
	int rc = cg_embed_open(e, ws, cache, err);

	return rc == 0 ? cg_fed_sync(cg_embed_fed(*e), out, err) : rc;
}

typedef int (*op_fn)(cg_embed **e, json_t **out, cg_err *err);

/* The queries' answer with no fault, from a fresh workspace (after a
 * sync when sync is set); NULL (and *rc) when it fails. */
static json_t *
answer(bool sync, int *rc)
{
	cg_embed *e = NULL;
	json_t *a = NULL;
	json_t *rep = NULL;
	cg_err err;

	cg_err_clear(&err);
	*rc = cg_embed_open(&e, ws, cache, &err);
	if (*rc == 0 && sync)
		*rc = cg_fed_sync(cg_embed_fed(e), &rep, &err);
	json_decref(rep);
	if (*rc == 0)
		*rc = run_queries(e, &a, &err);
	cg_embed_free(e);
	return a;
}

static json_t *
reference(bool sync)
{
	int rc;
	json_t *a = answer(sync, &rc);

	if (a == NULL)
		fail_msg("the queries without a fault: %s", cg_code_name(rc));
	return a;
}

static bool
same(const json_t *a, const json_t *b)
{
	return a != NULL && b != NULL && json_equal((json_t *)a, (json_t *)b);
}

/* True when an answer (seen()s) says that a node or a source could not
 * answer or be re-indexed: in its evidence or a followup. */
static bool
says_failure(const json_t *got)
{
	size_t i, j;
	const json_t *a, *f;

	json_array_foreach(got, i, a)
		if (json_array_size(json_object_get(a, "failed")) > 0)
			return true;
	json_array_foreach(got, i, a)
		json_array_foreach(json_object_get(a, "followups"), j, f) {
			const char *m =
			    json_string_value(json_object_get(f, "message"));
			const char *kind =
			    json_string_value(json_object_get(f, "kind"));

			if ((m != NULL && strstr(m, "out of memory") != NULL) ||
			    (kind != NULL &&
			     (strcmp(kind, "source_not_updated") == 0 ||
			      strcmp(kind, "source_failed") == 0)))
				return true;
		}
	return false;
}

static void
show(const char *what, unsigned long k, const json_t *a)
{
	const char *dump = getenv("CG_SWEEP_DUMP");

	/* By hand: CG_SWEEP_DUMP=dir writes each answer shown as dir/k.json
	 * (the reference as 0.json), to compare them. */
	if (dump != NULL && a != NULL) {
		char path[512];

		(void)snprintf(path, sizeof(path), "%s/%lu.json", dump, k);
		(void)json_dump_file(a, path, JSON_SORT_KEYS | JSON_INDENT(1));
	}
	char *s = a ? json_dumps(a, JSON_SORT_KEYS | JSON_INDENT(1)) : NULL;

	print_message("%s (k = %lu):\n%.2000s\n", what, k, s ? s : "(none)");
	free(s);
}

/* --- the sweep -------------------------------------------------------- */

/* A sweep: the operation, the answers it may give, its findings. */
struct sweep {
	const char *name;
	op_fn op;
	const json_t *ref_old; /* answer before the operation, or NULL */
	const json_t *ref_new; /* answer after it */
	json_t *const *mixes;  /* [NMIX] answers of each mix, or NULL */
	void (*reset)(void);   /* puts the cache back before each run */
	unsigned long n;       /* allocations of a run without a fault */
	unsigned long max;     /* strided runs at most (next_k) */
	unsigned long head;    /* the first ks, all run */
	unsigned long tail;    /* the last ks, all run */
	unsigned long runs, errors, degraded, findings;
	unsigned long unreached; /* runs whose fault was never reached */
	unsigned long silent;    /* wrong answers that say nothing failed */
};

/* CG_SWEEP_STRICT=1: a wrong answer that says nothing failed is a
 * finding too.  The three sweeps pass so in the plain build; not yet the
 * default because the query sweep under ASan (other ks) still finds one:
 * every score of the second query scaled alike (a source's statistics
 * lost somewhere between the nodes and the federation, not found yet).
 * Such runs are counted and printed. */
static bool
strict(void)
{
	const char *v = getenv("CG_SWEEP_STRICT");

	return v != NULL && strcmp(v, "1") == 0;
}

static void
finding(struct sweep *s, unsigned long k, const char *what, const json_t *a)
{
	s->findings++;
	print_message("%s: k = %lu: %s\n", s->name, k, what);
	if (s->findings <= 20)
		show(what, k, a);
}

/* What the operation's own embed answers right after the run (no fault):
 * the new answer, or one that says what failed. */
static void
check_result(struct sweep *s, unsigned long k, int rc, cg_embed *e, json_t *out)
{
	json_t *got = NULL;

	if (rc != 0) {
		s->errors++;
		return;
	}
	if (s->op == op_query) {
		got = json_incref(out);
	} else if (run_queries(e, &got, NULL) != 0) {
		finding(s, k, "the synced workspace does not answer", NULL);
		return;
	}
	if (!same(got, s->ref_new)) {
		if (says_failure(got)) {
			s->degraded++;
		} else {
			s->silent++;
			print_message("%s: k = %lu: a wrong answer, nothing "
			              "failed\n",
			              s->name, k);
			if (strict())
				finding(s, k, "a wrong answer, nothing failed",
				        got);
		}
	}
	json_decref(got);
}

/* True when now is the answer of a state the index may be left in: the
 * old or the new one, or (after a sync) a mix of sources at either. */
static bool
known_state(const struct sweep *s, const json_t *now)
{
	for (size_t i = 0; s->mixes != NULL && i < NMIX; i++)
		if (same(now, s->mixes[i]))
			return true;
	return same(now, s->ref_old) || same(now, s->ref_new);
}

/* Afterwards, with no fault: a fresh workspace answers a known state
 * without a sync (not for a first index: there is none), and the new one
 * after a sync. */
static void
check_intact(struct sweep *s, unsigned long k)
{
	json_t *now;
	int rc;

	if (s->ref_old != NULL) {
		now = answer(false, &rc);
		if (!known_state(s, now))
			finding(s, k, "the index answers no state it may be in",
			        now);
		json_decref(now);
	}
	now = answer(true, &rc);
	if (!same(now, s->ref_new))
		finding(s, k, "after a sync: not the reference answer", now);
	json_decref(now);
}

/* One run with allocation k failing (0: none, a counting run). */
static void
run_one(struct sweep *s, unsigned long k)
{
	cg_embed *e = NULL;
	json_t *out = NULL;
	cg_err err;
	int rc;

	s->reset();
	cg_err_clear(&err);
	(void)alarm(20u * (unsigned)cgt_slowdown()); /* a hang kills us */
	cg_alloc_arm(k);
	rc = s->op(&e, &out, &err);
	s->n = k == 0 ? cg_alloc_disarm() : s->n;
	(void)cg_alloc_disarm();
	(void)alarm(0);
	/* A run may allocate a few less than the counting run did (what a
	 * run caches varies by one or two): past its end the fault is never
	 * reached, and the run is checked as one without a fault. */
	s->unreached += k > 0 && cg_alloc_failed() != 1;
	if (rc != 0 && (err.msg[0] == '\0' || err.code != rc))
		finding(s, k, "an error without its message", NULL);
	if (k == 0 && rc != 0)
		fail_msg("%s without a fault: %s", s->name, err.msg);
	check_result(s, k, rc, e, out);
	json_decref(out);
	cg_embed_free(e);
	s->runs += k > 0;
	check_intact(s, k);
}

/* The ks a sweep over n allocations runs: every one while n is small,
 * else a stride plus both ends.  The next k after prev (0 to start), 0
 * when done. */
static unsigned long
next_k(const struct sweep *s, unsigned long prev)
{
	unsigned long n = s->n;
	unsigned long stride = (n + s->max - 1) / s->max;
	unsigned long k = prev + 1;

	while (stride > 1 && k > s->head && k + s->tail <= n &&
	       (k - 1) % stride != 0)
		k++;
	return k <= n ? k : 0;
}

static void
sweep(struct sweep *s)
{
	const char *only = getenv("CG_SWEEP_K");

	run_one(s, 0); /* warms up what a process sets up once */
	run_one(s, 0);
	assert_true(s->n > 100);
	/* By hand: CG_SWEEP_K=k runs that one k (to debug a finding). */
	if (only != NULL)
		run_one(s, strtoul(only, NULL, 10));
	for (unsigned long k = next_k(s, 0); only == NULL && k != 0;
	     k = next_k(s, k))
		run_one(s, k);
	print_message("%s: N = %lu allocations, %lu runs, %lu errors, %lu "
	              "answers saying what failed, %lu silent wrong answers, "
	              "%lu faults not reached, %lu findings\n",
	              s->name, s->n, s->runs, s->errors, s->degraded, s->silent,
	              s->unreached, s->findings);
	assert_int_equal(s->findings, 0);
	/* A sweep whose faults mostly miss tests nothing (the last ks may
	 * be past the end of a run that allocated a few less). */
	assert_true(s->unreached <= s->tail + s->runs / 20);
}

/* --- the cache states ------------------------------------------------- */

static void
keep_cache(void)
{
}

static void
empty_cache(void)
{
	cgt_rm(cache);
	cgt_sh("mkdir -p '%s'", cache);
}

/* The cache as the template holds it (synced at state A). */
static void
template_cache(void)
{
	cgt_rm(cache);
	cgt_sh("cp -a '%s' '%s'", tmpl, cache);
}

/* --- the tests -------------------------------------------------------- */

/* How far a sync sweep goes: light by default, deep by hand. */
static void
sync_depth(struct sweep *s)
{
	bool deep = getenv("CG_SWEEP_SYNC") != NULL &&
	            strcmp(getenv("CG_SWEEP_SYNC"), "1") == 0;

	s->max = deep ? CG_SWEEP_MAX : CG_SWEEP_SYNC_MAX;
	s->head = deep ? CG_SWEEP_HEAD : 0;
	s->tail = deep ? CG_SWEEP_TAIL : CG_SWEEP_SYNC_TAIL;
}

static void
test_query_sweep(void **state)
{
	json_t *ref;
	struct sweep s = {.name = "query",
	                  .op = op_query,
	                  .reset = keep_cache,
	                  .max = CG_SWEEP_MAX,
	                  .head = CG_SWEEP_HEAD,
	                  .tail = CG_SWEEP_TAIL};

	empty_cache();
	ref = reference(true);
	show("reference", 0, ref);
	s.ref_new = ref;
	sweep(&s);
	json_decref(ref);
}

static void
test_first_index_sweep(void **state)
{
	json_t *ref;
	struct sweep s = {
	    .name = "first index", .op = op_sync, .reset = empty_cache};

	sync_depth(&s);
	empty_cache();
	ref = reference(true);
	s.ref_new = ref;
	sweep(&s);
	json_decref(ref);
}

static void
test_incremental_sweep(void **state)
{
	json_t *mixes[NMIX];
	struct sweep s = {
	    .name = "incremental", .op = op_sync, .reset = template_cache};

	sync_depth(&s);
	for (unsigned m = 0; m < NMIX; m++) {
		to_state(m);
		empty_cache();
		mixes[m] = reference(true);
	}
	to_state(0);
	empty_cache();
	json_decref(reference(true));
	cgt_rm(tmpl);
	cgt_sh("cp -a '%s' '%s'", cache, tmpl);
	to_state(NMIX - 1);
	assert_false(same(mixes[0], mixes[NMIX - 1]));
	s.ref_old = mixes[0];
	s.ref_new = mixes[NMIX - 1];
	s.mixes = mixes;
	sweep(&s);
	for (unsigned m = 0; m < NMIX; m++)
		json_decref(mixes[m]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_query_sweep),
	    cmocka_unit_test(test_first_index_sweep),
	    cmocka_unit_test(test_incremental_sweep),
	};

	cga_install();
	/* One sweep alone, by hand: CG_SWEEP_FILTER=test_incremental_sweep. */
	if (getenv("CG_SWEEP_FILTER") != NULL)
		cmocka_set_test_filter(getenv("CG_SWEEP_FILTER"));
	return cmocka_run_group_tests(tests, setup, teardown);
}
