/*
 * test_fetch_scale.c - `corpus-gw fetch` over many corpora at once (issue
 * "Install and operate", fetch that scales): the probes of a run go out
 * together on one libcurl multi handle and reuse connections, the run has
 * a deadline, and the git work of the corpora that moved runs in a few
 * worker processes.  Real git repositories served over file://, the fake
 * commits API of tests/support/cghttpd on 127.0.0.1, the real binary.
 *
 * Fixture: N corpora acme/c0..c<N-1>, each a repository whose config.yaml
 * names a `self` source (docs/), one index entry and one page holding the
 * word "word<k>", registered by one workspace with a 7-day TTL.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cghttpd.h"
#include "cgproc.h"
#include "cgtest.h"

#define N     12 /* corpora */
#define HOSTS 6  /* connections per host the fetch opens at most */
#define JOBS  4  /* corpora whose git work runs at once */
#define MOVED 6  /* corpora moved by the git-deadline test */
#define DELAY 400
#define HUNG  60000

static char *T;  /* the temporary root */
static char *WS; /* the workspace */
static char API[64];
static char GITBASE[600];
static cghttpd *H;

/* Commits a new version of corpus k's page (v) and returns its head. */
static char *
bump(int k, int v)
{
	cgt_sh("cd '%s/git/acme/c%d.git' && printf '# Page %d\\n\\nword%d "
	       "version v%d\\n' > docs/page.md && git add -A && "
	       "git -c user.name=t -c user.email=t@x commit -q -m v%d",
	       T, k, k, k, v, v);
	return cgt_sh_out("git -C '%s/git/acme/c%d.git' rev-parse HEAD", T, k);
}

/* Points the fake API at every corpus repository's head. */
static void
publish_heads(void)
{
	cg_err err = {0};
	char path[700];

	cgt_sh("cd '%s/git/acme' && for k in $(seq 0 %d); do echo \"acme/c$k "
	       "main $(git -C c$k.git rev-parse HEAD)\"; done > '%s/shas.tmp' "
	       "&& mv '%s/shas.tmp' '%s/shas'",
	       T, N - 1, T, T, T);
	(void)snprintf(path, sizeof(path), "%s/shas", T);
	assert_int_equal(cghttpd_load_file(H, path, &err), 0);
}

static void
make_corpora(void)
{
	cgt_write(WS, ".guild/wiki/home.md", "# Home\n\nThe workspace.\n");
	cgt_sh("mkdir -p '%s/git/acme' && cd '%s/git/acme' && "
	       "for k in $(seq 0 %d); do git init -q -b main c$k.git && "
	       "mkdir c$k.git/docs && printf 'schema_version: 2\\ncorpus:\\n  "
	       "name: c%%s\\nsources:\\n  - id: d\\n    type: self\\n    "
	       "docs_root: docs\\n' $k > c$k.git/config.yaml && printf "
	       "'entries:\\n  - id: \"d:page.md\"\\n    source: d\\n    "
	       "path: page.md\\n    title: \"Page %%s\"\\n' $k > "
	       "c$k.git/index.yaml; done",
	       T, T, N - 1);
	for (int k = 0; k < N; k++)
		free(bump(k, 0));
	cgt_sh("mkdir -p '%s/.hiivmind/corpus' && { echo 'schema_version: 1'; "
	       "echo 'corpora:'; for k in $(seq 0 %d); do printf '  - id: "
	       "c%%s\\n    source:\\n      type: github\\n      repo: "
	       "acme/c%%s\\n      ref: main\\n    cache:\\n      ttl: 7d\\n' "
	       "$k $k; done; } > '%s/.hiivmind/corpus/registry.yaml'",
	       WS, N - 1, WS);
	publish_heads();
}

/* corpus-gw fetch --workspace WS --api-base API --git-base git EXTRA...
 * (NULL-ended); stderr into *err; *ms (may be NULL) the wall time. */
static int
fetch_with(const char *git, char **err, int64_t *ms, ...)
{
	va_list ap;
	int64_t t0 = cgt_now_ms();
	int rc;

	va_start(ap, ms);
	rc = cgt_fetchv(WS, API, git, err, ap);
	va_end(ap);
	if (ms != NULL)
		*ms = cgt_now_ms() - t0;
	return rc;
}

/* String field key of the JSON file rel below .hiivmind/corpus/cache
 * (malloc'd). */
static char *
cache_field(const char *rel, const char *key)
{
	char path[1024];
	json_t *j;
	char *v;

	(void)snprintf(path, sizeof(path), "%s/.hiivmind/corpus/cache/%s", WS,
	               rel);
	j = json_load_file(path, 0, NULL);
	assert_non_null(j);
	v = strdup(json_string_value(json_object_get(j, key)));
	json_decref(j);
	return v;
}

/* Field key of corpus k's _cache_meta.json (malloc'd). */
static char *
meta_field(int k, const char *key)
{
	char rel[64];

	(void)snprintf(rel, sizeof(rel), "c%d/_cache_meta.json", k);
	return cache_field(rel, key);
}

/* Field key of corpus k's freshness state (malloc'd). */
static char *
state_field(int k, const char *key)
{
	char rel[64];

	(void)snprintf(rel, sizeof(rel), ".corpus-gw/c%d.json", k);
	return cache_field(rel, key);
}

/* Corpus k's cache holds commit sha, with its ETag in the state. */
static void
assert_cached(int k, const char *sha)
{
	char *have = meta_field(k, "cached_commit_sha");
	char *etag = state_field(k, "etag");
	char want[64];

	assert_string_equal(have, sha);
	(void)snprintf(want, sizeof(want), "\"%s\"", sha);
	assert_string_equal(etag, want);
	free(have);
	free(etag);
}

static int
count_of(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* "N HTTP requests on C connections" of the -v summary: C. */
static long
connections_said(const char *err)
{
	const char *p = strstr(err, " connections (");
	const char *q = p;

	while (q != NULL && q > err && q[-1] != ' ')
		q--;
	return p ? strtol(q, NULL, 10) : -1;
}

static int
group_setup(void **state)
{
	(void)state;
	T = cgt_tmpdir("fetch-scale");
	WS = malloc(strlen(T) + 8);
	sprintf(WS, "%s/ws", T); /* NOLINT: sized above */
	(void)snprintf(GITBASE, sizeof(GITBASE), "file://%s/git", T);
	if (cghttpd_start(&H, 0) != 0)
		return -1;
	(void)snprintf(API, sizeof(API), "http://127.0.0.1:%d",
	               cghttpd_port(H));
	make_corpora();
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	cghttpd_stop(H);
	cgt_rm(T);
	free(T);
	free(WS);
	return 0;
}

/* --- every corpus gets its own answer ------------------------------------ */

static void
test_first_fetch(void **state)
{
	char *err = NULL;

	(void)state;
	assert_int_equal(fetch_with(GITBASE, &err, NULL, "-v", NULL), 0);
	assert_non_null(strstr(err, "12 updated, 0 failed"));
	free(err);
	for (int k = 0; k < N; k++) {
		char *head = cgt_sh_out(
		    "git -C '%s/git/acme/c%d.git' rev-parse HEAD", T, k);

		assert_cached(k, head);
		free(head);
	}
}

static void
test_refresh_some_moved(void **state)
{
	static const int moved[] = {1, 5, 10};
	char *heads[N];
	long req0 = cghttpd_requests(H);
	long conn0 = cghttpd_connections(H);
	long n304 = cghttpd_count_304(H);
	long n200 = cghttpd_count_status(H, 200);
	char *err = NULL;

	(void)state;
	for (int k = 0; k < N; k++)
		heads[k] = cgt_sh_out(
		    "git -C '%s/git/acme/c%d.git' rev-parse HEAD", T, k);
	for (size_t i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		free(heads[moved[i]]);
		heads[moved[i]] = bump(moved[i], 1);
	}
	publish_heads();
	assert_int_equal(
	    fetch_with(GITBASE, &err, NULL, "--refresh", "-v", NULL), 0);
	assert_non_null(strstr(err, "9 unchanged, 3 updated, 0 failed"));
	/* One request per corpus, each with its own ETag: 9 of them match
	 * (304), the 3 moved do not (200 with the new sha). */
	assert_int_equal(cghttpd_requests(H) - req0, N);
	assert_int_equal(cghttpd_count_304(H) - n304, N - 3);
	assert_int_equal(cghttpd_count_status(H, 200) - n200, 3);
	/* Connections reused: at most HOSTS for the N requests, as the
	 * server counted them and as the summary says. */
	assert_true(cghttpd_connections(H) - conn0 <= HOSTS);
	assert_true(cghttpd_connections(H) - conn0 < N);
	assert_int_equal(connections_said(err), cghttpd_connections(H) - conn0);
	free(err);
	for (int k = 0; k < N; k++) {
		assert_cached(k, heads[k]);
		free(heads[k]);
	}
}

/* --- a slow API, a hung API ------------------------------------------------
 */

static void
test_slow_api(void **state)
{
	char *err = NULL;
	int64_t ms = 0;

	(void)state;
	cghttpd_set_delay_ms(H, DELAY);
	assert_int_equal(fetch_with(GITBASE, &err, &ms, "--refresh", "-v",
	                            "--deadline", "30", NULL),
	                 0);
	cghttpd_set_delay_ms(H, 0);
	assert_non_null(strstr(err, "12 unchanged, 0 updated, 0 failed"));
	free(err);
	/* Asked one after another, N answers would take N * DELAY (4.8 s);
	 * together on HOSTS connections, N / HOSTS rounds of DELAY. */
	if (ms >= N * DELAY / 2)
		fail_msg("%d probes of a %d ms API took %lld ms", N, DELAY,
		         (long long)ms);
}

static void
test_hung_api(void **state)
{
	char *meta0[N];
	char *err = NULL;
	int64_t ms = 0;

	(void)state;
	for (int k = 0; k < N; k++)
		meta0[k] = meta_field(k, "cached_at");
	cghttpd_set_delay_ms(H, HUNG); /* accepts, reads, never answers */
	assert_int_equal(fetch_with(GITBASE, &err, &ms, "--refresh",
	                            "--deadline", "2", NULL),
	                 1);
	cghttpd_set_delay_ms(H, 0);
	if (ms < 1900 || ms > 6000)
		fail_msg("a run with a 2 s deadline took %lld ms",
		         (long long)ms);
	/* One line per corpus, each saying why and that the old cache
	 * serves. */
	assert_int_equal(count_of(err, "\n"), N);
	assert_int_equal(count_of(err, "run deadline reached"), N);
	assert_int_equal(count_of(err, "the old cache keeps serving"), N);
	for (int k = 0; k < N; k++) {
		char line[32];
		char *why = state_field(k, "last_error");
		char *at = meta_field(k, "cached_at");
		char path[1024];
		struct stat st;

		(void)snprintf(line, sizeof(line), "corpus c%d: ", k);
		assert_non_null(strstr(err, line));
		assert_non_null(strstr(why, "run deadline reached"));
		assert_string_equal(at,
		                    meta0[k]); /* the old cache, as it was */
		(void)snprintf(path, sizeof(path),
		               "%s/.hiivmind/corpus/cache/c%d/docs/d/page.md",
		               WS, k);
		assert_int_equal(stat(path, &st), 0);
		free(why);
		free(at);
		free(meta0[k]);
	}
	free(err);
	/* The API answers again: the next run succeeds, the errors go. */
	assert_int_equal(fetch_with(GITBASE, &err, NULL, "--refresh", NULL), 0);
	assert_string_equal(err, "");
	free(err);
	{
		char *why = state_field(0, "last_error");

		assert_string_equal(why, "");
		free(why);
	}
}

/* --- the git work: a few at once, cut off by the deadline ------------------
 */

static void
test_git_deadline(void **state)
{
	cghttpd *G = NULL; /* a git server that never answers */
	char hung[64];
	char *before[N];
	char *heads[N];
	char *err = NULL;
	char *left;
	int64_t ms = 0;

	(void)state;
	assert_int_equal(cghttpd_start(&G, 0), 0);
	cghttpd_set_delay_ms(G, HUNG);
	(void)snprintf(hung, sizeof(hung), "http://127.0.0.1:%d",
	               cghttpd_port(G));
	for (int k = 0; k < N; k++) {
		before[k] = meta_field(k, "cached_commit_sha");
		heads[k] = k < MOVED ? bump(k, 2) : strdup(before[k]);
	}
	publish_heads();
	assert_int_equal(
	    fetch_with(hung, &err, &ms, "--refresh", "--deadline", "3", NULL),
	    1);
	if (ms < 2900 || ms > 8000)
		fail_msg("a run with a 3 s deadline took %lld ms",
		         (long long)ms);
	/* JOBS workers went to the git server at once; the others waited
	 * for a free worker until the deadline. */
	assert_int_equal(cghttpd_requests(G), JOBS);
	assert_int_equal(count_of(err, "\n"), MOVED);
	assert_int_equal(count_of(err, "during its git work"), JOBS);
	assert_int_equal(count_of(err, "before its git work began"),
	                 MOVED - JOBS);
	free(err);
	cghttpd_stop(G);
	for (int k = 0; k < N; k++) {
		char *have = meta_field(k, "cached_commit_sha");

		assert_string_equal(have, before[k]); /* old caches serve */
		free(have);
	}
	/* The killed workers' stages are gone. */
	left = cgt_sh_out("ls '%s/.hiivmind/corpus/cache/.corpus-gw' | "
	                  "grep -c stage- || true",
	                  WS);
	assert_string_equal(left, "0");
	free(left);
	/* With the git server back, the next run publishes them all. */
	assert_int_equal(fetch_with(GITBASE, &err, NULL, "--refresh", NULL), 0);
	free(err);
	for (int k = 0; k < N; k++) {
		assert_cached(k, heads[k]);
		free(before[k]);
		free(heads[k]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_fetch),
	    cmocka_unit_test(test_refresh_some_moved),
	    cmocka_unit_test(test_slow_api),
	    cmocka_unit_test(test_hung_api),
	    cmocka_unit_test(test_git_deadline),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
