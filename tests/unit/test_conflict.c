/*
 * test_conflict.c - the contradiction rule of SPEC 4.2 (federation/
 * conflict.c) on pages built here, without a node: the newer page wins
 * unless the older is high and the newer is not; a page naming another
 * in supersedes wins outright (by slug, path suffix or title); equal
 * dates fall to the higher confidence, then to the uri; a group of three
 * is settled pairwise with every page listed; equal bodies are no
 * conflict; an implicit key pairs two sources only for copies (by the
 * body sketches), an explicit one wherever it is.
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "federation/conflict.h"
#include "proto/filters.h"

/* A page of claim key k: uri cg://ws/src/<path>. */
static json_t *
page(const char *path, const char *updated, const char *conf, const char *body)
{
	char uri[256];

	(void)snprintf(uri, sizeof(uri), "cg://ws/src/%s", path);
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:[]}",
	                 "uri", uri, "source", "src", "path", path, "title",
	                 path, "updated_at", updated, "confidence", conf,
	                 "body_hash", body, "claim_key", "db-choice",
	                 "supersedes");
}

static void
supersede(json_t *p, const char *name)
{
	json_array_append_new(json_object_get(p, "supersedes"),
	                      json_string(name));
}

/* The one conflict of pages (taken): its winner's uri; *why gets the
 * resolution (malloc'd). */
static char *
winner(json_t *pages, char **why)
{
	json_t *cs = cg_conflicts_find(pages);
	const json_t *c = json_array_get(cs, 0);
	char *w;

	assert_int_equal(json_array_size(cs), 1);
	assert_int_equal(json_array_size(json_object_get(c, "pages")),
	                 json_array_size(pages));
	w = strdup(json_string_value(json_object_get(c, "winner")));
	if (why != NULL)
		*why =
		    strdup(json_string_value(json_object_get(c, "resolution")));
	json_decref(cs);
	json_decref(pages);
	return w;
}

static void
expect(json_t *pages, const char *uri, const char *why_prefix)
{
	char *why = NULL;
	char *w = winner(pages, &why);

	assert_string_equal(w, uri);
	if (strncmp(why, why_prefix, strlen(why_prefix)) != 0)
		fail_msg("resolution '%s' does not start with '%s'", why,
		         why_prefix);
	free(w);
	free(why);
}

static void
test_newer_wins(void **state)
{
	(void)state;
	expect(json_pack("[o, o]", page("a.md", "2024-01-01", "medium", "h1"),
	                 page("b.md", "2024-06-01", "medium", "h2")),
	       "cg://ws/src/b.md", "newer wins");
	/* The order of the pages does not matter. */
	expect(json_pack("[o, o]", page("b.md", "2024-06-01", "medium", "h2"),
	                 page("a.md", "2024-01-01", "medium", "h1")),
	       "cg://ws/src/b.md", "newer wins");
	/* An undated page is older than any dated one. */
	expect(json_pack("[o, o]", page("a.md", "", "", "h1"),
	                 page("b.md", "2024-06-01", "low", "h2")),
	       "cg://ws/src/b.md", "newer wins");
}

static void
test_older_high_wins(void **state)
{
	(void)state;
	expect(json_pack("[o, o]", page("a.md", "2024-01-01", "high", "h1"),
	                 page("b.md", "2024-06-01", "medium", "h2")),
	       "cg://ws/src/a.md", "older wins (high > medium)");
	expect(json_pack("[o, o]", page("a.md", "2024-01-01", "high", "h1"),
	                 page("b.md", "2024-06-01", "", "h2")),
	       "cg://ws/src/a.md", "older wins (high > unset)");
	/* Both high: the newer wins again. */
	expect(json_pack("[o, o]", page("a.md", "2024-01-01", "high", "h1"),
	                 page("b.md", "2024-06-01", "high", "h2")),
	       "cg://ws/src/b.md", "newer wins");
}

static void
test_supersedes_wins(void **state)
{
	static const char *const names[] = {"b", "decisions/b.md", "b.md",
	                                    "Page B"};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		json_t *a = page("decisions/a.md", "2023-01-01", "low", "h1");
		json_t *b = page("decisions/b.md", "2024-06-01", "high", "h2");

		json_object_set_new(b, "title", json_string("Page B"));
		supersede(a, names[i]);
		/* Older and low, but it names b: it wins outright. */
		expect(json_pack("[o, o]", b, a), "cg://ws/src/decisions/a.md",
		       "supersedes wins");
	}
}

static void
test_supersedes_needs_a_whole_name(void **state)
{
	json_t *a = page("decisions/a.md", "2023-01-01", "low", "h1");
	json_t *b = page("decisions/xb.md", "2024-06-01", "low", "h2");

	(void)state;
	supersede(a, "b.md"); /* a suffix of the path, not a segment */
	expect(json_pack("[o, o]", a, b), "cg://ws/src/decisions/xb.md",
	       "newer wins");
}

static void
test_mutual_supersedes_falls_to_dates(void **state)
{
	json_t *a = page("a.md", "2024-01-01", "low", "h1");
	json_t *b = page("b.md", "2024-06-01", "low", "h2");

	(void)state;
	supersede(a, "b");
	supersede(b, "a");
	expect(json_pack("[o, o]", a, b), "cg://ws/src/b.md", "newer wins");
}

static void
test_equal_dates(void **state)
{
	(void)state;
	expect(json_pack("[o, o]", page("a.md", "2024-06-01", "low", "h1"),
	                 page("b.md", "2024-06-01", "medium", "h2")),
	       "cg://ws/src/b.md",
	       "same date, higher confidence wins (medium)");
	expect(json_pack("[o, o]", page("b.md", "2024-06-01", "medium", "h2"),
	                 page("a.md", "2024-06-01", "medium", "h1")),
	       "cg://ws/src/a.md", "same date, higher confidence wins (tie");
}

static void
test_three_pages(void **state)
{
	json_t *pages;
	json_t *cs;
	const json_t *listed;

	(void)state;
	/* a < b (newer, high) ; b > c (b older but high, c is not). */
	expect(json_pack("[o, o, o]", page("a.md", "2024-01-01", "low", "h1"),
	                 page("b.md", "2024-03-01", "high", "h2"),
	                 page("c.md", "2024-06-01", "medium", "h3")),
	       "cg://ws/src/b.md", "older wins (high > medium)");
	/* Every page is listed, in the order given, none dropped. */
	pages = json_pack("[o, o, o]", page("a.md", "2024-01-01", "low", "h1"),
	                  page("b.md", "2024-03-01", "high", "h2"),
	                  page("c.md", "2024-06-01", "medium", "h1"));
	cs = cg_conflicts_find(pages);
	listed = json_object_get(json_array_get(cs, 0), "pages");
	assert_int_equal(json_array_size(listed), 3);
	assert_string_equal(json_string_value(json_object_get(
	                        json_array_get(listed, 2), "uri")),
	                    "cg://ws/src/c.md");
	json_decref(cs);
	json_decref(pages);
}

static void
test_no_conflict(void **state)
{
	json_t *same = json_pack("[o, o]", page("a.md", "2024-01-01", "", "h"),
	                         page("b.md", "2024-06-01", "", "h"));
	json_t *one = json_pack("[o, o]", page("a.md", "2024-01-01", "", "h1"),
	                        page("a.md", "2024-01-01", "", "h2"));
	json_t *keyless =
	    json_pack("[o, o]", page("a.md", "2024-01-01", "", "1"),
	              page("b.md", "2024-06-01", "", "2"));
	json_t *cs;

	(void)state;
	json_object_set_new(json_array_get(keyless, 0), "claim_key",
	                    json_string(""));
	json_object_set_new(json_array_get(keyless, 1), "claim_key",
	                    json_string(""));
	/* Equal bodies agree; one uri twice is one page; no key, no claim. */
	cs = cg_conflicts_find(same);
	assert_int_equal(json_array_size(cs), 0);
	json_decref(cs);
	cs = cg_conflicts_find(one);
	assert_int_equal(json_array_size(cs), 0);
	json_decref(cs);
	cs = cg_conflicts_find(keyless);
	assert_int_equal(json_array_size(cs), 0);
	json_decref(cs);
	json_decref(same);
	json_decref(one);
	json_decref(keyless);
}

/* Sets p's source, key and a sketch of 64 values: the first `same` equal
 * to base's, the rest its own. */
static json_t *
placed(json_t *p, const char *source, const char *key, int same, int own)
{
	json_t *sk = json_array();

	for (int i = 0; i < 64; i++)
		json_array_append_new(
		    sk, json_integer(i < same ? i : own * 1000 + i));
	json_object_set_new(p, "source", json_string(source));
	json_object_set_new(p, "claim_key", json_string(key));
	json_object_set_new(p, "sketch", sk);
	return p;
}

static size_t
nconflicts(json_t *pages)
{
	json_t *cs = cg_conflicts_find(pages);
	size_t n = json_array_size(cs);

	json_decref(cs);
	json_decref(pages);
	return n;
}

/* An implicit key pairs two sources only for copies (sketches sharing at
 * least half); one source always; an explicit key always. */
static void
test_implicit_key_scope(void **state)
{
	const char *k = "standard|retry policy";

	(void)state;
	/* two repositories, different pages: no conflict */
	assert_int_equal(
	    nconflicts(json_pack(
	        "[o, o]",
	        placed(page("a.md", "2024-01-01", "", "1"), "mobile", k, 10, 1),
	        placed(page("b.md", "2024-06-01", "", "2"), "payments", k, 10,
	               2))),
	    0);
	/* two repositories, a copy edited apart: a conflict */
	assert_int_equal(
	    nconflicts(json_pack(
	        "[o, o]",
	        placed(page("a.md", "2024-01-01", "", "1"), "mobile", k, 40, 1),
	        placed(page("b.md", "2024-06-01", "", "2"), "payments", k, 40,
	               2))),
	    1);
	/* one repository: a conflict whatever the words */
	assert_int_equal(
	    nconflicts(json_pack(
	        "[o, o]",
	        placed(page("a.md", "2024-01-01", "", "1"), "mobile", k, 0, 1),
	        placed(page("b.md", "2024-06-01", "", "2"), "mobile", k, 0,
	               2))),
	    1);
	/* no sketch across repositories: not paired */
	{
		json_t *a =
		    placed(page("a.md", "2024-01-01", "", "1"), "m", k, 64, 1);
		json_t *b =
		    placed(page("b.md", "2024-06-01", "", "2"), "p", k, 64, 2);

		json_object_del(b, "sketch");
		assert_int_equal(nconflicts(json_pack("[o, o]", a, b)), 0);
	}
	/* an explicit key: a conflict across repositories, no sketch */
	{
		json_t *a = placed(page("a.md", "2024-01-01", "", "1"), "m",
		                   "claim:tls", 0, 1);
		json_t *b = placed(page("b.md", "2024-06-01", "", "2"), "p",
		                   "claim:tls", 0, 2);

		json_object_del(a, "sketch");
		json_object_del(b, "sketch");
		assert_int_equal(nconflicts(json_pack("[o, o]", a, b)), 1);
	}
}

/* Three repositories: the copy pair conflicts, the third page is left
 * out of it (not a member with a different subject). */
static void
test_implicit_key_groups(void **state)
{
	const char *k = "standard|retry policy";
	json_t *pages = json_pack(
	    "[o, o, o]",
	    placed(page("a.md", "2024-01-01", "", "1"), "s1", k, 50, 1),
	    placed(page("b.md", "2024-02-01", "", "2"), "s2", k, 50, 2),
	    placed(page("c.md", "2024-03-01", "", "3"), "s3", k, 5, 3));
	json_t *cs = cg_conflicts_find(pages);
	const json_t *c = json_array_get(cs, 0);

	(void)state;
	assert_int_equal(json_array_size(cs), 1);
	assert_int_equal(json_array_size(json_object_get(c, "pages")), 2);
	/* the two copies, the newer winning; c.md is not in it */
	assert_non_null(
	    strstr(json_string_value(json_object_get(c, "winner")), "b.md"));
	for (size_t i = 0; i < 2; i++)
		assert_null(strstr(
		    json_string_value(json_object_get(
		        json_array_get(json_object_get(c, "pages"), i), "uri")),
		    "c.md"));
	json_decref(cs);
	json_decref(pages);
}

static void
test_confidence_rank(void **state)
{
	(void)state;
	assert_int_equal(cg_filters_confidence_rank("high"), 3);
	assert_int_equal(cg_filters_confidence_rank("medium"), 2);
	assert_int_equal(cg_filters_confidence_rank("low"), 1);
	assert_int_equal(cg_filters_confidence_rank(""), 0);
	assert_int_equal(cg_filters_confidence_rank("HIGH"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_newer_wins),
	    cmocka_unit_test(test_older_high_wins),
	    cmocka_unit_test(test_supersedes_wins),
	    cmocka_unit_test(test_supersedes_needs_a_whole_name),
	    cmocka_unit_test(test_mutual_supersedes_falls_to_dates),
	    cmocka_unit_test(test_equal_dates),
	    cmocka_unit_test(test_three_pages),
	    cmocka_unit_test(test_implicit_key_scope),
	    cmocka_unit_test(test_implicit_key_groups),
	    cmocka_unit_test(test_no_conflict),
	    cmocka_unit_test(test_confidence_rank),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
