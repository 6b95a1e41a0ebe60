/*
 * test_probe.c - unit tests of the freshness probe (cache/probe.c) against
 * the fake GitHub API of tests/support/cghttpd.c, in process on loopback:
 * 200 then 304, a moved ref, the headers sent, the token kept out of every
 * error message, rate limits, a server that is down or slow, hostile
 * bodies, input checks that send nothing, and ref encoding.
 *
 * Each test starts its own server on a free port; nothing leaves 127.0.0.1.
 */

/* cmocka.h needs these first. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache/probe.h"
#include "cghttpd.h"
#include "common/cg_err.h"

#define SHA1  "0123456789abcdef0123456789abcdef01234567"
#define SHA2  "89abcdef0123456789abcdef0123456789abcdef"
#define REPO  "octo/wiki"
#define TOKEN "ghp_SecretTokenValue0123456789"
#define ETAG1 "\"" SHA1 "\""
#define ETAG2 "\"" SHA2 "\""

/* One test's server and a request aimed at it. */
struct fx {
	cghttpd *h;
	char base[64]; /* http://127.0.0.1:PORT */
	cg_probe_req rq;
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(cghttpd_start(&f->h, 0), 0);
	assert_true(cghttpd_port(f->h) > 0);
	(void)snprintf(f->base, sizeof(f->base), "http://127.0.0.1:%d",
	               cghttpd_port(f->h));
	assert_int_equal(cghttpd_set(f->h, REPO, "main", SHA1), 0);
	f->rq.api_base = f->base;
	f->rq.repo = REPO;
	f->rq.ref = "main";
	f->rq.timeout_ms = 5000;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	cghttpd_stop(f->h);
	free(f);
	return 0;
}

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Asserts the last request's field f equals want (NULL: absent). */
static void
assert_last(const struct fx *f, enum cghttpd_field fld, const char *want)
{
	char *v = cghttpd_last(f->h, fld);

	if (want == NULL)
		assert_null(v);
	else
		assert_string_equal(v, want);
	free(v);
}

/* Probes with f's request and a cleared err; returns the code. */
static int
probe(struct fx *f, cg_probe_res *rs, cg_err *err)
{
	cg_err_clear(err);
	return cg_probe_commit(&f->rq, rs, err);
}

/* --- the happy path ------------------------------------------------------- */

static void
test_new_then_same(void **state)
{
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;
	char etag[256];

	assert_int_equal(probe(f, &rs, &err), 0);
	assert_int_equal(rs.status, CG_PROBE_NEW);
	assert_int_equal(rs.http_code, 200);
	assert_string_equal(rs.sha, SHA1);
	assert_string_equal(rs.etag, ETAG1);
	assert_true(rs.bytes > 40 && rs.bytes < 1024);
	assert_true(rs.ms > 0.0 && rs.ms < 5000.0);
	assert_last(f, CGHTTPD_METHOD, "GET");
	assert_last(f, CGHTTPD_PATH, "/repos/octo/wiki/commits/main");
	assert_last(f, CGHTTPD_ACCEPT, "application/vnd.github.sha");
	assert_last(f, CGHTTPD_USER_AGENT, "corpus-gw");
	assert_last(f, CGHTTPD_IF_NONE_MATCH, NULL);
	assert_last(f, CGHTTPD_AUTHORIZATION, NULL);

	(void)snprintf(etag, sizeof(etag), "%s", rs.etag);
	f->rq.etag = etag;
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_int_equal(rs.status, CG_PROBE_SAME);
	assert_int_equal(rs.http_code, 304);
	assert_string_equal(rs.sha, "");
	assert_string_equal(rs.etag, ETAG1);
	assert_true(rs.bytes > 0 && rs.bytes < 1024);
	assert_last(f, CGHTTPD_IF_NONE_MATCH, ETAG1);
	assert_int_equal(cghttpd_requests(f->h), 2);
	assert_int_equal(cghttpd_count_304(f->h), 1);
	assert_int_equal(cghttpd_count_status(f->h, 200), 1);
}

static void
test_ref_moves(void **state)
{
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;

	f->rq.etag = ETAG1;
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_int_equal(rs.status, CG_PROBE_SAME);

	assert_int_equal(cghttpd_set(f->h, REPO, "main", SHA2), 0);
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_int_equal(rs.status, CG_PROBE_NEW);
	assert_string_equal(rs.sha, SHA2);
	assert_string_equal(rs.etag, ETAG2);

	f->rq.etag = ETAG2;
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_int_equal(rs.status, CG_PROBE_SAME);
	assert_string_equal(rs.etag, ETAG2);
	assert_int_equal(cghttpd_count_304(f->h), 2);
}

static void
test_token_sent_as_bearer(void **state)
{
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;

	f->rq.token = TOKEN;
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_last(f, CGHTTPD_AUTHORIZATION, "Bearer " TOKEN);

	f->rq.token = ""; /* empty means none */
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_last(f, CGHTTPD_AUTHORIZATION, NULL);
}

/* The server answers 200 without ETag: NEW with etag ""; a 304 without
 * ETag keeps the request's. */
static void
test_no_etag_header(void **state)
{
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;

	cghttpd_set_etags(f->h, false);
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_int_equal(rs.status, CG_PROBE_NEW);
	assert_string_equal(rs.etag, "");
	f->rq.etag = ETAG1;
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_int_equal(rs.status, CG_PROBE_SAME);
	assert_int_equal(rs.http_code, 304);
	assert_string_equal(rs.etag, ETAG1);
}

static void
test_trailing_slash_and_case(void **state)
{
	struct fx *f = *state;
	char base[80];
	cg_probe_res rs;
	cg_err err;

	(void)snprintf(base, sizeof(base), "HTTP://127.0.0.1:%d//",
	               cghttpd_port(f->h));
	f->rq.api_base = base;
	/* Uppercase hex with whitespace around it: trimmed, lowercased. */
	assert_int_equal(cghttpd_set_body(f->h,
	                                  "  0123456789ABCDEF0123456789"
	                                  "ABCDEF01234567\r\n",
	                                  44, false),
	                 0);
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_int_equal(rs.status, CG_PROBE_NEW);
	assert_string_equal(rs.sha, SHA1);
	assert_last(f, CGHTTPD_PATH, "/repos/octo/wiki/commits/main");
}

/* --- failures ------------------------------------------------------------- */

/* One way for the server to fail, and what the probe must say. */
struct failure {
	const char *what;
	int fail_status;  /* cghttpd_fail_next, 0: none */
	const char *repo; /* NULL: REPO */
	const char *ref;  /* NULL: "main" */
	int rc;
	long http_code;
	bool echoed; /* the server quoted the token back */
};

static void
test_token_absent_from_errors(void **state)
{
	static const struct failure cases[] = {
	    {"401", 401, NULL, NULL, CG_EDENIED, 401, true},
	    {"403", 403, NULL, NULL, CG_EDENIED, 403, true},
	    {"429", 429, NULL, NULL, CG_EDENIED, 429, true},
	    {"404", 0, "octo/none", NULL, CG_ENOTFOUND, 404, true},
	    {"422", 0, NULL, "nobranch", CG_ENOTFOUND, 422, true},
	    {"500", 500, NULL, NULL, CG_EPROTO, 500, true},
	    {"503", 503, NULL, NULL, CG_EPROTO, 503, true},
	    {"301", 301, NULL, NULL, CG_EPROTO, 301, true},
	};
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;

	f->rq.token = TOKEN;
	cghttpd_set_echo_auth(f->h, true);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct failure *c = &cases[i];

		f->rq.repo = c->repo ? c->repo : REPO;
		f->rq.ref = c->ref ? c->ref : "main";
		cghttpd_fail_next(f->h, c->fail_status);
		assert_int_equal(probe(f, &rs, &err), c->rc);
		assert_int_equal(err.code, c->rc);
		assert_int_equal(rs.http_code, c->http_code);
		assert_last(f, CGHTTPD_AUTHORIZATION, "Bearer " TOKEN);
		if (strstr(err.msg, TOKEN) != NULL)
			fail_msg("case %s leaks the token: %s", c->what,
			         err.msg);
		assert_null(strstr(err.msg, "SecretToken"));
		assert_non_null(strstr(err.msg, f->base));
		if (c->echoed && strstr(err.msg, "[redacted]") == NULL)
			fail_msg("case %s: no server message: %s", c->what,
			         err.msg);
	}
	assert_int_equal(cghttpd_requests(f->h), 8);

	/* A 200 body that quotes the token. */
	f->rq.repo = REPO;
	f->rq.ref = "main";
	assert_int_equal(cghttpd_set_body(f->h, "Bearer " TOKEN, 37, false), 0);
	assert_int_equal(probe(f, &rs, &err), CG_EPROTO);
	assert_null(strstr(err.msg, TOKEN));
	assert_non_null(strstr(err.msg, "[redacted]"));

	/* Slow and down. */
	assert_int_equal(cghttpd_set_body(f->h, NULL, 0, false), 0);
	cghttpd_set_delay_ms(f->h, 1000);
	f->rq.timeout_ms = 200;
	assert_int_equal(probe(f, &rs, &err), CG_ETIMEDOUT);
	assert_null(strstr(err.msg, TOKEN));
	cghttpd_set_delay_ms(f->h, 0);
	assert_int_equal(cghttpd_pause(f->h, true), 0);
	assert_int_equal(probe(f, &rs, &err), CG_EUNAVAIL);
	assert_null(strstr(err.msg, TOKEN));
}

static void
test_rate_limit_names_reset(void **state)
{
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;
	char when[64];
	time_t reset;
	struct tm tm;
	long long now = (long long)time(NULL);

	cghttpd_fail_next(f->h, 403);
	assert_int_equal(probe(f, &rs, &err), CG_EDENIED);
	reset = (time_t)cghttpd_rate_reset(f->h);
	assert_true(reset >= now + 3590 && reset <= now + 3610);
	assert_non_null(gmtime_r(&reset, &tm));
	assert_true(strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) >
	            0);
	if (strstr(err.msg, when) == NULL)
		fail_msg("no reset %s in: %s", when, err.msg);
	assert_non_null(strstr(err.msg, "rate limit"));
	assert_non_null(strstr(err.msg, "HTTP 403"));
	assert_non_null(strstr(err.msg, "API rate limit exceeded"));

	/* 429 too; and the next request is served normally again. */
	cghttpd_fail_next(f->h, 429);
	assert_int_equal(probe(f, &rs, &err), CG_EDENIED);
	assert_non_null(strstr(err.msg, "resets at"));
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_int_equal(rs.status, CG_PROBE_NEW);
}

static void
test_not_found_codes(void **state)
{
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;

	f->rq.repo = "octo/other";
	assert_int_equal(probe(f, &rs, &err), CG_ENOTFOUND);
	assert_int_equal(rs.http_code, 404);
	assert_non_null(strstr(err.msg, "Not Found"));
	f->rq.repo = REPO;
	f->rq.ref = "gone";
	assert_int_equal(probe(f, &rs, &err), CG_ENOTFOUND);
	assert_int_equal(rs.http_code, 422);
	assert_non_null(strstr(err.msg, "No commit found for SHA: gone"));
}

static void
test_redirect_not_followed(void **state)
{
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;

	cghttpd_fail_next(f->h, 301);
	assert_int_equal(probe(f, &rs, &err), CG_EPROTO);
	assert_int_equal(rs.http_code, 301);
	assert_non_null(strstr(err.msg, "/repos/moved/elsewhere"));
	assert_non_null(strstr(err.msg, "not followed"));
	assert_int_equal(cghttpd_requests(f->h), 1);
}

static void
test_server_down_fast(void **state)
{
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;
	double t0;
	double took;

	assert_int_equal(cghttpd_pause(f->h, true), 0);
	t0 = now_ms();
	assert_int_equal(probe(f, &rs, &err), CG_EUNAVAIL);
	took = now_ms() - t0;
	if (took >= 3000.0)
		fail_msg("a refused connection took %.0f ms", took);
	assert_int_equal(rs.http_code, 0);
	assert_non_null(strstr(err.msg, f->base));

	/* Up again on the same port: served as before. */
	assert_int_equal(cghttpd_pause(f->h, false), 0);
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_int_equal(rs.status, CG_PROBE_NEW);
	assert_string_equal(rs.sha, SHA1);
}

static void
test_timeout(void **state)
{
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;
	double t0;
	double took;

	cghttpd_set_delay_ms(f->h, 2000);
	f->rq.timeout_ms = 300;
	t0 = now_ms();
	assert_int_equal(probe(f, &rs, &err), CG_ETIMEDOUT);
	took = now_ms() - t0;
	if (took < 250.0 || took > 1500.0)
		fail_msg("a 300 ms timeout took %.0f ms", took);
	assert_non_null(strstr(err.msg, "300 ms"));
	assert_int_equal(cghttpd_requests(f->h), 1);
}

static void
test_bad_bodies(void **state)
{
	static const char *const bodies[] = {
	    "not-a-sha",
	    "0123456789abcdef0123456789abcdef0123456",   /* 39 */
	    "0123456789abcdef0123456789abcdef012345678", /* 41 */
	    "0123456789abcdef0123456789abcdef0123456g",  /* not hex */
	    "01234567 89abcdef0123456789abcdef01234567", /* inner space */
	    "{\"sha\":\"0123456789abcdef0123456789abcdef01234567\"}",
	    "",
	};
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;

	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		assert_int_equal(
		    cghttpd_set_body(f->h, bodies[i], strlen(bodies[i]), i % 2),
		    0);
		assert_int_equal(probe(f, &rs, &err), CG_EPROTO);
		assert_int_equal(rs.http_code, 200);
		assert_non_null(strstr(err.msg, "40-hex"));
		assert_string_equal(rs.sha, "");
	}
	/* A NUL inside the body. */
	assert_int_equal(cghttpd_set_body(f->h, SHA1 "\0", 41, false), 0);
	assert_int_equal(probe(f, &rs, &err), CG_EPROTO);
}

/* Bodies at and over the 4 KiB cap, with and without Content-Length. */
static void
test_body_cap(void **state)
{
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;
	char *big = malloc(8192);

	assert_non_null(big);
	memset(big, ' ', 8192);
	memcpy(big, SHA1, 40);
	for (int chunked = 0; chunked < 2; chunked++) {
		assert_int_equal(cghttpd_set_body(f->h, big, 4096, chunked), 0);
		assert_int_equal(probe(f, &rs, &err), 0);
		assert_string_equal(rs.sha, SHA1);

		assert_int_equal(cghttpd_set_body(f->h, big, 4097, chunked), 0);
		assert_int_equal(probe(f, &rs, &err), CG_EPROTO);
		assert_non_null(strstr(err.msg, "larger than 4096"));

		assert_int_equal(cghttpd_set_body(f->h, big, 8192, chunked), 0);
		assert_int_equal(probe(f, &rs, &err), CG_EPROTO);
		assert_true(rs.bytes < 8192);
	}
	free(big);
}

/* --- input checks --------------------------------------------------------- */

static void
test_invalid_input_sends_nothing(void **state)
{
	static const char *const repos[] = {
	    "a/../b", "nobody", "../x",  "./x",   "a/..",   "a/b/c",
	    "a/",     "/b",     "a b/c", "a/b?c", "a/b%2F", "",
	};
	static const char *const bases[] = {
	    "ftp://127.0.0.1", "127.0.0.1:80", "http://",     "http:///x",
	    "http://h/x?q=1",  "http://h x",   "file:///etc", "",
	};
	static const char *const refs[] = {"",     ".",    "..",
	                                   "a..b", "a\nb", "a\x7f"};
	struct fx *f = *state;
	cg_probe_req base_rq = f->rq;
	cg_probe_res rs;
	cg_err err;

	for (size_t i = 0; i < sizeof(repos) / sizeof(repos[0]); i++) {
		f->rq.repo = repos[i];
		assert_int_equal(probe(f, &rs, &err), CG_EINVAL);
		assert_non_null(strstr(err.msg, "owner/name"));
	}
	f->rq = base_rq;
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		f->rq.api_base = bases[i];
		assert_int_equal(probe(f, &rs, &err), CG_EINVAL);
		assert_non_null(strstr(err.msg, "api_base"));
	}
	f->rq.api_base = "http://user:hunter2@127.0.0.1:1";
	assert_int_equal(probe(f, &rs, &err), CG_EINVAL);
	assert_null(strstr(err.msg, "hunter2"));
	f->rq = base_rq;
	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		f->rq.ref = refs[i];
		assert_int_equal(probe(f, &rs, &err), CG_EINVAL);
		assert_non_null(strstr(err.msg, "ref"));
	}
	f->rq = base_rq;
	f->rq.etag = "\"x\"\r\nX-Injected: 1";
	assert_int_equal(probe(f, &rs, &err), CG_EINVAL);
	f->rq = base_rq;
	f->rq.token = TOKEN "\r\nX-Injected: 1";
	assert_int_equal(probe(f, &rs, &err), CG_EINVAL);
	assert_null(strstr(err.msg, TOKEN));
	f->rq = base_rq;
	f->rq.timeout_ms = 0;
	assert_int_equal(probe(f, &rs, &err), CG_EINVAL);
	cg_err_clear(&err);
	assert_int_equal(cg_probe_commit(NULL, &rs, &err), CG_EINVAL);

	assert_int_equal(cghttpd_requests(f->h), 0);
}

/* --- encoding ------------------------------------------------------------- */

static void
test_ref_encoding(void **state)
{
	static const char *const refs[] = {
	    "feature/x y", "release/1.0", "a%2Fb", "what?#now",
	    "ü/naïve",     "v1.0+build",  "-dash",
	};
	struct fx *f = *state;
	cg_probe_res rs;
	cg_err err;
	char path[256];

	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		assert_int_equal(cghttpd_set(f->h, REPO, refs[i], SHA2), 0);
		f->rq.ref = refs[i];
		assert_int_equal(probe(f, &rs, &err), 0);
		assert_int_equal(rs.status, CG_PROBE_NEW);
		assert_string_equal(rs.sha, SHA2);
		(void)snprintf(path, sizeof(path),
		               "/repos/octo/wiki/commits/%s", refs[i]);
		assert_last(f, CGHTTPD_PATH, path);
	}
	/* "feature/x y" is one ref, not "feature" plus a path. */
	assert_int_equal(cghttpd_set(f->h, REPO, "feature", SHA1), 0);
	f->rq.ref = "feature/x y";
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_string_equal(rs.sha, SHA2);
}

/* --- the fake's file loader and concurrency ------------------------------- */

static void
test_load_file(void **state)
{
	struct fx *f = *state;
	char dir[] = "/tmp/cg-probe-XXXXXX";
	char path[64];
	FILE *fp;
	cg_probe_res rs;
	cg_err err;

	assert_non_null(mkdtemp(dir));
	(void)snprintf(path, sizeof(path), "%s/shas", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("# comment\n\nocto/wiki main " SHA2 "\n"
	      "other/docs v2 " SHA1 "\n",
	      fp);
	fclose(fp);
	cg_err_clear(&err);
	assert_int_equal(cghttpd_load_file(f->h, path, &err), 0);
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_string_equal(rs.sha, SHA2);
	f->rq.repo = "other/docs";
	f->rq.ref = "v2";
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_string_equal(rs.sha, SHA1);

	/* A bad file keeps the old refs. */
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("octo/wiki main\n", fp);
	fclose(fp);
	cg_err_clear(&err);
	assert_int_equal(cghttpd_load_file(f->h, path, &err), CG_EPARSE);
	assert_non_null(strstr(err.msg, ":1:"));
	assert_int_equal(probe(f, &rs, &err), 0);
	assert_string_equal(rs.sha, SHA1);
	unlink(path);
	rmdir(dir);
}

struct worker {
	const struct fx *f;
	int same; /* probes answered CG_PROBE_SAME */
};

static void *
work(void *arg)
{
	struct worker *w = arg;
	cg_probe_req rq = w->f->rq;
	cg_probe_res rs;
	cg_err err;

	rq.etag = ETAG1;
	rq.token = TOKEN;
	for (int i = 0; i < 25; i++) {
		cg_err_clear(&err);
		if (cg_probe_commit(&rq, &rs, &err) == 0 &&
		    rs.status == CG_PROBE_SAME)
			w->same++;
	}
	return NULL;
}

static void
test_concurrent(void **state)
{
	struct fx *f = *state;
	struct worker w[4];
	pthread_t t[4];

	for (int i = 0; i < 4; i++) {
		w[i].f = f;
		w[i].same = 0;
		assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].same, 25);
	}
	assert_int_equal(cghttpd_count_304(f->h), 100);
}

int
main(void)
{
	cg_err err = {0};
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_new_then_same),
	    T(test_ref_moves),
	    T(test_token_sent_as_bearer),
	    T(test_no_etag_header),
	    T(test_trailing_slash_and_case),
	    T(test_token_absent_from_errors),
	    T(test_rate_limit_names_reset),
	    T(test_not_found_codes),
	    T(test_redirect_not_followed),
	    T(test_server_down_fast),
	    T(test_timeout),
	    T(test_bad_bodies),
	    T(test_body_cap),
	    T(test_invalid_input_sends_nothing),
	    T(test_ref_encoding),
	    T(test_load_file),
	    T(test_concurrent),
#undef T
	};

	if (cg_httpc_global_init(&err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
