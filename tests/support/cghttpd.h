/*
 * cghttpd.h - a fake GitHub commits API on loopback, for the freshness
 * probe's tests and benchmarks, which can also serve a static site (the
 * llms.txt sources' tests and benchmark).  libmicrohttpd, one thread per
 * connection, bound to 127.0.0.1 only.  It must never be linked into the
 * product.
 *
 *   GET /repos/{owner}/{name}/commits/{ref}   (ref as decoded by the server)
 *     known      200, ETag "\"<sha>\"", body <sha> when Accept is exactly
 *                application/vnd.github.sha, else {"sha":"<sha>"}
 *                304 with the ETag and no body when If-None-Match equals it
 *     unknown    repo: 404 {"message":"Not Found",...}; known repo and
 *                unknown ref: 422 {"message":"No commit found for SHA: ..."}
 *                (as GitHub answers)
 *   GET /site/<rel>   once cghttpd_set_docroot(dir) is called: a static
 *              site (an llms.txt manifest and its pages) read from dir at
 *              each request, so a test edits it between runs:
 *     a file dir/<rel>   200 with ETag "\"<FNV-1a hex of the bytes>\"", 304
 *                when If-None-Match equals it
 *     dir/<rel>.redirect (and no dir/<rel>)   302, Location = its text
 *     endless    200, chunked, a body that never ends
 *     else       404 (also for ".." anywhere in rel)
 *   anything else: 404; a method other than GET or HEAD: 405.
 *
 * Knobs (all thread-safe; a mutex guards the state the server thread
 * reads): one-shot failures, a delay before every answer, a replacement
 * body for 200s (optionally chunked, without Content-Length), no ETag
 * headers, echoing the Authorization header in error bodies (a hostile
 * server), and a request log.  A delay longer than the client waits makes
 * a server that accepts connections and never answers.  Counters (requests,
 * connections accepted, answers by status) and the last request's headers
 * let a test check what was sent and how.
 *
 * Functions returning int return 0 or a negative cg_code.
 */
#ifndef CG_HTTPD_H
#define CG_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/cg_err.h"

typedef struct cghttpd cghttpd;

/* What cghttpd_last() can return about the last request. */
enum cghttpd_field {
	CGHTTPD_METHOD,
	CGHTTPD_PATH, /* decoded by the server: %2F is '/', %20 is ' ' */
	CGHTTPD_AUTHORIZATION,
	CGHTTPD_ACCEPT,
	CGHTTPD_IF_NONE_MATCH,
	CGHTTPD_USER_AGENT,
	CGHTTPD_NFIELDS
};

/* Starts a server on 127.0.0.1:port (0 picks a free port). */
int cghttpd_start(cghttpd **out, int port);

/* The port it listens on (kept across cghttpd_pause). */
int cghttpd_port(const cghttpd *h);

/* Stops the server (delayed answers are cut short) and frees it; NULL is
 * accepted. */
void cghttpd_stop(cghttpd *h);

/*
 * down true: closes the listening socket and every connection, so clients
 * get "connection refused" (a server that is down); state and counters are
 * kept.  down false: listens again on the same port (address reuse set).
 */
int cghttpd_pause(cghttpd *h, bool down);

/* What /repos/{repo}/commits/{ref} answers; sha NULL forgets the ref. */
int cghttpd_set(cghttpd *h, const char *repo, const char *ref, const char *sha);

/* Serves /site/ from dir (a copy; NULL stops): see above. */
int cghttpd_set_docroot(cghttpd *h, const char *dir);

/*
 * Replaces every ref with the lines of a file, "owner/name ref sha" (blank
 * lines and lines starting with '#' skipped).  On any error (the message
 * names the line) the old refs stay.  Write the file atomically (rename)
 * so a reader never sees half of it.
 */
int cghttpd_load_file(cghttpd *h, const char *path, cg_err *err);

/*
 * Answers the next request (whatever it asks) with status, then goes back
 * to normal.  403 and 429 carry the rate-limit headers of an exhausted
 * limit (X-RateLimit-Remaining: 0, X-RateLimit-Reset: now + 3600; 429 also
 * Retry-After: 60); 3xx carries a Location on this server.  0 cancels.
 */
void cghttpd_fail_next(cghttpd *h, int status);

/* Waits ms before answering every request from now on (0: no delay). */
void cghttpd_set_delay_ms(cghttpd *h, int ms);

/* Answers every known ref's 200 with this body instead of the sha (a copy;
 * NULL restores the sha); chunked sends it without Content-Length. */
int cghttpd_set_body(cghttpd *h, const void *body, size_t len, bool chunked);

/* send false: no ETag header on 200 and 304 (If-None-Match still works). */
void cghttpd_set_etags(cghttpd *h, bool send);

/* echo true: every error body's message quotes the Authorization header. */
void cghttpd_set_echo_auth(cghttpd *h, bool echo);

/* Appends "METHOD path status bytes" per request to f (borrowed; NULL
 * stops); the path is escaped (%XX) where it is not printable or is a
 * space, bytes are the body bytes of the answer. */
void cghttpd_set_log(cghttpd *h, FILE *f);

/* Requests received (counted on arrival, before any delay). */
long cghttpd_requests(const cghttpd *h);

/* Connections accepted (a client that reuses a connection for several
 * requests counts once). */
long cghttpd_connections(const cghttpd *h);

/* Answers sent with this status, and with 304. */
long cghttpd_count_status(const cghttpd *h, int status);
long cghttpd_count_304(const cghttpd *h);

/* The X-RateLimit-Reset the last 403/429 carried (epoch s), 0 if none. */
long long cghttpd_rate_reset(const cghttpd *h);

/* A malloc'd copy of a field of the last request, NULL when the request
 * had no such header (or there was no request). */
char *cghttpd_last(const cghttpd *h, enum cghttpd_field f);

#endif
