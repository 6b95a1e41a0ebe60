/*
 * conn_limits.h - who may hold a connection to the gateway's HTTP
 * endpoint, and for how long: the connection limits (in total and per
 * client address) and the two deadlines (headers, whole request) that
 * keep one client from taking the endpoint offline.  libmicrohttpd
 * enforces the counts; a watchdog thread here enforces the deadlines,
 * which libmicrohttpd's idle timeout alone cannot (it restarts on every
 * byte a slowloris trickles).
 *
 * The limits (values in http.h, passed in by http.c):
 * - CG_HTTP_CONN_LIMIT connections in all, CG_HTTP_CONN_PER_ADDR from any
 *   one address, counted by libmicrohttpd as it accepts, before any byte
 *   is read: a connection over either is closed at once, so a flood from
 *   one address never fills the endpoint, and the accept queue drains.
 * - A new connection must deliver its first request's headers within
 *   CG_HTTP_HEADER_TIMEOUT_S (or the request deadline when shorter), and
 *   the whole request within the request deadline; after an answer, a
 *   kept-alive connection has the request deadline for its next request
 *   (so a client's keep-alive pool never races a shorter cut).
 * - libmicrohttpd's idle timeout is the request deadline too.
 *
 * It must not read or answer requests: http.c does, and tells it when a
 * request's headers are in and when an answer starts and ends.
 *
 * May be included by gateway/ only.
 */
#ifndef CG_CONN_LIMITS_H
#define CG_CONN_LIMITS_H

#include <stddef.h>

#include <microhttpd.h>

typedef struct cg_conn_limits cg_conn_limits;

/* How many MHD_OptionItem cg_conn_limits_options writes, END included. */
#define CG_CONN_LIMITS_NOPTS 6

/* The limits to apply. */
typedef struct cg_conn_limits_cfg {
	unsigned total;       /* connections in all */
	unsigned per_addr;    /* connections from one client address */
	int header_timeout_s; /* a new connection's first headers; clipped
	                         to timeout_s */
	int timeout_s;        /* a whole request; the idle timeout too */
	size_t memory;        /* per connection, for its headers */
} cg_conn_limits_cfg;

/* Starts the deadline watchdog for the limits in cfg (copied); 0, or -1
 * when out of memory or threads. */
int cg_conn_limits_new(cg_conn_limits **out, const cg_conn_limits_cfg *cfg);

/* Stops the watchdog (before the daemon stops). */
void cg_conn_limits_stop(cg_conn_limits *l);

/* Frees, after the daemon has stopped (it notifies every close); NULL is
 * accepted. */
void cg_conn_limits_free(cg_conn_limits *l);

/* The daemon options that apply the limits and track connections for the
 * watchdog, ending with MHD_OPTION_END: pass items to MHD_start_daemon
 * as MHD_OPTION_ARRAY.  items has room for CG_CONN_LIMITS_NOPTS. */
void cg_conn_limits_options(cg_conn_limits *l, struct MHD_OptionItem *items);

/* The request's headers are in (the access handler's first call): the
 * header deadline no longer applies to it. */
void cg_conn_limits_headers_in(cg_conn_limits *l, struct MHD_Connection *c);

/* busy 1: a complete request (or a refusal) is being answered, so no
 * deadline runs; busy 0: the answer is done, and the next request is
 * awaited from now on. */
void cg_conn_limits_busy(cg_conn_limits *l, struct MHD_Connection *c, int busy);

#endif
