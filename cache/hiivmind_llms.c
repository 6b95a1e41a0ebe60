/*
 * hiivmind_llms.c - the llms.txt manifest of an llms-txt source (see
 * llms_txt.h): the line parser, and the rules from a link to the URL that
 * is fetched and the document path it is cached at.
 *
 * The parser shares the index.md line reader and the capped warning list
 * of hiivmind_int.h; it reads each line once and never recurses.  The URL
 * rules are pure string work: a URL is built, then checked part by part
 * (scheme, authority, every path segment raw and decoded), and the document
 * path is made only from checked segments.  Must not: fetch, touch the
 * cache, print.
 */
#define _GNU_SOURCE /* memrchr */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/hiivmind_int.h"
#include "cache/llms_txt.h"
#include "common/cg_buf.h"
#include "common/cg_fs.h"
#include "common/cg_str.h"
#include "common/cg_utf8.h"
#include "common/cg_vec.h"

#define TEXT_MAX 1000 /* bytes of a title, note, section or summary */
#define SEG_MAX  200  /* bytes of one document path segment */

/* --- the parser ------------------------------------------------------- */

/* State of one manifest parse. */
struct mp {
	struct cg_hmi h;
	cg_llms *m;
	size_t cap;    /* links allocated in m->links */
	size_t nsec;   /* sections in m->sections */
	size_t seccap; /* slots allocated there (NULL-terminated) */
	size_t more;   /* links past CG_LLMS_MAX_LINKS */
	char *section; /* the current "## ", borrowed from m->sections */
	bool optional; /* the current section is "Optional" */
	char fence;    /* inside a fenced block: its character */
	bool in_quote; /* reading the summary's blockquote */
	bool quote_done;
	cg_buf summary;
};

static bool
blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A copy of s[0, n) trimmed and cut at TEXT_MAX bytes (whole UTF-8). */
static char *
text_dup(struct cg_hmi *h, const char *s, size_t n)
{
	cg_trim(&s, &n, CG_SPACES);
	return cg_hmi_dupn(h, s, cg_utf8_clip(s, n, TEXT_MAX));
}

/* A "# " or "## " heading's text: blanks and closing #'s trimmed. */
static void
heading_text(const char **s, size_t *n)
{
	cg_trim(s, n, CG_BLANKS);
	while (*n > 0 && (*s)[*n - 1] == '#')
		(*n)--;
	cg_trim(s, n, CG_BLANKS);
}

static void
on_section(struct mp *p, const char *s, size_t n)
{
	char *t;

	heading_text(&s, &n);
	p->section = NULL;
	p->optional = false;
	if (n == 0)
		return;
	if (cg_vec_reserve((void **)&p->m->sections, &p->seccap, p->nsec + 1,
	                   sizeof(char *)) != 0) {
		cg_hmi_nomem(&p->h);
		return;
	}
	t = text_dup(&p->h, s, n);
	if (t == NULL)
		return;
	p->m->sections[p->nsec++] = t;
	p->m->sections[p->nsec] = NULL;
	p->section = t;
	p->optional = strcasecmp(t, "optional") == 0;
}

/* The end of a bracketed span opened at s[i] (open), balanced, with
 * backslash escapes; n when it does not close on this line. */
static size_t
span_end(const char *s, size_t n, size_t i, char open, char close)
{
	int depth = 0;

	for (; i < n; i++) {
		if (s[i] == '\\') {
			i++;
			continue;
		}
		if (s[i] == open)
			depth++;
		else if (s[i] == close && --depth == 0)
			return i;
	}
	return n;
}

/* The destination of "(href)" or "(<href> "title")" starting at s[i]
 * ('('): *h, *hn; returns the index after ')', or 0 when it is not a
 * link destination. */
static size_t
destination(const char *s, size_t n, size_t i, const char **h, size_t *hn)
{
	size_t k = i + 1;
	size_t end;

	while (k < n && blank(s[k]))
		k++;
	if (k < n && s[k] == '<') {
		const char *gt = memchr(s + k, '>', n - k);

		if (gt == NULL)
			return 0;
		*h = s + k + 1;
		*hn = (size_t)(gt - s) - k - 1;
		k = (size_t)(gt - s) + 1;
	} else {
		size_t start = k;
		int depth = 0;

		for (; k < n && !blank(s[k]); k++) {
			if (s[k] == '\\' && k + 1 < n) {
				k++;
				continue;
			}
			if (s[k] == '(')
				depth++;
			else if (s[k] == ')' && depth-- == 0)
				break;
		}
		*h = s + start;
		*hn = k - start;
	}
	while (k < n && blank(s[k]))
		k++;
	if (k < n && (s[k] == '"' || s[k] == '\'')) {
		const char *q = memchr(s + k + 1, s[k], n - k - 1);

		if (q == NULL)
			return 0;
		k = (size_t)(q - s) + 1;
		while (k < n && blank(s[k]))
			k++;
	}
	end = k < n && s[k] == ')' ? k + 1 : 0;
	return end;
}

/* The note after a link: a leading ':' or dash (hyphen, en, em) and blanks
 * dropped. */
static void
note_text(const char **s, size_t *n)
{
	static const char *const seps[] = {":", "-", "\xE2\x80\x93",
	                                   "\xE2\x80\x94", NULL};

	cg_trim(s, n, CG_SPACES);
	for (size_t i = 0; seps[i] != NULL; i++) {
		size_t k = strlen(seps[i]);

		if (*n >= k && memcmp(*s, seps[i], k) == 0) {
			*s += k;
			*n -= k;
			break;
		}
	}
	cg_trim(s, n, CG_SPACES);
}

/* Where a list item's text starts (after "- ", "* ", "+ " or "12. "),
 * or n when s is not a list item. */
static size_t
item_start(const char *s, size_t n)
{
	size_t i = 0;
	size_t d = 0;

	while (i < n && blank(s[i]))
		i++;
	if (i + 1 < n && (s[i] == '-' || s[i] == '*' || s[i] == '+') &&
	    blank(s[i + 1]))
		i += 2;
	else {
		while (i + d < n && d < 9 && s[i + d] >= '0' && s[i + d] <= '9')
			d++;
		if (d == 0 || i + d + 1 >= n ||
		    (s[i + d] != '.' && s[i + d] != ')') ||
		    !blank(s[i + d + 1]))
			return n;
		i += d + 2;
	}
	while (i < n && blank(s[i]))
		i++;
	return i;
}

static void
add_link(struct mp *p, const cg_llms_link *l)
{
	if (p->m->n == CG_LLMS_MAX_LINKS) {
		p->more++;
		return;
	}
	if (cg_vec_reserve((void **)&p->m->links, &p->cap, p->m->n,
	                   sizeof(*l)) != 0) {
		cg_hmi_nomem(&p->h);
		return;
	}
	p->m->links[p->m->n++] = *l;
}

static void
link_free(cg_llms_link *l)
{
	free(l->title);
	free(l->href);
	free(l->note);
}

/* A list item: a link when it starts with "[text](href)". */
static void
on_item(struct mp *p, const char *s, size_t n, size_t i, size_t lineno)
{
	size_t close = i < n && s[i] == '[' ? span_end(s, n, i, '[', ']') : n;
	const char *href = NULL;
	size_t hn = 0;
	size_t after;
	const char *rest;
	size_t rn;
	cg_llms_link l;

	if (close + 1 >= n || s[close + 1] != '(')
		return;
	after = destination(s, n, close + 1, &href, &hn);
	if (after == 0)
		return;
	cg_trim(&href, &hn, CG_BLANKS);
	if (hn == 0 || hn > CG_LLMS_URL_MAX) {
		cg_hmi_warn(&p->h, "line %zu: a link with %s href; skipped",
		            lineno, hn == 0 ? "an empty" : "an over-long");
		return;
	}
	memset(&l, 0, sizeof(l));
	l.line = lineno;
	l.section = p->section;
	l.optional = p->optional;
	rest = s + after;
	rn = n - after;
	l.line_hash = cg_hash64(s + i, n - i);
	l.href = cg_hmi_dupn(&p->h, href, hn);
	l.title =
	    close > i + 1 ? text_dup(&p->h, s + i + 1, close - i - 1) : NULL;
	if (l.title != NULL && l.title[0] == '\0') {
		free(l.title);
		l.title = NULL;
	}
	if (l.title == NULL)
		l.title = text_dup(&p->h, href, hn);
	note_text(&rest, &rn);
	l.note = rn > 0 ? text_dup(&p->h, rest, rn) : NULL;
	if (p->h.rc != 0 || l.href == NULL || l.title == NULL) {
		link_free(&l);
		return;
	}
	add_link(p, &l);
	if (p->h.rc != 0 || p->m->n == 0 ||
	    p->m->links[p->m->n - 1].href != l.href)
		link_free(&l);
}

/* A "> " line of the summary (the first blockquote before any section). */
static bool
on_quote(struct mp *p, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && i < 3 && s[i] == ' ')
		i++;
	if (i >= n || s[i] != '>' || p->quote_done || p->nsec > 0) {
		if (p->in_quote)
			p->quote_done = true;
		p->in_quote = false;
		return false;
	}
	p->in_quote = true;
	s += i + 1;
	n -= i + 1;
	cg_trim(&s, &n, CG_SPACES);
	if (n > 0 && p->summary.len < TEXT_MAX &&
	    ((p->summary.len > 0 && cg_buf_putc(&p->summary, ' ') != 0) ||
	     cg_buf_append(&p->summary, s, n) != 0))
		cg_hmi_nomem(&p->h);
	return true;
}

static void
on_line(void *ctx, const char *s, size_t n, size_t lineno)
{
	struct mp *p = ctx;
	size_t i;

	if (cg_hmi_in_fence(&p->fence, s, n))
		return;
	if (on_quote(p, s, n))
		return;
	if (n >= 2 && s[0] == '#' && blank(s[1])) {
		if (p->m->title == NULL) {
			s += 2;
			n -= 2;
			heading_text(&s, &n);
			p->m->title = text_dup(&p->h, s, n);
		}
	} else if (n >= 3 && s[0] == '#' && s[1] == '#' && blank(s[2])) {
		on_section(p, s + 3, n - 3);
		p->quote_done = true;
	} else if ((i = item_start(s, n)) < n) {
		on_item(p, s, n, i, lineno);
	}
}

void
cg_llms_fini(cg_llms *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->n; i++)
		link_free(&m->links[i]);
	free(m->links);
	free(m->title);
	free(m->summary);
	cg_strv_free(m->sections);
	cg_strv_free(m->warnings);
	memset(m, 0, sizeof(*m));
}

/* The summary, once the lines are read. */
static void
take_summary(struct mp *p)
{
	if (p->h.rc == 0 && p->summary.len > 0)
		p->m->summary =
		    text_dup(&p->h, cg_buf_str(&p->summary), p->summary.len);
	cg_buf_fini(&p->summary);
}

int
cg_llms_parse(cg_llms *out, const char *text, size_t len, cg_err *err)
{
	struct mp p;
	size_t n = 0;
	size_t nfixed = 0;
	char *clean;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len > CG_LLMS_MAX_BYTES)
		return cg_err_set(err, CG_ETOOBIG,
		                  "llms.txt: %zu bytes, over the %u-byte limit",
		                  len, CG_LLMS_MAX_BYTES);
	clean = cg_utf8_sanitize(text != NULL ? text : "", text ? len : 0, &n,
	                         &nfixed);
	if (clean == NULL)
		return cg_err_set(err, CG_ENOMEM, "llms.txt: out of memory");
	memset(&p, 0, sizeof(p));
	cg_hmi_init(&p.h, err);
	cg_buf_init(&p.summary, (size_t)TEXT_MAX * 2);
	p.m = out;
	if (nfixed > 0)
		cg_hmi_warn(
		    &p.h,
		    "llms.txt: %zu invalid UTF-8 sequences or NUL bytes "
		    "replaced",
		    nfixed);
	cg_hmi_each_line(clean, n, on_line, &p, &p.h.rc);
	free(clean);
	take_summary(&p);
	if (p.h.rc == 0 && out->title == NULL)
		cg_hmi_warn(&p.h, "llms.txt: no \"# title\" line");
	if (p.more > 0)
		cg_hmi_warn(&p.h,
		            "llms.txt: %zu links past the first %d ignored",
		            p.more, CG_LLMS_MAX_LINKS);
	if (p.h.rc == 0 && out->sections == NULL &&
	    (out->sections = calloc(1, sizeof(char *))) == NULL)
		cg_hmi_nomem(&p.h);
	rc = cg_hmi_finish(&p.h, NULL, &out->warnings);
	if (rc != 0)
		cg_llms_fini(out);
	return rc;
}

/* --- URLs --------------------------------------------------------------- */

/* The parts of an http(s) URL, pointing into it. */
struct url {
	const char *scheme; /* "http" or "https" as written */
	size_t scheme_len;
	const char *auth; /* after "//", up to the path */
	size_t auth_len;
	const char *path; /* from its '/', up to '?' or '#'; may be empty */
	size_t path_len;
	const char *query; /* from '?', up to '#', or empty */
	size_t query_len;
};

/* Quotes user text for a reason (printable, capped). */
static const char *
shown(char out[CG_HMI_QMAX], const char *s)
{
	return cg_hmi_q(out, s);
}

/* The failures below return their code themselves, not cg_err_set's
 * return: every caller tests "rc == 0" before using what a success fills
 * in, and a code this file can see is non-zero keeps that test provable
 * (clang-analyzer cannot see into cg_err.c). */
static int
refuse(cg_err *why, const char *what, const char *reason)
{
	char q[CG_HMI_QMAX];

	(void)cg_err_set(why, CG_EINVAL, "\"%s\": %s", shown(q, what), reason);
	return CG_EINVAL;
}

static int
oom(cg_err *err)
{
	(void)cg_err_set(err, CG_ENOMEM, "out of memory");
	return CG_ENOMEM;
}

/* The length of a leading "scheme:" (letters, digits, + . -), or 0. */
static size_t
scheme_len(const char *s)
{
	size_t i = 0;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	while (s[i] != '\0' && s[i] != ':' && s[i] != '/' && s[i] != '?' &&
	       s[i] != '#')
		i++;
	if (s[i] != ':')
		return 0;
	for (size_t k = 0; k < i; k++)
		if (!((s[k] >= 'a' && s[k] <= 'z') ||
		      (s[k] >= 'A' && s[k] <= 'Z') ||
		      (s[k] >= '0' && s[k] <= '9') || s[k] == '+' ||
		      s[k] == '.' || s[k] == '-'))
			return 0;
	return i;
}

static bool
is_http(const char *s, size_t n)
{
	return (n == 4 && strncasecmp(s, "http", 4) == 0) ||
	       (n == 5 && strncasecmp(s, "https", 5) == 0);
}

/* Splits an absolute http(s) URL (fragment ignored); false when it is
 * not one. */
static bool
split_url(const char *u, struct url *p)
{
	size_t k = scheme_len(u);
	const char *a;
	size_t an;

	memset(p, 0, sizeof(*p));
	if (k == 0 || !is_http(u, k) || strncmp(u + k, "://", 3) != 0)
		return false;
	p->scheme = u;
	p->scheme_len = k;
	a = u + k + 3;
	an = strcspn(a, "/?#");
	p->auth = a;
	p->auth_len = an;
	p->path = a + an;
	p->path_len = strcspn(p->path, "?#");
	if (p->path[p->path_len] == '?') {
		p->query = p->path + p->path_len;
		p->query_len = strcspn(p->query, "#");
	}
	return an > 0;
}

/* "scheme://host[:port]" lowercased, default port dropped (malloc'd), or
 * NULL with why: credentials, an empty or odd host, a bad port. */
static char *
origin_of(const struct url *p, const char *whole, cg_err *why)
{
	const char *host = p->auth;
	size_t hn = p->auth_len;
	const char *colon;
	long port = -1;
	char *o;
	size_t cap;

	if (memchr(host, '@', hn) != NULL)
		return refuse(why, whole, "credentials in the URL are refused"),
		       NULL;
	colon = host[0] == '[' ? memchr(host, ']', hn) : host;
	colon = colon != NULL ? memchr(colon, ':', hn - (size_t)(colon - host))
	                      : NULL;
	if (colon != NULL) {
		char *end = NULL;

		port = strtol(colon + 1, &end, 10);
		if (end != host + hn || end == colon + 1 || port < 1 ||
		    port > 65535)
			return refuse(why, whole, "bad port"), NULL;
		hn = (size_t)(colon - host);
	}
	for (size_t i = 0; i < hn; i++)
		if (!((host[i] >= 'a' && host[i] <= 'z') ||
		      (host[i] >= 'A' && host[i] <= 'Z') ||
		      (host[i] >= '0' && host[i] <= '9') || host[i] == '.' ||
		      host[i] == '-' || host[i] == '_' ||
		      (host[0] == '[' &&
		       (host[i] == ':' || host[i] == '[' || host[i] == ']'))))
			return refuse(why, whole, "not a host name"), NULL;
	if (hn == 0)
		return refuse(why, whole, "no host"), NULL;
	if ((p->scheme_len == 4 && port == 80) ||
	    (p->scheme_len == 5 && port == 443))
		port = -1;
	cap = p->scheme_len + hn + 16;
	o = malloc(cap);
	if (o == NULL)
		return oom(why), NULL;
	(void)snprintf(o, cap, "%.*s://%.*s", (int)p->scheme_len, p->scheme,
	               (int)hn, host);
	for (char *c = o; *c != '\0'; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	if (port > 0)
		(void)snprintf(o + strlen(o), cap - strlen(o), ":%ld", port);
	return o;
}

static bool
hexd(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* Appends s[0, n) with every byte outside printable ASCII, every unsafe
 * character and every '%' that does not start an escape percent-encoded. */
static int
put_encoded(cg_buf *b, const char *s, size_t n)
{
	static const char unsafe[] = "\"<>\\^`{|}";
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		unsigned char c = (unsigned char)s[i];
		bool esc = c <= 0x20 || c >= 0x7f ||
		           (c != 0 && strchr(unsafe, c) != NULL) ||
		           (c == '%' &&
		            !(i + 2 < n && hexd(s[i + 1]) && hexd(s[i + 2])));

		rc = esc ? cg_buf_printf(b, "%%%02X", c) : cg_buf_putc(b, s[i]);
	}
	return rc;
}

/* A control character, or invalid UTF-8, in s[0, n). */
static bool
bad_text(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return !cg_utf8_valid(s, n);
}

/* Checks one path segment (raw) and appends its decoded form to doc
 * (when doc is not NULL).  why quotes whole. */
static int
segment(const char *seg, size_t n, const char *whole, cg_buf *doc, cg_err *why)
{
	char *d;
	size_t dn;
	int rc;

	if (n == 0)
		return refuse(why, whole, "an empty path segment");
	d = cg_pct_decode(seg, n, true);
	if (d == NULL)
		return refuse(why, whole, "a bad %-escape in the path");
	dn = strlen(d);
	if (strcmp(d, ".") == 0 || strcmp(d, "..") == 0)
		rc = refuse(why, whole, "a '.' or '..' path segment");
	else if (dn == 0 || strchr(d, '/') != NULL || strchr(d, '\\') != NULL ||
	         bad_text(d, dn))
		rc = refuse(why, whole,
		            "a path segment that decodes to '/', '\\', a "
		            "control character or invalid UTF-8");
	else if (dn > SEG_MAX)
		rc = refuse(why, whole, "a path segment over 200 bytes");
	else
		rc = doc == NULL ? 0
		     : (doc->len > 0 && cg_buf_putc(doc, '/') != 0) ||
		             cg_buf_append(doc, d, dn) != 0
		         ? refuse(why, whole, "a document path over 1024 bytes")
		         : 0;
	free(d);
	return rc;
}

/* Checks every segment of path (from its leading '/'); the segments after
 * the first skip ones go to doc (may be NULL).  A trailing '/' is
 * allowed. */
static int
path_check(const char *path, size_t n, size_t skip, const char *whole,
           cg_buf *doc, cg_err *why)
{
	size_t i = 1;
	size_t k = 0;
	int rc = 0;

	if (n == 0 || path[0] != '/')
		return refuse(why, whole, "no path");
	while (i < n && rc == 0) {
		size_t len = strcspn(path + i, "/");

		if (i + len > n)
			len = n - i;
		rc = segment(path + i, len, whole, k++ >= skip ? doc : NULL,
		             why);
		i += len + 1;
	}
	return rc;
}

/* The number of segments of a path without a trailing '/' ("" is 0). */
static size_t
segments(const char *p)
{
	size_t k = 0;

	for (; *p != '\0'; p++)
		k += *p == '/';
	return k;
}

void
cg_llms_site_fini(cg_llms_site *s)
{
	if (s == NULL)
		return;
	free(s->manifest);
	free(s->base);
	free(s->suffix);
	free(s->origin[0]);
	free(s->origin[1]);
	free(s->base_path);
	free(s->scheme);
	memset(s, 0, sizeof(*s));
}

/* Checks a configured URL (manifest or base); its origin into *origin. */
static int
config_url(const char *what, const char *u, struct url *p, char **origin,
           cg_err *err)
{
	cg_err why;

	cg_err_clear(&why);
	memset(p, 0, sizeof(*p)); /* filled on every path, used on success */
	*origin = NULL;
	if (u == NULL || !split_url(u, p) || bad_text(u, strlen(u)) ||
	    strchr(u, ' ') != NULL || strchr(u, '#') != NULL) {
		(void)cg_err_set(err, CG_EINVAL,
		                 "%s \"%.200s\" is not an http(s) URL without "
		                 "spaces or fragment",
		                 what, u ? u : "");
		return CG_EINVAL;
	}
	*origin = origin_of(p, u, &why);
	if (*origin == NULL) {
		int code = why.code != 0 ? why.code : CG_EINVAL;

		(void)cg_err_set(err, code, "%s: %s", what, why.msg);
		return code;
	}
	return 0;
}

/* The base: as configured, else the manifest's folder; no trailing '/'
 * (malloc'd). */
static char *
base_of(const char *manifest, const struct url *m, const char *base)
{
	const char *slash = memrchr(m->path, '/', m->path_len);
	size_t n;
	char *b;

	if (base != NULL && base[0] != '\0')
		b = strdup(base);
	else
		b = slash != NULL
		        ? strndup(manifest, (size_t)(slash - manifest))
		        : strdup(manifest);
	n = b != NULL ? strlen(b) : 0;
	/* "https://x/" is "https://x"; "https://" stays for the check. */
	while (n > 0 && b[n - 1] == '/' && n > 1 && b[n - 2] != '/')
		b[--n] = '\0';
	return b;
}

int
cg_llms_site_init(cg_llms_site *s, const char *manifest, const char *base,
                  const char *suffix, cg_err *err)
{
	struct url m;
	struct url b;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = config_url("manifest.url", manifest, &m, &s->origin[0], err);
	if (rc != 0)
		return rc;
	s->manifest = strdup(manifest);
	s->base = base_of(manifest, &m, base);
	s->suffix = strdup(suffix != NULL ? suffix : "");
	s->scheme = strndup(m.scheme, m.scheme_len);
	if (s->manifest == NULL || s->base == NULL || s->suffix == NULL ||
	    s->scheme == NULL)
		rc = oom(err);
	if (rc == 0)
		rc = config_url("urls.base_url", s->base, &b, &s->origin[1],
		                err);
	if (rc == 0 && b.query_len > 0) {
		(void)cg_err_set(err, CG_EINVAL,
		                 "urls.base_url \"%.200s\" has a query",
		                 s->base);
		rc = CG_EINVAL;
	}
	if (rc == 0 && bad_text(s->suffix, strlen(s->suffix)))
		rc = refuse(err, s->suffix, "urls.suffix is not text");
	if (rc == 0 && (s->base_path = strndup(b.path, b.path_len)) == NULL)
		rc = oom(err);
	if (rc != 0) {
		cg_llms_site_fini(s);
		return rc;
	}
	for (char *c = s->scheme; *c != '\0'; c++)
		*c = (char)(*c | 0x20);
	return 0;
}

/* The origin of u is the manifest's or the base's. */
static int
allowed(const cg_llms_site *s, const struct url *p, const char *whole,
        cg_err *why)
{
	char *o = origin_of(p, whole, why);
	int rc = 0;

	if (o == NULL)
		return why->code ? why->code : CG_EINVAL;
	if (strcmp(o, s->origin[0]) != 0 && strcmp(o, s->origin[1]) != 0)
		rc = refuse(why, whole,
		            "another host than the manifest's or "
		            "urls.base_url's");
	free(o);
	return rc;
}

/* The absolute form of href (encoded, fragment dropped), into b. */
static int
absolute(const cg_llms_site *s, const char *href, size_t n, cg_buf *b,
         cg_err *why)
{
	size_t k = scheme_len(href);
	int rc = 0;

	if (k > 0 && !is_http(href, k))
		return refuse(why, href,
		              "the link's scheme is not http or https");
	if (k == 0 && n >= 2 && href[0] == '/' && href[1] == '/') {
		rc = cg_buf_printf(b, "%s:", s->scheme);
	} else if (k == 0) {
		while (n > 0 && href[0] == '/') {
			href++;
			n--;
		}
		if (n == 0 || href[0] == '?')
			return refuse(why, href, "no path");
		rc = cg_buf_printf(b, "%s/", s->base);
	}
	if (rc == 0)
		rc = put_encoded(b, href, n);
	return rc != 0 ? refuse(why, href, "a URL over 2048 bytes") : 0;
}

static bool
ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* The document path of a checked path: below the base's path, else from
 * the root; "index" after a trailing '/', ".md" appended. */
static int
doc_path(const cg_llms_site *s, const struct url *p, const char *whole,
         char **doc, cg_err *why)
{
	size_t bl = strlen(s->base_path);
	size_t skip = 0;
	cg_buf d;
	int rc;

	cg_buf_init(&d, CG_LLMS_DOC_MAX);
	if (bl > 0 && p->path_len > bl &&
	    strncmp(p->path, s->base_path, bl) == 0 && p->path[bl] == '/')
		skip = segments(s->base_path);
	rc = path_check(p->path, p->path_len, skip, whole, &d, why);
	if (rc == 0 && (d.len == 0 || p->path[p->path_len - 1] == '/'))
		rc = cg_buf_puts(&d, d.len > 0 ? "/index" : "index");
	if (rc == 0 && !ends_with(cg_buf_str(&d), d.len, ".md"))
		rc = cg_buf_puts(&d, ".md");
	if (rc != 0) {
		cg_buf_fini(&d);
		return why->code ? why->code
		                 : refuse(why, whole,
		                          "a document path over 1024 bytes");
	}
	*doc = cg_buf_take(&d);
	return *doc != NULL ? 0 : oom(why);
}

int
cg_llms_resolve(const cg_llms_site *s, const char *href, char **url, char **doc,
                cg_err *why)
{
	size_t n = strcspn(href, "#");
	cg_buf b;
	struct url p;
	int rc;

	*url = NULL;
	*doc = NULL;
	cg_err_clear(why);
	while (n > 0 && blank(href[0])) {
		href++;
		n--;
	}
	while (n > 0 && blank(href[n - 1]))
		n--;
	if (n == 0)
		return refuse(why, href, "an empty link");
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)href[i] < 0x20 || href[i] == 0x7f ||
		    href[i] == '\\')
			return refuse(why, href,
			              "a control character or backslash in "
			              "the link");
	cg_buf_init(&b, CG_LLMS_URL_MAX);
	rc = absolute(s, href, n, &b, why);
	/* The suffix goes on the path, before a query. */
	if (rc == 0 && split_url(cg_buf_str(&b), &p) && s->suffix[0] &&
	    p.path_len > 0 && p.path[p.path_len - 1] != '/' &&
	    !ends_with(p.path, p.path_len, s->suffix)) {
		size_t at = (size_t)(p.path + p.path_len - b.data);
		char *q = strdup(b.data + at);

		b.len = at;
		rc = q == NULL ||
		             put_encoded(&b, s->suffix, strlen(s->suffix)) !=
		                 0 ||
		             cg_buf_puts(&b, q) != 0
		         ? refuse(why, href, "a URL over 2048 bytes")
		         : 0;
		free(q);
	}
	if (rc == 0 && !split_url(cg_buf_str(&b), &p))
		rc = refuse(why, href, "not an http(s) URL");
	if (rc == 0)
		rc = allowed(s, &p, href, why);
	if (rc == 0)
		rc = doc_path(s, &p, href, doc, why);
	if (rc == 0 && (*url = cg_buf_take(&b)) == NULL)
		rc = oom(why);
	if (rc != 0) {
		free(*doc);
		*doc = NULL;
	}
	cg_buf_fini(&b);
	return rc;
}

int
cg_llms_redirect(const cg_llms_site *s, const char *from, const char *location,
                 char **url, cg_err *why)
{
	size_t n = strlen(location);
	size_t k = scheme_len(location);
	struct url f;
	struct url p;
	cg_buf b;
	int rc = 0;

	*url = NULL;
	cg_err_clear(why);
	if (n == 0 || bad_text(location, n) || !split_url(from, &f))
		return refuse(why, location, "not a URL to follow");
	if (k > 0 && !is_http(location, k))
		return refuse(why, location,
		              "a redirect to a scheme other than http(s)");
	cg_buf_init(&b, CG_LLMS_URL_MAX);
	if (k == 0 && location[0] == '/' && n > 1 && location[1] == '/')
		rc = cg_buf_printf(&b, "%.*s:", (int)f.scheme_len, f.scheme);
	else if (k == 0 && location[0] == '/')
		rc = cg_buf_printf(&b, "%.*s://%.*s", (int)f.scheme_len,
		                   f.scheme, (int)f.auth_len, f.auth);
	else if (k == 0) {
		const char *dir = memrchr(f.path, '/', f.path_len);
		size_t dn = dir != NULL ? (size_t)(dir - f.path) + 1 : 0;

		rc = cg_buf_printf(&b, "%.*s://%.*s%.*s%s", (int)f.scheme_len,
		                   f.scheme, (int)f.auth_len, f.auth, (int)dn,
		                   f.path, dn == 0 ? "/" : "");
	}
	if (rc == 0)
		rc = put_encoded(&b, location, strcspn(location, "#"));
	if (rc != 0)
		rc = refuse(why, location, "a URL over 2048 bytes");
	if (rc == 0 && !split_url(cg_buf_str(&b), &p))
		rc = refuse(why, location, "not an http(s) URL");
	if (rc == 0)
		rc = allowed(s, &p, location, why);
	if (rc == 0 && (*url = cg_buf_take(&b)) == NULL)
		rc = oom(why);
	cg_buf_fini(&b);
	return rc;
}

char *
cg_llms_doc_of(const char *path)
{
	size_t n = strlen(path);
	char *d = malloc(n + 4);

	if (d == NULL)
		return NULL;
	memcpy(d, path, n + 1);
	if (!ends_with(path, n, ".md"))
		memcpy(d + n, ".md", 4);
	return d;
}

/* The slug of s: lowercase ASCII letters and digits, a run of anything
 * else one '-', none at either end; into out (cap bytes). */
static void
slug(const char *s, char *out, size_t cap)
{
	size_t o = 0;
	bool dash = false;

	for (; *s != '\0' && o + 2 < cap; s++) {
		char c = *s;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (dash && o > 0)
				out[o++] = '-';
			out[o++] = c;
			dash = false;
		} else {
			dash = true;
		}
	}
	out[o] = '\0';
}

bool
cg_llms_section_in(const char *name, char *const *sections)
{
	char a[256];
	char b[256];

	if (name == NULL)
		return false;
	slug(name, a, sizeof(a));
	for (size_t i = 0; sections != NULL && sections[i] != NULL; i++) {
		const char *s = sections[i];
		const char *t = name;
		size_t sn = strlen(s);
		size_t tn = strlen(t);

		cg_trim(&s, &sn, CG_SPACES);
		cg_trim(&t, &tn, CG_SPACES);
		if (sn == tn && strncasecmp(s, t, sn) == 0)
			return true;
		slug(sections[i], b, sizeof(b));
		if (a[0] != '\0' && strcmp(a, b) == 0)
			return true;
	}
	return false;
}
