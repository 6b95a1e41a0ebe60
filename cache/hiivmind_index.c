/*
 * hiivmind_index.c - parses a corpus's index: index.yaml (v2, entries[] of
 * file and section entries, read with the bounded YAML reader) or the v1
 * index.md (a markdown line format, read line by line after UTF-8
 * sanitising), and runs the cross-file checks against config.yaml and
 * graph.yaml.
 *
 * It never resolves a path on disk: it only refuses entry paths that could
 * climb out of a source's docs_root.  One bad entry is skipped with a
 * warning, never a failed file.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cache/hiivmind.h"
#include "cache/hiivmind_int.h"
#include "common/cg_analyzer.h"
#include "common/cg_str.h"
#include "common/cg_utf8.h"
#include "common/cg_vec.h"

#define LIGHTNING "\xE2\x9A\xA1" /* U+26A1, starts the v1 grep hint */

static void
entry_free(cg_hm_entry *e)
{
	free(e->id);
	free(e->source);
	free(e->path);
	free(e->title);
	free(e->summary);
	free(e->url);
	free(e->category);
	cg_strv_free(e->tags);
	cg_strv_free(e->keywords);
	cg_strv_free(e->concepts);
	free(e->stale_since);
	free(e->parent);
	free(e->anchor);
}

void
cg_hm_index_fini(cg_hm_index *ix)
{
	if (ix == NULL)
		return;
	for (size_t i = 0; i < ix->n; i++)
		entry_free(&ix->v[i]);
	free(ix->v);
	cg_strv_free(ix->warnings);
	cg_strv_free(ix->tiers);
	memset(ix, 0, sizeof(*ix));
}

/* The file name of a path (after the last '/'). */
static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* Adds e (ownership moves) when its id is new; frees it otherwise.  The
 * caller made room in ix->v. */
static void
add_entry(struct cg_hmi *h, cg_hm_index *ix, cg_hm_entry *e, const char *where)
{
	char q[CG_HMI_QMAX];

	if (h->rc == 0 && cg_hmi_seen(h, e->id)) {
		cg_hmi_warn(h, "%s: duplicate id \"%s\"; skipped", where,
		            cg_hmi_q(q, e->id));
		entry_free(e);
		return;
	}
	if (h->rc == 0)
		cg_hmi_mark(h, e->id);
	if (h->rc != 0) {
		entry_free(e);
		return;
	}
	ix->v[ix->n++] = *e;
}

/* ------------------------------------------------------------- v2 */

/* Where an entry points: id, source and path.  False (warned) when the
 * entry must be skipped. */
static bool
v2_where(struct cg_hmi *h, cg_hm_entry *e, const json_t *it, const char *where)
{
	const char *id = cg_hmi_str(it, "id");
	const char *src = cg_hmi_str(it, "source");
	const char *path = cg_hmi_str(it, "path");
	const char *colon = id != NULL ? strchr(id, ':') : NULL;
	size_t srclen = src != NULL ? strlen(src) : 0;
	size_t plen = path != NULL ? strlen(path) : 0;
	char q[CG_HMI_QMAX];

	if (src == NULL && colon != NULL) {
		src = id;
		srclen = (size_t)(colon - id);
	}
	if (path == NULL && colon != NULL) {
		const char *hash = e->is_section ? strrchr(colon, '#') : NULL;

		path = colon + 1;
		plen = hash != NULL ? (size_t)(hash - path) : strlen(path);
	}
	if (!cg_hmi_safe_id(src, srclen)) {
		cg_hmi_warn(h, "%s: no usable source id; skipped", where);
		return false;
	}
	if (!cg_hmi_safe_relpath(path, plen)) {
		cg_hmi_warn(h,
		            "%s: path \"%s\" is unsafe (\"..\", leading \"/\", "
		            "backslash) or missing; skipped",
		            where, cg_hmi_q(q, path != NULL ? path : ""));
		return false;
	}
	e->id = cg_hmi_dup(h, id);
	e->source = cg_hmi_dupn(h, src, srclen);
	e->path = cg_hmi_dupn(h, path, plen);
	return h->rc == 0;
}

/* line_range: [start, end], 1 <= start <= end. */
static void
v2_range(struct cg_hmi *h, cg_hm_entry *e, const json_t *r, const char *where)
{
	json_int_t a = json_integer_value(json_array_get(r, 0));
	json_int_t b = json_integer_value(json_array_get(r, 1));

	if (r == NULL || json_is_null(r))
		return;
	if (!json_is_array(r) || json_array_size(r) != 2 ||
	    !json_is_integer(json_array_get(r, 0)) ||
	    !json_is_integer(json_array_get(r, 1)) || a < 1 || b < a ||
	    b > INT_MAX) {
		cg_hmi_warn(h, "%s: line_range is not [start, end]; ignored",
		            where);
		return;
	}
	e->line_start = (int)a;
	e->line_end = (int)b;
}

/* parent, anchor, heading_level and line_range of a section entry. */
static bool
v2_section(struct cg_hmi *h, cg_hm_entry *e, const json_t *it,
           const char *where)
{
	const char *parent = cg_hmi_str(it, "parent");
	const char *anchor = cg_hmi_str(it, "anchor");
	const char *hash = strrchr(e->id, '#');
	json_int_t level =
	    json_integer_value(json_object_get(it, "heading_level"));

	/* Missing parent and anchor come from the id "parent#anchor". */
	if (parent == NULL && hash != NULL)
		e->parent = cg_hmi_dupn(h, e->id, (size_t)(hash - e->id));
	else
		e->parent = cg_hmi_dup(h, parent);
	if (anchor == NULL && hash != NULL)
		anchor = hash + 1;
	e->anchor = cg_hmi_dup(h, anchor);
	if (h->rc != 0)
		return false;
	if (e->parent == NULL || e->parent[0] == '\0' || e->anchor == NULL ||
	    e->anchor[0] == '\0') {
		cg_hmi_warn(h,
		            "%s: a section needs a parent and an anchor; "
		            "skipped",
		            where);
		return false;
	}
	if (level >= 1 && level <= 6)
		e->heading_level = (int)level;
	v2_range(h, e, json_object_get(it, "line_range"), where);
	return true;
}

/* A YAML true, or the text "true"/"True" (quoted by hand). */
static bool
is_true(const json_t *v)
{
	const char *s = json_string_value(v);

	return json_is_true(v) || (s != NULL && (strcmp(s, "true") == 0 ||
	                                         strcmp(s, "True") == 0));
}

/* The descriptive fields; never skips the entry. */
static void
v2_meta(struct cg_hmi *h, cg_hm_entry *e, const json_t *it)
{
	const char *title = cg_hmi_str(it, "title");

	if (title == NULL || title[0] == '\0')
		title = base_name(e->path);
	e->title = cg_hmi_dup(h, title);
	e->summary = cg_hmi_opt(h, it, "summary");
	e->category = cg_hmi_opt(h, it, "category");
	e->tags = cg_hmi_strlist(h, json_object_get(it, "tags"));
	e->keywords = cg_hmi_strlist(h, json_object_get(it, "keywords"));
	e->concepts = cg_hmi_strlist(h, json_object_get(it, "concepts"));
	e->stale = is_true(json_object_get(it, "stale"));
	e->stale_since = cg_hmi_opt(h, it, "stale_since");
}

static void
v2_entry(struct cg_hmi *h, cg_hm_index *ix, size_t i, const json_t *it)
{
	const char *tier = cg_hmi_str(it, "tier");
	char where[48];
	cg_hm_entry e;

	(void)snprintf(where, sizeof(where), "entries[%zu]", i);
	if (!json_is_object(it)) {
		cg_hmi_warn(h, "%s: not a mapping; skipped", where);
		return;
	}
	if (cg_hmi_str(it, "id") == NULL) {
		cg_hmi_warn(h, "%s: no id (or not text); skipped", where);
		return;
	}
	memset(&e, 0, sizeof(e));
	if (tier != NULL && strcmp(tier, "file") != 0 &&
	    strcmp(tier, "section") != 0)
		cg_hmi_warn(h, "%s: unknown tier; read as a file entry", where);
	/* tier is required for sections; a parent without a tier counts. */
	e.is_section = tier != NULL ? strcmp(tier, "section") == 0
	                            : cg_hmi_str(it, "parent") != NULL;
	if (!v2_where(h, &e, it, where) ||
	    (e.is_section && !v2_section(h, &e, it, where))) {
		entry_free(&e);
		return;
	}
	v2_meta(h, &e, it);
	add_entry(h, ix, &e, where);
}

int
cg_hm_index_parse_v2(cg_hm_index *out, const char *text, size_t len,
                     cg_err *err)
{
	struct cg_hmi h;
	json_t *root;
	const json_t *list;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cg_hmi_load("index.yaml", text, len, &root, err);
	if (rc != 0)
		return rc;
	cg_hmi_init(&h, err);
	out->version = 2;
	list = json_object_get(root, "entries");
	out->v = cg_hmi_alloc_items(&h, list, "entries", sizeof(*out->v));
	for (size_t i = 0; h.rc == 0 && i < json_array_size(list); i++)
		v2_entry(&h, out, i, json_array_get(list, i));
	rc = cg_hmi_finish(&h, root, &out->warnings);
	if (rc != 0)
		cg_hm_index_fini(out);
	return rc;
}

/* ------------------------------------------------------------- v1 */

/* State of the index.md line reader. */
struct v1 {
	struct cg_hmi h;
	cg_hm_index *ix;
	size_t cap;      /* entries allocated in ix->v */
	char *category;  /* the last "## " heading, lowercased, or NULL */
	char fence;      /* '`' or '~' inside a fenced block, else 0 */
	size_t ntiers;   /* in ix->tiers */
	bool tiers_full; /* warned once */
};

static bool
blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The first occurrence of the NUL-terminated pat in s[0, n), or NULL. */
static const char *
find(const char *s, size_t n, const char *pat)
{
	size_t k = strlen(pat);

	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, pat, k) == 0)
			return s + i;
	return NULL;
}

bool
cg_hmi_in_fence(char *fence, const char *s, size_t n)
{
	size_t i = 0;
	size_t k = 0;
	char c;

	while (i < n && i < 3 && s[i] == ' ')
		i++;
	c = (char)(i < n ? s[i] : '\0');
	while (i + k < n && s[i + k] == c)
		k++;
	if ((c == '`' || c == '~') && k >= 3) {
		if (*fence == 0) {
			*fence = c;
			return true;
		}
		if (*fence == c) {
			*fence = 0;
			return true;
		}
	}
	return *fence != 0;
}

/* A "## " heading: its text, ASCII-lowercased, is the new category. */
static void
v1_heading(struct v1 *st, const char *s, size_t n)
{
	cg_trim(&s, &n, CG_BLANKS);
	free(st->category);
	st->category = NULL;
	if (n == 0)
		return;
	st->category = cg_hmi_dupn(&st->h, s, n);
	for (size_t i = 0; st->category != NULL && i < n; i++)
		if (st->category[i] >= 'A' && st->category[i] <= 'Z')
			st->category[i] = (char)(st->category[i] - 'A' + 'a');
}

/* The description after the code span: a leading "-", en or em dash or
 * ':' separator and a trailing "⚡ GREP ..." hint are dropped. */
static void
v1_desc(const char **s, size_t *n)
{
	static const char *const seps[] = {"-", "\xE2\x80\x93", "\xE2\x80\x94",
	                                   ":", NULL};
	const char *hint = NULL;
	const char *p;

	for (p = find(*s, *n, LIGHTNING); p != NULL;
	     p = find(p + 1, *n - (size_t)(p + 1 - *s), LIGHTNING)) {
		const char *q = p + 3;
		size_t left = *n - (size_t)(q - *s);

		if (left >= 3 && memcmp(q, "\xEF\xB8\x8F", 3) == 0) {
			q += 3; /* U+FE0F, emoji presentation */
			left -= 3;
		}
		while (left > 0 && blank(*q)) {
			q++;
			left--;
		}
		if (left >= 4 && memcmp(q, "GREP", 4) == 0)
			hint = p;
	}
	if (hint != NULL)
		*n = (size_t)(hint - *s);
	cg_trim(s, n, CG_BLANKS);
	for (size_t i = 0; seps[i] != NULL; i++) {
		size_t k = strlen(seps[i]);

		if (*n >= k && memcmp(*s, seps[i], k) == 0) {
			*s += k;
			*n -= k;
			break;
		}
	}
	cg_trim(s, n, CG_BLANKS);
}

/* Makes room for one more entry. */
static bool
v1_room(struct v1 *st)
{
	if (cg_vec_reserve((void **)&st->ix->v, &st->cap, st->ix->n,
	                   sizeof(*st->ix->v)) == 0)
		return true;
	cg_hmi_nomem(&st->h);
	return false;
}

/* Builds the entry of one matched line. */
static void
v1_add(struct v1 *st, const char *title, size_t tlen, const char *code,
       size_t clen, size_t colon, const char *desc, size_t dlen,
       const char *where)
{
	struct cg_hmi *h = &st->h;
	cg_hm_entry e;

	memset(&e, 0, sizeof(e));
	e.id = cg_hmi_dupn(h, code, clen);
	e.source = cg_hmi_dupn(h, code, colon);
	e.path = cg_hmi_dupn(h, code + colon + 1, clen - colon - 1);
	if (e.path != NULL && tlen == 0) {
		title = base_name(e.path);
		tlen = strlen(title);
	}
	e.title = cg_hmi_dupn(h, title, tlen);
	e.summary = dlen > 0 ? cg_hmi_dupn(h, desc, dlen) : NULL;
	e.category = cg_hmi_dup(h, st->category);
	e.tags = cg_hmi_strlist(h, NULL);
	e.keywords = cg_hmi_strlist(h, NULL);
	e.concepts = cg_hmi_strlist(h, NULL);
	if (!v1_room(st)) {
		entry_free(&e);
		return;
	}
	add_entry(h, st->ix, &e, where);
}

/* A line after "- **": "Title** `source:path` - description". */
static void
v1_entry(struct v1 *st, const char *s, size_t n, size_t lineno)
{
	const char *t_end = find(s, n, "**");
	const char *code;
	const char *c_end;
	const char *colon;
	const char *rest;
	size_t tlen;
	size_t clen;
	size_t rlen;
	char where[40];
	char q[CG_HMI_QMAX];

	if (t_end == NULL)
		return;
	tlen = (size_t)(t_end - s);
	rest = t_end + 2;
	rlen = n - tlen - 2;
	while (rlen > 0 && blank(*rest)) {
		rest++;
		rlen--;
	}
	if (rlen == 0 || *rest != '`')
		return;
	code = rest + 1;
	c_end = memchr(code, '`', rlen - 1);
	if (c_end == NULL)
		return;
	clen = (size_t)(c_end - code);
	rest = c_end + 1;
	rlen = n - (size_t)(rest - s);
	cg_trim(&code, &clen, CG_BLANKS);
	colon = memchr(code, ':', clen);
	if (colon == NULL)
		return; /* a code span, not an entry reference */
	(void)snprintf(where, sizeof(where), "line %zu", lineno);
	if (!cg_hmi_safe_id(code, (size_t)(colon - code)) ||
	    !cg_hmi_safe_relpath(colon + 1,
	                         clen - (size_t)(colon - code) - 1)) {
		char ref[CG_HMI_QMAX * 2];

		(void)snprintf(ref, sizeof(ref), "%.*s", (int)clen, code);
		cg_hmi_warn(&st->h,
		            "%s: `%s` is not a safe source:path; skipped",
		            where, cg_hmi_q(q, ref));
		return;
	}
	cg_trim(&s, &tlen, CG_BLANKS);
	v1_desc(&rest, &rlen);
	v1_add(st, s, tlen, code, clen, (size_t)(colon - code), rest, rlen,
	       where);
}

/* Adds a tier index's file name, once. */
static void
v1_tier_add(struct v1 *st, const char *d, size_t n)
{
	char **v;

	for (size_t i = 0; i < st->ntiers; i++)
		if (strlen(st->ix->tiers[i]) == n &&
		    memcmp(st->ix->tiers[i], d, n) == 0)
			return;
	if (st->ntiers >= CG_HM_MAX_TIERS) {
		if (!st->tiers_full)
			cg_hmi_warn(&st->h,
			            "more than %d tier indexes linked; the "
			            "rest are not read",
			            CG_HM_MAX_TIERS);
		st->tiers_full = true;
		return;
	}
	v = realloc(st->ix->tiers, (st->ntiers + 2) * sizeof(*v));
	if (v == NULL) {
		cg_hmi_nomem(&st->h);
		return;
	}
	st->ix->tiers = v;
	v[st->ntiers] = cg_hmi_dupn(&st->h, d, n);
	if (v[st->ntiers] != NULL)
		st->ntiers++;
	v[st->ntiers] = NULL;
}

/* The destinations of "[...](dest)" links on a line that name a tier
 * index: "index-<id>.md" in index.md's folder. */
static void
v1_tiers(struct v1 *st, const char *s, size_t n)
{
	const char *end = s + n;
	const char *p = s;

	while ((p = find(p, (size_t)(end - p), "](")) != NULL) {
		const char *d = p + 2;
		const char *e = memchr(d, ')', (size_t)(end - d));
		const char *cut;
		size_t dn;

		if (e == NULL)
			return;
		dn = (size_t)(e - d);
		cg_trim(&d, &dn, CG_BLANKS);
		if (dn > 0 && d[0] == '<' && (cut = memchr(d, '>', dn))) {
			d++;
			dn = (size_t)(cut - d);
		}
		if ((cut = memchr(d, ' ', dn)) != NULL) /* a title */
			dn = (size_t)(cut - d);
		if ((cut = memchr(d, '#', dn)) != NULL)
			dn = (size_t)(cut - d);
		if (dn > 2 && d[0] == '.' && d[1] == '/') {
			d += 2;
			dn -= 2;
		}
		if (dn > 9 && memcmp(d, "index-", 6) == 0 &&
		    memcmp(d + dn - 3, ".md", 3) == 0 && cg_hmi_safe_id(d, dn))
			v1_tier_add(st, d, dn);
		p = e + 1;
	}
}

static void
v1_line(struct v1 *st, const char *s, size_t n, size_t lineno)
{
	if (cg_hmi_in_fence(&st->fence, s, n))
		return;
	v1_tiers(st, s, n);
	if (n >= 3 && s[0] == '#' && s[1] == '#' && blank(s[2]))
		v1_heading(st, s + 3, n - 3);
	else if (n >= 4 && (s[0] == '-' || s[0] == '*') && s[1] == ' ' &&
	         s[2] == '*' && s[3] == '*')
		v1_entry(st, s + 4, n - 4, lineno);
}

void
cg_hmi_each_line(const char *t, size_t n, cg_hmi_line_fn fn, void *ctx,
                 const int *stop)
{
	size_t off = 0;
	size_t lineno = 0;

	if (n >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0)
		off = 3;
	while (off < n && *stop == 0) {
		const char *nl = memchr(t + off, '\n', n - off);
		size_t end = nl != NULL ? (size_t)(nl - t) : n;
		size_t e = end;

		if (e > off && t[e - 1] == '\r')
			e--;
		fn(ctx, t + off, e - off, ++lineno);
		off = end + 1;
	}
}

static void
v1_each(void *ctx, const char *s, size_t n, size_t lineno)
{
	v1_line(ctx, s, n, lineno);
}

int
cg_hm_index_parse_v1(cg_hm_index *out, const char *text, size_t len,
                     cg_err *err)
{
	struct v1 st;
	size_t n = 0;
	size_t nfixed = 0;
	char *clean;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len > CG_HM_MAX_BYTES)
		return cg_err_set(err, CG_ETOOBIG,
		                  "index.md: %zu bytes, over the %u-byte limit",
		                  len, CG_HM_MAX_BYTES);
	clean = cg_utf8_sanitize(text != NULL ? text : "", text ? len : 0, &n,
	                         &nfixed);
	if (clean == NULL)
		return cg_err_set(err, CG_ENOMEM, "index.md: out of memory");
	memset(&st, 0, sizeof(st));
	cg_hmi_init(&st.h, err);
	st.ix = out;
	out->version = 1;
	if (nfixed > 0)
		cg_hmi_warn(&st.h,
		            "index.md: %zu invalid UTF-8 sequences replaced",
		            nfixed);
	cg_hmi_each_line(clean, n, v1_each, &st, &st.h.rc);
	free(clean);
	free(st.category);
	if (st.h.rc == 0 && out->v == NULL) {
		out->v = calloc(1, sizeof(*out->v));
		if (out->v == NULL)
			cg_hmi_nomem(&st.h);
	}
	if (st.h.rc == 0 && out->tiers == NULL) {
		out->tiers = calloc(1, sizeof(*out->tiers));
		if (out->tiers == NULL)
			cg_hmi_nomem(&st.h);
	}
	rc = cg_hmi_finish(&st.h, NULL, &out->warnings);
	if (rc != 0)
		cg_hm_index_fini(out);
	return rc;
}

/* ---------------------------------------------------------- checks */

/* The set of concept ids of g, or NULL when memory ran out. */
static json_t *
concept_set(const cg_hm_graph *g)
{
	json_t *set = json_object();

	for (size_t i = 0; set != NULL && i < g->nconcepts; i++) {
		if (json_object_set_new(set, g->concepts[i].id, json_true())) {
			json_decref(set);
			set = NULL;
		}
	}
	return set;
}

int
cg_hm_check(cg_hm_index *ix, const cg_hm_config *c, const cg_hm_graph *g)
{
	struct cg_hmi h;
	json_t *concepts = g != NULL ? concept_set(g) : NULL;
	char q1[CG_HMI_QMAX];
	char q2[CG_HMI_QMAX];
	char **w;
	int rc;

	if (ix == NULL) {
		json_decref(concepts);
		return 0;
	}
	cg_hmi_init(&h, NULL);
	if (g != NULL && concepts == NULL)
		cg_hmi_nomem(&h); /* the concept check cannot run */
	cg_hmi_warn_adopt(&h, ix->warnings);
	ix->warnings = NULL;
	for (size_t i = 0; i < ix->n; i++) {
		const cg_hm_entry *e = &ix->v[i];

		if (c != NULL && cg_hm_config_source(c, e->source) == NULL)
			cg_hmi_warn(
			    &h, "%s: source \"%s\" is not in config.yaml",
			    cg_hmi_q(q1, e->id), cg_hmi_q(q2, e->source));
		for (size_t k = 0; concepts != NULL && e->concepts != NULL &&
		                   e->concepts[k] != NULL;
		     k++)
			if (json_object_get(concepts, e->concepts[k]) == NULL)
				cg_hmi_warn(&h,
				            "%s: concept \"%s\" is not in "
				            "graph.yaml",
				            cg_hmi_q(q1, e->id),
				            cg_hmi_q(q2, e->concepts[k]));
	}
	json_decref(concepts);
	w = cg_hmi_warn_take(&h);
	ix->warnings = w;
	rc = h.rc;
	cg_hmi_fini(&h);
	return rc;
}

/* ---------------------------------------------------------- appending */

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): each copy is
 * stored in d, returned to the caller, which frees it with cg_strv_free. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static char **
strv_dup(const char *const *v)
{
	size_t n = 0;
	char **d;

	while (v != NULL && v[n] != NULL)
		n++;
	d = calloc(n + 1, sizeof(*d));
	if (d == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		d[i] = strdup(v[i]);
		if (d[i] == NULL) {
			cg_strv_free(d);
			return NULL;
		}
	}
	return d;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

static char *
opt_dup(const char *s, bool *bad)
{
	char *d = s != NULL ? strdup(s) : NULL;

	*bad |= s != NULL && d == NULL;
	return d;
}

int
cg_hm_index_merge(cg_hm_index *ix, cg_hm_index *from)
{
	json_t *ids = json_object();
	cg_hm_entry *v;
	size_t n = ix->n;

	v = ids ? realloc(ix->v, (ix->n + from->n + 1) * sizeof(*v)) : NULL;
	if (v == NULL) {
		json_decref(ids);
		return CG_ENOMEM;
	}
	ix->v = v;
	for (size_t i = 0; i < ix->n; i++)
		if (json_object_set_new(ids, v[i].id, json_true()) != 0)
			goto nomem;
	for (size_t i = 0; i < from->n; i++) {
		if (json_object_get(ids, from->v[i].id) != NULL) {
			entry_free(&from->v[i]);
			continue;
		}
		if (json_object_set_new(ids, from->v[i].id, json_true()) != 0)
			goto nomem;
		v[n++] = from->v[i];
		memset(&from->v[i], 0, sizeof(from->v[i]));
	}
	ix->n = n;
	from->n = 0;
	json_decref(ids);
	return 0;
nomem:
	/* Nothing moved yet is lost: entries still in from stay there. */
	ix->n = n;
	json_decref(ids);
	return CG_ENOMEM;
}

int
cg_hm_index_add(cg_hm_index *ix, const cg_hm_entry *e)
{
	cg_hm_entry c;
	cg_hm_entry *v;
	bool bad = false;

	memset(&c, 0, sizeof(c));
	c.id = opt_dup(e->id, &bad);
	c.source = opt_dup(e->source, &bad);
	c.path = opt_dup(e->path, &bad);
	c.title = opt_dup(e->title, &bad);
	c.summary = opt_dup(e->summary, &bad);
	c.category = opt_dup(e->category, &bad);
	c.url = opt_dup(e->url, &bad);
	c.tags = strv_dup((const char *const *)e->tags);
	c.keywords = strv_dup((const char *const *)e->keywords);
	c.concepts = strv_dup((const char *const *)e->concepts);
	v = realloc(ix->v, (ix->n + 1) * sizeof(*v));
	if (bad || c.id == NULL || c.title == NULL || c.tags == NULL ||
	    c.keywords == NULL || c.concepts == NULL || v == NULL) {
		if (v != NULL)
			ix->v = v;
		entry_free(&c);
		return CG_ENOMEM;
	}
	ix->v = v;
	ix->v[ix->n++] = c;
	return 0;
}
