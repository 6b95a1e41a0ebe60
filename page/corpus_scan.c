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

/* Every builder here returns NULL (or an error) when memory ran out,
 * never a shorter value: an overlay short of a member would be indexed
 * as the entry's truth, and its hash would hide the loss from the next
 * sync until something else changed. */

/* o[k] = v (stolen; NULL is a failure) unless *rc already failed. */
static void
put(json_t *o, const char *k, json_t *v, int *rc)
{
	if (*rc == 0 && json_object_set_new(o, k, v) != 0)
		*rc = CG_ENOMEM;
	else if (*rc != 0)
		json_decref(v);
}

/* o, or NULL (o freed) when rc says a member is missing. */
static json_t *
whole(json_t *o, int rc)
{
	if (rc == 0)
		return o;
	json_decref(o);
	return NULL;
}

static json_t *
str_list(char **v)
{
	json_t *a = json_array();
	int rc = a != NULL ? 0 : CG_ENOMEM;

	for (size_t i = 0; rc == 0 && v != NULL && v[i] != NULL; i++)
		if (json_array_append_new(a, json_string(v[i])) != 0)
			rc = CG_ENOMEM;
	return whole(a, rc);
}

static void
set_opt(json_t *o, const char *k, const char *v, int *rc)
{
	if (v != NULL)
		put(o, k, json_string(v), rc);
}

static json_t *
section_json(const cg_hm_entry *s)
{
	json_t *o = json_object();
	int rc = o != NULL ? 0 : CG_ENOMEM;

	set_opt(o, "anchor", s->anchor, &rc);
	set_opt(o, "title", s->title, &rc);
	set_opt(o, "summary", s->summary, &rc);
	if (s->line_start > 0)
		put(o, "line_range",
		    json_pack("[i, i]", s->line_start, s->line_end), &rc);
	return whole(o, rc);
}

/* {parent id: [section...]}: one pass, so an index of n entries costs
 * O(n), not O(n^2). */
static json_t *
sections_by_parent(const cg_hm_index *ix)
{
	json_t *m = json_object();
	int rc = m != NULL ? 0 : CG_ENOMEM;

	for (size_t i = 0; rc == 0 && i < ix->n; i++) {
		const cg_hm_entry *s = &ix->v[i];
		json_t *a;

		if (!s->is_section || s->parent == NULL)
			continue;
		a = json_object_get(m, s->parent);
		if (a == NULL) {
			a = json_array();
			put(m, s->parent, a, &rc);
		}
		if (rc == 0 && json_array_append_new(a, section_json(s)) != 0)
			rc = CG_ENOMEM;
	}
	return whole(m, rc);
}

/* The entry's metadata, and its section entries (from secmap). */
static json_t *
overlay_of(const json_t *secmap, const cg_hm_entry *e)
{
	json_t *o = json_object();
	json_t *secs = json_object_get(secmap, e->id);
	int rc = o != NULL ? 0 : CG_ENOMEM;

	put(o, "entry", json_string(e->id), &rc);
	set_opt(o, "source", e->source, &rc);
	set_opt(o, "doc", e->path, &rc);
	set_opt(o, "url", e->url, &rc); /* llms-txt sources: the page's URL */
	set_opt(o, "title", e->title, &rc);
	set_opt(o, "summary", e->summary, &rc);
	set_opt(o, "category", e->category, &rc);
	put(o, "tags", str_list(e->tags), &rc);
	put(o, "keywords", str_list(e->keywords), &rc);
	put(o, "concepts", str_list(e->concepts), &rc);
	put(o, "stale", json_boolean(e->stale), &rc);
	set_opt(o, "stale_since", e->stale_since, &rc);
	put(o, "sections", secs ? json_deep_copy(secs) : json_array(), &rc);
	return whole(o, rc);
}

/* The hash of the overlay's canonical JSON: it is folded into the change
 * key (an index edit re-reads the page) and into the content hash. */
static int
overlay_hash(const json_t *overlay, uint64_t *h)
{
	char *s = json_dumps(overlay, JSON_COMPACT | JSON_SORT_KEYS);

	*h = s ? cg_hash64(s, strlen(s)) : 0;
	free(s);
	return s != NULL ? 0 : CG_ENOMEM;
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
	rc = rel == NULL || ov == NULL ? CG_ENOMEM : 0;
	if (why != NULL)
		put(ov, "document_missing", json_string(why), &rc);
	if (rc == 0)
		rc = overlay_hash(ov, &h);
	if (rc != 0)
		goto out;
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

/* A copy of src plus extra (may be NULL); NULL when memory ran out
 * (never a shorter list: the warnings are the corpus's problems). */
static char **
copy_warnings(char **src, const char *extra)
{
	size_t n = 0;
	char **v;

	while (src != NULL && src[n] != NULL)
		n++;
	v = calloc(n + 2, sizeof(*v));
	for (size_t i = 0; v != NULL && i <= n; i++) {
		const char *w = i < n ? src[i] : extra;

		if (w != NULL && (v[i] = strdup(w)) == NULL) {
			cg_strv_free(v);
			v = NULL;
		}
	}
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
		cg_corpus_fini(&c);
		if (le.code == CG_ENOMEM)
			return cg_err_set(err, le.code, "%s", le.msg);
		if (warnings != NULL)
			*warnings = copy_warnings(
			    NULL,
			    remote && !cg_is_dir(dir)
			        ? "not fetched yet: run `corpus-gw fetch` "
			          "to fill the cache"
			        : le.msg);
		if (warnings != NULL && *warnings == NULL)
			return cg_err_set(err, CG_ENOMEM,
			                  "corpus %s: out of memory", dir);
		return le.code == CG_ENOTFOUND
		           ? 0
		           : cg_err_set(err, le.code, "%s", le.msg);
	}
	mt = index_mtime(dir);
	secmap = sections_by_parent(&c.index);
	rc = secmap != NULL ? 0 : CG_ENOMEM;
	for (size_t i = 0; rc == 0 && i < c.index.n; i++)
		if (!c.index.v[i].is_section)
			rc = add_entry(out, &c, secmap, &c.index.v[i], mt);
	json_decref(secmap);
	if (rc == 0 && warnings != NULL &&
	    (*warnings = copy_warnings(c.warnings, NULL)) == NULL)
		rc = CG_ENOMEM;
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

			if (s == NULL || has_str(v, n, s))
				continue;
			v[n] = strdup(s);
			if (v[n] == NULL) /* not a page short of a tag */
				return CG_ENOMEM;
			v[++n] = NULL;
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

/* Section summaries as free text of the page (the meta column); NULL
 * only when memory ran out. */
static json_t *
section_text(const json_t *ov)
{
	json_t *a = json_array();
	const json_t *s;
	size_t i;
	int rc = a != NULL ? 0 : -1;

	json_array_foreach(json_object_get(ov, "sections"), i, s) {
		const char *t = cg_json_str_or_null(s, "title");
		const char *m = cg_json_str_or_null(s, "summary");

		if (rc == 0 && t != NULL)
			rc = json_array_append_new(a, json_string(t));
		if (rc == 0 && m != NULL)
			rc = json_array_append_new(a, json_string(m));
	}
	if (rc != 0) {
		json_decref(a);
		a = NULL;
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
	/* Each member must land: an entry without its "corpus" member loses
	 * its concepts (and the bridges through them) for good. */
	if (json_is_string(sum))
		rc = json_object_set(p->fm, "summary", (json_t *)sum);
	if (rc == 0)
		rc = json_object_set_new(p->fm, "section_summaries",
		                         section_text(ov));
	if (rc == 0)
		rc = json_object_set_new(p->fm, "corpus", json_deep_copy(ov));
	return rc != 0 ? CG_ENOMEM : 0;
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
