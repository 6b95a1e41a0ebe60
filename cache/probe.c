/*
 * probe.c - the freshness probe (probe.h) over libcurl.  It checks the
 * request, builds the URL with the ref percent-encoded, runs one GET on an
 * easy handle of its own with every bound set (timeouts, a 4 KiB body, no
 * redirects, http and https only) and turns the outcome into a
 * cg_probe_res or one cg_err.
 *
 * The bearer token goes into the Authorization header and nowhere else: no
 * message is formatted from it, every text a message quotes from the
 * server (or from libcurl) is scrubbed of it, the finished message is
 * scrubbed again, and our copies of the header line are wiped before they
 * are freed.  This file must not keep state between calls (only libcurl's
 * global init), touch the cache, print, or read the environment.
 */
#include "cache/probe.h"

#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#include "common/cg_json.h"
#include "common/cg_str.h"

#define BODY_MAX       4096 /* bytes of reply body kept; more aborts */
#define NAME_MAX_LEN   100  /* an owner or a repository name */
#define REF_MAX        1024 /* a ref before encoding */
#define BASE_MAX       512  /* api_base */
#define TOKEN_MAX      1024
#define CONNECT_MAX_MS 5000
#define URL_SHOWN      200 /* URL characters quoted in a message */
#define QUOTE_MAX      120 /* server text quoted in a message */
#define LOCATION_MAX   256

/* What the reply said, filled by the libcurl callbacks. */
struct reply {
	char body[BODY_MAX + 1]; /* the body, NUL-terminated for convenience */
	size_t len;              /* body bytes kept */
	bool overflow;           /* the body passed BODY_MAX: aborted */
	char etag[256];          /* ETag, "" when absent or unusable */
	long long reset;         /* X-RateLimit-Reset (epoch s), -1 if none */
	long long remaining;     /* X-RateLimit-Remaining, -1 if none */
	long long retry_after;   /* Retry-After in seconds, -1 if none */
	char location[LOCATION_MAX]; /* Location, sanitized, "" if none */
};

/* One probe in flight: everything cleanup must release. */
struct probe {
	const cg_probe_req *rq;
	CURL *curl;
	struct curl_slist *hdrs; /* request headers (wiped before freeing) */
	char url[BASE_MAX + 2 * NAME_MAX_LEN + 3 * REF_MAX + 32];
	char shown[URL_SHOWN + 8]; /* url as quoted in messages */
	char errbuf[CURL_ERROR_SIZE];
	struct reply rp;
};

/* --- libcurl's global state ---------------------------------------------
 * The one piece of process-wide state: curl_global_init must run once per
 * process, so its once-control and result live here. */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_rc = CURLE_FAILED_INIT;

static void
init_curl(void)
{
	init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int
cg_probe_global_init(cg_err *err)
{
	if (pthread_once(&init_once, init_curl) != 0)
		return cg_err_set(err, CG_ERR, "libcurl init: pthread_once");
	if (init_rc != CURLE_OK)
		return cg_err_set(err, CG_ERR, "libcurl init: %s",
		                  curl_easy_strerror(init_rc));
	return 0;
}

/* --- text helpers ------------------------------------------------------- */

/* Overwrites n bytes in a way the compiler may not drop. */
static void
wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n-- > 0)
		*v++ = 0;
}

/* Copies at most max characters of src[0..n) to dst (cap >= 16 bytes) as
 * printable ASCII ('?' for anything else), "..." when cut.  Occurrences of
 * secret (when not NULL) become "[redacted]" before anything is cut, so a
 * cut never leaves a piece of a whole secret behind. */
static void
quote(char *dst, size_t cap, const char *src, size_t n, size_t max,
      const char *secret)
{
	static const char red[] = "[redacted]";
	size_t slen = secret ? strlen(secret) : 0;
	size_t o = 0;
	size_t i = 0;

	/* Invariant: o + 4 <= cap, so "..." and the NUL always fit. */
	while (i < n && o < max) {
		if (slen > 0 && n - i >= slen &&
		    memcmp(src + i, secret, slen) == 0) {
			if (o + sizeof(red) - 1 + 4 > cap)
				break;
			memcpy(dst + o, red, sizeof(red) - 1);
			o += sizeof(red) - 1;
			i += slen;
			continue;
		}
		if (o + 1 + 4 > cap)
			break;
		dst[o++] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
		i++;
	}
	if (i < n) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
}

/* Replaces any occurrence of secret in a finished message with '*'. */
static void
scrub(cg_err *err, const char *secret)
{
	size_t slen = secret ? strlen(secret) : 0;
	char *p;

	if (err == NULL || slen == 0)
		return;
	while ((p = strstr(err->msg, secret)) != NULL)
		memset(p, '*', slen);
}

/* A non-negative decimal of at most 18 digits, else -1. */
static long long
parse_count(const char *p, size_t n)
{
	long long v = 0;

	if (n == 0 || n > 18)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	return v;
}

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
	quote(q, sizeof(q), repo, strlen(repo), 100, NULL);
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
	quote(q, sizeof(q), base ? base : "(null)", base ? strlen(base) : 6,
	      100, NULL);
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
	quote(q, sizeof(q), ref ? ref : "", n, 100, NULL);
	return cg_err_set(err, CG_EINVAL,
	                  "probe: invalid ref \"%s\": want 1-%d bytes without "
	                  "control characters, \".\" or \"..\"",
	                  q, REF_MAX);
}

/* A header value: printable ASCII (space too when spaces), below max. */
static bool
header_value_ok(const char *v, size_t max, bool spaces)
{
	size_t n = strlen(v);

	if (n >= max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i] < (spaces ? 0x20 : 0x21) || v[i] >= 0x7f)
			return false;
	return true;
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
	if (rc != 0)
		return rc;
	if (rq->etag != NULL && !header_value_ok(rq->etag, 256, true))
		return cg_err_set(err, CG_EINVAL,
		                  "probe: the etag must be printable ASCII "
		                  "below 256 bytes");
	if (rq->token != NULL && !header_value_ok(rq->token, TOKEN_MAX, false))
		return cg_err_set(err, CG_EINVAL,
		                  "probe: the token must be printable ASCII "
		                  "without spaces, below %d bytes",
		                  TOKEN_MAX);
	if (rq->timeout_ms <= 0)
		return cg_err_set(err, CG_EINVAL,
		                  "probe: timeout_ms must be positive (got %d)",
		                  rq->timeout_ms);
	return 0;
}

/* --- libcurl callbacks -------------------------------------------------- */

static size_t
on_body(char *p, size_t size, size_t nmemb, void *ud)
{
	struct reply *rp = ud;
	size_t n = size * nmemb;

	if (n > BODY_MAX - rp->len) {
		rp->overflow = true;
		return 0; /* != n: libcurl aborts with CURLE_WRITE_ERROR */
	}
	memcpy(rp->body + rp->len, p, n);
	rp->len += n;
	rp->body[rp->len] = '\0';
	return n;
}

static void
reply_headers_reset(struct reply *rp)
{
	rp->etag[0] = '\0';
	rp->reset = -1;
	rp->remaining = -1;
	rp->retry_after = -1;
	rp->location[0] = '\0';
}

/* True when the header name p[0..n) is name, in any case. */
static bool
named(const char *p, size_t n, const char *name)
{
	return n == strlen(name) && strncasecmp(p, name, n) == 0;
}

/* One header line; a status line starts a new response (after a 1xx). */
static size_t
on_header(char *p, size_t size, size_t nmemb, void *ud)
{
	struct reply *rp = ud;
	size_t n = size * nmemb;
	const char *colon = memchr(p, ':', n);
	const char *v;
	size_t name_len;
	size_t vn;

	if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		reply_headers_reset(rp);
		return n;
	}
	if (colon == NULL)
		return n;
	name_len = (size_t)(colon - p);
	v = colon + 1;
	vn = n - name_len - 1;
	cg_trim(&v, &vn, CG_SPACES);
	if (named(p, name_len, "ETag")) {
		rp->etag[0] = '\0';
		if (vn > 0 && vn < sizeof(rp->etag)) {
			memcpy(rp->etag, v, vn);
			rp->etag[vn] = '\0';
			if (!header_value_ok(rp->etag, sizeof(rp->etag), true))
				rp->etag[0] = '\0';
		}
	} else if (named(p, name_len, "X-RateLimit-Reset")) {
		rp->reset = parse_count(v, vn);
	} else if (named(p, name_len, "X-RateLimit-Remaining")) {
		rp->remaining = parse_count(v, vn);
	} else if (named(p, name_len, "Retry-After")) {
		rp->retry_after = parse_count(v, vn);
	} else if (named(p, name_len, "Location")) {
		quote(rp->location, sizeof(rp->location), v, vn, 200, NULL);
	}
	return n;
}

/* --- building and running the request ------------------------------------ */

static int
build_url(struct probe *pr, size_t baselen, cg_err *err)
{
	char *ref = curl_easy_escape(pr->curl, pr->rq->ref, 0);
	int n;

	if (ref == NULL)
		return cg_err_set(err, CG_ENOMEM, "probe: out of memory");
	n = snprintf(pr->url, sizeof(pr->url), "%.*s/repos/%s/commits/%s",
	             (int)baselen, pr->rq->api_base, pr->rq->repo, ref);
	curl_free(ref);
	if (n < 0 || (size_t)n >= sizeof(pr->url))
		return cg_err_set(err, CG_EINVAL, "probe: URL too long");
	quote(pr->shown, sizeof(pr->shown), pr->url, (size_t)n, URL_SHOWN,
	      NULL);
	return 0;
}

/* Appends "name: value"; the temporary line is wiped (it may hold the
 * token). */
static int
add_header(struct probe *pr, const char *name, const char *value, cg_err *err)
{
	size_t cap = strlen(name) + strlen(value) + 3;
	char *line = malloc(cap);
	struct curl_slist *l = NULL;

	if (line != NULL) {
		(void)snprintf(line, cap, "%s: %s", name, value);
		l = curl_slist_append(pr->hdrs, line);
		wipe(line, cap);
		free(line);
	}
	if (l == NULL)
		return cg_err_set(err, CG_ENOMEM, "probe: out of memory");
	pr->hdrs = l;
	return 0;
}

static int
build_headers(struct probe *pr, cg_err *err)
{
	const cg_probe_req *rq = pr->rq;
	char bearer[TOKEN_MAX + 8];
	int rc;

	rc = add_header(pr, "Accept", "application/vnd.github.sha", err);
	if (rc == 0 && rq->etag != NULL && rq->etag[0] != '\0')
		rc = add_header(pr, "If-None-Match", rq->etag, err);
	if (rc == 0 && rq->token != NULL && rq->token[0] != '\0') {
		(void)snprintf(bearer, sizeof(bearer), "Bearer %s", rq->token);
		rc = add_header(pr, "Authorization", bearer, err);
		wipe(bearer, sizeof(bearer));
	}
	return rc;
}

static int
setup(struct probe *pr, cg_err *err)
{
	CURL *c = pr->curl;
	long total = pr->rq->timeout_ms;
	long conn = total < CONNECT_MAX_MS ? total : CONNECT_MAX_MS;
	bool bad = false;

	bad |= curl_easy_setopt(c, CURLOPT_URL, pr->url) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_HTTPGET, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_VERBOSE, 0L) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") !=
	       CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") !=
	       CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, conn) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, total) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_USERAGENT, "corpus-gw") != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_HTTPHEADER, pr->hdrs) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE,
	                        (curl_off_t)BODY_MAX) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_WRITEDATA, &pr->rp) != CURLE_OK;
	bad |=
	    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_HEADERDATA, &pr->rp) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_ERRORBUFFER, pr->errbuf) != CURLE_OK;
	if (bad)
		return cg_err_set(err, CG_ERR,
		                  "probe: libcurl refused an option (7.85 or "
		                  "newer is needed)");
	return 0;
}

/* --- judging the outcome ------------------------------------------------- */

/* A transfer that did not complete. */
static int
transfer_error(struct probe *pr, CURLcode cc, cg_err *err)
{
	const char *why = pr->errbuf[0] ? pr->errbuf : curl_easy_strerror(cc);
	char q[CURL_ERROR_SIZE + 16];
	int code = CG_EUNAVAIL;

	quote(q, sizeof(q), why, strlen(why), CURL_ERROR_SIZE, pr->rq->token);
	if (pr->rp.overflow || cc == CURLE_FILESIZE_EXCEEDED)
		return cg_err_set(err, CG_EPROTO,
		                  "GET %s: reply body larger than %d bytes",
		                  pr->shown, BODY_MAX);
	if (cc == CURLE_OPERATION_TIMEDOUT)
		return cg_err_set(err, CG_ETIMEDOUT,
		                  "GET %s: no answer within %d ms (%s)",
		                  pr->shown, pr->rq->timeout_ms, q);
	if (cc == CURLE_OUT_OF_MEMORY)
		code = CG_ENOMEM;
	else if (cc == CURLE_URL_MALFORMAT || cc == CURLE_UNSUPPORTED_PROTOCOL)
		code = CG_EINVAL;
	else if (cc == CURLE_WEIRD_SERVER_REPLY ||
	         cc == CURLE_BAD_CONTENT_ENCODING || cc == CURLE_HTTP2 ||
	         cc == CURLE_HTTP2_STREAM || cc == CURLE_TOO_MANY_REDIRECTS)
		code = CG_EPROTO;
	return cg_err_set(err, code, "GET %s: %s", pr->shown, q);
}

/* The "message" of a GitHub-style JSON error body, quoted and scrubbed,
 * into out; "" when there is none. */
static void
server_message(const struct probe *pr, char *out, size_t cap)
{
	json_t *v = json_loadb(pr->rp.body, pr->rp.len, 0, NULL);
	const char *m = cg_json_str(v, "message");

	out[0] = '\0';
	if (m[0] != '\0') {
		char q[QUOTE_MAX + 16];

		quote(q, sizeof(q), m, strlen(m), QUOTE_MAX, pr->rq->token);
		(void)snprintf(out, cap, " (server: \"%s\")", q);
	}
	json_decref(v);
}

/* 403 or 429 with the rate limit spent: say when it resets. */
static int
rate_limited(const struct probe *pr, long code, const char *said, cg_err *err)
{
	char when[64] = "";
	time_t reset = (time_t)pr->rp.reset;
	long long left = pr->rp.reset - (long long)time(NULL);
	struct tm tm;

	if (pr->rp.reset >= 0 && gmtime_r(&reset, &tm) != NULL &&
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
		return cg_err_set(err, CG_EDENIED,
		                  "GET %s: HTTP %ld: API rate limit exhausted; "
		                  "it resets at %s (in %lld s)%s",
		                  pr->shown, code, when, left > 0 ? left : 0,
		                  said);
	if (pr->rp.retry_after >= 0)
		return cg_err_set(err, CG_EDENIED,
		                  "GET %s: HTTP %ld: API rate limit exhausted; "
		                  "retry after %lld s%s",
		                  pr->shown, code, pr->rp.retry_after, said);
	return cg_err_set(err, CG_EDENIED,
	                  "GET %s: HTTP %ld: API rate limit exhausted%s",
	                  pr->shown, code, said);
}

/* A status other than 200 and 304. */
static int
status_error(const struct probe *pr, long code, cg_err *err)
{
	char said[QUOTE_MAX + 32];

	server_message(pr, said, sizeof(said));
	if (code == 429 || (code == 403 && pr->rp.remaining == 0))
		return rate_limited(pr, code, said, err);
	if (code == 401)
		return cg_err_set(err, CG_EDENIED,
		                  "GET %s: HTTP 401: the token is missing, "
		                  "wrong or expired%s",
		                  pr->shown, said);
	if (code == 403)
		return cg_err_set(err, CG_EDENIED,
		                  "GET %s: HTTP 403: forbidden%s", pr->shown,
		                  said);
	if (code == 404 || code == 422)
		return cg_err_set(err, CG_ENOTFOUND,
		                  "GET %s: HTTP %ld: no such repository or ref "
		                  "(or the token cannot see it)%s",
		                  pr->shown, code, said);
	if (code >= 300 && code < 400)
		return cg_err_set(err, CG_EPROTO,
		                  "GET %s: HTTP %ld: redirect to \"%s\" not "
		                  "followed (fix api_base or the repo name)%s",
		                  pr->shown, code, pr->rp.location, said);
	return cg_err_set(err, CG_EPROTO, "GET %s: unexpected HTTP %ld%s",
	                  pr->shown, code, said);
}

/* 200: the body must be 40 hex digits, whitespace around them allowed. */
static int
take_sha(const struct probe *pr, cg_probe_res *rs, cg_err *err)
{
	const char *p = pr->rp.body;
	size_t n = pr->rp.len;
	char q[QUOTE_MAX + 8];
	bool ok;

	cg_trim(&p, &n, CG_SPACES);
	ok = n == 40;
	for (size_t i = 0; ok && i < n; i++)
		ok = isxdigit((unsigned char)p[i]) != 0;
	if (!ok) {
		quote(q, sizeof(q), p, n, 60, pr->rq->token);
		return cg_err_set(err, CG_EPROTO,
		                  "GET %s: HTTP 200 but the body is not a "
		                  "40-hex sha (%zu bytes: \"%s\")",
		                  pr->shown, pr->rp.len, q);
	}
	for (size_t i = 0; i < 40; i++)
		rs->sha[i] = (char)tolower((unsigned char)p[i]);
	rs->sha[40] = '\0';
	rs->status = CG_PROBE_NEW;
	(void)snprintf(rs->etag, sizeof(rs->etag), "%s", pr->rp.etag);
	return 0;
}

static int
judge(const struct probe *pr, cg_probe_res *rs, cg_err *err)
{
	const char *sent = pr->rq->etag;

	if (rs->http_code == 200)
		return take_sha(pr, rs, err);
	if (rs->http_code != 304)
		return status_error(pr, rs->http_code, err);
	if (sent == NULL || sent[0] == '\0')
		return cg_err_set(err, CG_EPROTO,
		                  "GET %s: HTTP 304 to a request without "
		                  "If-None-Match",
		                  pr->shown);
	rs->status = CG_PROBE_SAME;
	(void)snprintf(rs->etag, sizeof(rs->etag), "%s",
	               pr->rp.etag[0] ? pr->rp.etag : sent);
	return 0;
}

/* The status, bytes and time, known even for most failures. */
static void
measure(const struct probe *pr, cg_probe_res *rs)
{
	long code = 0;
	long hdr = 0;
	curl_off_t body = 0;
	curl_off_t us = 0;

	(void)curl_easy_getinfo(pr->curl, CURLINFO_RESPONSE_CODE, &code);
	(void)curl_easy_getinfo(pr->curl, CURLINFO_HEADER_SIZE, &hdr);
	(void)curl_easy_getinfo(pr->curl, CURLINFO_SIZE_DOWNLOAD_T, &body);
	(void)curl_easy_getinfo(pr->curl, CURLINFO_TOTAL_TIME_T, &us);
	rs->http_code = code;
	rs->bytes = (size_t)(hdr > 0 ? hdr : 0) + (size_t)(body > 0 ? body : 0);
	rs->ms = (double)us / 1000.0;
}

static void
cleanup(struct probe *pr)
{
	for (struct curl_slist *l = pr->hdrs; l != NULL; l = l->next)
		wipe(l->data, strlen(l->data));
	curl_slist_free_all(pr->hdrs);
	curl_easy_cleanup(pr->curl);
}

int
cg_probe_commit(const cg_probe_req *rq, cg_probe_res *rs, cg_err *err)
{
	struct probe *pr;
	size_t baselen = 0;
	CURLcode cc;
	int rc;

	memset(rs, 0, sizeof(*rs));
	rc = check_req(rq, &baselen, err);
	if (rc == 0)
		rc = cg_probe_global_init(err);
	if (rc != 0)
		return rc;
	pr = calloc(1, sizeof(*pr));
	if (pr == NULL)
		return cg_err_set(err, CG_ENOMEM, "probe: out of memory");
	pr->rq = rq;
	reply_headers_reset(&pr->rp);
	pr->curl = curl_easy_init();
	rc = pr->curl ? 0 : cg_err_set(err, CG_ENOMEM, "probe: out of memory");
	if (rc == 0)
		rc = build_url(pr, baselen, err);
	if (rc == 0)
		rc = build_headers(pr, err);
	if (rc == 0)
		rc = setup(pr, err);
	if (rc == 0) {
		cc = curl_easy_perform(pr->curl);
		measure(pr, rs);
		rc = cc == CURLE_OK ? judge(pr, rs, err)
		                    : transfer_error(pr, cc, err);
	}
	cleanup(pr);
	free(pr);
	scrub(err, rq->token);
	return rc;
}
