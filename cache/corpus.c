/*
 * corpus.c - paths of the corpus cache, _cache_meta.json, the freshness
 * state file (an advisory record whose checked_at may live in its mtime:
 * corpus.h), and loading a corpus folder's files for the indexer.
 *
 * An llms-txt source's cached manifest (_llms/<sid>.txt) adds an entry per
 * link whose document no index entry names, and its URL to the entries
 * that do; its entries' documents are their paths with ".md" added.
 *
 * Must not fetch, probe or index: cache/fetch.c does the first two,
 * node/corpus_scan.c the last.
 */
#define _DEFAULT_SOURCE /* timegm */
#include "cache/corpus.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cache/llms_txt.h"
#include "common/cg_analyzer.h"
#include "common/cg_fs.h"
#include "common/cg_json.h"
#include "common/cg_str.h"

#define REG_REL   ".hiivmind/corpus/registry.yaml"
#define GRAPH_REL ".hiivmind/corpus/registry-graph.yaml"
#define CACHE_REL ".hiivmind/corpus/cache"
#define META_MAX  (64u << 10)

char *
cg_corpus_registry_path(const char *repo)
{
	return cg_path_join(repo, REG_REL);
}

char *
cg_corpus_reggraph_path(const char *repo)
{
	return cg_path_join(repo, GRAPH_REL);
}

char *
cg_corpus_cache_root(const char *repo)
{
	return cg_path_join(repo, CACHE_REL);
}

char *
cg_corpus_cache_dir(const char *cache_root, const char *id)
{
	return cg_path_join(cache_root, id);
}

char *
cg_corpus_state_file(const char *cache_root, const char *id, const char *ext)
{
	char name[300];

	(void)snprintf(name, sizeof(name), "%s/%s%s", CG_CORPUS_STATE, id, ext);
	return cg_path_join(cache_root, name);
}

char *
cg_corpus_state_path(const char *cache_root, const char *id)
{
	return cg_corpus_state_file(cache_root, id, ".json");
}

/* Reads path fully; CG_ENOTFOUND when it does not exist. */
static int
read_opt(const char *path, size_t max, char **text, size_t *len, cg_err *err)
{
	struct stat st;

	*text = NULL;
	*len = 0;
	if (lstat(path, &st) != 0 && errno == ENOENT)
		return CG_ENOTFOUND;
	return cg_file_read(path, max, text, len, err);
}

int
cg_corpus_registry_load(cg_hm_registry *r, const char *repo, cg_err *err)
{
	char *path = cg_corpus_registry_path(repo);
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if (path == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	rc = read_opt(path, CG_HM_MAX_BYTES, &text, &len, err);
	if (rc == CG_ENOTFOUND) {
		free(path);
		r->warnings = calloc(1, sizeof(char *));
		return r->warnings ? 0 : cg_err_set(err, CG_ENOMEM, "oom");
	}
	if (rc == 0)
		rc = cg_hm_registry_parse(r, text, len, err);
	if (rc != 0)
		cg_err_set(err, rc, "%s", path);
	free(text);
	free(path);
	return rc;
}

/* --- _cache_meta.json ------------------------------------------------- */

/* o[key] into dst (n bytes), "" when it is not a string. */
static void
copy_str(char *dst, size_t n, const json_t *o, const char *key)
{
	(void)snprintf(dst, n, "%s", cg_json_str(o, key));
}

int
cg_cache_meta_read(cg_cache_meta *m, const char *dir, cg_err *err)
{
	char *path = cg_path_join(dir, CG_CORPUS_META);
	char *text = NULL;
	size_t len = 0;
	json_t *j;
	int rc;

	memset(m, 0, sizeof(*m));
	if (path == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	rc = read_opt(path, META_MAX, &text, &len, err);
	free(path);
	if (rc != 0)
		return rc;
	j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	free(text);
	if (!json_is_object(j)) {
		json_decref(j);
		return cg_err_set(err, CG_EPARSE, "%s/%s: not a JSON object",
		                  dir, CG_CORPUS_META);
	}
	copy_str(m->corpus_id, sizeof(m->corpus_id), j, "corpus_id");
	copy_str(m->source_repo, sizeof(m->source_repo), j, "source_repo");
	copy_str(m->source_ref, sizeof(m->source_ref), j, "source_ref");
	copy_str(m->cached_at, sizeof(m->cached_at), j, "cached_at");
	copy_str(m->cached_commit_sha, sizeof(m->cached_commit_sha), j,
	         "cached_commit_sha");
	m->ttl_days = json_number_value(json_object_get(j, "ttl_days"));
	json_decref(j);
	return 0;
}

int
cg_cache_meta_write(const cg_cache_meta *m, const char *dir, cg_err *err)
{
	char *path = cg_path_join(dir, CG_CORPUS_META);
	json_t *j = json_object();
	double whole = (double)(long)m->ttl_days;
	char *text;
	int rc;

	json_object_set_new(j, "corpus_id", json_string(m->corpus_id));
	json_object_set_new(j, "source_repo", json_string(m->source_repo));
	json_object_set_new(j, "source_ref", json_string(m->source_ref));
	json_object_set_new(j, "cached_at", json_string(m->cached_at));
	json_object_set_new(j, "cached_commit_sha",
	                    json_string(m->cached_commit_sha));
	json_object_set_new(j, "ttl_days",
	                    whole == m->ttl_days
	                        ? json_integer((json_int_t)m->ttl_days)
	                        : json_real(m->ttl_days));
	text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (path == NULL || text == NULL) {
		free(path);
		free(text);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	rc = cg_file_write_atomic(path, text, strlen(text), err);
	free(text);
	free(path);
	return rc;
}

/* Parses "YYYY-MM-DDTHH:MM:SSZ" as UTC; -1 when it does not. */
static time_t
parse_stamp(const char *s)
{
	struct tm tm;
	int y;
	int mo;
	int d;
	int h;
	int mi;
	int se;
	char z = 0;

	/* cert-err34-c: the field widths (4 and 2 digits) keep every number
	 * in range, so no conversion can fail unseen; a malformed stamp fails
	 * the count or the final 'Z'. */
	/* NOLINTNEXTLINE(cert-err34-c) */
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se,
	           &z) != 7 ||
	    z != 'Z')
		return (time_t)-1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	return timegm(&tm);
}

long
cg_cache_meta_age(const cg_cache_meta *m, time_t now)
{
	time_t t = parse_stamp(m->cached_at);

	return t == (time_t)-1 ? -1 : (long)(now - t);
}

void
cg_utc_stamp(char out[32], time_t t)
{
	struct tm tm;

	(void)gmtime_r(&t, &tm);
	(void)strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* --- the freshness state -------------------------------------------- */

/* checked_at from the file's mtime when a later no-change probe set it
 * (cg_corpus_state_touch) and the record holds no error. */
static void
probe_clock(cg_corpus_state *s, const char *path)
{
	struct stat st;
	time_t at = parse_stamp(s->checked_at);

	if (s->last_error[0] != '\0' || at == (time_t)-1 ||
	    stat(path, &st) != 0 || st.st_mtime <= at)
		return;
	cg_utc_stamp(s->checked_at, st.st_mtime);
}

void
cg_corpus_state_read(cg_corpus_state *s, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	json_t *j;

	memset(s, 0, sizeof(*s));
	if (cg_file_read(path, META_MAX, &text, &len, NULL) != 0)
		return;
	j = json_loadb(text, len, 0, NULL);
	free(text);
	if (!json_is_object(j)) {
		json_decref(j);
		return;
	}
	copy_str(s->etag, sizeof(s->etag), j, "etag");
	copy_str(s->remote_sha, sizeof(s->remote_sha), j, "remote_sha");
	copy_str(s->checked_at, sizeof(s->checked_at), j, "checked_at");
	copy_str(s->last_error, sizeof(s->last_error), j, "last_error");
	copy_str(s->last_error_at, sizeof(s->last_error_at), j,
	         "last_error_at");
	json_decref(j);
	probe_clock(s, path);
}

int
cg_corpus_state_write(const cg_corpus_state *s, const char *path, cg_err *err)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s}", "etag", s->etag,
	                      "remote_sha", s->remote_sha, "checked_at",
	                      s->checked_at, "last_error", s->last_error,
	                      "last_error_at", s->last_error_at);
	char *text =
	    j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	int rc;

	json_decref(j);
	if (text == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	/* Advisory: a state lost to a crash costs one more probe (an empty
	 * or unparsable record reads as no state), so no fsync per corpus
	 * on every refresh. */
	rc = cg_file_write_advisory(path, text, strlen(text), err);
	free(text);
	return rc;
}

int
cg_corpus_state_touch(const char *path, time_t t, cg_err *err)
{
	struct timespec ts[2] = {{.tv_sec = t}, {.tv_sec = t}};

	if (utimensat(AT_FDCWD, path, ts, 0) == 0)
		return 0;
	return cg_err_set(err, errno == ENOENT ? CG_ENOTFOUND : CG_EIO,
	                  "%s: %s", path, cg_strerror(errno).s);
}

bool
cg_corpus_state_same(const cg_corpus_state *a, const cg_corpus_state *b)
{
	return strcmp(a->etag, b->etag) == 0 &&
	       strcmp(a->remote_sha, b->remote_sha) == 0 &&
	       strcmp(a->last_error, b->last_error) == 0 &&
	       strcmp(a->last_error_at, b->last_error_at) == 0;
}

bool
cg_corpus_note(const cg_cache_meta *m, const cg_corpus_state *s, char *out,
               size_t n)
{
	out[0] = '\0';
	if (s->remote_sha[0] && m->cached_commit_sha[0] &&
	    strcmp(s->remote_sha, m->cached_commit_sha) != 0)
		(void)snprintf(
		    out, n, "indexed at %.7s, source is now at %.7s%s%s",
		    m->cached_commit_sha, s->remote_sha,
		    s->last_error[0] ? "; last refresh failed: " : "",
		    s->last_error);
	else if (s->last_error[0])
		(void)snprintf(out, n,
		               "indexed at %.7s; last refresh failed at %s: %s",
		               m->cached_commit_sha[0] ? m->cached_commit_sha
		                                       : "(unknown)",
		               s->last_error_at, s->last_error);
	return out[0] != '\0';
}

/* --- loading a corpus folder ---------------------------------------- */

static int
add_warning(cg_corpus *c, size_t *nw, const char *file, const char *msg)
{
	char **v = realloc(c->warnings, (*nw + 2) * sizeof(*v));
	char *s;
	size_t len = strlen(file) + strlen(msg) + 3;

	if (v == NULL)
		return CG_ENOMEM;
	c->warnings = v;
	s = malloc(len);
	if (s == NULL)
		return CG_ENOMEM;
	(void)snprintf(s, len, "%s: %s", file, msg);
	v[(*nw)++] = s;
	v[*nw] = NULL;
	return 0;
}

/* CG_ENOMEM when a warning could not be kept (a corpus whose warnings
 * are short is not loaded: they are its followups). */
static int
add_warnings(cg_corpus *c, size_t *nw, const char *file, char **list)
{
	int rc = 0;

	for (size_t i = 0; list != NULL && list[i] != NULL && rc == 0; i++)
		rc = add_warning(c, nw, file, list[i]);
	return rc;
}

/* Reads dir/name; CG_ENOTFOUND when absent. */
static int
read_file_in(const char *dir, const char *name, char **text, size_t *len,
             cg_err *err)
{
	char *path = cg_path_join(dir, name);
	int rc;

	if (path == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	rc = read_opt(path, CG_HM_MAX_BYTES, text, len, err);
	free(path);
	return rc;
}

/* Queues the tier indexes named in tiers (linked from parent) that are
 * not queued yet: [name, parent] pairs in q, names in done. */
static int
queue_tiers(json_t *q, json_t *done, char **tiers, const char *parent)
{
	for (size_t i = 0; tiers != NULL && tiers[i] != NULL; i++) {
		if (json_object_get(done, tiers[i]) != NULL ||
		    json_array_size(q) >= CG_HM_MAX_TIERS)
			continue;
		if (json_object_set_new(done, tiers[i], json_true()) != 0 ||
		    json_array_append_new(
		        q, json_pack("[s, s]", tiers[i], parent)) != 0)
			return CG_ENOMEM;
	}
	return 0;
}

/* One tier index: its entries join c->index, its warnings c's (under its
 * name), the tiers it links q.  Missing or unreadable is a warning under
 * the index that links it. */
static int
load_tier(cg_corpus *c, size_t *nw, json_t *q, json_t *done, size_t i)
{
	json_t *it = json_array_get(q, i);
	const char *name = json_string_value(json_array_get(it, 0));
	const char *parent = json_string_value(json_array_get(it, 1));
	char msg[600];
	char *text = NULL;
	size_t len = 0;
	cg_hm_index t;
	cg_err e;
	int rc;

	cg_err_clear(&e);
	rc = read_file_in(c->dir, name, &text, &len, &e);
	if (rc == 0)
		rc = cg_hm_index_parse_v1(&t, text, len, &e);
	free(text);
	if (rc == CG_ENOMEM)
		return rc;
	if (rc == CG_ENOTFOUND) {
		(void)snprintf(msg, sizeof(msg),
		               "links %s, which is missing: its entries are "
		               "not indexed",
		               name);
		return add_warning(c, nw, parent, msg);
	}
	if (rc != 0) {
		(void)snprintf(msg, sizeof(msg),
		               "links %s, which cannot be read (%s): its "
		               "entries are not indexed",
		               name, e.msg);
		return add_warning(c, nw, parent, msg);
	}
	add_warnings(c, nw, name, t.warnings);
	rc = cg_hm_index_merge(&c->index, &t);
	if (rc == 0)
		rc = queue_tiers(q, done, t.tiers, name);
	cg_hm_index_fini(&t);
	return rc;
}

/* A tiered v1 corpus: the tier indexes index.md links, and those they
 * link, each read once (at most CG_HM_MAX_TIERS). */
static int
load_tiers(cg_corpus *c, size_t *nw, cg_err *err)
{
	json_t *q = json_array();
	json_t *done = json_object();
	int rc = q && done ? 0 : CG_ENOMEM;

	if (rc == 0)
		rc = queue_tiers(q, done, c->index.tiers, "index.md");
	for (size_t i = 0; rc == 0 && i < json_array_size(q); i++)
		rc = load_tier(c, nw, q, done, i);
	json_decref(q);
	json_decref(done);
	return rc != 0 ? cg_err_set(err, rc, "%s: out of memory", c->dir) : 0;
}

static int
load_index(cg_corpus *c, size_t *nw, cg_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = read_file_in(c->dir, "index.yaml", &text, &len, err);

	if (rc == 0) {
		rc = cg_hm_index_parse_v2(&c->index, text, len, err);
		if (rc != 0)
			cg_err_set(err, rc, "%s/index.yaml", c->dir);
	} else if (rc == CG_ENOTFOUND) {
		rc = read_file_in(c->dir, "index.md", &text, &len, err);
		if (rc == CG_ENOTFOUND)
			return cg_err_set(err, CG_ENOTFOUND,
			                  "%s: no index.yaml or index.md",
			                  c->dir);
		if (rc == 0)
			rc = cg_hm_index_parse_v1(&c->index, text, len, err);
		if (rc == 0)
			rc = load_tiers(c, nw, err);
	}
	free(text);
	return rc;
}

/* config.yaml and graph.yaml: optional; damage is a warning.  Out of
 * memory is not damage: without its config a corpus's entries would be
 * dropped as "not in config.yaml" (CG_ENOMEM, err says which file). */
static int
load_optional(cg_corpus *c, size_t *nw, cg_err *err)
{
	char *text = NULL;
	size_t len = 0;
	cg_err e;
	int rc;

	cg_err_clear(&e);
	rc = read_file_in(c->dir, "config.yaml", &text, &len, &e);
	if (rc == 0) {
		rc = cg_hm_config_parse(&c->config, text, len, &e);
		c->has_config = rc == 0;
		if (rc != 0 && rc != CG_ENOMEM)
			rc = add_warning(c, nw, "config.yaml", e.msg);
	}
	free(text);
	text = NULL;
	if (rc == CG_ENOMEM)
		return cg_err_set(err, rc, "%s/config.yaml: out of memory",
		                  c->dir);
	cg_err_clear(&e);
	rc = read_file_in(c->dir, "graph.yaml", &text, &len, &e);
	if (rc == 0) {
		rc = cg_hm_graph_parse(&c->graph, text, len, &e);
		c->has_graph = rc == 0;
		if (rc != 0 && rc != CG_ENOMEM)
			rc = add_warning(c, nw, "graph.yaml", e.msg);
	}
	free(text);
	if (rc == CG_ENOMEM)
		return cg_err_set(err, rc, "%s/graph.yaml: out of memory",
		                  c->dir);
	return 0;
}

int
cg_corpus_config_read(cg_hm_config *cfg, const char *dir, cg_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = read_file_in(dir, "config.yaml", &text, &len, err);

	memset(cfg, 0, sizeof(*cfg));
	if (rc == 0)
		rc = cg_hm_config_parse(cfg, text, len, err);
	free(text);
	return rc;
}

/* --- llms-txt sources: entries from the cached manifest ------------------ */

/* The file entry of source sid whose document is doc, or NULL. */
static cg_hm_entry *
entry_of_doc(cg_corpus *c, const char *sid, const char *doc)
{
	for (size_t i = 0; i < c->index.n; i++) {
		cg_hm_entry *e = &c->index.v[i];
		char *d;
		bool same;

		if (e->is_section || e->path == NULL || e->source == NULL ||
		    strcmp(e->source, sid) != 0)
			continue;
		d = cg_llms_doc_of(e->path);
		same = d != NULL && strcmp(d, doc) == 0;
		free(d);
		if (same)
			return e;
	}
	return NULL;
}

/* One link: its URL on the index's entry for its document, else a new
 * entry made of the link (title, note as summary, section as category). */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the URL is stored in
 * an element of c->index.v, which cg_hm_index_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
link_entry(cg_corpus *c, const cg_hm_source *s, const cg_llms_link *l,
           const char *url, const char *doc)
{
	cg_hm_entry *e = entry_of_doc(c, s->id, doc);
	cg_hm_entry n;
	char *id;
	int rc;

	if (e != NULL) {
		if (e->url != NULL)
			return 0;
		e->url = strdup(url);
		return e->url != NULL ? 0 : CG_ENOMEM;
	}
	id = malloc(strlen(s->id) + strlen(doc) + 2);
	if (id == NULL)
		return CG_ENOMEM;
	(void)sprintf(id, "%s:%s", s->id, doc); /* NOLINT: sized above */
	memset(&n, 0, sizeof(n));
	n.id = id;
	n.source = s->id;
	n.path = (char *)doc;
	n.title = l->title;
	n.summary = l->note;
	n.category = l->section;
	n.url = (char *)url;
	rc = cg_hm_index_add(&c->index, &n);
	free(id);
	return rc;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* The cached manifest of llms-txt source s (fetched by
 * cache/llms_fetch.c), its links made entries.  No manifest cached yet:
 * nothing. */
static int
llms_entries(cg_corpus *c, const cg_hm_source *s, size_t *nw)
{
	char name[320];
	char *text = NULL;
	size_t len = 0;
	cg_llms m;
	cg_llms_site site;
	cg_err e;
	int rc;

	cg_err_clear(&e);
	(void)snprintf(name, sizeof(name), "%s/%s.txt", CG_LLMS_STATE_DIR,
	               s->id);
	if (read_file_in(c->dir, name, &text, &len, &e) != 0)
		return 0;
	rc = cg_llms_site_init(&site, s->manifest_url, s->base_url, s->suffix,
	                       &e);
	if (rc == 0 && (rc = cg_llms_parse(&m, text, len, &e)) != 0)
		cg_llms_site_fini(&site);
	free(text);
	if (rc != 0) {
		int wr = add_warning(c, nw, "config.yaml", e.msg);

		return rc == CG_ENOMEM ? rc : wr;
	}
	for (size_t i = 0; rc == 0 && i < m.n; i++) {
		char *url = NULL;
		char *doc = NULL;

		if (cg_llms_resolve(&site, m.links[i].href, &url, &doc, &e) ==
		    0)
			rc = link_entry(c, s, &m.links[i], url, doc);
		free(url);
		free(doc);
	}
	cg_llms_fini(&m);
	cg_llms_site_fini(&site);
	return rc;
}

static int
load_llms(cg_corpus *c, size_t *nw, cg_err *err)
{
	int rc = 0;

	for (size_t i = 0;
	     rc == 0 && c->remote && c->has_config && i < c->config.nsources;
	     i++) {
		const cg_hm_source *s = &c->config.sources[i];

		if (s->type != NULL && strcmp(s->type, "llms-txt") == 0)
			rc = llms_entries(c, s, nw);
	}
	return rc != 0 ? cg_err_set(err, rc, "out of memory") : 0;
}

int
cg_corpus_load(cg_corpus *c, const char *dir, bool remote, cg_err *err)
{
	size_t nw = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	c->remote = remote;
	c->dir = strdup(dir);
	c->warnings = calloc(1, sizeof(char *));
	if (c->dir == NULL || c->warnings == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	rc = load_index(c, &nw, err);
	if (rc != 0)
		return rc;
	rc = load_optional(c, &nw, err);
	if (rc == 0)
		rc = load_llms(c, &nw, err);
	if (rc != 0)
		return rc;
	rc = cg_hm_check(&c->index, c->has_config ? &c->config : NULL,
	                 c->has_graph ? &c->graph : NULL);
	if (rc == 0)
		rc = add_warnings(
		    c, &nw, c->index.version == 2 ? "index.yaml" : "index.md",
		    c->index.warnings);
	if (rc == 0 && c->has_config)
		rc = add_warnings(c, &nw, "config.yaml", c->config.warnings);
	if (rc == 0 && c->has_graph)
		rc = add_warnings(c, &nw, "graph.yaml", c->graph.warnings);
	return rc != 0 ? cg_err_set(err, rc, "%s: out of memory", c->dir) : 0;
}

void
cg_corpus_fini(cg_corpus *c)
{
	if (c == NULL)
		return;
	if (c->has_config)
		cg_hm_config_fini(&c->config);
	if (c->has_graph)
		cg_hm_graph_fini(&c->graph);
	cg_hm_index_fini(&c->index);
	cg_strv_free(c->warnings);
	free(c->dir);
	memset(c, 0, sizeof(*c));
}

static char *
join3(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + strlen(c) + 3;
	char *s = malloc(n);

	if (s == NULL)
		return NULL;
	(void)snprintf(s, n, "%s%s%s%s%s", a, *a && *b ? "/" : "", b,
	               (*a || *b) && *c ? "/" : "", c);
	return s;
}

/* A local source's path usable inside the corpus folder, or NULL. */
static const char *
inside_path(const char *p)
{
	if (p == NULL || p[0] == '/' || strstr(p, "..") != NULL)
		return NULL;
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return p;
}

char *
cg_corpus_doc_rel(const cg_corpus *c, const cg_hm_entry *e, const char **why)
{
	const cg_hm_source *s;
	const char *p;

	*why = NULL;
	if (e->is_section || e->path == NULL)
		return *why = "not a file entry", NULL;
	s = c->has_config ? cg_hm_config_source(&c->config, e->source) : NULL;
	if (c->remote && s != NULL && s->type != NULL &&
	    strcmp(s->type, "llms-txt") == 0) {
		char *doc = cg_llms_doc_of(e->path);
		char *rel = doc ? join3(CG_CORPUS_DIR, e->source, doc) : NULL;

		free(doc);
		return rel;
	}
	if (c->remote)
		return join3(CG_CORPUS_DIR, e->source, e->path);
	if (s == NULL)
		return *why = "its source is not in config.yaml", NULL;
	if (s->type != NULL && strcmp(s->type, "self") == 0)
		return join3("", s->docs_root ? s->docs_root : "", e->path);
	if (s->type != NULL && strcmp(s->type, "local") == 0 &&
	    (p = inside_path(s->path)) != NULL)
		return join3("", p, e->path);
	*why = "a local corpus's git and web sources are not fetched";
	return NULL;
}
