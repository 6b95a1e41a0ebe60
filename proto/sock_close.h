/*
 * sock_close.h - closing nng sockets within a bound.  With nng 1.5.2
 * (Debian's libnng), nng_close can wait for ever: when a TCP or IPC
 * pipe's close meets a read in progress (a reply arriving in pieces), the
 * transport re-arms its receive on an aio the close has just stopped;
 * nni_aio_begin refuses a stopped aio without running its callback, so
 * the protocol's pending receive never completes, the reaper thread waits
 * for it in pipe_destroy (the protocol's pipe_stop -> nni_aio_stop), and
 * nng_close waits for the pipe to leave the socket (seen in a REQ socket's
 * and a REP socket's close).  The send side has the same flaw: a partial
 * send's completion re-arms the rest without looking at the close, so a
 * close meeting a message leaving in pieces (a 64 MiB request the peer
 * drops mid-way, a large reply) can wait the same way.
 * Nothing from outside nng can complete that receive; what the product
 * can do is not wait for it.
 *
 * cg_sockclose_all closes sockets on a thread of its own and waits at
 * most a bound.  A close still running then is left to the process: its
 * thread, the socket, and whatever the socket's callbacks point to stay
 * allocated (the caller must not free them), and nng's reaper stays
 * stuck, so every later nng_close in the process waits its bound too.
 * Those closes are on the way to exit (a CLI run, a node or gateway
 * stopping) or a gateway reload, which goes on with the new roster.
 *
 * May be included by the layers that own nng sockets (federation's
 * transport, node's server) and above.  It must not close anything but
 * the sockets it is given, or wait longer than its bound.
 */
#ifndef CG_SOCK_CLOSE_H
#define CG_SOCK_CLOSE_H

#include <stddef.h>

#include <nng/nng.h>

/* A close of a socket takes a few milliseconds; this bounds one that
 * will not end (above). */
#define CG_SOCKCLOSE_WAIT_MS 2000

/* Closes the n sockets, in order, on a thread of its own and waits for it
 * at most wait_ms: 0 when every close returned, -1 when one still runs
 * (left to the process, above).  Without a thread, closes them here. */
int cg_sockclose_all(const nng_socket *socks, size_t n, int wait_ms);

/* How many cg_sockclose_all calls of this process left a close running:
 * for the tests and for a caller that reports it. */
int cg_sockclose_abandoned(void);

#endif
