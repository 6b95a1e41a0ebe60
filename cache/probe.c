/*
 * probe.c - the freshness probe (probe.h): checks a request, builds its
 * URL with the ref percent-encoded and hands it to a batch of cache/httpc.h
 * with its bounds (a 4 KiB body, no redirects, the request's timeout),
 * then judges what came back (a 40-hex sha, a 304, or a status or
 * transfer failure) into a cg_probe_res or one cg_err.
 *
 * The bearer token goes to the batch (which puts it in the Authorization
 * header and nowhere else); no message is formatted from it, every text a
 * message quotes from the server passes cg_httpc_quote with the token as
 * the secret, and the finished message is scrubbed again.  This file must
 * not keep state between calls, call libcurl itself (cache/httpc.c is the
 * one module that does), touch the cache, print, or read the environment.
 */
#include "cache/probe.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "common/cg_json.h"
#include "common/cg_str.h"

#define BODY_MAX     4096 /* bytes of reply body kept; more aborts */
#define NAME_MAX_LEN 100  /* an owner or a repository name */
#define REF_MAX      1024 /* a ref before encoding */
#define BASE_MAX     512  /* api_base */
#define URL_MAX      (BASE_MAX + 2 * NAME_MAX_LEN + 3 * REF_MAX + 32)
#define QUOTE_MAX    120 /* server text quoted in a message */

/* --- checking the request ----------------------------------------------- */

/* An owner or repository name: [A-Za-z0-9._-]{1,100}, not "." or "..". */
static bool
name_ok(const char *s, size_t n)
{
	if (n == 0 || n > NAME_MAX_LEN)
		return false;
	if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

static int
check_repo(const char *repo, cg_err *err)
{
	const char *slash = repo ? strchr(repo, '/') : NULL;
	char q[QUOTE_MAX + 8];

	if (repo == NULL)
		return cg_err_set(err, CG_EINVAL, "probe: no repo given");
	if (slash != NULL && name_ok(repo, (size_t)(slash - repo)) &&
	    name_ok(slash + 1, strlen(slash + 1)))
		return 0;
	cg_httpc_quote(q, sizeof(q), repo, strlen(repo), 100, NULL);
	return cg_err_set(err, CG_EINVAL,
	                  "probe: invalid repo \"%s\": want owner/name, each "
	                  "1-100 characters of [A-Za-z0-9._-]",
	                  q);
}

/* True when s[0..n) is printable ASCII without spaces. */
static bool
graphic(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f)
			return false;
	return true;
}

/* http:// or https://, a host, no credentials ('@' anywhere is refused, so
 * the message never quotes a password), no query or fragment; *len is the
 * length without trailing slashes. */
static int
check_base(const char *base, size_t *len, cg_err *err)
{
	size_t n = base ? strlen(base) : 0;
	size_t skip = 0;
	char q[QUOTE_MAX + 8];

	if (base != NULL && strchr(base, '@') != NULL)
		return cg_err_set(err, CG_EINVAL,
		                  "probe: api_base must not carry credentials "
		                  "(pass the token instead)");
	if (n > 7 && strncasecmp(base, "http://", 7) == 0)
		skip = 7;
	else if (n > 8 && strncasecmp(base, "https://", 8) == 0)
		skip = 8;
	while (n > skip && base[n - 1] == '/')
		n--;
	*len = n;
	if (skip > 0 && n > skip && n <= BASE_MAX && base[skip] != '/' &&
	    strcspn(base, "?#") == strlen(base) && graphic(base, n))
		return 0;
	cg_httpc_quote(q, sizeof(q), base ? base : "(null)",
	               base ? strlen(base) : 6, 100, NULL);
	return cg_err_set(err, CG_EINVAL,
	                  "probe: invalid api_base \"%s\": want http:// or "
	                  "https:// and a host, no query, at most %d bytes",
	                  q, BASE_MAX);
}

/* Any bytes but control characters, 1-1024 of them, no "." alone and no
 * ".." (git allows neither, and a server could read them as a path). */
static int
check_ref(const char *ref, cg_err *err)
{
	size_t n = ref ? strlen(ref) : 0;
	bool ok = n > 0 && n <= REF_MAX && strcmp(ref, ".") != 0 &&
	          strstr(ref, "..") == NULL;
	char q[QUOTE_MAX + 8];

	for (size_t i = 0; ok && i < n; i++)
		if ((unsigned char)ref[i] < 0x20 || ref[i] == 0x7f)
			ok = false;
	if (ok)
		return 0;
	cg_httpc_quote(q, sizeof(q), ref ? ref : "", n, 100, NULL);
	return cg_err_set(err, CG_EINVAL,
	                  "probe: invalid ref \"%s\": want 1-%d bytes without "
	                  "control characters, \".\" or \"..\"",
	                  q, REF_MAX);
}

static int
check_req(const cg_probe_req *rq, size_t *baselen, cg_err *err)
{
	int rc;

	if (rq == NULL)
		return cg_err_set(err, CG_EINVAL, "probe: no request");
	rc = check_base(rq->api_base, baselen, err);
	if (rc == 0)
		rc = check_repo(rq->repo, err);
	if (rc == 0)
		rc = check_ref(rq->ref, err);
	return rc;
}

/* --- building the request ------------------------------------------------ */

/* Appends src to dst percent-encoded: every byte but the unreserved
 * characters of RFC 3986 ([A-Za-z0-9-._~]) becomes %XX, so a '/' or a
 * '?' in a ref stays part of it. */
static void
encode(char *dst, const char *src)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = strlen(dst);

	for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~') {
			dst[o++] = (char)*p;
			continue;
		}
		dst[o++] = '%';
		dst[o++] = hex[*p >> 4];
		dst[o++] = hex[*p & 15];
	}
	dst[o] = '\0';
}

/* {api_base}/repos/{repo}/commits/{ref}, checked by check_req first. */
static int
build_url(const cg_probe_req *rq, size_t baselen, char *url, size_t cap,
          cg_err *err)
{
	int n = snprintf(url, cap, "%.*s/repos/%s/commits/", (int)baselen,
	                 rq->api_base, rq->repo);

	if (n < 0 || (size_t)n + 3 * strlen(rq->ref) + 1 > cap)
		return cg_err_set(err, CG_EINVAL, "probe: URL too long");
	encode(url, rq->ref);
	return 0;
}

int
cg_probe_add(cg_httpc *h, const cg_probe_req *rq, size_t *id, cg_err *err)
{
	char url[URL_MAX];
	size_t baselen = 0;
	cg_httpc_req hr;
	int rc = check_req(rq, &baselen, err);

	if (rc == 0)
		rc = build_url(rq, baselen, url, sizeof(url), err);
	if (rc != 0)
		return rc;
	memset(&hr, 0, sizeof(hr));
	hr.url = url;
	hr.accept = "application/vnd.github.sha";
	hr.etag = rq->etag;
	hr.token = rq->token;
	hr.body_max = BODY_MAX;
	hr.max_redirects = 0;
	hr.timeout_ms = rq->timeout_ms;
	rc = cg_httpc_add(h, &hr, id, err);
	cg_httpc_scrub(err, rq->token);
	return rc;
}

/* --- judging the outcome ------------------------------------------------- */

/* The "message" of a GitHub-style JSON error body, quoted and scrubbed,
 * into out; "" when there is none. */
static void
server_message(const cg_httpc_res *r, const char *token, char *out, size_t cap)
{
	json_t *v = json_loadb(r->body, r->len, 0, NULL);
	const char *m = cg_json_str(v, "message");

	out[0] = '\0';
	if (m[0] != '\0') {
		char q[QUOTE_MAX + 16];

		cg_httpc_quote(q, sizeof(q), m, strlen(m), QUOTE_MAX, token);
		(void)snprintf(out, cap, " (server: \"%s\")", q);
	}
	json_decref(v);
}

/* 403 or 429 with the rate limit spent: say when it resets. */
static int
rate_limited(const cg_httpc_res *r, const char *said, cg_err *err)
{
	char when[64] = "";
	time_t reset = (time_t)r->rate_reset;
	long long left = r->rate_reset - (long long)time(NULL);
	struct tm tm;

	if (r->rate_reset >= 0 && gmtime_r(&reset, &tm) != NULL &&
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
		return cg_err_set(err, CG_EDENIED,
		                  "GET %s: HTTP %ld: API rate limit exhausted; "
		                  "it resets at %s (in %lld s)%s",
		                  r->shown, r->status, when,
		                  left > 0 ? left : 0, said);
	if (r->retry_after >= 0)
		return cg_err_set(err, CG_EDENIED,
		                  "GET %s: HTTP %ld: API rate limit exhausted; "
		                  "retry after %lld s%s",
		                  r->shown, r->status, r->retry_after, said);
	return cg_err_set(err, CG_EDENIED,
	                  "GET %s: HTTP %ld: API rate limit exhausted%s",
	                  r->shown, r->status, said);
}

/* A status other than 200 and 304. */
static int
status_error(const cg_httpc_res *r, const char *token, cg_err *err)
{
	long code = r->status;
	char said[QUOTE_MAX + 32];

	server_message(r, token, said, sizeof(said));
	if (code == 429 || (code == 403 && r->rate_remaining == 0))
		return rate_limited(r, said, err);
	if (code == 401)
		return cg_err_set(err, CG_EDENIED,
		                  "GET %s: HTTP 401: the token is missing, "
		                  "wrong or expired%s",
		                  r->shown, said);
	if (code == 403)
		return cg_err_set(err, CG_EDENIED,
		                  "GET %s: HTTP 403: forbidden%s", r->shown,
		                  said);
	if (code == 404 || code == 422)
		return cg_err_set(err, CG_ENOTFOUND,
		                  "GET %s: HTTP %ld: no such repository or ref "
		                  "(or the token cannot see it)%s",
		                  r->shown, code, said);
	if (code >= 300 && code < 400)
		return cg_err_set(err, CG_EPROTO,
		                  "GET %s: HTTP %ld: redirect to \"%s\" not "
		                  "followed (fix api_base or the repo name)%s",
		                  r->shown, code, r->location, said);
	return cg_err_set(err, CG_EPROTO, "GET %s: unexpected HTTP %ld%s",
	                  r->shown, code, said);
}

/* 200: the body must be 40 hex digits, whitespace around them allowed. */
static int
take_sha(const cg_httpc_res *r, const char *token, cg_probe_res *rs,
         cg_err *err)
{
	const char *p = r->body;
	size_t n = r->len;
	char q[QUOTE_MAX + 8];
	bool ok;

	cg_trim(&p, &n, CG_SPACES);
	ok = n == 40;
	for (size_t i = 0; ok && i < n; i++)
		ok = isxdigit((unsigned char)p[i]) != 0;
	if (!ok) {
		cg_httpc_quote(q, sizeof(q), p, n, 60, token);
		return cg_err_set(err, CG_EPROTO,
		                  "GET %s: HTTP 200 but the body is not a "
		                  "40-hex sha (%zu bytes: \"%s\")",
		                  r->shown, r->len, q);
	}
	for (size_t i = 0; i < 40; i++)
		rs->sha[i] = (char)tolower((unsigned char)p[i]);
	rs->sha[40] = '\0';
	rs->status = CG_PROBE_NEW;
	(void)snprintf(rs->etag, sizeof(rs->etag), "%s", r->etag);
	return 0;
}

static int
judge(const cg_httpc_res *r, const cg_probe_req *rq, cg_probe_res *rs,
      cg_err *err)
{
	const char *sent = rq->etag;

	if (r->status == 200)
		return take_sha(r, rq->token, rs, err);
	if (r->status != 304)
		return status_error(r, rq->token, err);
	if (sent == NULL || sent[0] == '\0')
		return cg_err_set(err, CG_EPROTO,
		                  "GET %s: HTTP 304 to a request without "
		                  "If-None-Match",
		                  r->shown);
	rs->status = CG_PROBE_SAME;
	(void)snprintf(rs->etag, sizeof(rs->etag), "%s",
	               r->etag[0] ? r->etag : sent);
	return 0;
}

int
cg_probe_take(const cg_httpc *h, size_t id, const cg_probe_req *rq,
              cg_probe_res *rs, cg_err *err)
{
	const cg_httpc_res *r = cg_httpc_res_of(h, id);
	int rc;

	memset(rs, 0, sizeof(*rs));
	if (r == NULL || rq == NULL)
		return cg_err_set(err, CG_EINVAL, "probe: no such probe");
	rs->http_code = r->status;
	rs->bytes = r->bytes;
	rs->ms = r->ms;
	if (r->code != 0)
		rc = cg_err_set(err, r->code, "%s", r->err.msg);
	else
		rc = judge(r, rq, rs, err);
	if (rc != 0)
		rs->status = 0;
	cg_httpc_scrub(err, rq->token);
	return rc;
}

int
cg_probe_commit(const cg_probe_req *rq, cg_probe_res *rs, cg_err *err)
{
	cg_httpc *h = NULL;
	size_t id = 0;
	int rc;

	memset(rs, 0, sizeof(*rs));
	rc = cg_httpc_new(&h, NULL, err);
	if (rc == 0)
		rc = cg_probe_add(h, rq, &id, err);
	if (rc == 0)
		rc = cg_httpc_run(h, NULL, NULL);
	if (rc == 0)
		rc = cg_probe_take(h, id, rq, rs, err);
	cg_httpc_free(h);
	cg_httpc_scrub(err, rq ? rq->token : NULL);
	return rc;
}
