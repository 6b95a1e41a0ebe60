/*
 * probe.h - the freshness probe (SPEC 5): one conditional HTTP request
 * asking a GitHub-compatible API for the commit a ref points at.
 *
 *   GET {api_base}/repos/{owner}/{repo}/commits/{ref}
 *   Accept: application/vnd.github.sha      (bare 40-hex body)
 *   If-None-Match: {etag}                    (when known)
 *   Authorization: Bearer {token}            (when given)
 *
 * 200 with a 40-hex body is CG_PROBE_NEW (the caller compares the sha with
 * its cached one); 304 is CG_PROBE_SAME (nothing moved; no body).  The token
 * is never written to an error message, a log line or stderr (libcurl's
 * verbose mode is never enabled).  Bounded: connect timeout, total
 * timeout, a 4 KiB body cap, no redirects.
 *
 * Many probes run at once on one batch of cache/httpc.h (cg_probe_add for
 * each, one cg_httpc_run, cg_probe_take for each): they share its
 * connections (HTTP/1.1 keep-alive, or HTTP/2 streams of one connection)
 * and its deadline.  cg_probe_commit is one probe in a batch of its own.
 *
 * Must not: touch the cache, run git, read the environment (the caller
 * passes the token), call libcurl but through cache/httpc.h.
 *
 * Decisions (probe.c):
 * - A batch belongs to one thread; probes on different threads use
 *   different batches and share nothing.  libcurl's global init is
 *   cg_httpc_global_init's (pthread_once).
 * - libcurl's proxy variables (https_proxy, no_proxy...) apply as they do
 *   for curl(1); nothing else from the environment is read.
 * - An empty etag or token ("") counts as none.
 * - Anything the server says that a message quotes (the JSON "message" of
 *   an error, the start of a bad body, a Location) is reduced to printable
 *   ASCII, capped, and has the token replaced by "[redacted]"; the final
 *   message is scrubbed of the token once more.
 *
 * May be included by cache/ and every layer above it (conf, page, proto,
 * index, node, federation, gateway, cli).
 */
#ifndef CG_PROBE_H
#define CG_PROBE_H

#include <stddef.h>

#include "cache/httpc.h"
#include "common/cg_err.h"

enum cg_probe_status {
	CG_PROBE_NEW = 1,  /* 200: sha holds the ref's commit */
	CG_PROBE_SAME = 2, /* 304: the ETag still matches */
};

typedef struct cg_probe_req {
	const char *api_base; /* "https://api.github.com", no trailing '/' */
	const char *repo;     /* "owner/name" */
	const char *ref;      /* branch, tag or sha (percent-encoded here) */
	const char *etag;     /* the last ETag, or NULL */
	const char *token;    /* bearer token, or NULL */
	int timeout_ms;       /* total, > 0; connect gets min(timeout, 5 s) */
} cg_probe_req;

typedef struct cg_probe_res {
	enum cg_probe_status status;
	long http_code;
	char sha[41];   /* CG_PROBE_NEW only */
	char etag[256]; /* the response's ETag ("" when none; on 304 the
	                   request's) */
	size_t bytes;   /* bytes received, headers included */
	double ms;      /* wall time of the request */
} cg_probe_res;

/*
 * Errors (the message names the URL without credentials and says why):
 * connection refused / DNS / TLS / timeout: CG_EUNAVAIL or CG_ETIMEDOUT;
 * 401, 403, 429 (rate limit: the reset time when the headers give it):
 * CG_EDENIED; 404 or 422: CG_ENOTFOUND; another status (a 3xx is not
 * followed: the message names its Location), a 304 to a request without
 * an etag, a 200 body that is not 40 hex (whitespace around it is
 * trimmed, the sha lowercased) or a body over 4 KiB: CG_EPROTO.
 * CG_EINVAL, before any request, for: api_base not http(s)://host[...] or
 * carrying '@' or a query; repo not owner/name of [A-Za-z0-9._-]{1,100}
 * ("." and ".." refused); a ref empty, over 1024 bytes, with control
 * characters, equal to "." or containing ".."; an etag or token that is
 * not printable ASCII (no CR/LF: no header injection); timeout_ms <= 0.
 * On an error rs->status is 0 and http_code, bytes and ms are filled when
 * a reply (or an attempt) got that far.
 */
int cg_probe_commit(const cg_probe_req *rq, cg_probe_res *rs, cg_err *err);

/*
 * Checks rq (the CG_EINVAL cases above, nothing queued) and queues its
 * request in batch h; *id names it for cg_probe_take.  rq's strings are
 * copied: rq itself must stay valid until cg_probe_take.
 */
int cg_probe_add(cg_httpc *h, const cg_probe_req *rq, size_t *id, cg_err *err);

/*
 * The outcome of probe id of batch h once cg_httpc_run returned: rs and
 * the return as cg_probe_commit gives them, for the rq that was added.
 * A probe the batch's deadline cut off is CG_ETIMEDOUT, its message
 * starting "run deadline reached".
 */
int cg_probe_take(const cg_httpc *h, size_t id, const cg_probe_req *rq,
                  cg_probe_res *rs, cg_err *err);

#endif
