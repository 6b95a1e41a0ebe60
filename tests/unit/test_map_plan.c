/*
 * test_map_plan.c - the map's budget planner (federation/map_plan.c) on
 * trees built here: the text never exceeds the budget in code points,
 * whatever is left out is counted (in the "… N more" lines and the
 * *_omitted counts, so every page is shown or counted), the JSON lists
 * exactly the titles the text shows, categories and titles are shared
 * round-robin, and sources without pages are left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "federation/map_plan.h"

/* A category of n pages titled "<prefix> <i>" (all listed). */
static json_t *
category(const char *name, const char *prefix, int n)
{
	json_t *items = json_array();

	for (int i = 0; i < n; i++) {
		char title[128];
		char path[160];

		(void)snprintf(title, sizeof(title), "%s %d", prefix, i);
		(void)snprintf(path, sizeof(path), ".guild/wiki/%s/p%d.md",
		               name ? name : "misc", i);
		json_array_append_new(items, json_pack("{s:s, s:s}", "path",
		                                       path, "title", title));
	}
	return json_pack("{s:o, s:i, s:o}", "category",
	                 name ? json_string(name) : json_null(), "pages", n,
	                 "items", items);
}

/* Three sources (12, 6 and 3 pages) and one without pages. */
static json_t *
tree(void)
{
	return json_pack(
	    "[{s:s, s:s, s:i, s:[o, o]}, {s:s, s:s, s:i, s:[o, o]},"
	    " {s:s, s:s, s:i, s:[o]}, {s:s, s:s, s:i, s:[]}]",
	    "source", "alpha", "workspace", "ws", "pages", 12, "categories",
	    category("decision", "Decision about storage", 8),
	    category(NULL, "Loose note", 4), "source", "beta", "workspace",
	    "ws", "pages", 6, "categories", category("concept", "Concept", 3),
	    category("standard", "Standard", 3), "source", "gamma", "workspace",
	    "other", "pages", 3, "categories",
	    category("entity", "Ünïcödé entity", 3), "source", "empty",
	    "workspace", "ws", "pages", 0, "categories");
}

static long long
num(const json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

static long long
code_points(const char *s)
{
	long long n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Every title the JSON lists is a line of the text; returns how many. */
static long long
titles_in_text(const json_t *map)
{
	const char *text = json_string_value(json_object_get(map, "text"));
	const json_t *s;
	size_t i;
	long long n = 0;

	json_array_foreach(json_object_get(map, "sources"), i, s) {
		const json_t *c;
		size_t k;

		json_array_foreach(json_object_get(s, "categories"), k, c) {
			const json_t *t;
			size_t j;

			json_array_foreach(json_object_get(c, "titles"), j, t) {
				char line[256];

				(void)snprintf(
				    line, sizeof(line), "    - %s\n",
				    json_string_value(
				        json_object_get(t, "title")));
				if (strstr(text, line) == NULL)
					fail_msg("title line '%s' not in text",
					         line);
				n++;
			}
		}
	}
	return n;
}

static const char *
plural(long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void
expect_line(const char *text, const char *line)
{
	if (strstr(text, line) == NULL)
		fail_msg("no line '%s' in:\n%s", line, text);
}

/* What is left out is said in the text, with the counts of the JSON:
 * sources, categories of a source, pages of a category. */
static void
more_lines(const json_t *map)
{
	const char *text = json_string_value(json_object_get(map, "text"));
	const json_t *s;
	size_t i;
	char line[256];

	if (num(map, "sources_omitted") > 0) {
		(void)snprintf(
		    line, sizeof(line), "… %lld more %s (%lld %s)\n",
		    num(map, "sources_omitted"),
		    plural(num(map, "sources_omitted"), "source", "sources"),
		    num(map, "pages_in_omitted_sources"),
		    plural(num(map, "pages_in_omitted_sources"), "page",
		           "pages"));
		expect_line(text, line);
	}
	json_array_foreach(json_object_get(map, "sources"), i, s) {
		long long nc = num(s, "categories_omitted");
		long long np = num(s, "pages_in_omitted_categories");
		const json_t *c;
		size_t k;

		(void)snprintf(line, sizeof(line),
		               "  … %lld more %s (%lld %s)\n", nc,
		               plural(nc, "category", "categories"), np,
		               plural(np, "page", "pages"));
		if (nc > 0)
			expect_line(text, line);
		json_array_foreach(json_object_get(s, "categories"), k, c) {
			long long n = num(c, "pages_omitted");

			(void)snprintf(line, sizeof(line),
			               "    … %lld more %s\n", n,
			               plural(n, "page", "pages"));
			if (n > 0)
				expect_line(text, line);
		}
	}
}

/* The invariants at one budget. */
static void
check_budget(const json_t *sources, int budget)
{
	json_t *map = cg_map_plan(sources, budget);
	const char *text;
	long long shown;

	assert_non_null(map);
	text = json_string_value(json_object_get(map, "text"));
	assert_non_null(text);
	assert_int_equal(num(map, "chars"), code_points(text));
	if (num(map, "chars") > budget)
		fail_msg("budget %d: %lld characters", budget,
		         num(map, "chars"));
	assert_int_equal(num(map, "pages_total"), 21);
	shown = titles_in_text(map);
	assert_int_equal(num(map, "pages_omitted"), 21 - shown);
	assert_int_equal(
	    num(map, "sources_omitted") +
	        (long long)json_array_size(json_object_get(map, "sources")),
	    3);
	more_lines(map);
	json_decref(map);
}

static void
test_budget_respected(void **state)
{
	json_t *sources = tree();

	(void)state;
	for (int budget = CG_MAP_MIN_BUDGET; budget <= 1200; budget += 7)
		check_budget(sources, budget);
	json_decref(sources);
}

static void
test_everything_fits(void **state)
{
	json_t *sources = tree();
	json_t *map = cg_map_plan(sources, CG_MAP_DEFAULT_BUDGET);

	(void)state;
	assert_int_equal(num(map, "pages_omitted"), 0);
	assert_int_equal(num(map, "sources_omitted"), 0);
	assert_int_equal(titles_in_text(map), 21);
	assert_null(
	    strstr(json_string_value(json_object_get(map, "text")), "more"));
	/* The source without pages is not listed. */
	assert_int_equal(json_array_size(json_object_get(map, "sources")), 3);
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_array_get(json_object_get(map, "sources"), 2), "uri")),
	    "cg://other/gamma/");
	json_decref(map);
	json_decref(sources);
}

static void
test_left_out_reported(void **state)
{
	json_t *sources = tree();
	json_t *map = cg_map_plan(sources, CG_MAP_MIN_BUDGET);
	const json_t *cats =
	    json_object_get(json_array_get(sources, 0), "categories");
	const json_t *first =
	    json_array_get(json_object_get(map, "sources"), 0);
	size_t shown;
	long long hidden = 0;

	(void)state;
	/* 100 characters: not every category or title of the first
	 * source; the categories left out are the last ones, counted with
	 * their pages. */
	assert_true(num(map, "pages_omitted") > 0);
	assert_non_null(first);
	shown = json_array_size(json_object_get(first, "categories"));
	assert_int_equal(num(first, "categories_omitted") + (long long)shown,
	                 2);
	for (size_t k = shown; k < json_array_size(cats); k++)
		hidden += num(json_array_get(cats, k), "pages");
	assert_int_equal(num(first, "pages_in_omitted_categories"), hidden);
	json_decref(map);
	json_decref(sources);
}

/* The fewest and most titles shown in a category shown. */
static void
spread(const json_t *map, size_t *least, size_t *most)
{
	const json_t *s;
	size_t i;

	*least = 1000;
	*most = 0;
	json_array_foreach(json_object_get(map, "sources"), i, s) {
		const json_t *c;
		size_t k;

		json_array_foreach(json_object_get(s, "categories"), k, c) {
			size_t n =
			    json_array_size(json_object_get(c, "titles"));

			*most = n > *most ? n : *most;
			*least = n < *least ? n : *least;
		}
	}
}

static void
test_round_robin(void **state)
{
	/* Titles of one length: up to the 3rd title of a category (of 5)
	 * every next title costs the same, so round-robin shows them one
	 * category after another.  (The 4th and 5th cost less: "… 1 more
	 * page" is shorter, and the last title replaces that line.) */
	json_t *sources = json_pack(
	    "[{s:s, s:s, s:i, s:[o, o, o]}]", "source", "alpha", "workspace",
	    "ws", "pages", 15, "categories", category("concept", "Title", 5),
	    category("decision", "Title", 5), category("product", "Title", 5));
	int checked = 0;

	(void)state;
	for (int budget = CG_MAP_MIN_BUDGET; budget <= 400; budget++) {
		json_t *map = cg_map_plan(sources, budget);
		size_t least;
		size_t most;

		spread(map, &least, &most);
		if (most <= 3 && most > least + 1)
			fail_msg(
			    "budget %d: a category has %zu titles, another "
			    "%zu",
			    budget, most, least);
		checked += most >= 2 && most <= 3;
		json_decref(map);
	}
	assert_true(checked > 0);
	json_decref(sources);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_budget_respected),
	    cmocka_unit_test(test_everything_fits),
	    cmocka_unit_test(test_left_out_reported),
	    cmocka_unit_test(test_round_robin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
