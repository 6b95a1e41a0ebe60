/*
 * map_plan.c - the map's budget planner and its rendering (see
 * map_plan.h).  Every line is costed in code points by rendering it into
 * a scratch buffer, so the plan and the text agree by construction: a
 * line is added only when it fits together with the change it makes to
 * the "… N more" lines.  Pure: no I/O, no federation, no node.
 */
#include "federation/map_plan.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_analyzer.h"
#include "common/cg_buf.h"
#include "common/cg_json.h"
#include "federation/uri.h"

static int64_t
int_of(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

/* --- map: the plan ---------------------------------------------------------
 */

struct mcat {
	const char *name;    /* NULL: uncategorised */
	int64_t pages;       /* pages in the category */
	const json_t *items; /* [{path, title}], maybe fewer than pages */
	size_t shown;        /* titles shown */
	bool closed;         /* no more titles fit */
};

struct msrc {
	const char *source;
	const char *ws;
	int64_t pages;
	struct mcat *cats;
	size_t ncats;
	size_t shown; /* categories shown */
	bool closed;
};

struct mplan {
	struct msrc *v;
	size_t n;
	size_t shown; /* sources shown */
	int64_t used; /* characters of the text */
	int64_t budget;
	cg_buf scratch;
};

enum mline { L_SRC, L_MORE_SRC, L_CAT, L_MORE_CATS, L_TITLE, L_MORE_PAGES };

/* Appends name with control characters turned into spaces. */
static void
put_name(cg_buf *b, const char *s)
{
	for (; *s != '\0'; s++)
		(void)cg_buf_putc(b,
		                  (char)((unsigned char)*s < 0x20 ? ' ' : *s));
}

static const char *
plural(int64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void
put_line(cg_buf *b, enum mline k, const char *name, int64_t a, int64_t c)
{
	long long x = (long long)a;
	long long y = (long long)c;

	switch (k) {
	case L_SRC:
		put_name(b, name);
		(void)cg_buf_printf(b, " (%lld %s)\n", x,
		                    plural(a, "page", "pages"));
		break;
	case L_MORE_SRC:
		(void)cg_buf_printf(b, "… %lld more %s (%lld %s)\n", x,
		                    plural(a, "source", "sources"), y,
		                    plural(c, "page", "pages"));
		break;
	case L_CAT:
		(void)cg_buf_puts(b, "  ");
		put_name(b, name ? name : "uncategorised");
		(void)cg_buf_printf(b, " (%lld)\n", x);
		break;
	case L_MORE_CATS:
		(void)cg_buf_printf(b, "  … %lld more %s (%lld %s)\n", x,
		                    plural(a, "category", "categories"), y,
		                    plural(c, "page", "pages"));
		break;
	case L_TITLE:
		(void)cg_buf_puts(b, "    - ");
		put_name(b, name);
		(void)cg_buf_putc(b, '\n');
		break;
	case L_MORE_PAGES:
		(void)cg_buf_printf(b, "    … %lld more %s\n", x,
		                    plural(a, "page", "pages"));
		break;
	}
}

static int64_t
u8chars(const char *s, size_t n)
{
	int64_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

/* Characters of one line; a "more" line with nothing left costs 0. */
static int64_t
line_cost(struct mplan *p, enum mline k, const char *name, int64_t a, int64_t c)
{
	if ((k == L_MORE_SRC || k == L_MORE_CATS || k == L_MORE_PAGES) &&
	    a <= 0)
		return 0;
	cg_buf_reset(&p->scratch);
	put_line(&p->scratch, k, name, a, c);
	return u8chars(cg_buf_str(&p->scratch), p->scratch.len);
}

static const char *
title_at(const struct mcat *c, size_t i)
{
	return cg_json_str(json_array_get(c->items, i), "title");
}

static int64_t
more_src(struct mplan *p)
{
	int64_t pages = 0;

	for (size_t i = p->shown; i < p->n; i++)
		pages += p->v[i].pages;
	return line_cost(p, L_MORE_SRC, NULL, (int64_t)(p->n - p->shown),
	                 pages);
}

static int64_t
more_cats(struct mplan *p, const struct msrc *s)
{
	int64_t pages = 0;

	for (size_t i = s->shown; i < s->ncats; i++)
		pages += s->cats[i].pages;
	return line_cost(p, L_MORE_CATS, NULL, (int64_t)(s->ncats - s->shown),
	                 pages);
}

static int64_t
more_pages(struct mplan *p, const struct mcat *c)
{
	return line_cost(p, L_MORE_PAGES, NULL, c->pages - (int64_t)c->shown,
	                 0);
}

/* Each step adds one line (and adjusts the "more" lines) when it fits. */
static bool
step_source(struct mplan *p)
{
	struct msrc *s = &p->v[p->shown];
	int64_t before = more_src(p);
	int64_t delta =
	    line_cost(p, L_SRC, s->source, s->pages, 0) + more_cats(p, s);

	p->shown++;
	delta += more_src(p) - before;
	if (p->used + delta > p->budget) {
		p->shown--;
		return false;
	}
	p->used += delta;
	return true;
}

static bool
step_category(struct mplan *p, struct msrc *s)
{
	struct mcat *c = &s->cats[s->shown];
	int64_t before = more_cats(p, s);
	int64_t delta =
	    line_cost(p, L_CAT, c->name, c->pages, 0) + more_pages(p, c);

	s->shown++;
	delta += more_cats(p, s) - before;
	if (p->used + delta > p->budget) {
		s->shown--;
		s->closed = true;
		return false;
	}
	p->used += delta;
	return true;
}

static bool
step_title(struct mplan *p, struct mcat *c)
{
	int64_t before = more_pages(p, c);
	int64_t delta = line_cost(p, L_TITLE, title_at(c, c->shown), 0, 0);

	c->shown++;
	delta += more_pages(p, c) - before;
	if (p->used + delta > p->budget) {
		c->shown--;
		c->closed = true;
		return false;
	}
	p->used += delta;
	return true;
}

/* Adds categories round-robin over the sources shown; true on any. */
static bool
fill_categories(struct mplan *p)
{
	bool any = false;
	bool progress = true;

	for (size_t i = 0; i < p->shown; i++)
		p->v[i].closed = false;
	while (progress) {
		progress = false;
		for (size_t i = 0; i < p->shown; i++) {
			struct msrc *s = &p->v[i];

			if (!s->closed && s->shown < s->ncats)
				progress |= step_category(p, s);
		}
		any |= progress;
	}
	return any;
}

/* Adds titles round-robin over the categories shown; true on any. */
static bool
fill_titles(struct mplan *p)
{
	bool any = false;
	bool progress = true;

	for (size_t i = 0; i < p->shown; i++)
		for (size_t k = 0; k < p->v[i].shown; k++)
			p->v[i].cats[k].closed = false;
	while (progress) {
		progress = false;
		for (size_t i = 0; i < p->shown; i++)
			for (size_t k = 0; k < p->v[i].shown; k++) {
				struct mcat *c = &p->v[i].cats[k];

				if (!c->closed &&
				    c->shown < json_array_size(c->items))
					progress |= step_title(p, c);
			}
		any |= progress;
	}
	return any;
}

/* Sources in order, then categories round-robin, then titles
 * round-robin, again while anything fits: a title replacing its "… 1
 * more page" line can make room for a category. */
static void
plan_fill(struct mplan *p)
{
	bool progress = true;

	p->used = more_src(p);
	while (p->shown < p->n && step_source(p))
		;
	while (progress) {
		progress = fill_categories(p);
		progress |= fill_titles(p);
	}
}

/* --- map: reading node results and rendering -------------------------------
 */

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): m->cats is stored in
 * p->v, freed by plan_fini. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
plan_add_source(struct mplan *p, const char *ws, const json_t *s)
{
	const json_t *cats = json_object_get(s, "categories");
	struct msrc *m = &p->v[p->n];
	const json_t *c;
	size_t i;

	memset(m, 0, sizeof(*m));
	m->source = cg_json_str(s, "source");
	m->ws = ws;
	m->pages = int_of(s, "pages");
	m->cats = calloc(json_array_size(cats) + 1, sizeof(*m->cats));
	if (m->cats == NULL)
		return CG_ENOMEM;
	json_array_foreach(cats, i, c) {
		m->cats[i].name =
		    json_string_value(json_object_get(c, "category"));
		m->cats[i].pages = int_of(c, "pages");
		m->cats[i].items = json_object_get(c, "items");
	}
	m->ncats = json_array_size(cats);
	p->n++;
	return 0;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* Builds the plan's sources from the array (sources with no page left
 * out). */
static int
plan_init(struct mplan *p, const json_t *sources, int budget)
{
	const json_t *s;
	size_t i;

	memset(p, 0, sizeof(*p));
	p->budget = budget;
	cg_buf_init(&p->scratch, 1u << 20);
	p->v = calloc(json_array_size(sources) + 1, sizeof(*p->v));
	if (p->v == NULL)
		return CG_ENOMEM;
	json_array_foreach(sources, i, s) {
		if (int_of(s, "pages") > 0 &&
		    plan_add_source(p, cg_json_str(s, "workspace"), s) != 0)
			return CG_ENOMEM;
	}
	return 0;
}

static void
plan_fini(struct mplan *p)
{
	for (size_t i = 0; p->v != NULL && i < p->n; i++)
		free(p->v[i].cats);
	free(p->v);
	cg_buf_fini(&p->scratch);
}

static json_t *
render_cat(const struct msrc *s, const struct mcat *c, cg_buf *b)
{
	json_t *titles = json_array();

	put_line(b, L_CAT, c->name, c->pages, 0);
	for (size_t i = 0; i < c->shown; i++) {
		const json_t *it = json_array_get(c->items, i);
		char *uri =
		    cg_uri_make(s->ws, s->source, cg_json_str(it, "path"));

		put_line(b, L_TITLE, cg_json_str(it, "title"), 0, 0);
		json_array_append_new(
		    titles, json_pack("{s:s, s:s, s:s, s:s}", "title",
		                      cg_json_str(it, "title"), "uri",
		                      uri ? uri : "", "source", s->source,
		                      "path", cg_json_str(it, "path")));
		free(uri);
	}
	if (c->pages > (int64_t)c->shown)
		put_line(b, L_MORE_PAGES, NULL, c->pages - (int64_t)c->shown,
		         0);
	return json_pack("{s:o, s:I, s:o, s:I}", "category",
	                 c->name ? json_string(c->name) : json_null(), "pages",
	                 (json_int_t)c->pages, "titles", titles,
	                 "pages_omitted",
	                 (json_int_t)(c->pages - (int64_t)c->shown));
}

static json_t *
render_source(const struct msrc *s, cg_buf *b, int64_t *shown_pages)
{
	json_t *cats = json_array();
	int64_t hidden = 0;
	char *uri = cg_uri_make(s->ws, s->source, "");
	json_t *o;

	put_line(b, L_SRC, s->source, s->pages, 0);
	for (size_t k = 0; k < s->shown; k++) {
		json_array_append_new(cats, render_cat(s, &s->cats[k], b));
		*shown_pages += (int64_t)s->cats[k].shown;
	}
	for (size_t k = s->shown; k < s->ncats; k++)
		hidden += s->cats[k].pages;
	if (s->shown < s->ncats)
		put_line(b, L_MORE_CATS, NULL, (int64_t)(s->ncats - s->shown),
		         hidden);
	o = json_pack("{s:s, s:s, s:s, s:I, s:o, s:I, s:I}", "source",
	              s->source, "workspace", s->ws, "uri", uri ? uri : "",
	              "pages", (json_int_t)s->pages, "categories", cats,
	              "categories_omitted", (json_int_t)(s->ncats - s->shown),
	              "pages_in_omitted_categories", (json_int_t)hidden);
	free(uri);
	return o;
}

/* The text and the JSON of what the plan shows. */
static json_t *
plan_render(const struct mplan *p)
{
	json_t *srcs = json_array();
	int64_t total = 0;
	int64_t shown = 0;
	int64_t hidden = 0;
	cg_buf b;
	json_t *o;

	cg_buf_init(&b, (size_t)CG_MAP_MAX_BUDGET * 8);
	for (size_t i = 0; i < p->n; i++)
		total += p->v[i].pages;
	for (size_t i = 0; i < p->shown; i++)
		json_array_append_new(srcs,
		                      render_source(&p->v[i], &b, &shown));
	for (size_t i = p->shown; i < p->n; i++)
		hidden += p->v[i].pages;
	if (p->shown < p->n)
		put_line(&b, L_MORE_SRC, NULL, (int64_t)(p->n - p->shown),
		         hidden);
	o = json_pack("{s:I, s:s, s:I, s:I, s:o, s:I, s:I}", "chars",
	              (json_int_t)u8chars(cg_buf_str(&b), b.len), "text",
	              cg_buf_str(&b), "pages_total", (json_int_t)total,
	              "pages_omitted", (json_int_t)(total - shown), "sources",
	              srcs, "sources_omitted", (json_int_t)(p->n - p->shown),
	              "pages_in_omitted_sources", (json_int_t)hidden);
	cg_buf_fini(&b);
	return o;
}

json_t *
cg_map_plan(const json_t *sources, int budget)
{
	struct mplan p;
	json_t *o = NULL;

	if (plan_init(&p, sources, budget) == 0) {
		plan_fill(&p);
		o = plan_render(&p);
	}
	plan_fini(&p);
	return o;
}
