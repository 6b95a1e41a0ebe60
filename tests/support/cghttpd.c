/*
 * cghttpd.c - the fake GitHub commits API of cghttpd.h, for tests and
 * benchmarks.  libmicrohttpd runs one thread per connection (so a delayed
 * answer holds up only its own client); every piece of state those
 * threads read or write sits behind one mutex, and an answer is decided
 * from a snapshot taken under it.  A delay waits on a condition variable
 * that stopping the server broadcasts, so a stop never waits out a delay.
 * This file must not bind anything but 127.0.0.1 and must never be linked
 * into the product.
 */
#include "cghttpd.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <microhttpd.h>

#include "common/cg_fs.h"

#define SHAS_FILE_MAX  (1024 * 1024)
#define RATE_RESET_IN  3600 /* seconds from now in a 403/429 */
#define SHA_ACCEPT     "application/vnd.github.sha"
#define DOCS_URL       "https://docs.github.com/rest"
#define CONN_TIMEOUT_S 30

/* One ref the server knows. */
struct entry {
	char *repo; /* "owner/name" */
	char *ref;
	char *sha;
};

struct table {
	struct entry *v;
	size_t n;
	size_t cap;
};

struct cghttpd {
	struct MHD_Daemon *d; /* NULL while paused */
	int port;
	pthread_mutex_t mu; /* guards everything below */
	pthread_cond_t cv;  /* broadcast when stopping: cuts delays short */
	bool stopping;
	struct table refs;
	int fail_status; /* answer the next request with this; 0: none */
	int delay_ms;    /* before every answer */
	char *body;      /* replacement 200 body, or NULL */
	size_t body_len;
	bool chunked;                /* send body without Content-Length */
	bool etags;                  /* send ETag headers */
	bool echo_auth;              /* quote Authorization in error bodies */
	FILE *log;                   /* borrowed, or NULL */
	long requests;               /* received */
	long connections;            /* accepted */
	long by_status[600];         /* answers sent, by status */
	long long rate_reset;        /* last X-RateLimit-Reset sent */
	char *last[CGHTTPD_NFIELDS]; /* the last request's fields */
	char *docroot;               /* /site/ is served from here, or NULL */
};

/* The knobs as they were when a request arrived. */
struct snap {
	int fail_status;
	int delay_ms;
	bool etags;
	bool echo_auth;
	bool chunked;
	char *body; /* a copy, or NULL */
	size_t body_len;
	char *docroot; /* a copy, or NULL */
};

/* An answer, decided before it is sent. */
struct answer {
	int status;
	char *body; /* malloc'd (may be NULL when len is 0) */
	size_t len;
	const char *type;
	char *etag;         /* malloc'd ETag header value, or NULL */
	long long reset;    /* rate-limit headers when > 0 */
	bool retry;         /* Retry-After too */
	char location[512]; /* Location header when not "" */
	bool chunked;
	bool endless; /* a body that never ends (the site's /endless) */
};

/* A body sent in chunks of unknown total length. */
struct chunks {
	char *data;
	size_t len;
};

/* --- small helpers ------------------------------------------------------- */

static char *
dup_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* A malloc'd formatted string, NULL when out of memory. */
static char *fmt_new(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static char *
fmt_new(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (s == NULL)
		return NULL;
	va_start(ap, fmt);
	(void)vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static void
lock(const cghttpd *h)
{
	pthread_mutex_lock((pthread_mutex_t *)&h->mu);
}

static void
unlock(const cghttpd *h)
{
	pthread_mutex_unlock((pthread_mutex_t *)&h->mu);
}

static void
table_fini(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].repo);
		free(t->v[i].ref);
		free(t->v[i].sha);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static struct entry *
table_find(const struct table *t, const char *repo, const char *ref)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->v[i].repo, repo) == 0 &&
		    (ref == NULL || strcmp(t->v[i].ref, ref) == 0))
			return &t->v[i];
	return NULL;
}

/* Sets (or, sha NULL, removes) repo's ref. */
static int
table_put(struct table *t, const char *repo, const char *ref, const char *sha)
{
	struct entry *e = table_find(t, repo, ref);
	struct entry *v;
	char *copy;

	if (e != NULL && sha == NULL) {
		free(e->repo);
		free(e->ref);
		free(e->sha);
		*e = t->v[--t->n];
		return 0;
	}
	if (sha == NULL)
		return 0;
	copy = strdup(sha);
	if (copy == NULL)
		return CG_ENOMEM;
	if (e != NULL) {
		free(e->sha);
		e->sha = copy;
		return 0;
	}
	if (t->n == t->cap) {
		v = realloc(t->v, (t->cap ? t->cap * 2 : 8) * sizeof(*v));
		if (v == NULL) {
			free(copy);
			return CG_ENOMEM;
		}
		t->v = v;
		t->cap = t->cap ? t->cap * 2 : 8;
	}
	e = &t->v[t->n];
	e->repo = strdup(repo);
	e->ref = strdup(ref);
	e->sha = copy;
	if (e->repo == NULL || e->ref == NULL) {
		free(e->repo);
		free(e->ref);
		free(copy);
		return CG_ENOMEM;
	}
	t->n++;
	return 0;
}

/* --- the shas file -------------------------------------------------------- */

/* Splits line (NUL-terminated, modified) into at most 4 blank-separated
 * words; returns how many. */
static int
split(char *line, char **w)
{
	int n = 0;
	char *p = line;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			*p++ = '\0';
		if (*p == '\0')
			break;
		if (n == 4)
			return 5;
		w[n++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
	}
	return n;
}

static int
parse_shas(char *text, struct table *t, const char *path, cg_err *err)
{
	int lineno = 0;
	char *line = text;
	char *next;
	char *w[4];
	int n;

	for (; line != NULL; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		lineno++;
		n = split(line, w);
		if (n == 0 || w[0][0] == '#')
			continue;
		if (n != 3 || strchr(w[0], '/') == NULL)
			return cg_err_set(err, CG_EPARSE,
			                  "%s:%d: want \"owner/name ref sha\"",
			                  path, lineno);
		if (table_put(t, w[0], w[1], w[2]) != 0)
			return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	return 0;
}

int
cghttpd_load_file(cghttpd *h, const char *path, cg_err *err)
{
	struct table t = {0};
	struct table old;
	char *text = NULL;
	size_t len = 0;
	int rc;

	rc = cg_file_read(path, SHAS_FILE_MAX, &text, &len, err);
	if (rc == 0)
		rc = parse_shas(text, &t, path, err);
	free(text);
	if (rc != 0) {
		table_fini(&t);
		return rc;
	}
	lock(h);
	old = h->refs;
	h->refs = t;
	unlock(h);
	table_fini(&old);
	return 0;
}

/* --- deciding an answer --------------------------------------------------- */

/* A GitHub-style JSON error body; auth (when not NULL) is quoted in the
 * message, like a server that echoes what it was sent. */
static int
error_body(struct answer *a, int status, const char *msg, const char *auth)
{
	char *text = NULL;
	char st[16];
	json_t *v;

	(void)snprintf(st, sizeof(st), "%d", status);
	text = auth ? fmt_new("%s (Authorization: %s)", msg, auth) : NULL;
	v = json_pack("{s:s, s:s, s:s}", "message", text ? text : msg,
	              "documentation_url", DOCS_URL, "status", st);
	free(text);
	a->status = status;
	a->type = "application/json; charset=utf-8";
	a->body = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	a->len = a->body ? strlen(a->body) : 0;
	json_decref(v);
	return a->body ? 0 : CG_ENOMEM;
}

/* The one-shot failure of cghttpd_fail_next. */
static int
failure(const cghttpd *h, const struct snap *s, const char *auth,
        struct answer *a)
{
	int st = s->fail_status;
	const char *msg = "Error";

	if (st == 403 || st == 429) {
		a->reset = (long long)time(NULL) + RATE_RESET_IN;
		a->retry = st == 429;
		msg = "API rate limit exceeded for 127.0.0.1.";
	} else if (st >= 300 && st < 400) {
		(void)snprintf(a->location, sizeof(a->location),
		               "http://127.0.0.1:%d/repos/moved/elsewhere",
		               h->port);
		msg = "Moved Permanently";
	} else if (st == 401) {
		msg = "Bad credentials";
	} else if (st >= 500) {
		msg = "Server Error";
	}
	return error_body(a, st, msg, s->echo_auth ? auth : NULL);
}

/* Splits "/repos/{owner}/{name}/commits/{ref}" into repo (malloc'd
 * "owner/name") and a pointer to ref inside path; false when the path has
 * another shape. */
static bool
parse_path(const char *path, char **repo, const char **ref)
{
	const char *p = path;
	const char *owner_end;
	const char *name_end;

	if (strncmp(p, "/repos/", 7) != 0)
		return false;
	p += 7;
	owner_end = strchr(p, '/');
	if (owner_end == NULL || owner_end == p)
		return false;
	name_end = strchr(owner_end + 1, '/');
	if (name_end == NULL || name_end == owner_end + 1 ||
	    strncmp(name_end, "/commits/", 9) != 0 || name_end[9] == '\0')
		return false;
	*repo = strndup(p, (size_t)(name_end - p));
	*ref = name_end + 9;
	return *repo != NULL;
}

/* 200 or 304 for a known ref whose sha is sha. */
static int
found(const struct snap *s, const char *sha, const char *accept,
      const char *inm, struct answer *a)
{
	a->etag = fmt_new("\"%s\"", sha);
	if (a->etag == NULL)
		return CG_ENOMEM;
	if (inm != NULL && strcmp(inm, a->etag) == 0) {
		a->status = 304;
		a->type = NULL;
		return 0;
	}
	a->status = 200;
	if (s->body != NULL) {
		a->body = malloc(s->body_len + 1);
		if (a->body != NULL)
			memcpy(a->body, s->body, s->body_len);
		a->len = s->body_len;
		a->chunked = s->chunked;
		a->type = "application/vnd.github.sha; charset=utf-8";
	} else if (accept != NULL && strcmp(accept, SHA_ACCEPT) == 0) {
		a->body = strdup(sha);
		a->len = strlen(sha);
		a->type = "application/vnd.github.sha; charset=utf-8";
	} else {
		a->body = fmt_new("{\"sha\":\"%s\"}", sha);
		a->len = a->body ? strlen(a->body) : 0;
		a->type = "application/json; charset=utf-8";
	}
	return a->body ? 0 : CG_ENOMEM;
}

/* --- the static site (cghttpd_set_docroot) ------------------------------- */

/* The answer to GET /site/<rel>: see cghttpd.h. */
static int
site(const struct snap *s, const char *rel, const char *inm, struct answer *a)
{
	char *path;
	char *text = NULL;
	size_t len = 0;
	cg_err e;

	cg_err_clear(&e);
	if (strcmp(rel, "endless") == 0) {
		a->status = 200;
		a->endless = true;
		a->type = "text/markdown";
		return 0;
	}
	if (strstr(rel, "..") != NULL || rel[0] == '/')
		return error_body(a, 404, "Not Found", NULL);
	path = fmt_new("%s/%s", s->docroot, rel);
	if (path == NULL)
		return CG_ENOMEM;
	if (cg_file_read(path, 64u << 20, &text, &len, &e) == 0) {
		a->etag = fmt_new("\"%016llx\"",
		                  (unsigned long long)cg_hash64(text, len));
		a->type = "text/markdown; charset=utf-8";
		if (inm != NULL && a->etag != NULL &&
		    strcmp(inm, a->etag) == 0) {
			a->status = 304;
			free(text);
		} else {
			a->status = 200;
			a->body = text;
			a->len = len;
		}
		free(path);
		return 0;
	}
	free(text);
	text = fmt_new("%s.redirect", path);
	free(path);
	path = text;
	text = NULL;
	if (path != NULL && cg_file_read(path, 400, &text, &len, &e) == 0) {
		while (len > 0 &&
		       (text[len - 1] == '\n' || text[len - 1] == ' '))
			text[--len] = '\0';
		a->status = 302;
		(void)snprintf(a->location, sizeof(a->location), "%s", text);
		free(text);
		free(path);
		return 0;
	}
	free(path);
	return error_body(a, 404, "Not Found", NULL);
}

int
cghttpd_set_docroot(cghttpd *h, const char *dir)
{
	char *d = dir != NULL ? strdup(dir) : NULL;

	if (dir != NULL && d == NULL)
		return CG_ENOMEM;
	lock(h);
	free(h->docroot);
	h->docroot = d;
	unlock(h);
	return 0;
}

/* Looks the path up (under the lock) and decides. */
static int
route(cghttpd *h, const struct snap *s, const char *path, const char *method,
      const char *const *hdr, struct answer *a)
{
	const char *auth = s->echo_auth ? hdr[CGHTTPD_AUTHORIZATION] : NULL;
	const struct entry *e;
	const char *ref;
	char *repo = NULL;
	char *msg;
	int rc;

	if (s->fail_status != 0)
		return failure(h, s, auth, a);
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return error_body(a, 405, "Method Not Allowed", auth);
	if (s->docroot != NULL && strncmp(path, "/site/", 6) == 0)
		return site(s, path + 6, hdr[CGHTTPD_IF_NONE_MATCH], a);
	if (!parse_path(path, &repo, &ref))
		return error_body(a, 404, "Not Found", auth);
	lock(h);
	e = table_find(&h->refs, repo, ref);
	if (e != NULL) {
		rc = found(s, e->sha, hdr[CGHTTPD_ACCEPT],
		           hdr[CGHTTPD_IF_NONE_MATCH], a);
	} else if (table_find(&h->refs, repo, NULL) == NULL) {
		rc = error_body(a, 404, "Not Found", auth);
	} else {
		msg = fmt_new("No commit found for SHA: %s", ref);
		rc = msg ? error_body(a, 422, msg, auth) : CG_ENOMEM;
		free(msg);
	}
	unlock(h);
	free(repo);
	return rc;
}

/* --- sending -------------------------------------------------------------- */

static ssize_t
chunk_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct chunks *k = cls;
	size_t n;

	if (pos >= k->len)
		return MHD_CONTENT_READER_END_OF_STREAM;
	n = k->len - (size_t)pos < max ? k->len - (size_t)pos : max;
	memcpy(buf, k->data + pos, n);
	return (ssize_t)n;
}

static void
chunk_free(void *cls)
{
	struct chunks *k = cls;

	free(k->data);
	free(k);
}

/* The site's /endless: Markdown lines for as long as the client reads. */
static ssize_t
endless_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	static const char line[] = "- [more](more.md): and more\n";
	size_t n = 0;

	(void)cls;
	(void)pos;
	while (n + sizeof(line) - 1 <= max) {
		memcpy(buf + n, line, sizeof(line) - 1);
		n += sizeof(line) - 1;
	}
	if (n == 0)
		buf[n++] = '\n';
	return (ssize_t)n;
}

static struct MHD_Response *
make_response(struct answer *a)
{
	struct chunks *k;
	struct MHD_Response *r;

	if (a->endless)
		return MHD_create_response_from_callback(
		    MHD_SIZE_UNKNOWN, 4096, endless_read, NULL, NULL);

	if (!a->chunked)
		return MHD_create_response_from_buffer(
		    a->len, a->body ? a->body : (void *)"",
		    MHD_RESPMEM_MUST_COPY);
	k = malloc(sizeof(*k));
	if (k == NULL)
		return NULL;
	k->data = a->body; /* ownership moves to the response */
	k->len = a->len;
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024,
	                                      chunk_read, k, chunk_free);
	if (r == NULL) {
		free(k);
		return NULL;
	}
	a->body = NULL;
	return r;
}

static enum MHD_Result
send_answer(struct MHD_Connection *c, struct answer *a, bool etags)
{
	struct MHD_Response *r = make_response(a);
	char num[32];
	enum MHD_Result ok;

	if (r == NULL)
		return MHD_NO;
	if (a->type != NULL)
		(void)MHD_add_response_header(r, "Content-Type", a->type);
	if (a->etag != NULL && etags)
		(void)MHD_add_response_header(r, "ETag", a->etag);
	if (a->reset > 0) {
		(void)snprintf(num, sizeof(num), "%lld", a->reset);
		(void)MHD_add_response_header(r, "X-RateLimit-Limit", "60");
		(void)MHD_add_response_header(r, "X-RateLimit-Remaining", "0");
		(void)MHD_add_response_header(r, "X-RateLimit-Used", "60");
		(void)MHD_add_response_header(r, "X-RateLimit-Reset", num);
		(void)MHD_add_response_header(r, "X-RateLimit-Resource",
		                              "core");
	}
	if (a->retry)
		(void)MHD_add_response_header(r, "Retry-After", "60");
	if (a->location[0] != '\0')
		(void)MHD_add_response_header(r, "Location", a->location);
	ok = MHD_queue_response(c, (unsigned)a->status, r);
	MHD_destroy_response(r);
	return ok;
}

/* --- the request path ----------------------------------------------------- */

static const char *const header_name[CGHTTPD_NFIELDS] = {
    [CGHTTPD_AUTHORIZATION] = "Authorization",
    [CGHTTPD_ACCEPT] = "Accept",
    [CGHTTPD_IF_NONE_MATCH] = "If-None-Match",
    [CGHTTPD_USER_AGENT] = "User-Agent",
};

/* Counts the request, records it as the last one and snapshots the knobs
 * (taking the one-shot failure). */
static void
arrive(cghttpd *h, const char *const *fields, struct snap *s)
{
	lock(h);
	h->requests++;
	for (int f = 0; f < CGHTTPD_NFIELDS; f++) {
		free(h->last[f]);
		h->last[f] = dup_str(fields[f]);
	}
	s->fail_status = h->fail_status;
	h->fail_status = 0;
	s->delay_ms = h->delay_ms;
	s->etags = h->etags;
	s->echo_auth = h->echo_auth;
	s->chunked = h->chunked;
	s->body = NULL;
	s->body_len = 0;
	s->docroot = h->docroot != NULL ? strdup(h->docroot) : NULL;
	if (h->body != NULL) {
		s->body = malloc(h->body_len + 1);
		if (s->body != NULL) {
			memcpy(s->body, h->body, h->body_len);
			s->body_len = h->body_len;
		}
	}
	unlock(h);
}

/* Waits ms unless the server stops first; false when it stopped. */
static bool
delay(cghttpd *h, int ms)
{
	struct timespec until;
	bool stopped;

	if (ms <= 0)
		return true;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	lock(h);
	while (!h->stopping &&
	       pthread_cond_timedwait(&h->cv, &h->mu, &until) != ETIMEDOUT)
		;
	stopped = h->stopping;
	unlock(h);
	return !stopped;
}

/* Writes path with spaces, '%' and unprintable bytes as %XX. */
static void
log_path(FILE *f, const char *path)
{
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p <= 0x20 || *p >= 0x7f || *p == '%')
			fprintf(f, "%%%02X", *p);
		else
			fputc(*p, f);
	}
}

/* Counts the answer and logs the request. */
static void
depart(cghttpd *h, const char *method, const char *path, const struct answer *a)
{
	lock(h);
	if (a->status >= 100 && a->status < 600)
		h->by_status[a->status]++;
	if (a->reset > 0)
		h->rate_reset = a->reset;
	if (h->log != NULL) {
		fprintf(h->log, "%s ", method);
		log_path(h->log, path);
		fprintf(h->log, " %d %zu\n", a->status, a->len);
		fflush(h->log);
	}
	unlock(h);
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *c, const char *url,
        const char *method, const char *version, const char *upload_data,
        size_t *upload_data_size, void **con_cls)
{
	cghttpd *h = cls;
	const char *fields[CGHTTPD_NFIELDS] = {0};
	struct answer a = {0};
	struct snap s;
	enum MHD_Result ok = MHD_NO;

	/* Answer only once the request is complete: a response queued on
	 * the first call (headers only) makes libmicrohttpd close the
	 * connection instead of keeping it alive.  A body is discarded. */
	if (*con_cls == NULL) {
		*con_cls = h;
		return MHD_YES;
	}
	if (*upload_data_size != 0) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	fields[CGHTTPD_METHOD] = method;
	fields[CGHTTPD_PATH] = url;
	for (int f = CGHTTPD_AUTHORIZATION; f < CGHTTPD_NFIELDS; f++)
		fields[f] = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
		                                        header_name[f]);
	arrive(h, fields, &s);
	if (delay(h, s.delay_ms) &&
	    route(h, &s, url, method, fields, &a) == 0) {
		depart(h, method, url, &a); /* before the client can see it */
		ok = send_answer(c, &a, s.etags);
	}
	free(a.body);
	free(a.etag);
	free(s.body);
	free(s.docroot);
	return ok;
}

/* --- lifecycle ------------------------------------------------------------ */

/* Counts the connections accepted (libmicrohttpd's notify callback). */
static void
on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
              enum MHD_ConnectionNotificationCode toe)
{
	cghttpd *h = cls;

	(void)c;
	(void)socket_context;
	if (toe != MHD_CONNECTION_NOTIFY_STARTED)
		return;
	lock(h);
	h->connections++;
	unlock(h);
}

static int
listen_on(cghttpd *h, int port)
{
	struct sockaddr_in sa;
	const union MHD_DaemonInfo *info;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	h->d = MHD_start_daemon(
	    MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD |
	        MHD_USE_THREAD_PER_CONNECTION,
	    0, NULL, NULL, handler, h, MHD_OPTION_SOCK_ADDR,
	    (struct sockaddr *)&sa, MHD_OPTION_LISTENING_ADDRESS_REUSE,
	    (unsigned)1, MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned)CONN_TIMEOUT_S, MHD_OPTION_NOTIFY_CONNECTION,
	    on_connection, h, MHD_OPTION_END);
	if (h->d == NULL)
		return CG_EUNAVAIL;
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? (int)info->port : port;
	return h->port > 0 ? 0 : CG_EUNAVAIL;
}

int
cghttpd_start(cghttpd **out, int port)
{
	cghttpd *h;
	pthread_condattr_t ca;
	int rc;

	*out = NULL;
	if (port < 0 || port > 65535)
		return CG_EINVAL;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return CG_ENOMEM;
	pthread_mutex_init(&h->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cv, &ca);
	pthread_condattr_destroy(&ca);
	h->etags = true;
	rc = listen_on(h, port);
	if (rc != 0) {
		cghttpd_stop(h);
		return rc;
	}
	*out = h;
	return 0;
}

int
cghttpd_port(const cghttpd *h)
{
	return h->port;
}

/* Closes the listener and every connection; delayed answers give up. */
static void
shut(cghttpd *h)
{
	lock(h);
	h->stopping = true;
	pthread_cond_broadcast(&h->cv);
	unlock(h);
	if (h->d != NULL)
		MHD_stop_daemon(h->d);
	h->d = NULL;
}

int
cghttpd_pause(cghttpd *h, bool down)
{
	if (down) {
		shut(h);
		return 0;
	}
	if (h->d != NULL)
		return 0;
	lock(h);
	h->stopping = false;
	unlock(h);
	return listen_on(h, h->port);
}

void
cghttpd_stop(cghttpd *h)
{
	if (h == NULL)
		return;
	shut(h);
	table_fini(&h->refs);
	free(h->body);
	free(h->docroot);
	for (int f = 0; f < CGHTTPD_NFIELDS; f++)
		free(h->last[f]);
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

/* --- knobs and counters --------------------------------------------------- */

int
cghttpd_set(cghttpd *h, const char *repo, const char *ref, const char *sha)
{
	int rc;

	lock(h);
	rc = table_put(&h->refs, repo, ref, sha);
	unlock(h);
	return rc;
}

void
cghttpd_fail_next(cghttpd *h, int status)
{
	lock(h);
	h->fail_status = status;
	unlock(h);
}

void
cghttpd_set_delay_ms(cghttpd *h, int ms)
{
	lock(h);
	h->delay_ms = ms > 0 ? ms : 0;
	unlock(h);
}

int
cghttpd_set_body(cghttpd *h, const void *body, size_t len, bool chunked)
{
	char *copy = NULL;

	if (body != NULL) {
		copy = malloc(len + 1);
		if (copy == NULL)
			return CG_ENOMEM;
		memcpy(copy, body, len);
	}
	lock(h);
	free(h->body);
	h->body = copy;
	h->body_len = body ? len : 0;
	h->chunked = chunked;
	unlock(h);
	return 0;
}

void
cghttpd_set_etags(cghttpd *h, bool send)
{
	lock(h);
	h->etags = send;
	unlock(h);
}

void
cghttpd_set_echo_auth(cghttpd *h, bool echo)
{
	lock(h);
	h->echo_auth = echo;
	unlock(h);
}

void
cghttpd_set_log(cghttpd *h, FILE *f)
{
	lock(h);
	h->log = f;
	unlock(h);
}

long
cghttpd_requests(const cghttpd *h)
{
	long n;

	lock(h);
	n = h->requests;
	unlock(h);
	return n;
}

long
cghttpd_connections(const cghttpd *h)
{
	long n;

	lock(h);
	n = h->connections;
	unlock(h);
	return n;
}

long
cghttpd_count_status(const cghttpd *h, int status)
{
	long n = 0;

	lock(h);
	if (status >= 100 && status < 600)
		n = h->by_status[status];
	unlock(h);
	return n;
}

long
cghttpd_count_304(const cghttpd *h)
{
	return cghttpd_count_status(h, 304);
}

long long
cghttpd_rate_reset(const cghttpd *h)
{
	long long v;

	lock(h);
	v = h->rate_reset;
	unlock(h);
	return v;
}

char *
cghttpd_last(const cghttpd *h, enum cghttpd_field f)
{
	char *v = NULL;

	if ((int)f < 0 || f >= CGHTTPD_NFIELDS)
		return NULL;
	lock(h);
	v = dup_str(h->last[f]);
	unlock(h);
	return v;
}
