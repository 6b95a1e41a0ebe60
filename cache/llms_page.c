/*
 * llms_page.c - the on-demand read of an llms-txt page (see llms_page.h
 * for the rules and where the copies live): the page found in the cached
 * manifest, its copy judged fresh or asked for on one cache/httpc.h
 * request (redirects followed by hand, each hop checked), written to a
 * temporary name and renamed, then opened.
 *
 * Invariants: nothing is written outside <cache root>/.corpus-gw/<id>.pages
 * and only at a document path cg_llms_resolve made (relative, checked
 * segments); the published corpus folder is only read; every request is
 * bounded by the page cap and the caller's deadline.  Must not: print,
 * send a token, take the fetch lock.
 */
#define _GNU_SOURCE
#include "cache/llms_page.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cache/corpus.h"
#include "cache/hiivmind.h"
#include "cache/httpc.h"
#include "cache/llms_fetch.h"
#include "common/cg_fs.h"
#include "common/cg_time.h"
#include "common/cg_utf8.h"

#define DEFAULT_WAIT_MS 30000
#define MIN_WAIT_MS     20 /* less left than this: not worth a request */

/* One on-demand read. */
struct od {
	char *dir;  /* the published corpus */
	char *copy; /* <pages>/<sid>/<doc> */
	char *rec;  /* <copy>.json */
	char *url;  /* as the manifest resolves it */
	char line[17];
	json_t *old; /* the copy's record, or NULL */
	cg_llms_site site;
	bool site_ok;
};

char *
cg_llms_pages_dir(const char *cache_root, const char *id)
{
	return cg_corpus_state_file(cache_root, id, ".pages");
}

static int64_t
now_real_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *
jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s != NULL ? s : "";
}

/* Failures return their code themselves, not cg_err_set's return: the
 * "rc == 0" tests before a success's fields are used then stay provable
 * to clang-analyzer, which cannot see into cg_err.c. */
static int
oom(cg_err *err)
{
	(void)cg_err_set(err, CG_ENOMEM, "out of memory");
	return CG_ENOMEM;
}

/* The llms-txt source sid of the corpus at dir, or NULL. */
static const cg_hm_source *
find_source(const cg_hm_config *cfg, const char *sid, size_t n)
{
	for (size_t i = 0; i < cfg->nsources; i++) {
		const cg_hm_source *s = &cfg->sources[i];

		if (s->type != NULL && strcmp(s->type, "llms-txt") == 0 &&
		    s->id != NULL && strlen(s->id) == n &&
		    strncmp(s->id, sid, n) == 0)
			return s;
	}
	return NULL;
}

/* The link of the cached manifest whose document is doc (the first, as
 * the refresh takes it): its URL and line hash into o. */
static int
find_link(struct od *o, const cg_hm_source *s, const char *doc, cg_err *err)
{
	char *path = NULL;
	char *text = NULL;
	size_t len = 0;
	cg_llms m;
	cg_err e;
	int rc;

	cg_err_clear(&e);
	len = strlen(o->dir) + strlen(CG_LLMS_STATE_DIR) + strlen(s->id) + 8;
	path = malloc(len);
	if (path == NULL)
		return oom(err);
	(void)snprintf(path, len, "%s/%s/%s.txt", o->dir, CG_LLMS_STATE_DIR,
	               s->id);
	if (cg_file_read(path, CG_LLMS_MAX_BYTES, &text, &len, &e) != 0) {
		free(path);
		return CG_ENOTFOUND; /* no manifest cached: nothing listed */
	}
	free(path);
	memset(&m, 0, sizeof(m));
	rc = cg_llms_site_init(&o->site, s->manifest_url, s->base_url,
	                       s->suffix, &e);
	o->site_ok = rc == 0;
	if (rc == 0)
		rc = cg_llms_parse(&m, text, len, &e);
	free(text);
	if (rc != 0)
		return rc == CG_ENOMEM ? oom(err) : CG_ENOTFOUND;
	rc = CG_ENOTFOUND;
	for (size_t i = 0; rc == CG_ENOTFOUND && i < m.n; i++) {
		char *url = NULL;
		char *d = NULL;

		if (cg_llms_resolve(&o->site, m.links[i].href, &url, &d, &e) ==
		        0 &&
		    strcmp(d, doc) == 0) {
			o->url = url;
			url = NULL;
			(void)snprintf(
			    o->line, sizeof(o->line), "%016llx",
			    (unsigned long long)m.links[i].line_hash);
			rc = 0;
		}
		free(url);
		free(d);
	}
	cg_llms_fini(&m);
	return rc;
}

/* The copy is served without asking: its URL and line are the manifest's
 * and it was fetched after the manifest was last asked. */
static bool
fresh(const struct od *o, const char *status)
{
	struct stat st;
	int64_t asked = 0;

	if (o->old == NULL || strcmp(jstr(o->old, "url"), o->url) != 0 ||
	    strcmp(jstr(o->old, "line"), o->line) != 0)
		return false;
	if (status != NULL && stat(status, &st) == 0)
		asked = (int64_t)st.st_mtim.tv_sec * 1000 +
		        st.st_mtim.tv_nsec / 1000000;
	return json_integer_value(json_object_get(o->old, "fetched_at")) >
	       asked;
}

/* The copy is usable at all (an older copy when asking fails). */
static bool
have_copy(const struct od *o)
{
	struct stat st;

	return o->old != NULL && strcmp(jstr(o->old, "url"), o->url) == 0 &&
	       lstat(o->copy, &st) == 0 && S_ISREG(st.st_mode);
}

/* --- asking the site --------------------------------------------------- */

/* One GET of at (conditional when the copy may be revalidated) on h. */
static const cg_httpc_res *
get(cg_httpc *h, const struct od *o, const char *at, bool cond,
    int64_t deadline, cg_err *err)
{
	cg_httpc_req rq;
	int64_t left = deadline - cg_mono_ms();
	size_t id;

	if (left < MIN_WAIT_MS) {
		(void)cg_err_set(err, CG_ETIMEDOUT,
		                 "GET %.200s: the request's deadline left no "
		                 "time to fetch the page",
		                 at);
		return NULL;
	}
	memset(&rq, 0, sizeof(rq));
	rq.url = at;
	rq.accept = CG_LLMS_ACCEPT;
	rq.etag = cond ? jstr(o->old, "etag") : NULL;
	rq.since = cond ? jstr(o->old, "last_modified") : NULL;
	rq.body_max = CG_LLMS_PAGE_MAX;
	rq.max_redirects = 0; /* followed below, each hop checked */
	rq.timeout_ms = (int)left;
	if (cg_httpc_add(h, &rq, &id, err) != 0 ||
	    cg_httpc_run(h, NULL, NULL) != 0)
		return NULL;
	return cg_httpc_res_of(h, id);
}

static bool
is_redirect(long st)
{
	return st == 301 || st == 302 || st == 303 || st == 307 || st == 308;
}

/* The final answer for o->url (redirects followed), or NULL with err. */
static const cg_httpc_res *
ask(cg_httpc *h, const struct od *o, bool cond, int64_t deadline, cg_err *err)
{
	char *at = strdup(o->url);
	const cg_httpc_res *res = NULL;

	for (int hop = 0; at != NULL; hop++) {
		char *next = NULL;
		cg_err why;

		res = get(h, o, at, cond, deadline, err);
		if (res == NULL || res->code != 0 || !is_redirect(res->status))
			break;
		cg_err_clear(&why);
		if (hop == CG_LLMS_REDIRECTS) {
			(void)cg_err_set(err, CG_EPROTO,
			                 "GET %s: more than %d redirects (a "
			                 "loop?)",
			                 res->shown, CG_LLMS_REDIRECTS);
			res = NULL;
		} else if (cg_llms_redirect(&o->site, at, res->location, &next,
		                            &why) != 0) {
			(void)cg_err_set(err, CG_EDENIED,
			                 "GET %s: redirect refused: %s",
			                 res->shown, why.msg);
			res = NULL;
		}
		free(at);
		at = next;
	}
	if (at == NULL && res == NULL && err->code == 0)
		(void)cg_err_set(err, CG_ENOMEM, "out of memory");
	free(at);
	if (res != NULL && res->code != 0) {
		(void)cg_err_set(err, res->code, "%s", res->err.msg);
		return NULL;
	}
	return res;
}

/* The copy and its record written (each to a temporary name, renamed). */
static int
keep(const struct od *o, const cg_httpc_res *res, cg_err *err)
{
	size_t n = 0;
	size_t fixed = 0;
	char *clean = NULL;
	json_t *rec;
	char *text;
	int rc = cg_mkdir_parents(o->copy, err);

	if (rc == 0 && res->status == 200) {
		clean = cg_utf8_sanitize(res->body, res->len, &n, &fixed);
		rc = clean == NULL
		         ? oom(err)
		         : cg_file_write_atomic(o->copy, clean, n, err);
		free(clean);
	}
	if (rc != 0)
		return rc;
	rec = json_pack(
	    "{s:s, s:s, s:s, s:s, s:I}", "url", o->url, "line", o->line, "etag",
	    res->etag[0] || res->status == 200 ? res->etag
	                                       : jstr(o->old, "etag"),
	    "last_modified",
	    res->status == 200 ? res->last_modified
	                       : jstr(o->old, "last_modified"),
	    "fetched_at", (json_int_t)now_real_ms());
	text =
	    rec != NULL ? json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	rc = text == NULL
	         ? oom(err)
	         : cg_file_write_atomic(o->rec, text, strlen(text), err);
	free(text);
	json_decref(rec);
	return rc;
}

/* Asks the site for the page and keeps what it says; 0 when the copy is
 * now fresh. */
static int
refetch(struct od *o, int64_t deadline, cg_llms_page_info *info, cg_err *err)
{
	bool cond = have_copy(o);
	const cg_httpc_res *res;
	cg_httpc *h = NULL;
	cg_httpc_opts ho;
	int rc;

	cg_httpc_opts_init(&ho);
	ho.deadline_ms = deadline;
	rc = cg_httpc_new(&h, &ho, err);
	res = rc == 0 ? ask(h, o, cond, deadline, err) : NULL;
	if (res == NULL)
		rc = err->code != 0 ? err->code : CG_EIO;
	else if (res->status == 200 || (res->status == 304 && cond))
		rc = keep(o, res, err);
	else {
		rc = res->status == 404 || res->status == 410 ? CG_ENOTFOUND
		                                              : CG_EPROTO;
		(void)cg_err_set(err, rc, "GET %s: HTTP %ld", res->shown,
		                 res->status);
	}
	if (rc == 0)
		info->how = res->status == 304 ? "revalidated" : "fetched";
	cg_httpc_free(h);
	return rc;
}

/* --- the read ---------------------------------------------------------- */

/* o's paths, its manifest link and its copy's record for rel. */
static int
locate(struct od *o, const char *root, const char *id, const char *rel,
       cg_llms_page_info *info, cg_err *err)
{
	size_t pre = strlen(CG_CORPUS_DIR "/");
	const char *sid = rel + pre;
	size_t sn;
	const char *doc;
	const cg_hm_source *s;
	cg_hm_config cfg;
	char *pages;
	cg_err e;
	int rc;

	if (strncmp(rel, CG_CORPUS_DIR "/", pre) != 0)
		return CG_ENOTFOUND;
	sn = strcspn(sid, "/");
	if (sn == 0 || sid[sn] != '/' || sid[sn + 1] == '\0')
		return CG_ENOTFOUND;
	doc = sid + sn + 1;
	o->dir = cg_corpus_cache_dir(root, id);
	if (o->dir == NULL)
		return oom(err);
	cg_err_clear(&e);
	memset(&cfg, 0, sizeof(cfg));
	s = cg_corpus_config_read(&cfg, o->dir, &e) == 0
	        ? find_source(&cfg, sid, sn)
	        : NULL;
	rc = s != NULL ? find_link(o, s, doc, err) : CG_ENOTFOUND;
	if (rc == 0) {
		char *where = NULL;

		info->listed = true;
		(void)snprintf(info->url, sizeof(info->url), "%s", o->url);
		pages = cg_llms_pages_dir(root, id);
		if (pages != NULL)
			where = cg_path_join(pages, sid);
		free(pages);
		/* doc is what cg_llms_resolve made: relative, checked
		 * segments, so the copy stays below <id>.pages/<sid>. */
		o->copy = where != NULL ? cg_path_join(where, doc) : NULL;
		free(where);
		if (o->copy != NULL) {
			size_t n = strlen(o->copy) + 8;

			o->rec = malloc(n);
			if (o->rec != NULL)
				(void)snprintf(o->rec, n, "%s.json", o->copy);
		}
		if (o->copy == NULL || o->rec == NULL)
			rc = oom(err);
		else
			o->old = json_load_file(o->rec, 0, NULL);
	}
	if (cfg.sources != NULL || cfg.warnings != NULL)
		cg_hm_config_fini(&cfg);
	return rc;
}

static void
od_fini(struct od *o)
{
	free(o->dir);
	free(o->copy);
	free(o->rec);
	free(o->url);
	json_decref(o->old);
	if (o->site_ok)
		cg_llms_site_fini(&o->site);
}

int
cg_llms_page_open(int *fd, const char *cache_root, const char *id,
                  const char *rel, int64_t deadline_ms, cg_llms_page_info *info,
                  cg_err *err)
{
	char *status = cg_llms_status_path(cache_root, id);
	struct od o;
	cg_err why;
	int rc;

	*fd = -1;
	memset(info, 0, sizeof(*info));
	memset(&o, 0, sizeof(o));
	info->how = "cached";
	if (deadline_ms <= 0)
		deadline_ms = cg_mono_ms() + DEFAULT_WAIT_MS;
	rc = locate(&o, cache_root, id, rel, info, err);
	cg_err_clear(&why);
	if (rc == 0 && !fresh(&o, status) &&
	    refetch(&o, deadline_ms, info, &why) != 0) {
		if (have_copy(&o)) {
			/* The site could not say: the older copy serves. */
			info->how = "stale";
			(void)snprintf(
			    info->note, sizeof(info->note),
			    "the site could not be asked (%.400s); a "
			    "copy fetched earlier is served",
			    why.msg);
		} else {
			rc = why.code != 0 ? why.code : CG_EIO;
			(void)cg_err_set(
			    err, rc,
			    "page %.300s is not cached yet and its "
			    "on-demand fetch failed: %s",
			    rel + strlen(CG_CORPUS_DIR) + 1, why.msg);
		}
	}
	if (rc == 0) {
		char eb[128];

		*fd = open(o.copy, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (*fd < 0)
			rc = cg_err_set(err, CG_EIO, "%s: %s", o.copy,
			                strerror_r(errno, eb, sizeof(eb)));
	}
	od_fini(&o);
	free(status);
	return rc;
}
