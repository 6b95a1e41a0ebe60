/*
 * cghostile_node.c - the hostile node fixture (cghostile_node.h): one thread
 * serving a REP socket, answering every request in turn.  Replies to the
 * attacked op are written as bytes (never built with jansson), so a
 * two-million-hit reply costs the test a few megabytes, not the gigabytes it
 * may cost the gateway.  It must not answer the attacked op honestly and must
 * not outlive cgt_hostile_stop, which waits for the serving thread and for
 * nng_close at most STOP_WAIT_S each (times the slowdown): a stall there
 * (once seen in CI after a 60 MiB reply the peer reset) is reported with
 * the step the thread was in, and the fixture is left behind rather than
 * hanging the test, whose assertions are already made.
 */
#define _GNU_SOURCE
#include "cghostile_node.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/rep.h>

#include "cgtest.h"
#include "common/cg_buf.h"
#include "common/cg_json.h"
#include "page/query.h"

/* The largest reply the fixture writes (junk included). */
#define HOSTILE_MAX_REPLY ((size_t)256 << 20)
/* How often the serving thread looks at its stop flag. */
#define HOSTILE_POLL_MS 50
/* How long cgt_hostile_stop waits for the thread, and for nng_close. */
#define STOP_WAIT_S 30

/* Where the serving thread is, for a stall report. */
enum { STEP_RECV, STEP_BUILD, STEP_SEND };
static const char *const step_names[] = {"nng_recv", "building a reply",
                                         "nng_send"};

struct cgt_hostile {
	cgt_hostile_opts o;
	nng_socket sock;
	pthread_t thread;
	atomic_int stop;
	atomic_int step; /* STEP_* */
	atomic_int attacks;
	char url[128];
};

/* Honest-looking statistics of every source asked, for a query of q's
 * term count: enough for the federation to go on to the search round. */
static void
put_stats(cg_buf *b, const json_t *args)
{
	cg_query q;
	cg_err err;
	size_t nterms = 0;
	size_t i;
	const json_t *src;

	cg_err_clear(&err);
	if (cg_query_parse(&q, cg_json_str(args, "q"), &err) == 0) {
		nterms = q.n;
		cg_query_fini(&q);
	}
	(void)cg_buf_puts(b, "\"per_source\":{");
	json_array_foreach(json_object_get(args, "sources"), i, src) {
		(void)cg_buf_printf(b,
		                    "%s\"%s\":{\"nrows\":10,\"tot\":[10,10,"
		                    "10,10,10],\"df\":[",
		                    i ? "," : "", json_string_value(src));
		for (size_t t = 0; t < nterms; t++)
			(void)cg_buf_puts(b, t ? ",1" : "1");
		(void)cg_buf_puts(b,
		                  "],\"df_phrase\":1,\"epoch\":\"hostile-1\","
		                  "\"claims\":\"\"}");
	}
	(void)cg_buf_puts(b, "}");
}

/* The attacked op's result, as bytes after `"result":`. */
static void
put_attack(const struct cgt_hostile *h, cg_buf *b, const json_t *args)
{
	const char *mode = cg_json_str(args, "mode");
	const char *key = strcmp(mode, "rank") == 0 ? "candidates" : "hits";

	if (h->o.mode == CGT_HOSTILE_HITS) {
		(void)cg_buf_printf(b, "{\"%s\":[", key);
		for (size_t i = 0; i < h->o.n; i++)
			(void)cg_buf_puts(b, i ? ",{}" : "{}");
		(void)cg_buf_puts(b, "],\"per_source\":{}}");
	} else if (h->o.mode == CGT_HOSTILE_FAT_HIT) {
		(void)cg_buf_printf(b,
		                    "{\"%s\":[{\"source\":\"x\",\"path\":"
		                    "\"x.md\",\"tags\":[",
		                    key);
		for (size_t i = 0; i < h->o.n; i++)
			(void)cg_buf_puts(b, i ? ",{}" : "{}");
		(void)cg_buf_puts(b, "]}],\"per_source\":{}}");
	} else {
		(void)cg_buf_puts(b, "{}");
	}
}

/* The reply to one request, as bytes. */
static void
reply_bytes(struct cgt_hostile *h, const json_t *req, cg_buf *b)
{
	const char *op = cg_json_str(req, "op");
	const json_t *args = json_object_get(req, "args");
	json_int_t id = json_integer_value(json_object_get(req, "id"));
	bool attacked = strcmp(op, h->o.op ? h->o.op : "search") == 0;

	if (attacked)
		atomic_fetch_add(&h->attacks, 1);
	if (attacked && h->o.mode == CGT_HOSTILE_JUNK) {
		char run[4096];

		memset(run, '1', sizeof(run));
		for (size_t i = 0; i < h->o.n; i += sizeof(run))
			(void)cg_buf_append(b, run,
			                    h->o.n - i < sizeof(run)
			                        ? h->o.n - i
			                        : sizeof(run));
		return;
	}
	if (attacked && h->o.mode == CGT_HOSTILE_SLOW) {
		struct timespec ts = {h->o.delay_ms / 1000,
		                      (long)(h->o.delay_ms % 1000) * 1000000L};

		(void)nanosleep(&ts, NULL);
	}
	if (attacked && h->o.mode == CGT_HOSTILE_WRONG_ID)
		id += 1000;
	(void)cg_buf_printf(b,
	                    "{\"v\":1,\"id\":%lld,\"node\":\"hostile\","
	                    "\"ok\":true,\"generation\":{},\"ms\":1,"
	                    "\"result\":",
	                    (long long)id);
	if (attacked)
		put_attack(h, b, args);
	else if (strcmp(op, "stats") == 0) {
		(void)cg_buf_putc(b, '{');
		put_stats(b, args);
		(void)cg_buf_putc(b, '}');
	} else
		(void)cg_buf_puts(b, "{}");
	(void)cg_buf_putc(b, '}');
}

static void *
serve(void *arg)
{
	struct cgt_hostile *h = arg;

	while (!atomic_load(&h->stop)) {
		char *in = NULL;
		size_t len = 0;
		json_t *req;
		cg_buf b;

		atomic_store(&h->step, STEP_RECV);
		if (nng_recv(h->sock, &in, &len, NNG_FLAG_ALLOC) != 0)
			continue; /* a timeout: look at the stop flag */
		atomic_store(&h->step, STEP_BUILD);
		req = json_loadb(in, len, 0, NULL);
		nng_free(in, len);
		cg_buf_init(&b, HOSTILE_MAX_REPLY);
		reply_bytes(h, req, &b);
		json_decref(req);
		atomic_store(&h->step, STEP_SEND);
		(void)nng_send(h->sock, b.data, b.len, 0);
		cg_buf_fini(&b);
	}
	return NULL;
}

cgt_hostile *
cgt_hostile_start(const cgt_hostile_opts *opts)
{
	struct cgt_hostile *h = calloc(1, sizeof(*h));
	nng_listener l;
	int port = 0;

	assert_non_null(h);
	h->o = *opts;
	atomic_init(&h->stop, 0);
	atomic_init(&h->step, STEP_RECV);
	atomic_init(&h->attacks, 0);
	assert_int_equal(nng_rep0_open(&h->sock), 0);
	assert_int_equal(
	    nng_socket_set_ms(h->sock, NNG_OPT_RECVTIMEO, HOSTILE_POLL_MS), 0);
	assert_int_equal(nng_socket_set_ms(h->sock, NNG_OPT_SENDTIMEO, 10000),
	                 0);
	assert_int_equal(
	    nng_socket_set_size(h->sock, NNG_OPT_RECVMAXSZ, 2u << 20), 0);
	assert_int_equal(nng_listen(h->sock, "tcp://127.0.0.1:0", &l, 0), 0);
	assert_int_equal(nng_listener_get_int(l, NNG_OPT_TCP_BOUND_PORT, &port),
	                 0);
	(void)snprintf(h->url, sizeof(h->url), "tcp://127.0.0.1:%d", port);
	assert_int_equal(pthread_create(&h->thread, NULL, serve, h), 0);
	return h;
}

const char *
cgt_hostile_url(const cgt_hostile *h)
{
	return h->url;
}

int
cgt_hostile_attacks(const cgt_hostile *h)
{
	return atomic_load(&h->attacks);
}

/* Closes the socket on a thread of its own, so the caller can bound the
 * wait. */
static void *
closer(void *arg)
{
	struct cgt_hostile *h = arg;

	(void)nng_close(h->sock);
	return NULL;
}

/* Joins t within STOP_WAIT_S (times the slowdown): 0, or -1 when it is
 * still running then. */
static int
join_bounded(pthread_t t)
{
	struct timespec until;

	(void)clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(STOP_WAIT_S * cgt_slowdown());
	return pthread_timedjoin_np(t, NULL, &until) == 0 ? 0 : -1;
}

void
cgt_hostile_stop(cgt_hostile *h)
{
	pthread_t t;

	if (h == NULL)
		return;
	atomic_store(&h->stop, 1);
	if (join_bounded(h->thread) != 0) {
		(void)fprintf(stderr,
		              "cghostile_node: the serving thread is still in "
		              "%s after %d s; left behind\n",
		              step_names[atomic_load(&h->step)], STOP_WAIT_S);
		return; /* h stays the thread's */
	}
	if (pthread_create(&t, NULL, closer, h) != 0) {
		closer(h);
	} else if (join_bounded(t) != 0) {
		(void)fprintf(stderr,
		              "cghostile_node: nng_close still runs "
		              "after %d s; left behind\n",
		              STOP_WAIT_S);
		return; /* h stays the closer's */
	}
	free(h);
}

void
cgt_honest_start(cgt_honest *h, const char *tmp, int npages, const char *fm)
{
	memset(h, 0, sizeof(*h));
	h->ws = cgt_path(tmp, "acme");
	h->cache = cgt_path(tmp, "cache");
	h->log = cgt_path(tmp, "node.log");
	for (int i = 0; i < npages; i++) {
		char rel[64];

		(void)snprintf(rel, sizeof(rel),
		               ".guild/wiki/concepts/q%02d.md", i);
		cgt_page(h->ws, rel, fm,
		         "# Quokka Notes\n\nThe quokka smiles at every "
		         "visitor.\n");
	}
	h->node = cgt_node_start(h->ws, h->cache, h->log, &h->url, "--source",
	                         "root", "--name", "acme/root", "--listen",
	                         "tcp://127.0.0.1:0", NULL);
}

void
cgt_honest_stop(cgt_honest *h)
{
	if (h->node != NULL)
		cgt_node_stop(h->node, 10000 * cgt_slowdown());
	cgt_proc_free(h->node);
	h->node = NULL;
	free(h->ws);
	free(h->cache);
	free(h->log);
	free(h->url);
	memset(h, 0, sizeof(*h));
}

void
cgt_hostile_config(const char *tmp, const cgt_honest *real,
                   const char *evil_url, const char *name, int deadline_ms)
{
	cg_buf b;

	cg_buf_init(&b, 1 << 16);
	if (deadline_ms > 0)
		(void)cg_buf_printf(&b, "deadline_ms: %d\n", deadline_ms);
	(void)cg_buf_printf(&b,
	                    "nodes:\n"
	                    "  - name: acme/root\n    url: \"%s\"\n"
	                    "    workspace: acme\n    sources: [root]\n"
	                    "  - name: acme/%s\n    url: \"%s\"\n"
	                    "    workspace: acme\n    sources: [%s]\n",
	                    real->url, name, evil_url, name);
	cgt_write(tmp, "gateway.yaml", cg_buf_str(&b));
	cg_buf_fini(&b);
}
