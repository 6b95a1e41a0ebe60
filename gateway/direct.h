/*
 * direct.h - the broadcast of a gateway whose in-process nodes answer on
 * the calling thread (gateway.h, cg_gateway_opts.direct: a one-shot CLI
 * command): no nng socket, no thread per node (a round of several nodes
 * is shared with one helper thread per other CPU it may use, joined before
 * the round returns).  Each request still travels
 * as the bytes nng would carry: encoded, decoded by the node with the wire
 * limits (node/server.h, cg_server_call), and its reply read back through
 * the checks every transport applies (federation/transport.h,
 * cg_transport_read_reply), so an answer cannot differ from the socket
 * path's.  The roster's other nodes (children, remote nodes) share one nng
 * transport round, made first, under the round's deadline.
 *
 * May be included by gateway/ only (gateway.c).
 */
#ifndef CG_DIRECT_H
#define CG_DIRECT_H

#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "node/server.h"

typedef struct cg_direct cg_direct;

/* For the n nodes of a roster: srv[i] is node i's direct server, or NULL
 * when node i is reached over nng at urls[i].  srv is borrowed: the
 * servers must outlive the cg_direct.  No nng socket is opened when every
 * node is direct. */
int cg_direct_new(cg_direct **out, cg_server *const *srv,
                  const char *const *urls, size_t n, cg_err *err);
void cg_direct_free(cg_direct *d);

/* A cg_fed_broadcast_fn (federation/fed.h); ctx is the cg_direct.  The
 * deadline bounds the nng round; a direct node answers in its own time
 * (its requests carry the deadline, which long operations heed). */
void cg_direct_broadcast(void *ctx, json_t *const *reqs, json_t **replies,
                         cg_err *errs, size_t n, int deadline_ms);

#endif
