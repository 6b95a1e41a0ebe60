/*
 * fields.c - the normalised fields of a page, read from its frontmatter
 * object with the drift SPEC 3.1 tolerates: category (type:, category:,
 * the page's directory; plurals and any case), owner, confidence, the
 * dates, the list fields (supersedes, tags, source_refs, aliases), the
 * title and claim as written; and the claim key built from them.
 *
 * It reads only the frontmatter object cg_page_parse made (page.c) and
 * must not look at the body, do I/O or fail on any value except out of
 * memory.  The category table here is the one list of categories.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cg_buf.h"
#include "common/cg_str.h"
#include "common/cg_vec.h"
#include "page/page.h"
#include "page/page_int.h"

/* ------------------------------------------------------------------ */
/* Categories and dates                                                */

/* The forms of a category's name: columns of the table below. */
enum form {
	ONE = 0,    /* the enum value */
	DIR = 1,    /* its wiki directory */
	PLURAL = 2, /* the plural a person types */
	NFORMS = 3,
};

static const char *const categories[][NFORMS] = {
    {"context", "context", "contexts"},  {"standard", "standards", "standards"},
    {"product", "products", "products"}, {"entity", "entities", "entities"},
    {"concept", "concepts", "concepts"}, {"decision", "decisions", "decisions"},
    {"source", "sources", "sources"},
};

#define NCATEGORIES (sizeof(categories) / sizeof(categories[0]))

/* The enum value of the category whose form f is exactly s, or NULL. */
static const char *
lookup(const char *s, enum form f)
{
	if (s == NULL)
		return NULL;
	for (size_t i = 0; i < NCATEGORIES; i++)
		if (strcmp(s, categories[i][f]) == 0)
			return categories[i][ONE];
	return NULL;
}

const char *
cg_category_at(size_t i)
{
	return i < NCATEGORIES ? categories[i][ONE] : NULL;
}

const char *
cg_category_for_dir(const char *dir)
{
	return lookup(dir, DIR);
}

int
cg_category_valid(const char *s)
{
	return lookup(s, ONE) != NULL;
}

const char *
cg_category_singular(const char *s)
{
	return lookup(s, PLURAL);
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
	if (cg_vec_reserve((void **)&sv->v, &sv->cap, sv->n + 1,
	                   sizeof(char *)) != 0) {
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

		cg_trim(&p, &n, CG_SPACES);
		if (n == 0)
			return NULL;
		s = cg_dup_trim(p, n);
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

/* A byte of CG_SPACES ('\0' is not one). */
static bool
is_space(char c)
{
	return c != '\0' && strchr(CG_SPACES, c) != NULL;
}

/* Adds one list item after cleaning: quotes left by a lenient read are
 * dropped and, for source_refs, a trailing "# comment". */
static int
add_item(struct strv *sv, const char *s, size_t n, enum list_mode mode)
{
	cg_trim(&s, &n, CG_SPACES);
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
		cg_trim(&s, &n, CG_SPACES);
	}
	if (mode == LIST_REFS) {
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '#' && (i == 0 || is_space(s[i - 1]))) {
				n = i;
				break;
			}
		}
		cg_trim(&s, &n, CG_SPACES);
	}
	if (n == 0)
		return 0;
	return strv_push(sv, cg_dup_trim(s, n));
}

/* A plain string value: "[a, b]" (a flow list a lenient reader left as
 * text) and, in LIST_COMMAS mode, "a, b" are split at commas. */
static int
add_string(struct strv *sv, const char *s, size_t n, enum list_mode mode)
{
	bool split = mode == LIST_COMMAS;
	size_t start = 0;
	int rc = 0;

	cg_trim(&s, &n, CG_SPACES);
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
	cg_trim(&s, &n, CG_SPACES);
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
		for (int f = 0; f < NFORMS; f++)
			if (strcasecmp(s, categories[i][f]) == 0)
				return categories[i][ONE];
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

int
cg_pgi_fields_read(cg_page *pg, const char *dir_category)
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
/* The claim key                                                       */

/* Lowercase ASCII words (bytes of multibyte characters count as word
 * characters) separated by single spaces. */
static int
normalise(cg_buf *out, const char *s)
{
	bool gap = false;
	bool any = false;

	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (!cg_pgi_alnum((char)c) && c < 0x80) {
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
