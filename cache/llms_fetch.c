/*
 * llms_fetch.c - the refresh of a corpus's llms-txt sources (see
 * llms_fetch.h for the rules): manifests first, then every wanted page on
 * one cache/httpc.h batch, each answer judged as it comes in (its body
 * written into the stage, then dropped from the batch), then one publish.
 *
 * Invariants: the published folder is never written to (a page is written
 * only into the stage, after unlinking the hard link it replaces);
 * nothing is written at a document path cache/llms_txt.h did not make
 * (relative, checked segments, below docs/<sid>); every request is bounded
 * by the body caps, its timeout and the run's deadline.  Must not: print,
 * send a token or custom header, index.
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE, syncfs */
#include "cache/llms_fetch.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cache/corpus.h"
#include "cache/hiivmind.h"
#include "cache/httpc.h"
#include "cache/llms_txt.h"
#include "common/cg_analyzer.h"
#include "common/cg_fs.h"
#include "common/cg_sha256.h"
#include "common/cg_utf8.h"

/* One page a source wants. */
struct page {
	char *doc;         /* below docs/<sid> */
	char *url;         /* as the manifest resolves it */
	char *at;          /* the URL asked now (after redirects) */
	uint64_t line;     /* the manifest line's hash */
	const json_t *old; /* its record from the last refresh, or NULL */
	int hops;          /* redirects followed */
	bool have;         /* a cached copy exists (kept unless replaced) */
	bool wrote;        /* new bytes written into the stage */
	bool ok;           /* answered (200 or 304): the record is new */
	char hash[CG_SHA256_TEXT];
	char etag[256];
	char lm[64];
};

/* One llms-txt source of the corpus. */
struct src {
	const cg_hm_source *s;
	cg_llms_site site;
	bool site_ok;
	json_t *old;  /* _llms/<sid>.json, or NULL */
	char *cached; /* _llms/<sid>.txt, or NULL */
	size_t cached_len;
	char *at; /* the manifest URL asked now */
	int hops;
	bool failed;
	cg_err err; /* when failed */
	char *text; /* the manifest now */
	size_t len;
	bool changed; /* its bytes differ from the cached copy */
	char etag[256];
	char lm[64];
	char hash[CG_SHA256_TEXT];
	cg_llms m; /* parsed */
	struct page *pages;
	size_t npages;
	size_t cached_pages; /* pages cached once done */
};

/* What a request of the batch is for. */
struct want {
	struct src *src;
	struct page *page; /* NULL: the manifest */
};

/* One corpus's refresh. */
struct run {
	const char *dir;
	const char *stage;
	const cg_llms_opts *o;
	cg_llms_report *rep;
	cg_hm_config cfg;
	struct src *v;
	size_t n;
	cg_httpc *h;
	struct want *wants; /* by request id */
	size_t nwants, capwants;
	bool staged; /* the stage exists */
	int rc;      /* sticky: a failure of the stage itself */
	cg_err err;
};

void
cg_llms_opts_init(cg_llms_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_ms = 30000;
}

static void say(struct run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
say(struct run *r, const char *fmt, ...)
{
	char line[CG_ERR_MSG_MAX + 256];
	va_list ap;

	if (r->o->line == NULL)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->o->line(r->o->ud, line);
}

/* --- files ------------------------------------------------------------ */

/* errno's text (strerror_r: strerror is not thread safe). */
static const char *
syserr(int e, char *buf, size_t n)
{
	return strerror_r(e, buf, n); /* GNU: returns the text */
}

/* "<dir>/<mid>/<a><b>" (malloc'd): a record is dir/_llms/<sid>.json, a
 * page dir/docs/<sid>/<doc>. */
static char *
path_in(const char *dir, const char *mid, const char *a, const char *b)
{
	size_t n = strlen(dir) + strlen(mid) + strlen(a) + strlen(b) + 4;
	char *p = malloc(n);

	if (p != NULL)
		(void)snprintf(p, n, "%s/%s/%s%s", dir, mid, a, b);
	return p;
}

static char *
record_path(const char *dir, const char *sid, const char *ext)
{
	return path_in(dir, CG_LLMS_STATE_DIR, sid, ext);
}

static char *
doc_path(const char *dir, const char *sid, const char *doc)
{
	char *d = path_in(dir, CG_CORPUS_DIR, sid, "/");
	char *p = d != NULL ? cg_path_join(d, doc) : NULL;

	free(d);
	return p;
}

static bool
exists(const char *path)
{
	struct stat st;

	return path != NULL && lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Writes a stage file: the hard link to the published copy is removed
 * first, then a new file is made (O_EXCL, no symlink followed), so the
 * published inode is never touched.  Not synced: the publish syncs. */
static int
stage_write(const char *path, const void *data, size_t len, cg_err *err)
{
	char eb[128];
	const char *p = data;
	int fd;
	int rc = cg_mkdir_parents(path, err);

	if (rc != 0)
		return rc;
	if (unlink(path) != 0 && errno != ENOENT)
		return cg_err_set(err, CG_EIO, "%s: %s", path,
		                  syserr(errno, eb, sizeof(eb)));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	          0644);
	if (fd < 0)
		return cg_err_set(err, CG_EIO, "%s: %s", path,
		                  syserr(errno, eb, sizeof(eb)));
	while (len > 0 && rc == 0) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rc = cg_err_set(err, CG_EIO, "%s: %s", path,
			                syserr(errno, eb, sizeof(eb)));
		else {
			p += k;
			len -= (size_t)k;
		}
	}
	if (close(fd) != 0 && rc == 0)
		rc = cg_err_set(err, CG_EIO, "%s: %s", path,
		                syserr(errno, eb, sizeof(eb)));
	return rc;
}

/* The stage, made on first need as a hard-link copy of the published
 * folder. */
static int
need_stage(struct run *r)
{
	if (r->staged || r->rc != 0)
		return r->rc;
	(void)cg_rm_rf(r->stage);
	r->rc = cg_tree_link(r->dir, r->stage, &r->err);
	if (r->rc == 0)
		r->staged = true;
	return r->rc;
}

/* --- the record of a source -------------------------------------------- */

static const char *
jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s != NULL ? s : "";
}

/* The old record of the page at doc, or NULL. */
static const json_t *
old_page(const struct src *s, const char *doc)
{
	return json_object_get(json_object_get(s->old, "pages"), doc);
}

static json_t *
page_json(const struct page *p)
{
	char line[17];

	(void)snprintf(line, sizeof(line), "%016llx",
	               (unsigned long long)p->line);
	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "url", p->url, "line",
	                 line, "etag", p->etag, "last_modified", p->lm, "hash",
	                 p->hash);
}

/* The new record: the manifest's validators and every page cached. */
static json_t *
record_json(struct src *s)
{
	json_t *pages = json_object();
	json_t *o;

	s->cached_pages = 0;
	for (size_t i = 0; i < s->npages; i++) {
		const struct page *p = &s->pages[i];

		if (!p->ok && !p->have)
			continue;
		s->cached_pages++;
		json_object_set_new(pages, p->doc,
		                    p->ok ? page_json(p)
		                          : json_deep_copy(p->old));
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:o}", "manifest_url",
	              s->s->manifest_url, "etag", s->etag, "last_modified",
	              s->lm, "hash", s->hash, "listed", (int)s->m.n, "pages",
	              pages);
	return o;
}

/* --- requests ---------------------------------------------------------- */

static int
ask(struct run *r, struct src *s, struct page *p, const char *url,
    const char *etag, const char *since, cg_err *err)
{
	cg_httpc_req rq;
	size_t id;
	int rc;

	if (r->nwants == r->capwants) {
		size_t cap = r->capwants ? r->capwants * 2 : 64;
		struct want *v = realloc(r->wants, cap * sizeof(*v));

		if (v == NULL)
			return cg_err_set(err, CG_ENOMEM, "out of memory");
		r->wants = v;
		r->capwants = cap;
	}
	memset(&rq, 0, sizeof(rq));
	rq.url = url;
	rq.accept = CG_LLMS_ACCEPT;
	rq.etag = etag;
	rq.since = since;
	rq.body_max = p == NULL ? CG_LLMS_MAX_BYTES : CG_LLMS_PAGE_MAX;
	rq.max_redirects = 0; /* followed here, each hop checked */
	rq.timeout_ms = r->o->timeout_ms;
	rc = cg_httpc_add(r->h, &rq, &id, err);
	if (rc != 0)
		return rc;
	/* ids count from 0 in the order added: id == r->nwants */
	r->wants[r->nwants].src = s;
	r->wants[r->nwants].page = p;
	r->nwants++;
	(void)id;
	return 0;
}

/* A 3xx: the next hop, checked; false (why set) when it is refused or
 * the chain is too long. */
static bool
follow(struct run *r, struct src *s, struct page *p, char **at, int *hops,
       const cg_httpc_res *res, cg_err *why)
{
	char *next = NULL;
	cg_err e;

	if (res->location[0] == '\0') {
		cg_err_set(why, CG_EPROTO, "GET %s: %ld without a Location",
		           res->shown, res->status);
		return false;
	}
	if (++*hops > CG_LLMS_REDIRECTS) {
		cg_err_set(why, CG_EPROTO,
		           "GET %s: more than %d redirects (a loop?)",
		           res->shown, CG_LLMS_REDIRECTS);
		return false;
	}
	cg_err_clear(&e);
	if (cg_llms_redirect(&s->site, *at, res->location, &next, &e) != 0) {
		cg_err_set(why, CG_EDENIED, "GET %s: redirect refused: %s",
		           res->shown, e.msg);
		return false;
	}
	free(*at);
	*at = next;
	return ask(r, s, p, next, p != NULL ? p->etag : NULL,
	           p != NULL ? p->lm : NULL, why) == 0;
}

static bool
is_redirect(long st)
{
	return st == 301 || st == 302 || st == 303 || st == 307 || st == 308;
}

/* The manifest answered (or not). */
static void
manifest_done(struct run *r, struct src *s, const cg_httpc_res *res)
{
	cg_err why;

	cg_err_clear(&why);
	if (res->code != 0) {
		s->failed = true;
		(void)cg_err_set(&s->err, res->code, "%s", res->err.msg);
		return;
	}
	if (is_redirect(res->status)) {
		if (!follow(r, s, NULL, &s->at, &s->hops, res, &why)) {
			s->failed = true;
			s->err = why;
		}
		return;
	}
	if (res->status == 304 && s->cached != NULL) {
		s->text = s->cached;
		s->len = s->cached_len;
		s->cached = NULL;
	} else if (res->status == 200) {
		s->text = malloc(res->len + 1);
		if (s->text == NULL) {
			s->failed = true;
			(void)cg_err_set(&s->err, CG_ENOMEM, "out of memory");
			return;
		}
		memcpy(s->text, res->body, res->len + 1);
		s->len = res->len;
	} else {
		s->failed = true;
		(void)cg_err_set(&s->err, CG_EPROTO, "GET %s: HTTP %ld",
		                 res->shown, res->status);
		return;
	}
	(void)snprintf(s->etag, sizeof(s->etag), "%s",
	               res->status == 304 ? jstr(s->old, "etag") : res->etag);
	(void)snprintf(s->lm, sizeof(s->lm), "%s",
	               res->status == 304 ? jstr(s->old, "last_modified")
	                                  : res->last_modified);
	if (res->status == 304 && res->etag[0] != '\0')
		(void)snprintf(s->etag, sizeof(s->etag), "%s", res->etag);
}

/* A page's 200: kept when its bytes are the cached copy's, else written
 * into the stage. */
static void
page_body(struct run *r, struct src *s, struct page *p, const cg_httpc_res *res)
{
	size_t fixed = 0;
	size_t n = 0;
	char *clean = cg_utf8_sanitize(res->body, res->len, &n, &fixed);
	char *path;
	cg_err e;

	if (clean == NULL) {
		r->rc = cg_err_set(&r->err, CG_ENOMEM, "out of memory");
		return;
	}
	if (fixed > 0)
		say(r,
		    "corpus %s: source %s: page %s: %zu invalid UTF-8 "
		    "sequences replaced",
		    r->o->corpus_id, s->s->id, p->doc, fixed);
	cg_sha256_text(clean, n, p->hash);
	p->ok = true;
	if (p->have && p->old != NULL &&
	    strcmp(jstr(p->old, "hash"), p->hash) == 0) {
		r->rep->kept++;
		free(clean);
		return;
	}
	cg_err_clear(&e);
	path = need_stage(r) == 0 ? doc_path(r->stage, s->s->id, p->doc) : NULL;
	if (path == NULL || stage_write(path, clean, n, &e) != 0) {
		/* The stage is broken (or the document path is taken by a
		 * folder): this page is not cached now. */
		say(r, "corpus %s: source %s: %s not written: %s",
		    r->o->corpus_id, s->s->id, p->doc,
		    path == NULL ? r->err.msg : e.msg);
		p->ok = false;
		r->rep->bad++;
	} else {
		p->wrote = true;
		p->have = true;
		r->rep->fetched++;
	}
	free(path);
	free(clean);
}

static void
page_done(struct run *r, struct src *s, struct page *p, const cg_httpc_res *res)
{
	cg_err why;

	cg_err_clear(&why);
	if (res->code == 0 && is_redirect(res->status)) {
		if (follow(r, s, p, &p->at, &p->hops, res, &why))
			return;
	} else if (res->code == 0 && res->status == 304 && p->have) {
		(void)snprintf(p->hash, sizeof(p->hash), "%s",
		               jstr(p->old, "hash"));
		if (res->etag[0] != '\0')
			(void)snprintf(p->etag, sizeof(p->etag), "%s",
			               res->etag);
		p->ok = true;
		r->rep->kept++;
		return;
	} else if (res->code == 0 && res->status == 200) {
		(void)snprintf(p->etag, sizeof(p->etag), "%s", res->etag);
		(void)snprintf(p->lm, sizeof(p->lm), "%s", res->last_modified);
		page_body(r, s, p, res);
		return;
	} else if (res->code != 0) {
		why = res->err;
	} else {
		(void)cg_err_set(&why, CG_EPROTO, "GET %s: HTTP %ld",
		                 res->shown, res->status);
	}
	r->rep->bad++;
	say(r, "corpus %s: source %s: page %s: %s%s", r->o->corpus_id, s->s->id,
	    p->doc, why.msg,
	    p->have ? "; the cached copy stays" : "; not cached");
}

static void
answered(void *ud, size_t id, const cg_httpc_res *res)
{
	struct run *r = ud;
	struct want w = r->wants[id];

	if (w.page == NULL)
		manifest_done(r, w.src, res);
	else
		page_done(r, w.src, w.page, res);
	cg_httpc_drop_body(r->h, id);
}

/* --- the steps --------------------------------------------------------- */

static void
src_fini(struct src *s)
{
	for (size_t i = 0; i < s->npages; i++) {
		free(s->pages[i].doc);
		free(s->pages[i].url);
		free(s->pages[i].at);
	}
	free(s->pages);
	cg_llms_fini(&s->m);
	cg_llms_site_fini(&s->site);
	json_decref(s->old);
	free(s->cached);
	free(s->text);
	free(s->at);
}

/* The site, the record and the cached manifest of one source. */
static void
src_init(struct run *r, struct src *s, const cg_hm_source *hs)
{
	char *rec = record_path(r->dir, hs->id, ".json");
	char *txt = record_path(r->dir, hs->id, ".txt");
	cg_err e;

	memset(s, 0, sizeof(*s));
	s->s = hs;
	cg_err_clear(&s->err);
	cg_err_clear(&e);
	if (cg_llms_site_init(&s->site, hs->manifest_url, hs->base_url,
	                      hs->suffix, &s->err) == 0)
		s->site_ok = true;
	else
		s->failed = true;
	if (rec != NULL)
		s->old = json_load_file(rec, 0, NULL);
	if (txt != NULL && s->old != NULL &&
	    cg_file_read(txt, CG_LLMS_MAX_BYTES, &s->cached, &s->cached_len,
	                 &e) != 0)
		s->cached = NULL;
	free(rec);
	free(txt);
}

/* gcc 12's -fanalyzer does not track a pointer stored at a symbolic index
 * of a heap array (r->v[i].at, r->v[i].pages) and calls it leaked at the
 * next statement, even when stored through a local first; src_fini frees
 * both.  Only this false positive is silenced, only here (clang has no
 * such warning). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
/* Every manifest, asked (conditionally when a copy is cached). */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): s->at is stored in
 * an element of r->v, which src_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
ask_manifests(struct run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct src *s = &r->v[i];
		bool cond = s->cached != NULL;

		if (s->failed)
			continue;
		s->at = strdup(s->site.manifest);
		if (s->at == NULL ||
		    ask(r, s, NULL, s->at, cond ? jstr(s->old, "etag") : NULL,
		        cond ? jstr(s->old, "last_modified") : NULL,
		        &s->err) != 0)
			s->failed = true;
	}
	return cg_httpc_run(r->h, answered, r);
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* True when the link's page is wanted by the source's strategy. */
static bool
wanted(const struct src *s, const cg_llms_link *l)
{
	if (s->s->strategy == CG_HM_FULL)
		return true;
	if (s->s->strategy == CG_HM_SELECTIVE)
		return cg_llms_section_in(l->section, s->s->sections);
	return false;
}

/* One wanted page (first link of a document wins). */
static int
add_page(struct run *r, struct src *s, const cg_llms_link *l, char *url,
         char *doc)
{
	struct page *p;
	char *path;

	for (size_t i = 0; i < s->npages; i++)
		if (strcmp(s->pages[i].doc, doc) == 0) {
			free(url);
			free(doc);
			return 0;
		}
	p = &s->pages[s->npages++];
	memset(p, 0, sizeof(*p));
	p->doc = doc;
	p->url = url;
	p->line = l->line_hash;
	p->old = old_page(s, doc);
	path = doc_path(r->dir, s->s->id, doc);
	p->have = p->old != NULL && exists(path);
	free(path);
	r->rep->wanted++;
	return 0;
}

/* The manifest parsed and its wanted pages resolved. */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): s->pages is stored
 * in an element of r->v, which src_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static void
plan_pages(struct run *r, struct src *s)
{
	cg_err why;

	cg_err_clear(&why);
	cg_sha256_text(s->text, s->len, s->hash);
	s->changed = strcmp(s->hash, jstr(s->old, "hash")) != 0;
	if (cg_llms_parse(&s->m, s->text, s->len, &s->err) != 0) {
		s->failed = true;
		return;
	}
	for (size_t i = 0; s->m.warnings[i] != NULL; i++)
		say(r, "corpus %s: source %s: manifest: %s", r->o->corpus_id,
		    s->s->id, s->m.warnings[i]);
	r->rep->listed += (int)s->m.n;
	s->pages = calloc(s->m.n + 1, sizeof(*s->pages));
	if (s->pages == NULL) {
		s->failed = true;
		(void)cg_err_set(&s->err, CG_ENOMEM, "out of memory");
		return;
	}
	for (size_t i = 0; i < s->m.n; i++) {
		const cg_llms_link *l = &s->m.links[i];
		char *url = NULL;
		char *doc = NULL;

		if (!wanted(s, l))
			continue;
		if (cg_llms_resolve(&s->site, l->href, &url, &doc, &why) != 0) {
			say(r, "corpus %s: source %s: manifest line %zu: %s",
			    r->o->corpus_id, s->s->id, l->line, why.msg);
			continue;
		}
		(void)add_page(r, s, l, url, doc);
	}
}
CG_ANALYZER_STORE_INTO_ARRAY_END

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Every wanted page, asked: conditionally when its line and validators
 * are the cached copy's. */
static int
ask_pages(struct run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct src *s = &r->v[i];

		for (size_t k = 0; !s->failed && k < s->npages; k++) {
			struct page *p = &s->pages[k];
			char line[17];
			bool cond;
			cg_err e;

			(void)snprintf(line, sizeof(line), "%016llx",
			               (unsigned long long)p->line);
			cond = p->have &&
			       strcmp(jstr(p->old, "line"), line) == 0 &&
			       strcmp(jstr(p->old, "url"), p->url) == 0;
			if (cond) {
				(void)snprintf(p->etag, sizeof(p->etag), "%s",
				               jstr(p->old, "etag"));
				(void)snprintf(p->lm, sizeof(p->lm), "%s",
				               jstr(p->old, "last_modified"));
			}
			cg_err_clear(&e);
			/* defensive: add_page always sets url */
			p->at = p->url != NULL ? strdup(p->url) : NULL;
			if (p->at == NULL ||
			    ask(r, s, p, p->at, cond ? p->etag : NULL,
			        cond ? p->lm : NULL, &e) != 0) {
				r->rep->bad++;
				say(r, "corpus %s: source %s: page %s: %s",
				    r->o->corpus_id, s->s->id, p->doc, e.msg);
			}
		}
	}
	return cg_httpc_run(r->h, answered, r);
}

/* Pages of the old record that the new one no longer has: removed from
 * the stage. */
static bool
remove_gone(struct run *r, struct src *s, const json_t *rec)
{
	const json_t *old = json_object_get(s->old, "pages");
	const char *doc;
	json_t *v;
	bool any = false;

	json_object_foreach((json_t *)old, doc, v) {
		char *path;

		if (json_object_get(json_object_get(rec, "pages"), doc) != NULL)
			continue;
		if (need_stage(r) != 0)
			return any;
		path = doc_path(r->stage, s->s->id, doc);
		if (path != NULL && unlink(path) == 0)
			r->rep->removed++;
		free(path);
		any = true;
	}
	(void)v;
	return any;
}

/* The source's new record and manifest into the stage, when anything of
 * it changed. */
static void
settle_source(struct run *r, struct src *s)
{
	json_t *rec = record_json(s);
	char *a = rec ? json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	char *b =
	    s->old ? json_dumps(s->old, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	bool gone = rec != NULL && remove_gone(r, s, rec);
	char *path;

	if (a == NULL) {
		r->rc = cg_err_set(&r->err, CG_ENOMEM, "out of memory");
	} else if (gone || s->changed || b == NULL || strcmp(a, b) != 0) {
		if (need_stage(r) == 0 &&
		    (path = record_path(r->stage, s->s->id, ".json")) != NULL) {
			r->rc = stage_write(path, a, strlen(a), &r->err);
			free(path);
		}
		if (r->rc == 0 &&
		    (path = record_path(r->stage, s->s->id, ".txt")) != NULL) {
			r->rc = stage_write(path, s->text, s->len, &r->err);
			free(path);
		}
	}
	free(a);
	free(b);
	json_decref(rec);
}

/* _cache_meta.json's cached_at moves; then the stage replaces the
 * published folder in one exchange and the old tree goes. */
static int
publish(struct run *r)
{
	char eb[128];
	cg_cache_meta m;
	cg_err e;
	int fd;
	int rc;

	cg_err_clear(&e);
	if (cg_cache_meta_read(&m, r->stage, &e) == 0) {
		cg_utc_stamp(m.cached_at, time(NULL));
		rc = cg_cache_meta_write(&m, r->stage, &r->err);
		if (rc != 0)
			return rc;
	}
	fd = open(r->stage, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)syncfs(fd);
		close(fd);
	}
	if (renameat2(AT_FDCWD, r->stage, AT_FDCWD, r->dir, RENAME_EXCHANGE) !=
	    0)
		return cg_err_set(&r->err, CG_EIO, "publish %s: %s", r->dir,
		                  syserr(errno, eb, sizeof(eb)));
	(void)cg_rm_rf(r->stage); /* the old tree */
	r->staged = false;
	r->rep->published = true;
	return 0;
}

/* .corpus-gw/<id>.llms.json: per source, when asked, pages, outcome. */
static void
write_status(struct run *r)
{
	json_t *old = r->o->status_path
	                  ? json_load_file(r->o->status_path, 0, NULL)
	                  : NULL;
	json_t *st = json_object();
	char now[32];
	cg_err e;

	if (r->o->status_path == NULL || st == NULL) {
		json_decref(old);
		json_decref(st);
		return;
	}
	cg_utc_stamp(now, time(NULL));
	for (size_t i = 0; i < r->n; i++) {
		const struct src *s = &r->v[i];
		const json_t *was = json_object_get(old, s->s->id);
		const char *changed = jstr(was, "manifest_changed_at");

		if (!s->failed && (s->changed || changed[0] == '\0'))
			changed = now;
		json_object_set_new(
		    st, s->s->id,
		    json_pack(
		        "{s:s, s:s, s:i, s:i, s:s}", "manifest_checked_at", now,
		        "manifest_changed_at", changed, "listed",
		        s->failed
		            ? json_integer_value(json_object_get(was, "listed"))
		            : (json_int_t)s->m.n,
		        "cached",
		        s->failed
		            ? json_integer_value(json_object_get(was, "cached"))
		            : (json_int_t)s->cached_pages,
		        "outcome", s->failed ? s->err.msg : "ok"));
	}
	{
		char *text = json_dumps(st, JSON_INDENT(2) | JSON_SORT_KEYS);

		cg_err_clear(&e);
		if (text != NULL)
			(void)cg_file_write_atomic(r->o->status_path, text,
			                           strlen(text), &e);
		free(text);
	}
	json_decref(old);
	json_decref(st);
}

/* The corpus's config.yaml, and its llms-txt sources. */
static int
load_sources(struct run *r, cg_err *err)
{
	cg_err e;

	cg_err_clear(&e);
	/* No config, or a damaged one (the node reports it): no sources. */
	if (cg_corpus_config_read(&r->cfg, r->dir, &e) != 0)
		return 0;
	r->v = calloc(r->cfg.nsources + 1, sizeof(*r->v));
	if (r->v == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	for (size_t i = 0; i < r->cfg.nsources; i++) {
		const cg_hm_source *s = &r->cfg.sources[i];

		if (s->type != NULL && strcmp(s->type, "llms-txt") == 0)
			src_init(r, &r->v[r->n++], s);
	}
	return 0;
}

static void
count(struct run *r)
{
	const cg_httpc_res *res;

	for (size_t i = 0; (res = cg_httpc_res_of(r->h, i)) != NULL; i++) {
		r->rep->requests++;
		r->rep->connections += res->connections;
		r->rep->bytes += res->bytes;
	}
}

/* Both batches, each source settled, one publish. */
static int
refresh(struct run *r, cg_err *err)
{
	cg_httpc_opts ho;
	int rc;

	cg_httpc_opts_init(&ho);
	ho.deadline_ms = r->o->deadline_ms;
	rc = cg_httpc_new(&r->h, &ho, err);
	if (rc == 0)
		rc = ask_manifests(r);
	for (size_t i = 0; rc == 0 && i < r->n; i++)
		if (!r->v[i].failed)
			plan_pages(r, &r->v[i]);
	if (rc == 0)
		rc = ask_pages(r);
	for (size_t i = 0; rc == 0 && r->rc == 0 && i < r->n; i++)
		if (!r->v[i].failed)
			settle_source(r, &r->v[i]);
	if (rc == 0 && r->rc == 0 && r->staged)
		r->rc = publish(r);
	if (rc == 0 && r->rc != 0)
		rc = cg_err_set(err, r->rc, "%s", r->err.msg);
	if (r->h != NULL)
		count(r);
	return rc;
}

int
cg_llms_refresh(const char *dir, const char *stage, const cg_llms_opts *o,
                cg_llms_report *rep, cg_err *err)
{
	struct run r;
	int rc;

	memset(&r, 0, sizeof(r));
	memset(rep, 0, sizeof(*rep));
	r.dir = dir;
	r.stage = stage;
	r.o = o;
	r.rep = rep;
	cg_err_clear(&r.err);
	rc = load_sources(&r, err);
	if (rc == 0 && r.n > 0)
		rc = refresh(&r, err);
	rep->sources = (int)r.n;
	for (size_t i = 0; i < r.n; i++) {
		struct src *s = &r.v[i];

		if (!s->failed)
			continue;
		rep->failed++;
		say(&r,
		    "corpus %s: source %s: manifest %s: %s; the cached pages "
		    "keep serving",
		    o->corpus_id, s->s->id, s->s->manifest_url, s->err.msg);
		if (rc == 0)
			rc = cg_err_set(err, s->err.code ? s->err.code : CG_ERR,
			                "source %s: %s", s->s->id, s->err.msg);
	}
	if (r.n > 0 && r.h != NULL)
		write_status(&r);
	if (r.staged)
		(void)cg_rm_rf(stage);
	for (size_t i = 0; i < r.n; i++)
		src_fini(&r.v[i]);
	free(r.v);
	free(r.wants);
	cg_httpc_free(r.h);
	if (r.cfg.sources != NULL || r.cfg.warnings != NULL)
		cg_hm_config_fini(&r.cfg);
	return rc;
}

char *
cg_llms_status_path(const char *cache_root, const char *id)
{
	return cg_corpus_state_file(cache_root, id, ".llms.json");
}

/* --- a git update keeps the cached pages ---------------------------------- */

/* Links src into dst when src exists (a file or a folder). */
static int
carry_one(const char *src, const char *dst, cg_err *err)
{
	char eb[128];
	struct stat st;
	int rc;

	if (src == NULL || dst == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	if (lstat(src, &st) != 0)
		return 0;
	rc = cg_mkdir_parents(dst, err);
	if (rc != 0)
		return rc;
	(void)cg_rm_rf(dst);
	if (S_ISDIR(st.st_mode))
		return cg_tree_link(src, dst, err);
	if (S_ISREG(st.st_mode) && link(src, dst) != 0)
		return cg_err_set(err, CG_EIO, "link %s: %s", dst,
		                  syserr(errno, eb, sizeof(eb)));
	return 0;
}

int
cg_llms_carry(const char *dir, const char *stage, const char *sid, cg_err *err)
{
	static const char *const ext[] = {".json", ".txt"};
	char *a = doc_path(dir, sid, "");
	char *b = doc_path(stage, sid, "");
	int rc = carry_one(a, b, err);

	free(a);
	free(b);
	for (size_t i = 0; rc == 0 && i < 2; i++) {
		a = record_path(dir, sid, ext[i]);
		b = record_path(stage, sid, ext[i]);
		rc = carry_one(a, b, err);
		free(a);
		free(b);
	}
	return rc;
}
