/*
 * page.c - reads one guild wiki page from its bytes: frontmatter (through
 * frontmatter.h), the normalised fields with the drift SPEC 3.1 tolerates,
 * the heading outline, sections with file line ranges, outgoing links and
 * the first prose line.
 *
 * It must not do I/O, must not fail on any input except out of memory, and
 * must stay linear in the input size: every forward search over a line is
 * memoised so that hostile input (thousands of "[[" or "`" without a
 * closer, 50 MB lines) never rescans the same bytes.
 */
#include "page/page.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cg_buf.h"
#include "common/cg_utf8.h"

#define FIRST_LINE_MAX 300
#define NONE           SIZE_MAX

/* ------------------------------------------------------------------ */
/* Categories and dates                                                */

static const struct {
	const char *one;    /* the enum value */
	const char *dir;    /* its wiki directory */
	const char *plural; /* the plural a person types */
} categories[] = {
    {"context", "context", "contexts"},  {"standard", "standards", "standards"},
    {"product", "products", "products"}, {"entity", "entities", "entities"},
    {"concept", "concepts", "concepts"}, {"decision", "decisions", "decisions"},
    {"source", "sources", "sources"},
};

#define NCATEGORIES (sizeof(categories) / sizeof(categories[0]))

const char *
cg_category_for_dir(const char *dir)
{
	if (dir == NULL)
		return NULL;
	for (size_t i = 0; i < NCATEGORIES; i++)
		if (strcmp(dir, categories[i].dir) == 0)
			return categories[i].one;
	return NULL;
}

int
cg_category_valid(const char *s)
{
	if (s == NULL)
		return 0;
	for (size_t i = 0; i < NCATEGORIES; i++)
		if (strcmp(s, categories[i].one) == 0)
			return 1;
	return 0;
}

const char *
cg_category_singular(const char *s)
{
	if (s == NULL)
		return NULL;
	for (size_t i = 0; i < NCATEGORIES; i++)
		if (strcmp(s, categories[i].plural) == 0)
			return categories[i].one;
	return NULL;
}

const char *
cg_category_list(void)
{
	return "context, standard, product, entity, concept, decision, source";
}

static bool
digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static int
num(const char *s, size_t n)
{
	int v = 0;

	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* Checks the first 10 bytes of s as YYYY-MM-DD (s has at least 10). */
static bool
date10(const char *s)
{
	static const int mdays[] = {31, 28, 31, 30, 31, 30,
	                            31, 31, 30, 31, 30, 31};
	int y;
	int m;
	int d;
	int max;

	if (!digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' ||
	    !digits(s + 8, 2))
		return false;
	y = num(s, 4);
	m = num(s + 5, 2);
	d = num(s + 8, 2);
	if (y < 1 || m < 1 || m > 12 || d < 1)
		return false;
	max = mdays[m - 1];
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		max = 29;
	return d <= max;
}

int
cg_date_valid(const char *s)
{
	return s != NULL && strlen(s) == 10 && date10(s);
}

/* ------------------------------------------------------------------ */
/* Small string helpers                                                */

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' ||
	       c == '\v';
}

static bool
is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_space(s[i]))
			return false;
	return true;
}

/* Trims spaces around [*s, *s + *n). */
static void
trim(const char **s, size_t *n)
{
	while (*n > 0 && is_space(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && is_space((*s)[*n - 1]))
		(*n)--;
}

static char *
dup_trim(const char *s, size_t n)
{
	char *p;

	trim(&s, &n);
	p = malloc(n + 1);
	if (p == NULL)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* Grows a vector of elem-sized items so that one more fits. */
static int
vec_reserve(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	if (ncap > SIZE_MAX / elem)
		return CG_ENOMEM;
	p = realloc(*v, ncap * elem);
	if (p == NULL)
		return CG_ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Frontmatter fields                                                  */

/* A NULL-terminated string list under construction. */
struct strv {
	char **v;
	size_t n;
	size_t cap;
};

enum list_mode {
	LIST_ONE = 0,    /* a plain string is one item */
	LIST_COMMAS = 1, /* a plain string is comma-separated (tags) */
	LIST_REFS = 2,   /* source_refs: comments stripped, mappings read */
};

static int
strv_push(struct strv *sv, char *s)
{
	if (s == NULL)
		return CG_ENOMEM;
	if (vec_reserve((void **)&sv->v, &sv->cap, sv->n + 1, sizeof(char *)) !=
	    0) {
		free(s);
		return CG_ENOMEM;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
	return 0;
}

static char **
strv_take(struct strv *sv)
{
	char **v = sv->v;

	if (v == NULL)
		v = calloc(1, sizeof(char *));
	sv->v = NULL;
	sv->n = sv->cap = 0;
	return v;
}

static void
strv_free(char **v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* A scalar as text (strings trimmed; numbers and booleans spelled), or
 * NULL for null, empty, arrays and objects.  *oom is set on ENOMEM. */
static char *
scalar_text(const json_t *v, bool *oom)
{
	char tmp[64];
	char *s = NULL;

	if (json_is_string(v)) {
		const char *p = json_string_value(v);
		size_t n = json_string_length(v);

		trim(&p, &n);
		if (n == 0)
			return NULL;
		s = dup_trim(p, n);
	} else if (json_is_integer(v)) {
		(void)snprintf(tmp, sizeof(tmp), "%" JSON_INTEGER_FORMAT,
		               json_integer_value(v));
		s = strdup(tmp);
	} else if (json_is_real(v)) {
		(void)snprintf(tmp, sizeof(tmp), "%g", json_real_value(v));
		s = strdup(tmp);
	} else if (json_is_boolean(v)) {
		s = strdup(json_is_true(v) ? "true" : "false");
	} else {
		return NULL;
	}
	if (s == NULL)
		*oom = true;
	return s;
}

/* Adds one list item after cleaning: quotes left by a lenient read are
 * dropped and, for source_refs, a trailing "# comment". */
static int
add_item(struct strv *sv, const char *s, size_t n, enum list_mode mode)
{
	trim(&s, &n);
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
		trim(&s, &n);
	}
	if (mode == LIST_REFS) {
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '#' && (i == 0 || is_space(s[i - 1]))) {
				n = i;
				break;
			}
		}
		trim(&s, &n);
	}
	if (n == 0)
		return 0;
	return strv_push(sv, dup_trim(s, n));
}

/* A plain string value: "[a, b]" (a flow list a lenient reader left as
 * text) and, in LIST_COMMAS mode, "a, b" are split at commas. */
static int
add_string(struct strv *sv, const char *s, size_t n, enum list_mode mode)
{
	bool split = mode == LIST_COMMAS;
	size_t start = 0;
	int rc = 0;

	trim(&s, &n);
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
		split = true;
	}
	if (!split)
		return add_item(sv, s, n, mode);
	for (size_t i = 0; i <= n && rc == 0; i++) {
		if (i == n || s[i] == ',') {
			rc = add_item(sv, s + start, i - start, mode);
			start = i + 1;
		}
	}
	return rc;
}

static int
add_value(struct strv *sv, const json_t *v, enum list_mode mode)
{
	bool oom = false;
	char *s;
	int rc;

	if (json_is_string(v))
		return add_string(sv, json_string_value(v),
		                  json_string_length(v), mode);
	if (json_is_object(v) && mode == LIST_REFS) {
		const json_t *k = json_object_get(v, "slug");

		if (!json_is_string(k))
			k = json_object_get(v, "path");
		if (!json_is_string(k))
			return 0;
		return add_item(sv, json_string_value(k), json_string_length(k),
		                mode);
	}
	s = scalar_text(v, &oom);
	if (oom)
		return CG_ENOMEM;
	if (s == NULL)
		return 0;
	rc = add_item(sv, s, strlen(s), mode);
	free(s);
	return rc;
}

/* A list field: an array, a string, or absent/null (empty list). */
static int
list_field(char ***out, const json_t *v, enum list_mode mode)
{
	struct strv sv = {NULL, 0, 0};
	int rc = 0;

	if (json_is_array(v)) {
		size_t i;
		const json_t *item;

		json_array_foreach(v, i, item) {
			if (rc == 0 && !json_is_array(item))
				rc = add_value(&sv, item, mode);
		}
	} else if (v != NULL) {
		rc = add_value(&sv, v, mode);
	}
	*out = strv_take(&sv);
	if (*out == NULL)
		rc = CG_ENOMEM;
	return rc;
}

/* YYYY-MM-DD, or the date part of a full ISO timestamp, else NULL. */
static char *
date_field(const json_t *v, bool *oom)
{
	const char *s;
	size_t n;
	char *d;

	if (!json_is_string(v))
		return NULL;
	s = json_string_value(v);
	n = json_string_length(v);
	trim(&s, &n);
	if (n < 10 || !date10(s))
		return NULL;
	if (n > 10 && s[10] != 'T' && s[10] != 't' && s[10] != ' ')
		return NULL;
	d = strndup(s, 10);
	if (d == NULL)
		*oom = true;
	return d;
}

/* The first valid date among two keys. */
static char *
date_of(const json_t *fm, const char *k1, const char *k2, bool *oom)
{
	char *d = date_field(json_object_get(fm, k1), oom);

	if (d == NULL && k2 != NULL)
		d = date_field(json_object_get(fm, k2), oom);
	return d;
}

/* The singular category a written value names, or NULL: exact values and
 * plurals ("standards", seen in real pages), case-insensitive. */
static const char *
category_of(const char *s)
{
	if (s == NULL)
		return NULL;
	for (size_t i = 0; i < NCATEGORIES; i++)
		if (strcasecmp(s, categories[i].one) == 0 ||
		    strcasecmp(s, categories[i].plural) == 0 ||
		    strcasecmp(s, categories[i].dir) == 0)
			return categories[i].one;
	return NULL;
}

static int
set_category(cg_page *pg, const char *dir_category)
{
	static const char *const keys[] = {"type", "category"};
	const char *found = NULL;
	char *raw = NULL;
	bool oom = false;

	for (size_t i = 0; i < 2 && found == NULL && !oom; i++) {
		char *s = scalar_text(json_object_get(pg->fm, keys[i]), &oom);

		found = category_of(s);
		if (found == NULL && raw == NULL)
			raw = s;
		else
			free(s);
	}
	if (found != NULL) {
		/* The frontmatter named a valid category: nothing to keep. */
		free(raw);
		raw = NULL;
	} else {
		found = category_of(dir_category);
	}
	pg->category_raw = raw;
	if (found != NULL) {
		pg->category = strdup(found);
		if (pg->category == NULL)
			oom = true;
	}
	return oom ? CG_ENOMEM : 0;
}

static int
set_confidence(cg_page *pg)
{
	static const char *const levels[] = {"low", "medium", "high"};
	bool oom = false;
	char *s = scalar_text(json_object_get(pg->fm, "confidence"), &oom);

	if (s == NULL)
		return oom ? CG_ENOMEM : 0;
	for (size_t i = 0; i < 3; i++) {
		if (strcasecmp(s, levels[i]) == 0) {
			free(s);
			pg->confidence = strdup(levels[i]);
			return pg->confidence ? 0 : CG_ENOMEM;
		}
	}
	pg->confidence_raw = s;
	return 0;
}

/* Every normalised field that comes from the frontmatter alone. */
static int
read_fields(cg_page *pg, const char *dir_category)
{
	const json_t *fm = pg->fm;
	bool oom = false;
	int rc;

	rc = set_category(pg, dir_category);
	if (rc == 0)
		rc = set_confidence(pg);
	pg->owner = scalar_text(json_object_get(fm, "owner"), &oom);
	pg->title = scalar_text(json_object_get(fm, "title"), &oom);
	pg->claim = scalar_text(json_object_get(fm, "claim"), &oom);
	if (pg->claim == NULL)
		pg->claim = scalar_text(json_object_get(fm, "subject"), &oom);
	pg->created_at = date_of(fm, "created_at", NULL, &oom);
	pg->updated_at = date_of(fm, "updated_at", "updated", &oom);
	pg->expires_at = date_of(fm, "expires_at", NULL, &oom);
	if (rc == 0)
		rc = list_field(&pg->supersedes,
		                json_object_get(fm, "supersedes"), LIST_ONE);
	if (rc == 0)
		rc = list_field(&pg->tags, json_object_get(fm, "tags"),
		                LIST_COMMAS);
	if (rc == 0)
		rc = list_field(&pg->source_refs,
		                json_object_get(fm, "source_refs"), LIST_REFS);
	if (rc == 0)
		rc = list_field(&pg->aliases, json_object_get(fm, "aliases"),
		                LIST_ONE);
	return oom ? CG_ENOMEM : rc;
}

/* ------------------------------------------------------------------ */
/* Body: fences, headings, sections                                    */

/* The state of one body walk.  Errors are sticky in rc. */
struct body {
	cg_page *pg;
	int rc;
	/* Enclosing headings, outermost first (text points into the
	 * sanitized page, clipped to CG_HEADING_MAX_BYTES). */
	int lv[6];
	const char *ht[6];
	size_t hn[6];
	int depth;
	char *path; /* the heading path of the current content */
	/* The last heading, and whether a section carried its path yet. */
	int head_line;
	int head_level;
	bool head_used;
	/* The section being built: body text, first and last non-blank
	 * line, and the length up to the last non-blank line. */
	cg_buf buf;
	int start;
	int last;
	size_t keep;
	/* Inside a fenced code block: its character and run length. */
	bool fenced;
	char fch;
	size_t flen;
	size_t cap_sec;
	size_t cap_head;
	size_t cap_link;
};

/* An opening fence: up to 3 spaces, then 3 or more '`' or '~' (a
 * backtick fence's info string may not hold a backtick). */
static bool
fence_open(const char *l, size_t n, char *ch, size_t *len)
{
	size_t i = 0;
	size_t k;

	while (i < 3 && i < n && l[i] == ' ')
		i++;
	if (i >= n || (l[i] != '`' && l[i] != '~'))
		return false;
	k = i;
	while (k < n && l[k] == l[i])
		k++;
	if (k - i < 3)
		return false;
	if (l[i] == '`' && memchr(l + k, '`', n - k) != NULL)
		return false;
	*ch = l[i];
	*len = k - i;
	return true;
}

/* A closing fence: the same character, at least as many, then spaces. */
static bool
fence_close(const char *l, size_t n, char ch, size_t len)
{
	size_t i = 0;
	size_t k;

	while (i < 3 && i < n && l[i] == ' ')
		i++;
	k = i;
	while (k < n && l[k] == ch)
		k++;
	return k - i >= len && is_blank(l + k, n - k);
}

/* Bytes of a fenced block after its opening line, up to and including
 * the closing fence (or the end of the text), each line with its '\n'.
 * s starts at the line after the opening fence. */
static size_t
fence_extent(const char *s, size_t n, char ch, size_t len)
{
	size_t pos = 0;

	while (pos < n) {
		const char *nl = memchr(s + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - s) : n;
		size_t ll = end - pos;

		if (ll > 0 && s[end - 1] == '\r')
			ll--;
		if (fence_close(s + pos, ll, ch, len))
			return end < n ? end + 1 : n;
		pos = end + 1;
	}
	return n;
}

/* An ATX heading: up to 3 spaces, 1-6 '#', a space or tab, then text with
 * an optional closing run of '#'.  Returns the level (0: not a heading)
 * and the text.  A heading whose text is empty is read as plain text. */
static int
atx_heading(const char *l, size_t n, const char **text, size_t *tlen)
{
	size_t i = 0;
	size_t h;
	size_t e;
	const char *t;
	size_t m;

	while (i < 3 && i < n && l[i] == ' ')
		i++;
	h = i;
	while (h < n && h - i < 7 && l[h] == '#')
		h++;
	if (h == i || h - i > 6 || h >= n || (l[h] != ' ' && l[h] != '\t'))
		return 0;
	t = l + h;
	m = n - h;
	trim(&t, &m);
	e = m;
	while (e > 0 && t[e - 1] == '#')
		e--;
	if (e == 0)
		m = 0;
	else if (e < m && (t[e - 1] == ' ' || t[e - 1] == '\t'))
		m = e;
	trim(&t, &m);
	if (m == 0)
		return 0;
	*text = t;
	*tlen = cg_utf8_clip(t, m, CG_HEADING_MAX_BYTES);
	return (int)(h - i);
}

static void
append(struct body *b, const char *p, size_t n)
{
	if (b->rc == 0 && cg_buf_append(&b->buf, p, n) != 0)
		b->rc = CG_ENOMEM;
}

/* Adds a section (taking body) unless the page already has the most the
 * index can number. */
static void
emit(struct body *b, int start, int end, char *body)
{
	cg_page *pg = b->pg;
	char *path = strdup(b->path ? b->path : "");
	cg_section *sec;

	if (body == NULL || path == NULL) {
		b->rc = CG_ENOMEM;
		goto out_free;
	}
	/* The first section under a heading starts at the heading's line,
	 * so a line range always shows the heading that titles it. */
	if (!b->head_used && b->head_line > 0 && b->head_line < start)
		start = b->head_line;
	b->head_used = true;
	if (pg->nsections >= CG_PAGE_MAX_SECTIONS)
		goto out_free;
	if (vec_reserve((void **)&pg->sections, &b->cap_sec, pg->nsections,
	                sizeof(*sec)) != 0) {
		b->rc = CG_ENOMEM;
		goto out_free;
	}
	sec = &pg->sections[pg->nsections++];
	sec->line_start = start;
	sec->line_end = end;
	sec->headings = path;
	sec->body = body;
	return;
out_free:
	free(path);
	free(body);
}

/* Ends the section being built; trailing blank lines are dropped and a
 * section without a non-blank line is not kept. */
static void
flush(struct body *b)
{
	if (b->start > 0 && b->rc == 0)
		emit(b, b->start, b->last,
		     strndup(cg_buf_str(&b->buf), b->keep));
	cg_buf_reset(&b->buf);
	b->start = b->last = 0;
	b->keep = 0;
}

/* Where to cut a line longer than a section may be: at most
 * CG_SECTION_MAX_BYTES, on a code point boundary, after a space when one
 * is in the last quarter. */
static size_t
piece_len(const char *l, size_t n)
{
	size_t k;

	if (n <= CG_SECTION_MAX_BYTES)
		return n;
	k = cg_utf8_clip(l, n, CG_SECTION_MAX_BYTES);
	for (size_t j = k; j > k - CG_SECTION_MAX_BYTES / 4; j--)
		if (l[j - 1] == ' ' || l[j - 1] == '\t')
			return j;
	return k > 0 ? k : 1;
}

/* Appends non-blank text of one line to the section being built. */
static void
add_piece(struct body *b, const char *l, size_t n, int line)
{
	bool sep = b->start > 0;

	if (sep && b->buf.len + 1 + n > CG_SECTION_MAX_BYTES) {
		flush(b);
		sep = false;
	}
	if (sep)
		append(b, "\n", 1);
	append(b, l, n);
	if (b->start == 0)
		b->start = line;
	b->last = line;
	b->keep = b->buf.len;
}

/* Adds one body line.  A blank line outside a fence ends the section once
 * it is over the target size; any line that would push it past the hard
 * maximum starts a new one; a line longer than the maximum is cut. */
static void
add_line(struct body *b, const char *l, size_t n, int line, bool fenced)
{
	if (is_blank(l, n)) {
		if (b->start == 0)
			return;
		if ((!fenced && b->buf.len > CG_SECTION_TARGET_BYTES) ||
		    b->buf.len + 1 > CG_SECTION_MAX_BYTES)
			flush(b);
		else
			append(b, "\n", 1);
		return;
	}
	while (n > 0 && b->rc == 0) {
		size_t k = piece_len(l, n);

		if (!is_blank(l, k))
			add_piece(b, l, k, line);
		l += k;
		n -= k;
		if (n > 0)
			flush(b);
	}
}

/* The heading path: the enclosing headings joined with " > ". */
static int
set_path(struct body *b)
{
	cg_buf p;

	cg_buf_init(&p, SIZE_MAX / 2);
	for (int i = 0; i < b->depth; i++) {
		if ((i > 0 && cg_buf_append(&p, " > ", 3) != 0) ||
		    cg_buf_append(&p, b->ht[i], b->hn[i]) != 0) {
			cg_buf_fini(&p);
			return CG_ENOMEM;
		}
	}
	free(b->path);
	b->path = cg_buf_take(&p);
	return b->path ? 0 : CG_ENOMEM;
}

static void
record_heading(struct body *b, int level, const char *t, size_t n, int line)
{
	cg_page *pg = b->pg;
	cg_heading *h;
	char *text;

	if (pg->title == NULL && level == 1) {
		pg->title = strndup(t, n);
		if (pg->title == NULL)
			b->rc = CG_ENOMEM;
	}
	if (pg->nheadings >= CG_PAGE_MAX_HEADINGS || b->rc != 0)
		return;
	text = strndup(t, n);
	if (text == NULL || vec_reserve((void **)&pg->headings, &b->cap_head,
	                                pg->nheadings, sizeof(*h)) != 0) {
		free(text);
		b->rc = CG_ENOMEM;
		return;
	}
	h = &pg->headings[pg->nheadings++];
	h->level = level;
	h->line = line;
	h->text = text;
}

/* A heading ends the section before it.  The previous heading, when no
 * section carries it and this one is not nested under it, gets a section
 * of its own with an empty body so that it stays searchable. */
static void
on_heading(struct body *b, int level, const char *t, size_t n, int line)
{
	flush(b);
	if (b->head_line > 0 && !b->head_used && level <= b->head_level)
		emit(b, b->head_line, b->head_line, strdup(""));
	record_heading(b, level, t, n, line);
	while (b->depth > 0 && b->lv[b->depth - 1] >= level)
		b->depth--;
	b->lv[b->depth] = level;
	b->ht[b->depth] = t;
	b->hn[b->depth] = n;
	b->depth++;
	if (b->rc == 0)
		b->rc = set_path(b);
	b->head_line = line;
	b->head_level = level;
	b->head_used = false;
}

/* ------------------------------------------------------------------ */
/* Links                                                               */

#define BT_MAX        64 /* longer backtick runs never open a code span */
#define OPENERS       32 /* '[' remembered; the oldest is dropped */
#define WS_MAX        16 /* spaces allowed around a link destination */
#define LINK_TEXT_MAX 256

enum find_kind {
	FIND_CHAR = 0, /* the character c */
	FIND_PAIR = 1, /* c twice in a row */
	FIND_STOP = 2, /* the end of a bare destination */
};

/* A memoised forward search: the answer for from stays right for any
 * later query up to the match, so a line is scanned once per memo as long
 * as queries move forward. */
struct memo {
	enum find_kind kind;
	char c;
	bool set;
	size_t from;
	size_t at; /* first match at or after from, or NONE */
};

/* The link scanner of one line. */
struct lscan {
	const char *l;
	size_t n;
	int line;
	struct memo close2;      /* "]]" */
	struct memo open2;       /* "[[" */
	struct memo gt;          /* '>' closing "<dest>" */
	struct memo stop;        /* end of a bare destination */
	struct memo title[2][3]; /* '"', '\'', ')' after <dest> / dest */
	size_t bt[BT_MAX + 1];   /* last backtick run of each length, +1 */
	bool bt_ready;           /* bt has been cleared */
	bool bt_all;             /* bt covers the rest of the line */
	size_t open[OPENERS];    /* '[' positions, a ring */
	bool img[OPENERS];       /* the '[' is the one of "![" */
	size_t nopen;
	size_t head;
};

static size_t
search(const struct memo *m, const char *l, size_t n, size_t from)
{
	const char *p;

	while (from < n) {
		if (m->kind == FIND_STOP) {
			char c = l[from];

			if (c == ' ' || c == '\t' || c == '(' || c == ')')
				return from;
			from++;
			continue;
		}
		p = memchr(l + from, m->c, n - from);
		if (p == NULL)
			return NONE;
		from = (size_t)(p - l);
		if (m->kind == FIND_CHAR)
			return from;
		if (from + 1 < n && l[from + 1] == m->c)
			return from;
		from++;
	}
	return NONE;
}

static size_t
memo_find(struct memo *m, const char *l, size_t n, size_t from)
{
	if (m->set && from >= m->from && (m->at == NONE || from <= m->at))
		return m->at;
	m->set = true;
	m->from = from;
	m->at = search(m, l, n, from);
	return m->at;
}

/* The closing run of exactly k backticks at or after from, or NONE. */
static size_t
backtick_close(struct lscan *s, size_t from, size_t k)
{
	size_t p = from;

	if (k > BT_MAX)
		return NONE;
	if (!s->bt_ready) {
		memset(s->bt, 0, sizeof(s->bt));
		s->bt_ready = true;
	}
	if (s->bt_all && (s->bt[k] == 0 || s->bt[k] - 1 < from))
		return NONE;
	while (p < s->n) {
		const char *q = memchr(s->l + p, '`', s->n - p);
		size_t a;
		size_t e;

		if (q == NULL)
			break;
		a = (size_t)(q - s->l);
		e = a;
		while (e < s->n && s->l[e] == '`')
			e++;
		if (e - a <= BT_MAX)
			s->bt[e - a] = a + 1;
		if (e - a == k)
			return a;
		p = e;
	}
	s->bt_all = true;
	return NONE;
}

/* Past an inline code span starting at i, or past its backtick run when
 * nothing closes it. */
static size_t
skip_code(struct lscan *s, size_t i)
{
	size_t e = i;
	size_t c;

	while (e < s->n && s->l[e] == '`')
		e++;
	c = backtick_close(s, e, e - i);
	return c == NONE ? e : c + (e - i);
}

static void
add_link(struct body *b, enum cg_link_kind kind, const char *t, size_t tn,
         const char *a, size_t an, const char *x, size_t xn, int line)
{
	cg_page *pg = b->pg;
	cg_link *lk;

	trim(&t, &tn);
	trim(&a, &an);
	trim(&x, &xn);
	if (tn == 0 || tn > CG_LINK_TARGET_MAX ||
	    pg->nlinks >= CG_PAGE_MAX_LINKS || b->rc != 0)
		return;
	if (vec_reserve((void **)&pg->links, &b->cap_link, pg->nlinks,
	                sizeof(*lk)) != 0) {
		b->rc = CG_ENOMEM;
		return;
	}
	lk = &pg->links[pg->nlinks];
	memset(lk, 0, sizeof(*lk));
	lk->kind = kind;
	lk->line = line;
	lk->target = strndup(t, tn);
	lk->anchor = an > 0 ? strndup(a, an) : NULL;
	lk->text =
	    xn > 0 ? strndup(x, cg_utf8_clip(x, xn, LINK_TEXT_MAX)) : NULL;
	pg->nlinks++;
	if (lk->target == NULL || (an > 0 && lk->anchor == NULL) ||
	    (xn > 0 && lk->text == NULL))
		b->rc = CG_ENOMEM;
}

/* [[target#heading|alias]] with its inside at [p, p + n). */
static void
wiki_link(struct body *b, const char *p, size_t n, int line)
{
	const char *bar = memchr(p, '|', n);
	size_t left = bar ? (size_t)(bar - p) : n;
	size_t alen = bar ? n - left - 1 : 0;
	const char *hash;
	size_t tn;

	/* Inside a table the bar is written "\|". */
	if (bar != NULL && left > 0 && p[left - 1] == '\\')
		left--;
	hash = memchr(p, '#', left);
	tn = hash ? (size_t)(hash - p) : left;
	add_link(b, CG_LINK_WIKI, p, tn, hash ? hash + 1 : NULL,
	         hash ? left - tn - 1 : 0, bar ? bar + 1 : NULL, alen, line);
}

static bool
is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
is_alnum(char c)
{
	return is_alpha(c) || (c >= '0' && c <= '9');
}

static bool
is_punct(char c)
{
	return c > ' ' && c < 0x7f && !is_alnum(c);
}

/* True for a destination that is a relative path: not empty, not "/..."
 * or "#...", and without a URI scheme ("http:", "mailto:"). */
static bool
relative_dest(const char *d, size_t n)
{
	size_t i = 1;

	if (n == 0 || d[0] == '/' || d[0] == '#' || d[0] == '\\')
		return false;
	if (!is_alpha(d[0]))
		return true;
	while (i < n &&
	       (is_alnum(d[i]) || d[i] == '+' || d[i] == '.' || d[i] == '-'))
		i++;
	return !(i < n && d[i] == ':');
}

/* Past at most WS_MAX spaces at p; the end of the line when there are
 * more (no link has that many). */
static size_t
skip_ws(const struct lscan *s, size_t p)
{
	size_t k = 0;

	while (p < s->n && (s->l[p] == ' ' || s->l[p] == '\t')) {
		if (++k > WS_MAX)
			return s->n;
		p++;
	}
	return p;
}

/* The "(dest "title")" after "]": dest at [*ds, *de), *end past ")".
 * Destinations with parentheses are not supported. */
static bool
parse_dest(struct lscan *s, size_t p, size_t *ds, size_t *de, size_t *end)
{
	int bare;
	size_t q;

	p = skip_ws(s, p);
	if (p >= s->n)
		return false;
	bare = s->l[p] != '<';
	if (!bare) {
		q = memo_find(&s->gt, s->l, s->n, p + 1);
		if (q == NONE)
			return false;
		*ds = p + 1;
		p = q + 1;
	} else {
		q = memo_find(&s->stop, s->l, s->n, p);
		if (q == NONE || s->l[q] == '(')
			return false;
		*ds = p;
		p = q;
	}
	*de = q;
	p = skip_ws(s, p);
	if (p < s->n && (s->l[p] == '"' || s->l[p] == '\'' || s->l[p] == '(')) {
		int k = s->l[p] == '"' ? 0 : s->l[p] == '\'' ? 1 : 2;

		q = memo_find(&s->title[bare][k], s->l, s->n, p + 1);
		if (q == NONE)
			return false;
		p = skip_ws(s, q + 1);
	}
	if (p >= s->n || s->l[p] != ')')
		return false;
	*end = p + 1;
	return true;
}

static void
md_link(struct body *b, const struct lscan *s, size_t t0, size_t t1, size_t ds,
        size_t de)
{
	const char *d = s->l + ds;
	size_t dn = de - ds;
	const char *hash;
	size_t tn;

	trim(&d, &dn);
	if (!relative_dest(d, dn))
		return;
	hash = memchr(d, '#', dn);
	tn = hash ? (size_t)(hash - d) : dn;
	add_link(b, CG_LINK_MD, d, tn, hash ? hash + 1 : NULL,
	         hash ? dn - tn - 1 : 0, s->l + t0, t1 - t0, s->line);
}

static void
push_open(struct lscan *s, size_t pos, bool img)
{
	s->open[s->head] = pos;
	s->img[s->head] = img;
	s->head = (s->head + 1) % OPENERS;
	if (s->nopen < OPENERS)
		s->nopen++;
}

/* A "]": closes the innermost "[" and, when "(dest)" follows, makes a
 * link (kept when relative) or an image (skipped).  Links do not nest, so
 * a link forgets the openers before it. */
static size_t
close_bracket(struct body *b, struct lscan *s, size_t i)
{
	size_t o;
	size_t ds;
	size_t de;
	size_t end;
	bool img;

	if (s->nopen == 0)
		return i + 1;
	s->head = (s->head + OPENERS - 1) % OPENERS;
	s->nopen--;
	o = s->open[s->head];
	img = s->img[s->head];
	if (i + 1 >= s->n || s->l[i + 1] != '(' ||
	    !parse_dest(s, i + 2, &ds, &de, &end))
		return i + 1;
	if (img)
		return end;
	s->nopen = 0;
	md_link(b, s, o + 1, i, ds, de);
	return end;
}

/* A "[[" at i: the wikilink up to the next "]]" when no other "[[" comes
 * first; returns the position after it, or 0 when it is not one. */
static size_t
try_wiki(struct body *b, struct lscan *s, size_t i)
{
	size_t c = memo_find(&s->close2, s->l, s->n, i + 2);
	size_t o;

	if (c == NONE)
		return 0;
	o = memo_find(&s->open2, s->l, s->n, i + 1);
	if (o != NONE && o < c)
		return 0;
	if (c - (i + 2) > CG_LINK_TARGET_MAX + LINK_TEXT_MAX)
		return 0;
	wiki_link(b, s->l + i + 2, c - (i + 2), s->line);
	return c + 2;
}

static void
memo_init(struct memo *m, enum find_kind kind, char c)
{
	m->kind = kind;
	m->c = c;
	m->set = false;
	m->from = 0;
	m->at = NONE;
}

/* Field by field: the backtick table is cleared only when needed. */
static void
lscan_init(struct lscan *s, const char *l, size_t n, int line)
{
	static const char tc[3] = {'"', '\'', ')'};

	s->l = l;
	s->n = n;
	s->line = line;
	memo_init(&s->close2, FIND_PAIR, ']');
	memo_init(&s->open2, FIND_PAIR, '[');
	memo_init(&s->gt, FIND_CHAR, '>');
	memo_init(&s->stop, FIND_STOP, 0);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 3; k++)
			memo_init(&s->title[i][k], FIND_CHAR, tc[k]);
	s->bt_ready = false;
	s->bt_all = false;
	s->nopen = 0;
	s->head = 0;
}

/* Finds the links of one line outside code spans.  Every step moves
 * forward and every search is memoised: linear in the line. */
static void
scan_links(struct body *b, const char *l, size_t n, int line)
{
	struct lscan s;
	size_t i = 0;

	if (memchr(l, '[', n) == NULL)
		return;
	lscan_init(&s, l, n, line);
	while (i < n && b->rc == 0) {
		char c = l[i];
		bool two = i + 1 < n && l[i + 1] == '[';
		size_t e = 0;

		if (c == '[' && two)
			e = try_wiki(b, &s, i);
		if (e != 0) {
			i = e;
		} else if (c == '\\' && i + 1 < n && is_punct(l[i + 1])) {
			i += 2;
		} else if (c == '`') {
			i = skip_code(&s, i);
		} else if (c == '[') {
			push_open(&s, i, false);
			i++;
		} else if (c == '!' && two && !(i + 2 < n && l[i + 2] == '[')) {
			push_open(&s, i + 1, true);
			i += 2;
		} else if (c == ']') {
			i = close_bracket(b, &s, i);
		} else {
			i++;
		}
	}
}

/* ------------------------------------------------------------------ */
/* The walk                                                            */

static void
set_first_line(struct body *b, const char *l, size_t n)
{
	trim(&l, &n);
	if (n == 0 || b->pg->first_line != NULL)
		return;
	b->pg->first_line = strndup(l, cg_utf8_clip(l, n, FIRST_LINE_MAX));
	if (b->pg->first_line == NULL)
		b->rc = CG_ENOMEM;
}

/* One body line; rest is the text after its '\n' (for a fence's size). */
static void
body_line(struct body *b, const char *l, size_t n, int line, const char *rest,
          size_t nrest)
{
	const char *t;
	size_t tn;
	int level;

	if (b->fenced) {
		if (fence_close(l, n, b->fch, b->flen))
			b->fenced = false;
		add_line(b, l, n, line, true);
		return;
	}
	if (fence_open(l, n, &b->fch, &b->flen)) {
		/* Keep a block whole when it fits in a section. */
		size_t need =
		    n + 1 + fence_extent(rest, nrest, b->fch, b->flen);

		if (b->start > 0 &&
		    b->buf.len + 1 + need > CG_SECTION_MAX_BYTES)
			flush(b);
		b->fenced = true;
		add_line(b, l, n, line, true);
		return;
	}
	level = atx_heading(l, n, &t, &tn);
	if (level > 0) {
		on_heading(b, level, t, tn, line);
	} else {
		add_line(b, l, n, line, false);
		set_first_line(b, l, n);
	}
	scan_links(b, l, n, line);
}

static int
parse_body(cg_page *pg, const char *s, size_t n, size_t pos, int line)
{
	struct body b;

	memset(&b, 0, sizeof(b));
	b.pg = pg;
	cg_buf_init(&b.buf, SIZE_MAX / 2);
	if (pos == 0 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		pos = 3;
	while (pos < n && b.rc == 0) {
		const char *nl = memchr(s + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - s) : n;
		size_t len = end - pos;
		size_t next = end < n ? end + 1 : n;

		if (len > 0 && s[end - 1] == '\r')
			len--;
		body_line(&b, s + pos, len, line, s + next, n - next);
		pos = next;
		if (line < INT_MAX)
			line++;
	}
	flush(&b);
	if (b.head_line > 0 && !b.head_used)
		emit(&b, b.head_line, b.head_line, strdup(""));
	cg_buf_fini(&b.buf);
	free(b.path);
	return b.rc;
}

/* ------------------------------------------------------------------ */
/* The page                                                            */

static int
count_lines(const char *s, size_t n)
{
	size_t lines = 0;
	const char *p = s;
	const char *end = s + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		lines++;
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return lines > INT_MAX ? INT_MAX : (int)lines;
}

static int
read_frontmatter(cg_page *pg, const char *s, size_t n, size_t *body_off,
                 int *body_line)
{
	size_t yoff = 0;
	size_t ylen = 0;
	cg_err e;

	cg_err_clear(&e);
	if (!cg_fm_split(s, n, &yoff, &ylen, body_off, body_line)) {
		*body_off = 0;
		*body_line = 1;
		pg->fm_status = CG_FM_NONE;
		pg->fm = json_object();
		return pg->fm ? 0 : CG_ENOMEM;
	}
	/* Defensive: the split's offsets are trusted only inside the text. */
	if (*body_off > n || yoff > n || ylen > n - yoff || *body_line < 1) {
		*body_off = n;
		*body_line = 1;
		ylen = 0;
	}
	pg->fm_status = cg_fm_parse(s + yoff, ylen, &pg->fm, &e);
	if (pg->fm != NULL && !json_is_object(pg->fm)) {
		json_decref(pg->fm);
		pg->fm = NULL;
		pg->fm_status = CG_FM_BROKEN;
	}
	if (pg->fm == NULL)
		pg->fm = json_object();
	if (pg->fm_status != CG_FM_OK && pg->fm_status != CG_FM_NONE) {
		size_t k = cg_utf8_clip(e.msg, strlen(e.msg),
		                        sizeof(pg->fm_error) - 1);

		memcpy(pg->fm_error, e.msg, k);
		pg->fm_error[k] = '\0';
	}
	return pg->fm ? 0 : CG_ENOMEM;
}

int
cg_page_parse(cg_page *page, const char *text, size_t len, const char *slug,
              const char *dir_category, cg_err *err)
{
	size_t n = 0;
	size_t body_off = 0;
	int body_line = 1;
	char *s;
	int rc;

	memset(page, 0, sizeof(*page));
	s = cg_utf8_sanitize(text ? text : "", text ? len : 0, &n,
	                     &page->utf8_fixed);
	if (s == NULL)
		return cg_err_set(err, CG_ENOMEM, "page %s: out of memory",
		                  slug ? slug : "");
	page->nlines = count_lines(s, n);
	rc = read_frontmatter(page, s, n, &body_off, &body_line);
	if (rc == 0)
		rc = read_fields(page, dir_category);
	if (rc == 0)
		rc = parse_body(page, s, n, body_off, body_line);
	if (rc == 0 && page->title == NULL && slug != NULL) {
		page->title = strdup(slug);
		if (page->title == NULL)
			rc = CG_ENOMEM;
	}
	free(s);
	if (rc != 0) {
		cg_page_fini(page);
		return cg_err_set(err, rc, "page %s: out of memory",
		                  slug ? slug : "");
	}
	return 0;
}

void
cg_page_fini(cg_page *page)
{
	if (page == NULL)
		return;
	json_decref(page->fm);
	free(page->title);
	free(page->category);
	free(page->category_raw);
	free(page->owner);
	free(page->confidence);
	free(page->confidence_raw);
	free(page->created_at);
	free(page->updated_at);
	free(page->expires_at);
	free(page->claim);
	strv_free(page->supersedes);
	strv_free(page->tags);
	strv_free(page->source_refs);
	strv_free(page->aliases);
	free(page->first_line);
	for (size_t i = 0; i < page->nsections; i++) {
		free(page->sections[i].headings);
		free(page->sections[i].body);
	}
	free(page->sections);
	for (size_t i = 0; i < page->nheadings; i++)
		free(page->headings[i].text);
	free(page->headings);
	for (size_t i = 0; i < page->nlinks; i++) {
		free(page->links[i].target);
		free(page->links[i].anchor);
		free(page->links[i].text);
	}
	free(page->links);
	memset(page, 0, sizeof(*page));
}

/* Lowercase ASCII words (bytes of multibyte characters count as word
 * characters) separated by single spaces. */
static int
normalise(cg_buf *out, const char *s)
{
	bool gap = false;
	bool any = false;

	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (!is_alnum((char)c) && c < 0x80) {
			gap = true;
			continue;
		}
		if (gap && any && cg_buf_putc(out, ' ') != 0)
			return CG_ENOMEM;
		gap = false;
		any = true;
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (cg_buf_putc(out, (char)c) != 0)
			return CG_ENOMEM;
	}
	return 0;
}

char *
cg_page_claim_key(const cg_page *page)
{
	cg_buf b;

	cg_buf_init(&b, SIZE_MAX / 2);
	if (page->claim != NULL) {
		if (cg_buf_puts(&b, "claim:") != 0 ||
		    cg_buf_puts(&b, page->claim) != 0)
			goto out_fail;
		return cg_buf_take(&b);
	}
	if (cg_buf_puts(&b, page->category ? page->category : "") != 0 ||
	    cg_buf_putc(&b, '|') != 0 ||
	    normalise(&b, page->title ? page->title : "") != 0)
		goto out_fail;
	return cg_buf_take(&b);
out_fail:
	cg_buf_fini(&b);
	return NULL;
}

const char *
cg_page_slug(const char *path, size_t *len)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 3 && strcmp(base + n - 3, ".md") == 0)
		n -= 3;
	*len = n;
	return base;
}
