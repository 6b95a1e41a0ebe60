/*
 * httpc.h - many conditional GETs at once: a batch of HTTP GET requests run
 * together on one libcurl multi handle.  The freshness probes of a fetch
 * run (cache/probe.h) are its first user; a source kind that fetches
 * manifests and pages (llms.txt, issue 17) is meant to be the next, on
 * the same batch and under the same caps.
 *
 * A batch owns one multi handle and its connection cache:
 * - requests added to it run concurrently; connections to one host are
 *   reused from request to request and at most max_host_connections are
 *   open to it at once (the rest wait for one); over HTTPS a host that
 *   speaks HTTP/2 carries up to max_streams requests as streams of one
 *   connection (requests wait for the first connection to say whether it
 *   multiplexes before opening another);
 * - requests may be added before cg_httpc_run and from its done callback
 *   (an answer that names more to fetch); cg_httpc_run returns when none
 *   is left, or at the batch's deadline: a request still queued or in
 *   flight then fails with CG_ETIMEDOUT "run deadline reached ...".
 *
 * Every request is bounded: only http:// and https:// URLs; a total
 * timeout counted from cg_httpc_add (time spent queued for a connection
 * included; the connect phase gets at most 5 s of it); a body cap (a
 * longer body aborts the transfer: CG_EPROTO); redirects not followed, or
 * at most max_redirects of them, and never to a scheme other than http(s).
 * libcurl does not send a custom Authorization header to another host
 * after a redirect.
 *
 * What the answer said is recorded per request (cg_httpc_res): the status
 * (any: 200, 304 and 404 are all answers the caller judges), ETag,
 * Last-Modified, Location, the rate-limit headers, the body, bytes, time
 * and whether a new connection was opened.  A transfer that did not
 * complete gets a code and one message naming the URL (without
 * credentials) and saying why.
 *
 * The bearer token goes into the Authorization header and nowhere else:
 * the batch keeps a copy only to scrub it from messages (wiped when the
 * batch is freed, as are the header lines that carried it), and every
 * text a message quotes from the server or from libcurl passes through
 * cg_httpc_quote with the token as the secret.
 *
 * Must not: judge a status, print, read the environment (libcurl reads its
 * proxy variables, as for curl(1)), keep state outside a batch (libcurl's
 * global init aside).  A batch belongs to one thread at a time; two
 * batches share nothing, so threads may each run their own.
 *
 * May be included by cache/ and every layer above it (conf, page, proto,
 * index, node, federation, gateway, cli); today cache/probe.c,
 * cache/llms_fetch.c (llms.txt manifests and pages) and the fetch
 * command's setup (cg_httpc_global_init) use it.
 */
#ifndef CG_HTTPC_H
#define CG_HTTPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cg_err.h"

typedef struct cg_httpc cg_httpc;

#define CG_HTTPC_URL_SHOWN 200 /* URL characters a message quotes */

typedef struct cg_httpc_opts {
	int max_host_connections; /* open to one host at once (6) */
	int max_streams;          /* HTTP/2 streams per connection (32) */
	int64_t deadline_ms;      /* cg_mono_ms() clock: cg_httpc_run stops
	                             here; 0: no deadline but the requests' */
} cg_httpc_opts;

/* One request.  Every string is copied by cg_httpc_add; "" counts as none
 * for etag, since and token. */
typedef struct cg_httpc_req {
	const char *url;    /* http:// or https://, already percent-encoded */
	const char *accept; /* the Accept header, or NULL */
	const char *etag;   /* If-None-Match, or NULL */
	const char *since;  /* If-Modified-Since, or NULL */
	const char *token;  /* Authorization: Bearer <token>, or NULL */
	size_t body_max;    /* body bytes kept; a longer body fails (> 0) */
	int max_redirects;  /* 0: a 3xx is the answer (Location recorded) */
	int timeout_ms;     /* total, counted from cg_httpc_add (> 0) */
} cg_httpc_req;

/* What became of one request.  Owned by the batch, valid until it is
 * freed. */
typedef struct cg_httpc_res {
	int code;       /* 0: an answer came (any status); else a cg_code */
	cg_err err;     /* the message when code != 0 */
	long status;    /* of the last answer; 0 when none came */
	char etag[256]; /* "" when absent or not printable ASCII */
	char last_modified[64];   /* "" when absent or not printable ASCII */
	char location[256];       /* quoted (printable ASCII, capped), or "" */
	long long rate_reset;     /* X-RateLimit-Reset (epoch s), -1 if none */
	long long rate_remaining; /* X-RateLimit-Remaining, -1 if none */
	long long retry_after;    /* Retry-After in seconds, -1 if none */
	char *body;               /* NUL-terminated (never NULL once added) */
	size_t len;               /* body bytes */
	size_t bytes;             /* received, headers included */
	double ms;                /* from cg_httpc_add to done */
	int connections;          /* connections this request opened (0:
	                             it reused one) */
	char shown[CG_HTTPC_URL_SHOWN + 8]; /* the URL as messages quote it */
} cg_httpc_res;

/* Called by cg_httpc_run as each request completes or fails (id as
 * cg_httpc_add gave it); may add requests to the batch. */
typedef void (*cg_httpc_done_fn)(void *ud, size_t id, const cg_httpc_res *res);

/* libcurl's global setup: call once per process before threads start
 * (cg_httpc_new calls it too, under pthread_once). */
int cg_httpc_global_init(cg_err *err);

/* Defaults: 6 connections per host, 32 streams each, no deadline. */
void cg_httpc_opts_init(cg_httpc_opts *o);

/* A new empty batch.  o may be NULL (the defaults). */
int cg_httpc_new(cg_httpc **out, const cg_httpc_opts *o, cg_err *err);

/* Removes what is still running, frees everything; NULL is accepted. */
void cg_httpc_free(cg_httpc *h);

/*
 * Queues one GET; *id names it (ids count from 0 in the order added).
 * CG_EINVAL, before anything is queued, for a URL that is not http(s)://
 * or has control characters or spaces, a header value that is not
 * printable ASCII below 256 bytes (1024 for the token, which may not hold
 * spaces), body_max 0, timeout_ms <= 0 or max_redirects < 0.
 */
int cg_httpc_add(cg_httpc *h, const cg_httpc_req *rq, size_t *id, cg_err *err);

/*
 * Runs the batch until every request is done or the deadline passes, and
 * calls done (may be NULL) once per request as it finishes.  Transfer
 * failures are the requests' own (their res.code); the return is 0, or
 * the code of a failure of the multi handle itself (every request still
 * running then fails with it).
 */
int cg_httpc_run(cg_httpc *h, cg_httpc_done_fn done, void *ud);

/* The result of request id (borrowed), or NULL for an unknown id. */
const cg_httpc_res *cg_httpc_res_of(const cg_httpc *h, size_t id);

/* Frees the body of request id once it is done (from its done callback
 * or later): res.body becomes "" and res.len 0, every other field stays.
 * A batch of many pages then holds only the bodies not yet consumed.
 * No effect on a request still running or an unknown id. */
void cg_httpc_drop_body(cg_httpc *h, size_t id);

/*
 * Copies at most max characters of src[0..n) to dst (cap >= 16 bytes) as
 * printable ASCII ('?' for anything else), "..." when cut.  Occurrences
 * of secret (when not NULL or "") become "[redacted]" before anything is
 * cut, so a cut never leaves a piece of a whole secret behind.  For every
 * server or libcurl text a message quotes.
 */
void cg_httpc_quote(char *dst, size_t cap, const char *src, size_t n,
                    size_t max, const char *secret);

/* Overwrites any occurrence of secret in a finished message with '*'. */
void cg_httpc_scrub(cg_err *err, const char *secret);

#endif
