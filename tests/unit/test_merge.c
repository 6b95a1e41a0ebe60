/*
 * test_merge.c - the order of a search's hits across nodes and the cut to
 * the limit (federation/merge.c, SPEC 4.1), on hits built here: match
 * class first, then score (equal within 1e-9), then updated_at (newer
 * first), then confidence (high > medium > low > none), then uri; the
 * input is left as it was and the hits are shared, not copied.
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "federation/merge.h"

static json_t *
hit(const char *uri, int rank, double score, const char *updated,
    const char *conf)
{
	json_t *h = json_pack("{s:s, s:i, s:f}", "uri", uri, "match_rank", rank,
	                      "score", score);

	if (updated != NULL)
		json_object_set_new(h, "updated_at", json_string(updated));
	if (conf != NULL)
		json_object_set_new(h, "confidence", json_string(conf));
	return h;
}

/* Merges hits (taken) and checks the uris come out as want (NULL-ended). */
static void
expect_order(json_t *hits, int limit, const char *const *want)
{
	json_t *out = cg_merge_hits(hits, limit);
	size_t n = 0;

	assert_non_null(out);
	for (; want[n] != NULL; n++) {
		const char *got = json_string_value(
		    json_object_get(json_array_get(out, n), "uri"));

		if (got == NULL || strcmp(got, want[n]) != 0)
			fail_msg("position %zu: got %s, want %s", n,
			         got ? got : "(none)", want[n]);
	}
	assert_int_equal(json_array_size(out), n);
	json_decref(out);
	json_decref(hits);
}

static void
test_class_before_score(void **state)
{
	static const char *const want[] = {"cg://w/s/phrase", "cg://w/s/all",
	                                   "cg://w/s/some", NULL};

	(void)state;
	expect_order(json_pack("[o, o, o]",
	                       hit("cg://w/s/some", 1, 9.0, NULL, NULL),
	                       hit("cg://w/s/phrase", 3, 0.5, NULL, NULL),
	                       hit("cg://w/s/all", 2, 5.0, NULL, NULL)),
	             10, want);
}

static void
test_score_then_date(void **state)
{
	static const char *const by_score[] = {"cg://w/s/b", "cg://w/s/a",
	                                       NULL};
	static const char *const by_date[] = {"cg://w/s/new", "cg://w/s/old",
	                                      NULL};

	(void)state;
	expect_order(json_pack("[o, o]",
	                       hit("cg://w/s/a", 2, 1.0, "2025", NULL),
	                       hit("cg://w/s/b", 2, 1.5, "2020", NULL)),
	             10, by_score);
	/* Scores within 1e-9 are equal: the newer page goes first. */
	expect_order(
	    json_pack("[o, o]",
	              hit("cg://w/s/old", 2, 1.0 + 1e-12, "2020-01-01", NULL),
	              hit("cg://w/s/new", 2, 1.0, "2024-01-01", NULL)),
	    10, by_date);
}

static void
test_confidence_then_uri(void **state)
{
	static const char *const want[] = {"cg://w/s/z-high", "cg://w/s/y-med",
	                                   "cg://w/s/x-low",  "cg://w/s/a-none",
	                                   "cg://w/s/b-none", NULL};

	(void)state;
	expect_order(json_pack("[o, o, o, o, o]",
	                       hit("cg://w/s/b-none", 1, 2, "d", NULL),
	                       hit("cg://w/s/x-low", 1, 2, "d", "low"),
	                       hit("cg://w/s/a-none", 1, 2, "d", "unknown"),
	                       hit("cg://w/s/z-high", 1, 2, "d", "high"),
	                       hit("cg://w/s/y-med", 1, 2, "d", "medium")),
	             10, want);
}

static void
test_limit(void **state)
{
	static const char *const two[] = {"cg://w/s/c", "cg://w/s/b", NULL};
	static const char *const none[] = {NULL};

	(void)state;
	expect_order(json_pack("[o, o, o]", hit("cg://w/s/a", 1, 1, NULL, NULL),
	                       hit("cg://w/s/b", 1, 2, NULL, NULL),
	                       hit("cg://w/s/c", 1, 3, NULL, NULL)),
	             2, two);
	expect_order(json_pack("[o]", hit("cg://w/s/a", 1, 1, NULL, NULL)), 0,
	             none);
	expect_order(json_array(), 5, none);
}

static void
test_input_untouched(void **state)
{
	json_t *hits = json_pack("[o, o]", hit("cg://w/s/a", 1, 1, NULL, NULL),
	                         hit("cg://w/s/b", 1, 2, NULL, NULL));
	json_t *out;

	(void)state;
	out = cg_merge_hits(hits, 10);
	/* The input keeps its order; the output shares its hits. */
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(hits, 0), "uri")),
	    "cg://w/s/a");
	assert_ptr_equal(json_array_get(out, 0), json_array_get(hits, 1));
	assert_ptr_equal(json_array_get(out, 1), json_array_get(hits, 0));
	json_decref(out);
	json_decref(hits);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_class_before_score),
	    cmocka_unit_test(test_score_then_date),
	    cmocka_unit_test(test_confidence_then_uri),
	    cmocka_unit_test(test_limit),
	    cmocka_unit_test(test_input_untouched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
