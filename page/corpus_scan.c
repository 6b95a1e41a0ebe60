/*
 * corpus_scan.c - the pages of a hiivmind corpus: one per file entry of
 * its index, at its document's path, with the entry's metadata as an
 * overlay (see corpus_scan.h).  lstat only: documents are read by the
 * indexer, and only when their size, mtime or overlay changed.
 */
#include "page/corpus_scan.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cache/corpus.h"
#include "common/cg_analyzer.h"
#include "common/cg_fs.h"
#include "common/cg_json.h"
#include "common/cg_str.h"

static json_t *
str_list(char **v)
{
	json_t *a = json_array();

	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static void
set_opt(json_t *o, const char *k, const char *v)
{
	if (v != NULL)
		json_object_set_new(o, k, json_string(v));
}

static json_t *
section_json(const cg_hm_entry *s)
{
	json_t *o = json_object();

	set_opt(o, "anchor", s->anchor);
	set_opt(o, "title", s->title);
	set_opt(o, "summary", s->summary);
	if (s->line_start > 0)
		json_object_set_new(
		    o, "line_range",
		    json_pack("[i, i]", s->line_start, s->line_end));
	return o;
}

/* {parent id: [section...]}: one pass, so an index of n entries costs
 * O(n), not O(n^2). */
static json_t *
sections_by_parent(const cg_hm_index *ix)
{
	json_t *m = json_object();

	for (size_t i = 0; m != NULL && i < ix->n; i++) {
		const cg_hm_entry *s = &ix->v[i];
		json_t *a;

		if (!s->is_section || s->parent == NULL)
			continue;
		a = json_object_get(m, s->parent);
		if (a == NULL) {
			a = json_array();
			json_object_set_new(m, s->parent, a);
		}
		json_array_append_new(a, section_json(s));
	}
	return m;
}

/* The entry's metadata, and its section entries (from secmap). */
static json_t *
overlay_of(const json_t *secmap, const cg_hm_entry *e)
{
	json_t *o = json_object();
	json_t *secs = json_object_get(secmap, e->id);

	json_object_set_new(o, "entry", json_string(e->id));
	set_opt(o, "source", e->source);
	set_opt(o, "doc", e->path);
	set_opt(o, "url", e->url); /* llms-txt sources: the page's URL */
	set_opt(o, "title", e->title);
	set_opt(o, "summary", e->summary);
	set_opt(o, "category", e->category);
	json_object_set_new(o, "tags", str_list(e->tags));
	json_object_set_new(o, "keywords", str_list(e->keywords));
	json_object_set_new(o, "concepts", str_list(e->concepts));
	json_object_set_new(o, "stale", json_boolean(e->stale));
	set_opt(o, "stale_since", e->stale_since);
	json_object_set_new(o, "sections",
	                    secs ? json_deep_copy(secs) : json_array());
	return o;
}

/* The hash of the overlay's canonical JSON: it is folded into the change
 * key (an index edit re-reads the page) and into the content hash. */
static uint64_t
overlay_hash(const json_t *overlay)
{
	char *s = json_dumps(overlay, JSON_COMPACT | JSON_SORT_KEYS);
	uint64_t h = s ? cg_hash64(s, strlen(s)) : 0;

	free(s);
	return h;
}

/* One file entry: a document page, or a virtual one. */
static int
add_entry(cg_scan *out, const cg_corpus *c, const json_t *secmap,
          const cg_hm_entry *e, int64_t index_mtime)
{
	const char *why = NULL;
	char *rel = cg_corpus_doc_rel(c, e, &why);
	char *abs = NULL;
	json_t *ov = overlay_of(secmap, e);
	struct stat st;
	bool virt = true;
	uint64_t h;
	int rc;

	if (rel == NULL) {
		size_t n = strlen(e->id) + 16;

		rel = malloc(n);
		if (rel != NULL)
			(void)snprintf(rel, n, "_entries/%s", e->id);
	} else if ((abs = cg_path_join(c->dir, rel)) != NULL &&
	           lstat(abs, &st) == 0) {
		virt = false;
		why = NULL;
	} else {
		why = e->url != NULL ? "not cached yet (an llms-txt page)"
		                     : "document not fetched or missing";
	}
	if (rel == NULL || ov == NULL) {
		rc = CG_ENOMEM;
		goto out;
	}
	if (why != NULL)
		json_object_set_new(ov, "document_missing", json_string(why));
	h = overlay_hash(ov);
	rc = virt ? cg_scan_push(out, rel, 0, index_mtime ^ (int64_t)(h >> 2),
	                         CG_SCAN_FILE)
	          : cg_scan_push(out, rel, (int64_t)st.st_size,
	                         ((int64_t)st.st_mtim.tv_sec * 1000000000LL +
	                          st.st_mtim.tv_nsec) ^
	                             (int64_t)(h >> 2),
	                         S_ISLNK(st.st_mode) ? CG_SCAN_SYMLINK
	                                             : CG_SCAN_FILE);
	if (rc == 0) {
		out->v[out->n - 1].overlay = ov;
		out->v[out->n - 1].overlay_hash = h;
		out->v[out->n - 1].virt = virt;
		ov = NULL;
	}
out:
	json_decref(ov);
	free(abs);
	free(rel);
	return rc;
}

/* Two entries naming one document: the page is indexed once (sorted
 * input; which entry's overlay wins is unspecified). */
static void
drop_duplicates(cg_scan *s)
{
	size_t keep = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (keep > 0 && strcmp(s->v[keep - 1].rel, s->v[i].rel) == 0) {
			free(s->v[i].rel);
			json_decref(s->v[i].overlay);
			continue;
		}
		s->v[keep++] = s->v[i];
	}
	s->n = keep;
}

static int64_t
index_mtime(const char *dir)
{
	struct stat st;
	char *p = cg_path_join(dir, "index.yaml");
	int64_t t = 0;

	if (p != NULL && stat(p, &st) != 0) {
		free(p);
		p = cg_path_join(dir, "index.md");
	}
	if (p != NULL && stat(p, &st) == 0)
		t = (int64_t)st.st_mtim.tv_sec * 1000000000LL +
		    st.st_mtim.tv_nsec;
	free(p);
	return t;
}

static char **
copy_warnings(char **src, const char *extra)
{
	size_t n = 0;
	char **v;

	while (src != NULL && src[n] != NULL)
		n++;
	v = calloc(n + 2, sizeof(*v));
	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = strdup(src[i]);
	if (extra != NULL)
		v[n] = strdup(extra);
	return v;
}

int
cg_corpus_scan(cg_scan *out, const char *dir, bool remote, char ***warnings,
               cg_err *err)
{
	cg_corpus c;
	cg_err le;
	json_t *secmap;
	int64_t mt;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (warnings != NULL)
		*warnings = NULL;
	cg_err_clear(&le);
	if (cg_corpus_load(&c, dir, remote, &le) != 0) {
		/* Not fetched yet, or an index that does not parse: no
		 * pages, and the reason as a problem (what was indexed
		 * before is replaced only by a readable index). */
		if (warnings != NULL)
			*warnings = copy_warnings(
			    NULL,
			    remote && !cg_is_dir(dir)
			        ? "not fetched yet: run `corpus-gw fetch` "
			          "to fill the cache"
			        : le.msg);
		cg_corpus_fini(&c);
		return le.code == CG_ENOTFOUND
		           ? 0
		           : cg_err_set(err, le.code, "%s", le.msg);
	}
	mt = index_mtime(dir);
	secmap = sections_by_parent(&c.index);
	for (size_t i = 0; rc == 0 && i < c.index.n; i++)
		if (!c.index.v[i].is_section)
			rc = add_entry(out, &c, secmap, &c.index.v[i], mt);
	json_decref(secmap);
	if (warnings != NULL)
		*warnings = copy_warnings(c.warnings, NULL);
	cg_corpus_fini(&c);
	if (rc != 0) {
		cg_scan_fini(out);
		return cg_err_set(err, rc, "corpus %s: %s", dir,
		                  rc == CG_ETOOBIG ? "too many entries"
		                                   : "out of memory");
	}
	cg_scan_sort(out);
	drop_duplicates(out);
	return 0;
}

int
cg_corpus_scan_source(cg_scan *out, const char *repo, const char *wiki,
                      enum cg_source_kind kind, char ***warnings, cg_err *err)
{
	if (warnings != NULL)
		*warnings = NULL;
	if (kind == CG_SRC_WIKI)
		return cg_scan_wiki(out, repo, wiki, err);
	return cg_corpus_scan(out, repo, kind == CG_SRC_CORPUS_REMOTE, warnings,
	                      err);
}

void
cg_corpus_scan_warnings_free(char **w)
{
	cg_strv_free(w);
}

/* --- the overlay on a parsed page ------------------------------------ */

static bool
has_str(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* p->tags := p->tags + the overlay's tags, keywords and concepts. */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): each copy is stored
 * in p->tags, which cg_page_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
merge_tags(cg_page *p, const json_t *ov)
{
	static const char *const keys[] = {"tags", "keywords", "concepts"};
	size_t n = 0;
	size_t cap = 0;
	char **v;

	while (p->tags != NULL && p->tags[n] != NULL)
		n++;
	cap = n + 1;
	for (size_t k = 0; k < 3; k++)
		cap += json_array_size(json_object_get(ov, keys[k]));
	v = realloc(p->tags, cap * sizeof(*v));
	if (v == NULL)
		return CG_ENOMEM;
	p->tags = v;
	for (size_t k = 0; k < 3; k++) {
		const json_t *a = json_object_get(ov, keys[k]);
		const json_t *it;
		size_t i;

		json_array_foreach(a, i, it) {
			const char *s = json_string_value(it);

			if (s != NULL && !has_str(v, n, s) &&
			    (v[n] = strdup(s)) != NULL)
				n++;
		}
	}
	v[n] = NULL;
	return 0;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

static int
replace_str(char **dst, const json_t *v)
{
	char *s;

	if (!json_is_string(v))
		return 0;
	s = strdup(json_string_value(v));
	if (s == NULL)
		return CG_ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* Section summaries as free text of the page (the meta column). */
static json_t *
section_text(const json_t *ov)
{
	json_t *a = json_array();
	const json_t *s;
	size_t i;

	json_array_foreach(json_object_get(ov, "sections"), i, s) {
		const char *t = cg_json_str_or_null(s, "title");
		const char *m = cg_json_str_or_null(s, "summary");

		if (t != NULL)
			json_array_append_new(a, json_string(t));
		if (m != NULL)
			json_array_append_new(a, json_string(m));
	}
	return a;
}

int
cg_corpus_scan_overlay(cg_page *p, const json_t *ov)
{
	const json_t *sum = json_object_get(ov, "summary");
	int rc;

	if (ov == NULL)
		return 0;
	rc = replace_str(&p->title, json_object_get(ov, "title"));
	if (rc == 0)
		rc = replace_str(&p->category, json_object_get(ov, "category"));
	if (rc == 0 && p->first_line == NULL)
		rc = replace_str(&p->first_line, sum);
	if (rc == 0)
		rc = merge_tags(p, ov);
	if (rc != 0)
		return rc;
	free(p->category_raw);
	p->category_raw = NULL;
	if (json_is_string(sum))
		json_object_set(p->fm, "summary", (json_t *)sum);
	json_object_set_new(p->fm, "section_summaries", section_text(ov));
	json_object_set_new(p->fm, "corpus", json_deep_copy(ov));
	return 0;
}

char *
cg_corpus_scan_virtual_text(const json_t *ov, size_t *len)
{
	const char *t = cg_json_str(ov, "title");
	const char *s = cg_json_str(ov, "summary");
	size_t n = strlen(t) + strlen(s) + 8;
	char *text = malloc(n);

	if (text == NULL)
		return NULL;
	*len = (size_t)snprintf(text, n, "# %s\n\n%s\n", t, s);
	return text;
}
