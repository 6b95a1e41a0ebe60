/*
 * httpc.c - the batch of concurrent GETs of httpc.h over one libcurl multi
 * handle.  cg_httpc_add checks a request and turns it into an easy handle
 * with every bound set; cg_httpc_run drives the multi handle with
 * curl_multi_perform and curl_multi_poll, harvests finished transfers,
 * and enforces two deadlines itself: each request's own (libcurl does not
 * time out a transfer still queued for a connection) and the batch's.
 *
 * Invariants: h->v holds pointers, so a transfer's address (handed to
 * libcurl's callbacks and CURLOPT_PRIVATE) never moves when the done
 * callback adds requests; a transfer is in the multi handle exactly while
 * x->active, and h->active counts those.  The token is copied once per
 * request (to scrub messages) and wiped with the header lines when the
 * batch is freed.  This file must not judge statuses, print, or keep
 * state outside a batch but libcurl's global init.
 */
#include "cache/httpc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "common/cg_str.h"
#include "common/cg_time.h"

#define CONNECT_MAX_MS 5000
#define HEADER_MAX     256  /* an ETag, If-Modified-Since or Accept value */
#define TOKEN_MAX      1024 /* a bearer token */
#define URL_MAX        8192
#define BODY_START     4096 /* first body allocation (grows to body_max) */
#define POLL_MAX_MS    100  /* the longest one curl_multi_poll waits */

/* One request of a batch. */
struct xfer {
	cg_httpc *h;
	size_t id;
	CURL *curl;
	struct curl_slist *hdrs; /* request headers (wiped before freeing) */
	char *token;             /* a copy for scrubbing, or NULL (wiped) */
	size_t body_max;
	size_t cap;     /* bytes allocated at res.body */
	bool overflow;  /* the body passed body_max: aborted */
	int timeout_ms; /* as requested */
	double t0;      /* when added (cg_mono_ms_f) */
	int64_t until;  /* when added + timeout_ms (cg_mono_ms) */
	bool active;    /* in the multi handle */
	char errbuf[CURL_ERROR_SIZE];
	cg_httpc_res res;
};

struct cg_httpc {
	CURLM *multi;
	cg_httpc_opts o;
	struct xfer **v; /* every request, by id */
	size_t n, cap;
	size_t active; /* transfers in the multi handle */
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
cg_httpc_global_init(cg_err *err)
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

void
cg_httpc_quote(char *dst, size_t cap, const char *src, size_t n, size_t max,
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
		dst[o++] =
		    (char)(src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?');
		i++;
	}
	if (i < n) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
}

void
cg_httpc_scrub(cg_err *err, const char *secret)
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

/* A header value: printable ASCII (space too when spaces), below max. */
static bool
value_ok(const char *v, size_t max, bool spaces)
{
	size_t n = strlen(v);

	if (n >= max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i] < (spaces ? 0x20 : 0x21) || v[i] >= 0x7f)
			return false;
	return true;
}

/* True when s is set and not "". */
static bool
given(const char *s)
{
	return s != NULL && s[0] != '\0';
}

/* --- checking a request --------------------------------------------------- */

static int
check_req(const cg_httpc_req *rq, cg_err *err)
{
	const char *u = rq ? rq->url : NULL;
	char q[CG_HTTPC_URL_SHOWN + 8];

	if (rq == NULL || u == NULL)
		return cg_err_set(err, CG_EINVAL, "http: no request");
	if ((strncasecmp(u, "http://", 7) != 0 &&
	     strncasecmp(u, "https://", 8) != 0) ||
	    !value_ok(u, URL_MAX, false)) {
		cg_httpc_quote(q, sizeof(q), u, strlen(u), 100, NULL);
		return cg_err_set(err, CG_EINVAL,
		                  "http: invalid URL \"%s\": want http:// or "
		                  "https://, printable, below %d bytes",
		                  q, URL_MAX);
	}
	if ((rq->accept && !value_ok(rq->accept, HEADER_MAX, true)) ||
	    (rq->etag && !value_ok(rq->etag, HEADER_MAX, true)) ||
	    (rq->since && !value_ok(rq->since, HEADER_MAX, true)))
		return cg_err_set(
		    err, CG_EINVAL,
		    "http: a header value must be printable ASCII "
		    "below %d bytes",
		    HEADER_MAX);
	if (rq->token && !value_ok(rq->token, TOKEN_MAX, false))
		return cg_err_set(err, CG_EINVAL,
		                  "http: the token must be printable ASCII "
		                  "without spaces, below %d bytes",
		                  TOKEN_MAX);
	if (rq->body_max == 0 || rq->timeout_ms <= 0 || rq->max_redirects < 0)
		return cg_err_set(err, CG_EINVAL,
		                  "http: body_max and timeout_ms must be "
		                  "positive, max_redirects not negative");
	return 0;
}

/* --- libcurl callbacks -------------------------------------------------- */

/* Grows the body buffer to hold need bytes plus the NUL; false past the
 * cap or out of memory. */
static bool
body_room(struct xfer *x, size_t need)
{
	size_t cap = x->cap;
	char *p;

	if (need + 1 <= cap)
		return true;
	while (cap < need + 1)
		cap *= 2;
	if (cap > x->body_max + 1)
		cap = x->body_max + 1;
	p = realloc(x->res.body, cap);
	if (p == NULL)
		return false;
	x->res.body = p;
	x->cap = cap;
	return true;
}

static size_t
on_body(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb;

	if (n > x->body_max - x->res.len) {
		x->overflow = true;
		return 0; /* != n: libcurl aborts with CURLE_WRITE_ERROR */
	}
	if (!body_room(x, x->res.len + n))
		return 0;
	memcpy(x->res.body + x->res.len, p, n);
	x->res.len += n;
	x->res.body[x->res.len] = '\0';
	return n;
}

static void
headers_reset(cg_httpc_res *r)
{
	r->etag[0] = '\0';
	r->last_modified[0] = '\0';
	r->location[0] = '\0';
	r->rate_reset = -1;
	r->rate_remaining = -1;
	r->retry_after = -1;
}

/* True when the header name p[0..n) is name, in any case. */
static bool
named(const char *p, size_t n, const char *name)
{
	return n == strlen(name) && strncasecmp(p, name, n) == 0;
}

/* Copies a header value into dst when it fits and is printable ASCII. */
static void
take_value(char *dst, size_t cap, const char *v, size_t vn)
{
	dst[0] = '\0';
	if (vn == 0 || vn >= cap)
		return;
	memcpy(dst, v, vn);
	dst[vn] = '\0';
	if (!value_ok(dst, cap, true))
		dst[0] = '\0';
}

/* One header line; a status line starts a new response (a 1xx, or the
 * next hop of a redirect). */
static size_t
on_header(char *p, size_t size, size_t nmemb, void *ud)
{
	cg_httpc_res *r = &((struct xfer *)ud)->res;
	size_t n = size * nmemb;
	const char *colon = memchr(p, ':', n);
	const char *v;
	size_t name_len;
	size_t vn;

	if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		headers_reset(r);
		return n;
	}
	if (colon == NULL)
		return n;
	name_len = (size_t)(colon - p);
	v = colon + 1;
	vn = n - name_len - 1;
	cg_trim(&v, &vn, CG_SPACES);
	if (named(p, name_len, "ETag"))
		take_value(r->etag, sizeof(r->etag), v, vn);
	else if (named(p, name_len, "Last-Modified"))
		take_value(r->last_modified, sizeof(r->last_modified), v, vn);
	else if (named(p, name_len, "X-RateLimit-Reset"))
		r->rate_reset = parse_count(v, vn);
	else if (named(p, name_len, "X-RateLimit-Remaining"))
		r->rate_remaining = parse_count(v, vn);
	else if (named(p, name_len, "Retry-After"))
		r->retry_after = parse_count(v, vn);
	else if (named(p, name_len, "Location"))
		cg_httpc_quote(r->location, sizeof(r->location), v, vn, 200,
		               NULL);
	return n;
}

/* --- building a transfer -------------------------------------------------- */

/* Appends "name: value"; the temporary line is wiped (it may hold the
 * token). */
static int
add_header(struct xfer *x, const char *name, const char *value, cg_err *err)
{
	size_t cap = strlen(name) + strlen(value) + 3;
	char *line = malloc(cap);
	struct curl_slist *l = NULL;

	if (line != NULL) {
		(void)snprintf(line, cap, "%s: %s", name, value);
		l = curl_slist_append(x->hdrs, line);
		wipe(line, cap);
		free(line);
	}
	if (l == NULL)
		return cg_err_set(err, CG_ENOMEM, "http: out of memory");
	x->hdrs = l;
	return 0;
}

static int
build_headers(struct xfer *x, const cg_httpc_req *rq, cg_err *err)
{
	char bearer[TOKEN_MAX + 8];
	int rc = 0;

	if (given(rq->accept))
		rc = add_header(x, "Accept", rq->accept, err);
	if (rc == 0 && given(rq->etag))
		rc = add_header(x, "If-None-Match", rq->etag, err);
	if (rc == 0 && given(rq->since))
		rc = add_header(x, "If-Modified-Since", rq->since, err);
	if (rc == 0 && given(rq->token)) {
		(void)snprintf(bearer, sizeof(bearer), "Bearer %s", rq->token);
		rc = add_header(x, "Authorization", bearer, err);
		wipe(bearer, sizeof(bearer));
		x->token = strdup(rq->token);
		if (rc == 0 && x->token == NULL)
			rc = cg_err_set(err, CG_ENOMEM, "http: out of memory");
	}
	return rc;
}

static int
setup(struct xfer *x, const cg_httpc_req *rq, cg_err *err)
{
	CURL *c = x->curl;
	long total = rq->timeout_ms;
	long conn = total < CONNECT_MAX_MS ? total : CONNECT_MAX_MS;
	bool bad = false;

	bad |= curl_easy_setopt(c, CURLOPT_URL, rq->url) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_HTTPGET, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_VERBOSE, 0L) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION,
	                        rq->max_redirects > 0 ? 1L : 0L) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_MAXREDIRS,
	                        (long)rq->max_redirects) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") !=
	       CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") !=
	       CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_HTTP_VERSION,
	                        (long)CURL_HTTP_VERSION_2TLS) != CURLE_OK;
	/* Over TLS, wait for the host's first connection to say whether it
	 * multiplexes (HTTP/2) before opening another; plain http:// stays
	 * HTTP/1.1, where waiting gains nothing. */
	bad |= curl_easy_setopt(c, CURLOPT_PIPEWAIT,
	                        strncasecmp(rq->url, "https://", 8) == 0
	                            ? 1L
	                            : 0L) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, conn) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, total) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_USERAGENT, "corpus-gw") != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_HTTPHEADER, x->hdrs) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE,
	                        (curl_off_t)x->body_max) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_WRITEDATA, x) != CURLE_OK;
	bad |=
	    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_HEADERDATA, x) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_ERRORBUFFER, x->errbuf) != CURLE_OK;
	bad |= curl_easy_setopt(c, CURLOPT_PRIVATE, (void *)x) != CURLE_OK;
	if (bad)
		return cg_err_set(err, CG_ERR,
		                  "http: libcurl refused an option (7.85 or "
		                  "newer is needed)");
	return 0;
}

static void
xfer_free(struct xfer *x)
{
	if (x == NULL)
		return;
	if (x->active)
		(void)curl_multi_remove_handle(x->h->multi, x->curl);
	for (struct curl_slist *l = x->hdrs; l != NULL; l = l->next)
		wipe(l->data, strlen(l->data));
	curl_slist_free_all(x->hdrs);
	curl_easy_cleanup(x->curl);
	if (x->token != NULL) {
		wipe(x->token, strlen(x->token));
		free(x->token);
	}
	free(x->res.body);
	free(x);
}

/* A transfer for rq with its headers, options and an empty body. */
static int
xfer_new(struct xfer **out, cg_httpc *h, const cg_httpc_req *rq, cg_err *err)
{
	struct xfer *x = calloc(1, sizeof(*x));
	size_t n = strlen(rq->url);
	int rc;

	*out = NULL;
	if (x == NULL)
		return cg_err_set(err, CG_ENOMEM, "http: out of memory");
	x->h = h;
	x->body_max = rq->body_max;
	x->cap = rq->body_max < BODY_START ? rq->body_max + 1 : BODY_START + 1;
	x->res.body = malloc(x->cap);
	x->curl = curl_easy_init();
	headers_reset(&x->res);
	cg_httpc_quote(x->res.shown, sizeof(x->res.shown), rq->url, n,
	               CG_HTTPC_URL_SHOWN, NULL);
	rc = x->res.body && x->curl
	         ? 0
	         : cg_err_set(err, CG_ENOMEM, "http: out of memory");
	if (rc == 0) {
		x->res.body[0] = '\0';
		rc = build_headers(x, rq, err);
	}
	if (rc == 0)
		rc = setup(x, rq, err);
	if (rc != 0) {
		xfer_free(x);
		return rc;
	}
	x->timeout_ms = rq->timeout_ms;
	*out = x;
	return 0;
}

/* --- the batch ------------------------------------------------------------ */

void
cg_httpc_opts_init(cg_httpc_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->max_host_connections = 6;
	o->max_streams = 32;
}

int
cg_httpc_new(cg_httpc **out, const cg_httpc_opts *o, cg_err *err)
{
	cg_httpc *h;
	bool bad = false;
	int rc = cg_httpc_global_init(err);

	*out = NULL;
	if (rc != 0)
		return rc;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return cg_err_set(err, CG_ENOMEM, "http: out of memory");
	if (o != NULL)
		h->o = *o;
	else
		cg_httpc_opts_init(&h->o);
	h->multi = curl_multi_init();
	if (h->multi == NULL) {
		free(h);
		return cg_err_set(err, CG_ENOMEM, "http: out of memory");
	}
	bad |= curl_multi_setopt(h->multi, CURLMOPT_PIPELINING,
	                         (long)CURLPIPE_MULTIPLEX) != CURLM_OK;
	bad |= curl_multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
	                         (long)h->o.max_host_connections) != CURLM_OK;
	bad |= curl_multi_setopt(h->multi, CURLMOPT_MAX_CONCURRENT_STREAMS,
	                         (long)h->o.max_streams) != CURLM_OK;
	if (bad) {
		cg_httpc_free(h);
		return cg_err_set(err, CG_ERR,
		                  "http: libcurl refused a multi option");
	}
	*out = h;
	return 0;
}

void
cg_httpc_free(cg_httpc *h)
{
	if (h == NULL)
		return;
	for (size_t i = 0; i < h->n; i++)
		xfer_free(h->v[i]);
	free(h->v);
	curl_multi_cleanup(h->multi);
	free(h);
}

int
cg_httpc_add(cg_httpc *h, const cg_httpc_req *rq, size_t *id, cg_err *err)
{
	struct xfer *x;
	int rc = check_req(rq, err);

	if (rc != 0)
		return rc;
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 16;
		struct xfer **v = realloc(h->v, cap * sizeof(struct xfer *));

		if (v == NULL)
			return cg_err_set(err, CG_ENOMEM,
			                  "http: out of memory");
		h->v = v;
		h->cap = cap;
	}
	rc = xfer_new(&x, h, rq, err);
	if (rc != 0)
		return rc;
	if (curl_multi_add_handle(h->multi, x->curl) != CURLM_OK) {
		xfer_free(x);
		return cg_err_set(err, CG_ENOMEM,
		                  "http: libcurl refused the transfer");
	}
	x->active = true;
	x->id = h->n;
	x->t0 = cg_mono_ms_f();
	x->until = cg_mono_ms() + x->timeout_ms;
	h->v[h->n++] = x;
	h->active++;
	if (id != NULL)
		*id = x->id;
	return 0;
}

const cg_httpc_res *
cg_httpc_res_of(const cg_httpc *h, size_t id)
{
	return h != NULL && id < h->n ? &h->v[id]->res : NULL;
}

void
cg_httpc_drop_body(cg_httpc *h, size_t id)
{
	struct xfer *x = h != NULL && id < h->n ? h->v[id] : NULL;
	char *p;

	if (x == NULL || x->active)
		return;
	p = realloc(x->res.body, 1);
	if (p != NULL)
		x->res.body = p;
	x->res.body[0] = '\0';
	x->res.len = 0;
	x->cap = 1;
}

/* --- finishing a transfer --------------------------------------------------
 */

/* The status, bytes, time and connections, known even for most
 * failures. */
static void
measure(struct xfer *x)
{
	long code = 0;
	long hdr = 0;
	long conns = 0;
	curl_off_t body = 0;

	(void)curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &code);
	(void)curl_easy_getinfo(x->curl, CURLINFO_HEADER_SIZE, &hdr);
	(void)curl_easy_getinfo(x->curl, CURLINFO_SIZE_DOWNLOAD_T, &body);
	(void)curl_easy_getinfo(x->curl, CURLINFO_NUM_CONNECTS, &conns);
	x->res.status = code;
	x->res.bytes =
	    (size_t)(hdr > 0 ? hdr : 0) + (size_t)(body > 0 ? body : 0);
	x->res.connections = (int)conns;
	x->res.ms = cg_mono_ms_f() - x->t0;
	if (x->res.ms <= 0.0)
		x->res.ms = 0.001;
}

/* The message of a transfer libcurl ended with cc. */
static int
transfer_error(struct xfer *x, CURLcode cc)
{
	const char *why = x->errbuf[0] ? x->errbuf : curl_easy_strerror(cc);
	char q[CURL_ERROR_SIZE + 16];
	cg_err *err = &x->res.err;
	int code = CG_EUNAVAIL;

	cg_httpc_quote(q, sizeof(q), why, strlen(why), CURL_ERROR_SIZE,
	               x->token);
	if (x->overflow || cc == CURLE_FILESIZE_EXCEEDED)
		return cg_err_set(err, CG_EPROTO,
		                  "GET %s: reply body larger than %zu bytes",
		                  x->res.shown, x->body_max);
	if (cc == CURLE_OPERATION_TIMEDOUT)
		return cg_err_set(err, CG_ETIMEDOUT,
		                  "GET %s: no answer within %d ms (%s)",
		                  x->res.shown, x->timeout_ms, q);
	if (cc == CURLE_OUT_OF_MEMORY || cc == CURLE_WRITE_ERROR)
		code = CG_ENOMEM; /* a write error without overflow: realloc */
	else if (cc == CURLE_URL_MALFORMAT || cc == CURLE_UNSUPPORTED_PROTOCOL)
		code = CG_EINVAL;
	else if (cc == CURLE_WEIRD_SERVER_REPLY ||
	         cc == CURLE_BAD_CONTENT_ENCODING || cc == CURLE_HTTP2 ||
	         cc == CURLE_HTTP2_STREAM || cc == CURLE_TOO_MANY_REDIRECTS)
		code = CG_EPROTO;
	return cg_err_set(err, code, "GET %s: %s", x->res.shown, q);
}

/* Takes x out of the multi handle with its outcome, then tells done. */
static void
finish(struct xfer *x, cg_httpc_done_fn done, void *ud)
{
	cg_httpc *h = x->h;

	measure(x);
	(void)curl_multi_remove_handle(h->multi, x->curl);
	x->active = false;
	h->active--;
	cg_httpc_scrub(&x->res.err, x->token);
	if (done != NULL)
		done(ud, x->id, &x->res);
}

/* Ends x without an answer: code and message are given. */
static void
cut(struct xfer *x, int code, const char *why, cg_httpc_done_fn done, void *ud)
{
	x->res.code = cg_err_set(&x->res.err, code, "%s", why);
	finish(x, done, ud);
}

/* Every transfer libcurl finished since the last look; returns how
 * many. */
static size_t
harvest(cg_httpc *h, cg_httpc_done_fn done, void *ud)
{
	CURLMsg *m;
	int left = 0;
	size_t got = 0;

	while ((m = curl_multi_info_read(h->multi, &left)) != NULL) {
		struct xfer *x;
		char *priv = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		(void)curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
		                        &priv);
		x = (struct xfer *)priv;
		if (x == NULL || !x->active)
			continue;
		if (m->data.result != CURLE_OK)
			x->res.code = transfer_error(x, m->data.result);
		finish(x, done, ud);
		got++;
	}
	return got;
}

/*
 * Ends the active transfers whose own deadline passed (libcurl leaves a
 * transfer queued for a connection alone) or, past the batch's deadline,
 * all of them.  Returns the earliest deadline still ahead (INT64_MAX when
 * none).  Ids are walked in order; done may add transfers behind i.
 */
static int64_t
expire(cg_httpc *h, int64_t now, cg_httpc_done_fn done, void *ud)
{
	bool over = h->o.deadline_ms > 0 && now >= h->o.deadline_ms;
	int64_t next = h->o.deadline_ms > 0 ? h->o.deadline_ms : INT64_MAX;
	char why[CG_ERR_MSG_MAX];

	for (size_t i = 0; i < h->n; i++) {
		struct xfer *x = h->v[i];

		if (!x->active)
			continue;
		if (over) {
			(void)snprintf(why, sizeof(why),
			               "run deadline reached before GET %s "
			               "answered",
			               x->res.shown);
			cut(x, CG_ETIMEDOUT, why, done, ud);
		} else if (now >= x->until) {
			(void)snprintf(why, sizeof(why),
			               "GET %s: no answer within %d ms",
			               x->res.shown, x->timeout_ms);
			cut(x, CG_ETIMEDOUT, why, done, ud);
		} else if (x->until < next) {
			next = x->until;
		}
	}
	return next;
}

/* A failure of the multi handle: every active transfer fails with it. */
static int
fail_all(cg_httpc *h, CURLMcode mc, cg_httpc_done_fn done, void *ud)
{
	char why[CG_ERR_MSG_MAX];
	int code = mc == CURLM_OUT_OF_MEMORY ? CG_ENOMEM : CG_ERR;

	for (size_t i = 0; i < h->n; i++)
		if (h->v[i]->active) {
			(void)snprintf(why, sizeof(why), "GET %s: %s",
			               h->v[i]->res.shown,
			               curl_multi_strerror(mc));
			cut(h->v[i], code, why, done, ud);
		}
	return code;
}

int
cg_httpc_run(cg_httpc *h, cg_httpc_done_fn done, void *ud)
{
	while (h->active > 0) {
		int64_t now = cg_mono_ms();
		int64_t next = expire(h, now, done, ud);
		int running = 0;
		size_t got = 0;
		CURLMcode mc;
		int64_t wait;

		if (h->active == 0)
			break;
		mc = curl_multi_perform(h->multi, &running);
		if (mc == CURLM_OK)
			got = harvest(h, done, ud);
		if (mc != CURLM_OK)
			return fail_all(h, mc, done, ud);
		if (h->active == 0)
			break;
		/* A transfer ended: its connection may start one queued for a
		 * connection, which libcurl 7.88 does not always wake by a
		 * timer (a queued transfer then waited a whole poll: 1 run in
		 * 40 on loopback).  Perform again before waiting; and never
		 * wait longer than POLL_MAX_MS, should another wake-up be lost.
		 */
		if (got > 0)
			continue;
		wait = next - cg_mono_ms();
		if (wait < 0)
			wait = 0;
		/* libcurl shortens the wait to its own next timer. */
		mc = curl_multi_poll(
		    h->multi, NULL, 0,
		    (int)(wait < POLL_MAX_MS ? wait : POLL_MAX_MS), NULL);
		if (mc != CURLM_OK)
			return fail_all(h, mc, done, ud);
	}
	return 0;
}
