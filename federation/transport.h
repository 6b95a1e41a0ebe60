/*
 * transport.h - the federation's nng transport: one REQ socket per node
 * (never a surveyor, which cannot tell a dead node from one with nothing to
 * say), every request in flight at once, one deadline for the round.
 *
 * Each node's outcome is reported in words a person can act on: "timeout
 * after N ms" (the node is connected but did not answer: stopped, busy),
 * "connection refused" (not connected: down, or not yet started), "bad
 * reply" (it answered something that is not a reply to this request),
 * "connection reset" (it died mid-request).  Sockets redial in the
 * background, so a node that comes back is used again without a restart.
 * Thread-safe: concurrent broadcasts use separate nng contexts.
 *
 * May be included by the layers that choose a transport (gateway, cli);
 * within federation/ only by transport.c: the federation core knows no
 * transport, only cg_fed_broadcast_fn (fed.h).
 */
#ifndef CG_TRANSPORT_H
#define CG_TRANSPORT_H

#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"

typedef struct cg_transport cg_transport;

/* Opens one REQ socket per url and starts dialing (non-blocking). */
int cg_transport_new(cg_transport **out, const char *const *urls, size_t n,
                     cg_err *err);
void cg_transport_free(cg_transport *t);

/* A cg_fed_broadcast_fn (fed.h); ctx is the cg_transport. */
void cg_transport_broadcast(void *ctx, json_t *const *reqs, json_t **replies,
                            cg_err *errs, size_t n, int deadline_ms);

/* The reply in buf to req: its id, and within the bounds a request puts
 * on its reply (proto/reply_bound.h), else NULL with err (CG_EPROTO "bad
 * reply" and the like).  What every transport applies to a node's bytes,
 * nng or a direct call (gateway/direct.h). */
json_t *cg_transport_read_reply(const json_t *req, const void *buf, size_t len,
                                cg_err *err);

#endif
