/*
 * transport.c - requests to nodes over nng (inproc, ipc, tcp).  Every
 * receive size is capped; resend is disabled so a node dying mid-request
 * fails the request at once (FACTS.md).  A node with no connection is
 * watched while the round waits: when its dialer's attempts are refused
 * (nng's dialer statistics) it is reported "connection refused" at once
 * instead of costing the whole deadline; one that accepts connections but
 * never completes the handshake (a stopped process) is waited on to the
 * deadline and reported as a timeout, like a connected node that is
 * silent.  Every reply is held to the bound of its own request
 * (proto/reply_bound.h) before and after parsing; one that arrives past
 * the round's deadline is a timeout (nng's), and so is one whose reading
 * (more than READ_SLACK_MS of it) ends past the deadline: whatever a node
 * sends, it costs the round at most its deadline and one bounded parse,
 * and closing the transport costs at most CG_SOCKCLOSE_WAIT_MS
 * (cg_transport_free).
 */
#include "federation/transport.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>

#include "common/cg_time.h"
#include "proto/reply_bound.h"
#include "proto/sock_close.h"
#include "proto/wire.h"

/* Without nng statistics: how long a request waits for a node that has
 * no connection yet before it is reported refused. */
#define CONNECT_GRACE_MS 100
/* Redial backoff ceiling: a down node's refusals show within this. */
#define REDIAL_MAX_MS 100
/* How often unconnected nodes are checked, and their dialer stats read. */
#define WATCH_POLL_MS  1
#define WATCH_STATS_MS 10
/* A reply that took longer than this to read and ended past the deadline
 * is dropped (take_reply). */
#define READ_SLACK_MS 20

struct peer {
	nng_socket sock;
	nng_dialer dialer;
	char *url;
	atomic_int pipes; /* live connections, kept by pipe_cb */
	int open;
};

struct cg_transport {
	struct peer *peers;
	size_t n;
	struct cg_transport *next_kept; /* on kept_transports */
};

/* The transports whose close was left running (cg_transport_free): the
 * pipe callbacks of their sockets point into them, so they stay here,
 * allocated and reachable, for the rest of the process. */
static _Atomic(cg_transport *) kept_transports;

static void
pipe_cb(nng_pipe p, nng_pipe_ev ev, void *arg)
{
	struct peer *peer = arg;

	(void)p;
	if (ev == NNG_PIPE_EV_ADD_POST)
		atomic_fetch_add(&peer->pipes, 1);
	else if (ev == NNG_PIPE_EV_REM_POST)
		atomic_fetch_sub(&peer->pipes, 1);
}

static int
peer_open(struct peer *p, const char *url, cg_err *err)
{
	int rv;

	p->url = strdup(url);
	if (p->url == NULL)
		return cg_err_set(err, CG_ENOMEM, "transport: out of memory");
	atomic_init(&p->pipes, 0);
	rv = nng_req0_open(&p->sock);
	if (rv != 0)
		return cg_err_set(err, CG_ERR, "node %s: %s", url,
		                  nng_strerror(rv));
	p->open = 1;
	(void)nng_pipe_notify(p->sock, NNG_PIPE_EV_ADD_POST, pipe_cb, p);
	(void)nng_pipe_notify(p->sock, NNG_PIPE_EV_REM_POST, pipe_cb, p);
	(void)nng_socket_set_ms(p->sock, NNG_OPT_REQ_RESENDTIME,
	                        NNG_DURATION_INFINITE);
	(void)nng_socket_set_ms(p->sock, NNG_OPT_RECONNMINT, 20);
	(void)nng_socket_set_ms(p->sock, NNG_OPT_RECONNMAXT, REDIAL_MAX_MS);
	rv = nng_dialer_create(&p->dialer, p->sock, url);
	if (rv == 0)
		rv = nng_dialer_set_size(p->dialer, NNG_OPT_RECVMAXSZ,
		                         CG_WIRE_MAX_REPLY);
	if (rv == 0)
		rv = nng_dialer_start(p->dialer, NNG_FLAG_NONBLOCK);
	if (rv != 0)
		return cg_err_set(err, CG_EINVAL, "node %s: %s", url,
		                  nng_strerror(rv));
	return 0;
}

int
cg_transport_new(cg_transport **out, const char *const *urls, size_t n,
                 cg_err *err)
{
	cg_transport *t = calloc(1, sizeof(*t));
	int rc = 0;

	*out = NULL;
	if (t == NULL ||
	    (t->peers = calloc(n ? n : 1, sizeof(*t->peers))) == NULL) {
		free(t);
		return cg_err_set(err, CG_ENOMEM, "transport: out of memory");
	}
	t->n = n;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = peer_open(&t->peers[i], urls[i], err);
	if (rc != 0) {
		cg_transport_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

/* The sockets close within CG_SOCKCLOSE_WAIT_MS (proto/sock_close.h: an
 * nng_close of nng 1.5.2 can wait for ever when it meets a reply being
 * read).  Invariant: t->peers, which the pipe callbacks point to, is
 * freed only once every socket is closed; after a close left running
 * they stay allocated (with t, on kept_transports) for the rest of the
 * process. */
void
cg_transport_free(cg_transport *t)
{
	nng_socket *socks;
	size_t n = 0;

	if (t == NULL)
		return;
	socks = calloc(t->n ? t->n : 1, sizeof(*socks));
	for (size_t i = 0; i < t->n; i++) {
		if (!t->peers[i].open)
			continue;
		if (socks != NULL)
			socks[n++] = t->peers[i].sock;
		else
			nng_close(t->peers[i].sock); /* no memory: unbounded */
	}
	if (cg_sockclose_all(socks, n, CG_SOCKCLOSE_WAIT_MS) != 0) {
		free(socks);
		t->next_kept = atomic_load(&kept_transports);
		while (!atomic_compare_exchange_weak(&kept_transports,
		                                     &t->next_kept, t))
			;
		return;
	}
	free(socks);
	for (size_t i = 0; i < t->n; i++)
		free(t->peers[i].url);
	free(t->peers);
	free(t);
}

/* --- one round ---------------------------------------------------------- */

struct call {
	nng_ctx ctx;
	nng_aio *aio;
	int live;          /* ctx and aio exist */
	int sent;          /* the send completed; a receive is pending */
	int watch;         /* no connection at the start: watch_connects */
	int refused;       /* cancelled by watch_connects: refused */
	uint64_t refused0; /* the dialer's refusals when the round began */
	json_int_t id;     /* request id, checked against the reply */
};

static void
outcome(cg_err *e, int rv, int waited_ms, const char *url)
{
	switch (rv) {
	case NNG_ETIMEDOUT:
		cg_err_set(e, CG_ETIMEDOUT, "timeout after %d ms", waited_ms);
		break;
	case NNG_ECONNREFUSED:
		cg_err_set(e, CG_EUNAVAIL, "connection refused");
		break;
	case NNG_ECONNRESET:
	case NNG_ECLOSED:
	case NNG_ECONNSHUT:
		cg_err_set(e, CG_EUNAVAIL, "connection reset");
		break;
	default:
		cg_err_set(e, CG_EUNAVAIL, "%s (%s)", nng_strerror(rv), url);
	}
}

static void
start_send(struct peer *p, struct call *c, const json_t *req, int remain,
           cg_err *e)
{
	char *text = json_dumps(req, JSON_COMPACT);
	nng_msg *msg = NULL;
	int rv;

	c->id = json_integer_value(json_object_get(req, "id"));
	if (text == NULL || nng_msg_alloc(&msg, 0) != 0 ||
	    nng_msg_append(msg, text, strlen(text)) != 0) {
		free(text);
		nng_msg_free(msg);
		cg_err_set(e, CG_ENOMEM, "out of memory");
		return;
	}
	free(text);
	rv = nng_ctx_open(&c->ctx, p->sock);
	if (rv == 0) {
		rv = nng_aio_alloc(&c->aio, NULL, NULL);
		if (rv != 0)
			nng_ctx_close(c->ctx);
	}
	if (rv != 0) {
		nng_msg_free(msg);
		outcome(e, rv, 0, p->url);
		return;
	}
	c->live = 1;
	c->watch = atomic_load(&p->pipes) == 0;
	nng_aio_set_timeout(c->aio, remain);
	nng_aio_set_msg(c->aio, msg);
	nng_ctx_send(c->ctx, c->aio);
}

/* The refusals counted by peer p's dialer in snapshot st, or -1 when
 * nng keeps no statistics.  The dialer is looked up by its id among the
 * snapshot's "dialer" scopes: nng 1.5.2's nng_stat_find_dialer() returns
 * the first dialer whatever the id. */
static int64_t
dialer_refused(nng_stat *st, const struct peer *p)
{
	uint64_t id = (uint64_t)nng_dialer_id(p->dialer);

	for (nng_stat *d = st ? nng_stat_child(st) : NULL; d != NULL;
	     d = nng_stat_next(d)) {
		nng_stat *di = nng_stat_find(d, "id");
		nng_stat *r = nng_stat_find(d, "refused");

		if (strcmp(nng_stat_name(d), "dialer") == 0 && di != NULL &&
		    r != NULL && nng_stat_value(di) == id)
			return (int64_t)nng_stat_value(r);
	}
	return -1;
}

/* Reads every unconnected peer's refusal count (first: the baseline) and
 * cancels the request of a peer refused since the round began (or, with
 * no statistics, one still unconnected after the grace).  Returns how
 * many calls are still watched. */
static size_t
watch_check(cg_transport *t, struct call *calls, size_t n, int64_t waited,
            bool first)
{
	nng_stat *st = NULL;
	size_t watched = 0;

	if (nng_stats_get(&st) != 0)
		st = NULL;
	for (size_t i = 0; i < n && i < t->n; i++) {
		struct call *c = &calls[i];
		int64_t r;

		if (!c->watch)
			continue;
		if (atomic_load(&t->peers[i].pipes) > 0) {
			c->watch = 0; /* connected: the send goes through */
			continue;
		}
		r = dialer_refused(st, &t->peers[i]);
		if (first && r >= 0)
			c->refused0 = (uint64_t)r;
		else if ((r >= 0 && (uint64_t)r > c->refused0) ||
		         (r < 0 && waited >= CONNECT_GRACE_MS)) {
			c->watch = 0;
			c->refused = 1;
			nng_aio_cancel(c->aio);
			continue;
		}
		watched++;
	}
	if (st != NULL)
		nng_stats_free(st);
	return watched;
}

/* Peers without a connection when the round began: polled until each is
 * connected, refused, or the deadline passes. */
static void
watch_connects(cg_transport *t, struct call *calls, size_t n, int64_t start,
               int64_t end)
{
	size_t watched = 0;
	int64_t last;

	for (size_t i = 0; i < n && i < t->n; i++)
		watched += calls[i].live && calls[i].watch;
	if (watched == 0)
		return;
	last = cg_mono_ms();
	watched = watch_check(t, calls, n, 0, true);
	while (watched > 0 && cg_mono_ms() < end) {
		struct timespec ts = {0, WATCH_POLL_MS * 1000000L};
		int64_t now;

		(void)nanosleep(&ts, NULL);
		now = cg_mono_ms();
		watched = 0;
		for (size_t i = 0; i < n && i < t->n; i++) {
			if (calls[i].watch &&
			    atomic_load(&t->peers[i].pipes) > 0)
				calls[i].watch = 0;
			watched += calls[i].watch;
		}
		if (watched > 0 && now - last >= WATCH_STATS_MS) {
			last = now;
			watched = watch_check(t, calls, n, now - start, false);
		}
	}
}

json_t *
cg_transport_read_reply(const json_t *req, const void *buf, size_t len,
                        cg_err *err)
{
	cg_reply_bound b;
	json_t *rep = NULL;

	cg_reply_bound_of(&b, req);
	if (cg_reply_bound_bytes(&b, buf, len, err) == 0)
		rep = cg_wire_decode_reply(
		    buf, len, json_integer_value(json_object_get(req, "id")),
		    err);
	if (rep != NULL && cg_reply_bound_items(&b, rep, err) != 0) {
		json_decref(rep);
		rep = NULL;
	}
	return rep;
}

/* The reply in msg to the request req, or NULL with the reason:
 * outside the bound of its request (proto/reply_bound.h: the length and
 * the tokens checked before parsing, the items after), or read past the
 * round's deadline.  nng's timeout already refused a reply that arrived
 * late; one that arrived in time is dropped only when reading it took
 * more than READ_SLACK_MS and ended past the deadline, so an honest
 * node is not punished for the scheduler's or another node's delay. */
static json_t *
take_reply(const json_t *req, nng_msg *msg, int64_t start, int64_t end,
           cg_err *e)
{
	int64_t t0 = cg_mono_ms();
	json_t *rep = cg_transport_read_reply(req, nng_msg_body(msg),
	                                      nng_msg_len(msg), e);
	int64_t t1 = cg_mono_ms();

	if (rep != NULL && t1 > end && t1 - t0 > READ_SLACK_MS) {
		cg_err_set(e, CG_ETIMEDOUT,
		           "timeout after %d ms (reading a %zu-byte reply took "
		           "it past the deadline)",
		           (int)(t1 - start), nng_msg_len(msg));
		json_decref(rep);
		rep = NULL;
	}
	return rep;
}

void
cg_transport_broadcast(void *ctx, json_t *const *reqs, json_t **replies,
                       cg_err *errs, size_t n, int deadline_ms)
{
	cg_transport *t = ctx;
	int64_t start = cg_mono_ms();
	int64_t end = start + deadline_ms;
	struct call *calls = calloc(n ? n : 1, sizeof(*calls));

	if (calls == NULL) {
		for (size_t i = 0; i < n; i++)
			cg_err_set(&errs[i], CG_ENOMEM, "out of memory");
		return;
	}
	for (size_t i = 0; i < n && i < t->n; i++) {
		replies[i] = NULL;
		if (reqs[i] != NULL)
			start_send(&t->peers[i], &calls[i], reqs[i],
			           deadline_ms, &errs[i]);
	}
	watch_connects(t, calls, n, start, end);
	/* Sends done (or failed): start every receive. */
	for (size_t i = 0; i < n && i < t->n; i++) {
		struct call *c = &calls[i];
		int rv;
		int64_t remain;

		if (!c->live)
			continue;
		nng_aio_wait(c->aio);
		rv = nng_aio_result(c->aio);
		if (rv != 0) {
			nng_msg_free(nng_aio_get_msg(c->aio));
			outcome(&errs[i], c->refused ? NNG_ECONNREFUSED : rv,
			        (int)(cg_mono_ms() - start), t->peers[i].url);
			continue;
		}
		remain = end - cg_mono_ms();
		nng_aio_set_timeout(c->aio, remain > 0 ? (int)remain : 1);
		nng_ctx_recv(c->ctx, c->aio);
		c->sent = 1;
	}
	for (size_t i = 0; i < n && i < t->n; i++) {
		struct call *c = &calls[i];
		int rv;

		if (!c->sent)
			continue;
		nng_aio_wait(c->aio);
		rv = nng_aio_result(c->aio);
		if (rv != 0) {
			outcome(&errs[i], rv, (int)(cg_mono_ms() - start),
			        t->peers[i].url);
			continue;
		}
		replies[i] = take_reply(reqs[i], nng_aio_get_msg(c->aio), start,
		                        end, &errs[i]);
		nng_msg_free(nng_aio_get_msg(c->aio));
	}
	for (size_t i = 0; i < n; i++) {
		if (!calls[i].live)
			continue;
		nng_aio_free(calls[i].aio);
		nng_ctx_close(calls[i].ctx);
	}
	free(calls);
}
