/*
 * direct.c - a gateway's broadcast with its in-process nodes called
 * directly (direct.h): request bytes to cg_server_call, reply bytes
 * through cg_transport_read_reply; the other nodes over one nng transport
 * round.  A round's direct calls are shared by the calling thread and one
 * helper per other usable CPU, started and joined within the round.  It
 * must not start a thread per node or keep one between rounds, call one
 * node from two threads, open a socket for a direct node, or hand a node a
 * decoded request: the bytes are the contract, as over nng.
 */
#define _GNU_SOURCE
#include "gateway/direct.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "federation/transport.h"

/* The most helper threads a round starts (one per other usable CPU). */
#define DIRECT_HELPERS 7

struct cg_direct {
	cg_server **srv;   /* per roster node: its server, NULL over nng */
	size_t n;          /* roster nodes */
	size_t *slot;      /* per roster node over nng: its transport peer */
	cg_transport *net; /* the nodes over nng, or NULL when none */
	size_t nnet;
};

int
cg_direct_new(cg_direct **out, cg_server *const *srv, const char *const *urls,
              size_t n, cg_err *err)
{
	cg_direct *d = calloc(1, sizeof(*d));
	const char **nurls = calloc(n ? n : 1, sizeof(*nurls));
	int rc = 0;

	*out = NULL;
	if (d != NULL) {
		d->srv = calloc(n ? n : 1, sizeof(cg_server *));
		d->slot = calloc(n ? n : 1, sizeof(*d->slot));
	}
	if (d == NULL || nurls == NULL || d->srv == NULL || d->slot == NULL) {
		free(nurls);
		cg_direct_free(d);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	d->n = n;
	for (size_t i = 0; i < n; i++) {
		d->srv[i] = srv[i];
		if (srv[i] == NULL) {
			d->slot[i] = d->nnet;
			nurls[d->nnet++] = urls[i];
		}
	}
	if (d->nnet > 0)
		rc = cg_transport_new(&d->net, nurls, d->nnet, err);
	free(nurls);
	if (rc != 0) {
		cg_direct_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void
cg_direct_free(cg_direct *d)
{
	if (d == NULL)
		return;
	cg_transport_free(d->net);
	free(d->srv);
	free(d->slot);
	free(d);
}

/* One direct call of a round: the request's bytes in, the reply's out. */
struct call {
	cg_server *srv; /* NULL: not a direct call of this round */
	char *text;     /* the request's bytes (json_dumps), owned */
	char *reply;    /* the reply's bytes, owned; NULL: out of memory */
	size_t len;
};

/* A round's direct calls, shared by the threads that make them: each
 * takes the next call by the counter, so a node is called by one thread,
 * and only cg_server_call runs off the calling thread (the JSON is
 * encoded before and decoded after). */
struct round {
	struct call *calls;
	size_t n;
	atomic_size_t next;
};

static void *
work(void *arg)
{
	struct round *r = arg;

	for (size_t i = atomic_fetch_add(&r->next, 1); i < r->n;
	     i = atomic_fetch_add(&r->next, 1))
		if (r->calls[i].srv != NULL && r->calls[i].text != NULL)
			r->calls[i].reply = cg_server_call(
			    r->calls[i].srv, r->calls[i].text,
			    strlen(r->calls[i].text), &r->calls[i].len);
	return NULL;
}

/* The CPUs this process may run on (its affinity: taskset, a cpuset), at
 * least 1. */
static size_t
usable_cpus(void)
{
	cpu_set_t set;
	int n;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (size_t)n : 1;
}

/* Makes the round's calls on the calling thread and, when more than one
 * node is asked, on up to one helper per other usable CPU (DIRECT_HELPERS
 * at most), started for the round and joined before it ends: the nodes
 * of a 2-core machine sync (stat 9k pages) two at a time, with no thread
 * per node and none between rounds. */
static void
run_round(struct round *r, size_t asked)
{
	pthread_t th[DIRECT_HELPERS];
	size_t cpus = usable_cpus();
	size_t want = (asked < cpus ? asked : cpus) - 1;
	size_t started = 0;

	if (asked == 0)
		return;
	for (; started < want && started < DIRECT_HELPERS; started++)
		if (pthread_create(&th[started], NULL, work, r) != 0)
			break; /* fewer helpers: the calling thread does it */
	(void)work(r);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

/* The direct nodes' round: requests encoded, called (run_round), replies
 * read back through the transport's checks. */
static void
direct_round(cg_direct *d, json_t *const *reqs, json_t **replies, cg_err *errs,
             size_t n)
{
	struct round r = {calloc(n ? n : 1, sizeof(struct call)), n, 0};
	size_t asked = 0;

	if (r.calls == NULL) {
		for (size_t i = 0; i < n && i < d->n; i++)
			if (d->srv[i] != NULL && reqs[i] != NULL)
				cg_err_set(&errs[i], CG_ENOMEM,
				           "out of memory");
		return;
	}
	for (size_t i = 0; i < n && i < d->n; i++) {
		if (d->srv[i] == NULL || reqs[i] == NULL)
			continue;
		r.calls[i].srv = d->srv[i];
		r.calls[i].text = json_dumps(reqs[i], JSON_COMPACT);
		asked++;
	}
	run_round(&r, asked);
	for (size_t i = 0; i < n; i++) {
		struct call *c = &r.calls[i];

		if (c->srv == NULL)
			continue;
		if (c->reply != NULL)
			replies[i] = cg_transport_read_reply(reqs[i], c->reply,
			                                     c->len, &errs[i]);
		else
			cg_err_set(&errs[i], CG_ENOMEM, "out of memory");
		free(c->reply);
		free(c->text);
	}
	free(r.calls);
}

/* The nodes over nng: one transport round over their requests. */
static void
net_round(cg_direct *d, json_t *const *reqs, json_t **replies, cg_err *errs,
          size_t n, int deadline_ms)
{
	json_t **sreq = calloc(d->nnet, sizeof(json_t *));
	json_t **srep = calloc(d->nnet, sizeof(json_t *));
	cg_err *serr = calloc(d->nnet, sizeof(*serr));

	for (size_t i = 0; i < n && i < d->n; i++)
		if (d->srv[i] == NULL && sreq != NULL)
			sreq[d->slot[i]] = reqs[i];
	if (sreq != NULL && srep != NULL && serr != NULL)
		cg_transport_broadcast(d->net, sreq, srep, serr, d->nnet,
		                       deadline_ms);
	for (size_t i = 0; i < n && i < d->n; i++) {
		if (d->srv[i] != NULL || reqs[i] == NULL)
			continue;
		if (srep == NULL || serr == NULL || sreq == NULL) {
			cg_err_set(&errs[i], CG_ENOMEM, "out of memory");
			continue;
		}
		replies[i] = srep[d->slot[i]];
		errs[i] = serr[d->slot[i]];
	}
	free(sreq);
	free(srep);
	free(serr);
}

void
cg_direct_broadcast(void *ctx, json_t *const *reqs, json_t **replies,
                    cg_err *errs, size_t n, int deadline_ms)
{
	cg_direct *d = ctx;

	for (size_t i = 0; i < n; i++)
		replies[i] = NULL;
	if (d->nnet > 0)
		net_round(d, reqs, replies, errs, n, deadline_ms);
	direct_round(d, reqs, replies, errs, n);
}
