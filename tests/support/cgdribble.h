/*
 * cgdribble.h - a hostile node that answers slowly, for the close tests
 * (issue: a hang in nng_close): a raw TCP server on 127.0.0.1 speaking
 * nng's SP-over-TCP framing by hand (the 8-byte handshake as a REP peer,
 * 8-byte big-endian length prefixes), which answers each request with a
 * reply of a 1 MiB length whose body it trickles in 64-byte writes every
 * few microseconds, without end until the client goes.  While a reply
 * trickles in, the client's nng pipe is always in the middle of a read,
 * which is the state its close must survive.  cgd_client_start is the
 * same trickle as a client, against a node's REP socket; cgd_send_huge
 * one request over a node's receive limit.
 *
 * One thread accepts and serves every connection in turn; cgd_stop ends
 * it (every wait is bounded: a poll of at most 50 ms).  It never answers
 * honestly and never sends a complete reply.  Never linked into the
 * product.
 */
#ifndef CG_DRIBBLE_H
#define CG_DRIBBLE_H

#include <stdint.h>

typedef struct cgd_dribble cgd_dribble;

/* Listens on 127.0.0.1 (a port of the kernel's choice) and serves;
 * NULL when the socket or the thread cannot be made. */
cgd_dribble *cgd_start(void);
/* Its URL, "tcp://127.0.0.1:PORT". */
const char *cgd_url(const cgd_dribble *d);
/* How many requests it has begun answering. */
int cgd_requests(const cgd_dribble *d);
/* The other way round, for a node's side: a client that dials the node
 * at url ("tcp://127.0.0.1:PORT") as a REQ peer and trickles a request of
 * a 1 MiB length (under the node's receive cap) that it never finishes;
 * it dials again whenever the node drops it.  NULL when the thread cannot
 * be made.  cgd_requests counts the requests it began; cgd_stop ends it. */
cgd_dribble *cgd_client_start(const char *url);

/* Once, on the calling thread, no nng involved: dials the node at url
 * ("tcp://127.0.0.1:PORT") as a REQ peer and sends a request whose length
 * prefix says len bytes, then its body in 64 KiB writes, until the node
 * drops the connection or the whole body is out.  0 when the node dropped
 * it, 1 when the whole body went, -1 when the dial or handshake failed or
 * wait_ms passed.  (An nng client's close can hang after its send is cut
 * in pieces: proto/sock_close.h.) */
int cgd_send_huge(const char *url, uint64_t len, int wait_ms);

/* Stops the thread, closes the sockets and frees d. */
void cgd_stop(cgd_dribble *d);

#endif
