/*
 * direct.c - a gateway's broadcast with its in-process nodes called on
 * the calling thread (direct.h): request bytes to cg_server_call, reply
 * bytes through cg_transport_read_reply; the other nodes over one nng
 * transport round.  It must not start a thread, open a socket for a
 * direct node, or hand a node a decoded request: the bytes are the
 * contract, as over nng.
 */
#define _GNU_SOURCE
#include "gateway/direct.h"

#include <stdlib.h>
#include <string.h>

#include "federation/transport.h"

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

/* One request to a direct node: its reply, or NULL with *e set. */
static json_t *
call_one(cg_server *srv, const json_t *req, cg_err *e)
{
	char *text = json_dumps(req, JSON_COMPACT);
	char *buf = NULL;
	size_t len = 0;
	json_t *rep = NULL;

	if (text != NULL)
		buf = cg_server_call(srv, text, strlen(text), &len);
	if (buf != NULL)
		rep = cg_transport_read_reply(req, buf, len, e);
	else
		cg_err_set(e, CG_ENOMEM, "out of memory");
	free(buf);
	free(text);
	return rep;
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
	for (size_t i = 0; i < n && i < d->n; i++)
		if (d->srv[i] != NULL && reqs[i] != NULL)
			replies[i] = call_one(d->srv[i], reqs[i], &errs[i]);
}
