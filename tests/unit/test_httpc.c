/*
 * test_httpc.c - unit tests of the batch of concurrent GETs (cache/httpc.c)
 * against the fake GitHub API of tests/support/cghttpd.c on loopback:
 * many requests on one batch each get their own answer over few reused
 * connections; a request queued for a connection still times out on its
 * own clock; the batch's deadline cuts what runs; the done callback may
 * add requests; bodies are capped; redirects are followed only when
 * asked; bad requests are refused before anything is sent.
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

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/httpc.h"
#include "cghttpd.h"
#include "common/cg_err.h"
#include "common/cg_time.h"

#define NREPOS 40
#define ACCEPT "application/vnd.github.sha"

/* One test's server. */
struct fx {
	cghttpd *h;
	char base[64]; /* http://127.0.0.1:PORT */
};

/* The sha the server gives repo k: 40 hex digits ending in k. */
static void
sha_of(int k, char out[41])
{
	(void)snprintf(out, 41, "%040d", k);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char repo[32];
	char sha[41];

	assert_non_null(f);
	assert_int_equal(cghttpd_start(&f->h, 0), 0);
	(void)snprintf(f->base, sizeof(f->base), "http://127.0.0.1:%d",
	               cghttpd_port(f->h));
	for (int k = 0; k < NREPOS; k++) {
		(void)snprintf(repo, sizeof(repo), "o/r%d", k);
		sha_of(k, sha);
		assert_int_equal(cghttpd_set(f->h, repo, "main", sha), 0);
	}
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

/* A request for repo k's main. */
static void
req_of(const struct fx *f, int k, char *url, size_t cap, cg_httpc_req *rq)
{
	(void)snprintf(url, cap, "%s/repos/o/r%d/commits/main", f->base, k);
	memset(rq, 0, sizeof(*rq));
	rq->url = url;
	rq->accept = ACCEPT;
	rq->body_max = 4096;
	rq->timeout_ms = 5000;
}

/* A batch with conns connections per host and deadline_ms (0: none). */
static cg_httpc *
batch(int conns, int64_t deadline_ms)
{
	cg_httpc_opts o;
	cg_httpc *h = NULL;
	cg_err err;

	cg_err_clear(&err);
	cg_httpc_opts_init(&o);
	o.max_host_connections = conns;
	o.deadline_ms = deadline_ms;
	assert_int_equal(cg_httpc_new(&h, &o, &err), 0);
	return h;
}

static void
test_many_own_answers(void **state)
{
	struct fx *f = *state;
	cg_httpc *h = batch(3, 0);
	char url[NREPOS][128];
	size_t id[NREPOS];
	int conns = 0;
	cg_err err;

	for (int k = 0; k < NREPOS; k++) {
		cg_httpc_req rq;
		char etag[48];
		char sha[41];

		req_of(f, k, url[k], sizeof(url[k]), &rq);
		/* Every other one asks with its current ETag: a 304. */
		sha_of(k, sha);
		(void)snprintf(etag, sizeof(etag), "\"%s\"", sha);
		rq.etag = k % 2 ? etag : NULL;
		cg_err_clear(&err);
		assert_int_equal(cg_httpc_add(h, &rq, &id[k], &err), 0);
		assert_int_equal(id[k], (size_t)k);
	}
	assert_int_equal(cg_httpc_run(h, NULL, NULL), 0);
	for (int k = 0; k < NREPOS; k++) {
		const cg_httpc_res *r = cg_httpc_res_of(h, id[k]);
		char sha[41];
		char etag[48];

		sha_of(k, sha);
		(void)snprintf(etag, sizeof(etag), "\"%s\"", sha);
		assert_int_equal(r->code, 0);
		assert_int_equal(r->status, k % 2 ? 304 : 200);
		assert_string_equal(r->etag, etag);
		assert_string_equal(r->body, k % 2 ? "" : sha);
		assert_true(r->bytes > 0);
		conns += r->connections;
	}
	assert_null(cg_httpc_res_of(h, NREPOS));
	cg_httpc_free(h);
	/* Reused: at most 3 connections for the 40 requests, as the server
	 * counted them too. */
	assert_true(conns >= 1 && conns <= 3);
	assert_int_equal(cghttpd_connections(f->h), conns);
	assert_int_equal(cghttpd_requests(f->h), NREPOS);
	assert_int_equal(cghttpd_count_304(f->h), NREPOS / 2);
}

static void
test_queued_request_times_out(void **state)
{
	struct fx *f = *state;
	cg_httpc *h = batch(1, 0); /* one connection: the second waits */
	char url[2][128];
	cg_httpc_req rq;
	const cg_httpc_res *r;
	cg_err err;

	cg_err_clear(&err);
	cghttpd_set_delay_ms(f->h, 500);
	for (int k = 0; k < 2; k++) {
		req_of(f, k, url[k], sizeof(url[k]), &rq);
		rq.timeout_ms = 800;
		assert_int_equal(cg_httpc_add(h, &rq, NULL, &err), 0);
	}
	assert_int_equal(cg_httpc_run(h, NULL, NULL), 0);
	r = cg_httpc_res_of(h, 0);
	assert_int_equal(r->code, 0); /* answered after 500 ms */
	assert_int_equal(r->status, 200);
	/* Queued 500 ms, then 500 more for its answer: past its 800. */
	r = cg_httpc_res_of(h, 1);
	assert_int_equal(r->code, CG_ETIMEDOUT);
	assert_non_null(strstr(r->err.msg, "800 ms"));
	assert_non_null(strstr(r->err.msg, "/repos/o/r1/commits/main"));
	assert_true(r->ms >= 790.0 && r->ms < 2000.0);
	cg_httpc_free(h);
}

static void
test_deadline_cuts(void **state)
{
	struct fx *f = *state;
	int64_t t0 = cg_mono_ms();
	cg_httpc *h = batch(6, t0 + 300);
	char url[8][128];
	cg_httpc_req rq;
	cg_err err;
	int64_t took;

	cg_err_clear(&err);
	cghttpd_set_delay_ms(f->h, 60000); /* never answers */
	for (int k = 0; k < 8; k++) {
		req_of(f, k, url[k], sizeof(url[k]), &rq);
		assert_int_equal(cg_httpc_add(h, &rq, NULL, &err), 0);
	}
	assert_int_equal(cg_httpc_run(h, NULL, NULL), 0);
	took = cg_mono_ms() - t0;
	if (took < 290 || took > 2000)
		fail_msg("a 300 ms deadline took %lld ms", (long long)took);
	for (size_t k = 0; k < 8; k++) {
		const cg_httpc_res *r = cg_httpc_res_of(h, k);

		assert_int_equal(r->code, CG_ETIMEDOUT);
		assert_non_null(strstr(r->err.msg, "run deadline reached"));
	}
	cg_httpc_free(h);
}

/* The done callback of test_callback_adds: each answer of repo k < 5
 * adds a request for repo k + 10. */
struct chain {
	const struct fx *f;
	cg_httpc *h;
	char url[16][128];
	int n;     /* requests added by the callback */
	int calls; /* callbacks */
};

static void
on_done(void *ud, size_t id, const cg_httpc_res *res)
{
	struct chain *c = ud;
	cg_httpc_req rq;
	cg_err err;

	c->calls++;
	assert_int_equal(res->code, 0);
	if (id >= 5)
		return;
	cg_err_clear(&err);
	req_of(c->f, (int)id + 10, c->url[c->n], sizeof(c->url[c->n]), &rq);
	assert_int_equal(cg_httpc_add(c->h, &rq, NULL, &err), 0);
	c->n++;
}

static void
test_callback_adds(void **state)
{
	struct fx *f = *state;
	struct chain c;
	bool seen[5] = {false, false, false, false, false};
	char url[5][128];
	cg_httpc_req rq;
	cg_err err;

	memset(&c, 0, sizeof(c));
	c.f = f;
	c.h = batch(2, 0);
	cg_err_clear(&err);
	for (int k = 0; k < 5; k++) {
		req_of(f, k, url[k], sizeof(url[k]), &rq);
		assert_int_equal(cg_httpc_add(c.h, &rq, NULL, &err), 0);
	}
	assert_int_equal(cg_httpc_run(c.h, on_done, &c), 0);
	assert_int_equal(c.n, 5);
	assert_int_equal(c.calls, 10);
	/* Ids 5..9 were added in the order the first five answered: each
	 * is one of repos 10..14, each once. */
	for (size_t id = 5; id < 10; id++) {
		const cg_httpc_res *r = cg_httpc_res_of(c.h, id);
		int k = atoi(r->body);
		char sha[41];

		assert_int_equal(r->status, 200);
		assert_true(k >= 10 && k < 15);
		assert_false(seen[k - 10]);
		seen[k - 10] = true;
		sha_of(k, sha);
		assert_string_equal(r->body, sha);
	}
	cg_httpc_free(c.h);
}

static void
test_body_cap(void **state)
{
	struct fx *f = *state;
	cg_httpc *h = batch(2, 0);
	char url[3][128];
	cg_httpc_req rq;
	cg_err err;

	cg_err_clear(&err);
	for (int k = 0; k < 3; k++) {
		req_of(f, k, url[k], sizeof(url[k]), &rq);
		rq.body_max = (size_t)(39 + k); /* the sha is 40 bytes */
		assert_int_equal(cg_httpc_add(h, &rq, NULL, &err), 0);
	}
	assert_int_equal(cg_httpc_run(h, NULL, NULL), 0);
	assert_int_equal(cg_httpc_res_of(h, 0)->code, CG_EPROTO);
	assert_non_null(
	    strstr(cg_httpc_res_of(h, 0)->err.msg, "larger than 39 bytes"));
	assert_int_equal(cg_httpc_res_of(h, 1)->code, 0);
	assert_int_equal(cg_httpc_res_of(h, 1)->len, 40);
	assert_int_equal(cg_httpc_res_of(h, 2)->code, 0);
	cg_httpc_free(h);
}

static void
test_redirects(void **state)
{
	struct fx *f = *state;
	cg_httpc *h = batch(1, 0);
	char url[128];
	cg_httpc_req rq;
	const cg_httpc_res *r;
	cg_err err;

	cg_err_clear(&err);
	req_of(f, 0, url, sizeof(url), &rq);
	/* Not followed: the 3xx is the answer, its Location recorded. */
	cghttpd_fail_next(f->h, 301);
	assert_int_equal(cg_httpc_add(h, &rq, NULL, &err), 0);
	assert_int_equal(cg_httpc_run(h, NULL, NULL), 0);
	r = cg_httpc_res_of(h, 0);
	assert_int_equal(r->status, 301);
	assert_non_null(strstr(r->location, "/repos/moved/elsewhere"));
	assert_int_equal(cghttpd_requests(f->h), 1);
	/* Followed when asked: the answer is the target's (not found). */
	cghttpd_fail_next(f->h, 301);
	rq.max_redirects = 2;
	assert_int_equal(cg_httpc_add(h, &rq, NULL, &err), 0);
	assert_int_equal(cg_httpc_run(h, NULL, NULL), 0);
	r = cg_httpc_res_of(h, 1);
	assert_int_equal(r->code, 0);
	assert_int_equal(r->status, 404);
	assert_int_equal(cghttpd_requests(f->h), 3);
	cg_httpc_free(h);
}

static void
test_bad_requests_send_nothing(void **state)
{
	static const char *const urls[] = {
	    "ftp://127.0.0.1/x", "file:///etc/passwd", "127.0.0.1/x",
	    "http://h/a b",      "http://h/\r\nX: 1",  "",
	};
	struct fx *f = *state;
	cg_httpc *h = batch(1, 0);
	char url[128];
	cg_httpc_req rq;
	cg_err err;

	req_of(f, 0, url, sizeof(url), &rq);
	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		cg_httpc_req bad = rq;

		bad.url = urls[i];
		cg_err_clear(&err);
		assert_int_equal(cg_httpc_add(h, &bad, NULL, &err), CG_EINVAL);
		assert_non_null(strstr(err.msg, "URL"));
	}
	{
		cg_httpc_req bad = rq;

		bad.etag = "\"x\"\r\nX-Injected: 1";
		cg_err_clear(&err);
		assert_int_equal(cg_httpc_add(h, &bad, NULL, &err), CG_EINVAL);
		bad = rq;
		bad.token = "secret\r\nX-Injected: 1";
		cg_err_clear(&err);
		assert_int_equal(cg_httpc_add(h, &bad, NULL, &err), CG_EINVAL);
		assert_null(strstr(err.msg, "secret"));
		bad = rq;
		bad.body_max = 0;
		assert_int_equal(cg_httpc_add(h, &bad, NULL, &err), CG_EINVAL);
		bad = rq;
		bad.timeout_ms = 0;
		assert_int_equal(cg_httpc_add(h, &bad, NULL, &err), CG_EINVAL);
	}
	assert_null(cg_httpc_res_of(h, 0));
	assert_int_equal(cg_httpc_run(h, NULL, NULL), 0);
	assert_int_equal(cghttpd_requests(f->h), 0);
	cg_httpc_free(h);
}

int
main(void)
{
	cg_err err = {0};
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_many_own_answers),
	    T(test_queued_request_times_out),
	    T(test_deadline_cuts),
	    T(test_callback_adds),
	    T(test_body_cap),
	    T(test_redirects),
	    T(test_bad_requests_send_nothing),
#undef T
	};

	if (cg_httpc_global_init(&err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
