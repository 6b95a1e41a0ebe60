/*
 * test_input_errors.c - strict filters and exit codes (SPEC 6), and user
 * text that would be FTS5 syntax searched as text, never an FTS5 error
 * (issue acceptance 4).
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"

static char *ws;
static char *cache;
static char *empty_ws;

static int
setup(void **state)
{
	ws = cgt_tmpdir("input");
	cache = cgt_tmpdir("input-cache");
	empty_ws = cgt_tmpdir("input-empty");
	cgt_page(ws, ".guild/wiki/standards/cpp.md",
	         "type: standard\nowner: platform\nconfidence: high\n"
	         "updated_at: 2026-03-01\ntags: [cpp, style]",
	         "# C++ style guide\n\nUse C++ 20. Prefer e-mail over chat for "
	         "reviews; write to admin@x.org. What? Ask NEAR the end.\n");
	cgt_page(
	    ws, ".guild/wiki/decisions/near.md",
	    "type: decision\nowner: platform\nupdated_at: 2026-01-01",
	    "# A and B\n\nfoo AND bar, a:b ratio, NOT this (unbalanced.\n");
	return 0;
}

static int
teardown(void **state)
{
	cgt_rm(ws);
	cgt_rm(cache);
	cgt_rm(empty_ws);
	free(ws);
	free(cache);
	free(empty_ws);
	return 0;
}

static void
expect_invalid(const char *flag, const char *value, const char *needle)
{
	char *out = NULL;
	char *err = NULL;
	int rc = cgt_run(&out, &err, "query", "--workspace", ws, "--cache",
	                 cache, flag, value, "style", NULL);

	assert_int_equal(rc, 2);
	if (strstr(err, needle) == NULL)
		fprintf(stderr, "stderr lacks '%s': %s\n", needle, err);
	assert_non_null(strstr(err, needle));
	free(out);
	free(err);
}

static void
test_plural_category(void **state)
{
	expect_invalid("--category", "standards", "use 'standard'");
	expect_invalid("--category", "standards",
	               "context, standard, product, entity, concept, "
	               "decision, source");
}

static void
test_unknown_category(void **state)
{
	expect_invalid("--category", "foo", "unknown category 'foo'");
	expect_invalid("--category", "foo", "decision");
}

static void
test_bad_dates_and_values(void **state)
{
	expect_invalid("--updated-since", "2026-13-01", "YYYY-MM-DD");
	expect_invalid("--updated-since", "2026-02-30", "YYYY-MM-DD");
	expect_invalid("--updated-since", "yesterday", "YYYY-MM-DD");
	expect_invalid("--confidence", "sure", "low, medium, high");
	expect_invalid("--limit", "0", "1-500");
	expect_invalid("--source", "nope", "/root");
}

static void
test_empty_query_needs_filter(void **state)
{
	char *err = NULL;
	json_t *ans;
	int rc = cgt_run(NULL, &err, "query", "--workspace", ws, "--cache",
	                 cache, NULL);

	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, "filter"));
	free(err);
	ans = cgt_query(ws, cache, "--owner", "PLATFORM", NULL);
	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 2);
	json_decref(ans);
	ans = cgt_query(ws, cache, "--tag", "cpp", NULL);
	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 1);
	json_decref(ans);
	ans = cgt_query(ws, cache, "--updated-since", "2026-02-01", NULL);
	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 1);
	assert_int_equal(cgt_rank(ans, "cpp.md"), 0);
	json_decref(ans);
}

static void
test_filters_apply_before_limit(void **state)
{
	json_t *ans = cgt_query(ws, cache, "--category", "decision", "--limit",
	                        "1", "and", NULL);

	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 1);
	assert_int_equal(cgt_rank(ans, "near.md"), 0);
	json_decref(ans);
}

static void
test_fts_syntax_is_text(void **state)
{
	static const char *const hostile[] = {
	    "C++",      "\"unbalanced", "foo AND",     "a:b",   "NEAR(",
	    "*",        "e-mail",       "admin@x.org", "what?", "AND",
	    "started:", "''",           "foo NOT bar", "(((",   ")",
	    "^",        "{title}: x",   "\"\"\"",      "x -",   "NOT",
	};

	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		char *out = NULL;
		char *err = NULL;
		int rc = cgt_run(&out, &err, "query", "--json", "--workspace",
		                 ws, "--cache", cache, "--", hostile[i], NULL);
		json_t *ans = json_loads(out, 0, NULL);

		if (rc != 0)
			fprintf(stderr, "%s: exit %d %s\n", hostile[i], rc,
			        err);
		assert_int_equal(rc, 0);
		assert_string_equal(err, "");
		assert_non_null(ans);
		assert_true(json_is_array(json_object_get(ans, "hits")));
		json_decref(ans);
		free(out);
		free(err);
	}
}

static void
test_sensible_results(void **state)
{
	json_t *ans = cgt_query(ws, cache, "--", "C++", NULL);

	assert_int_equal(cgt_rank(ans, "cpp.md"), 0);
	json_decref(ans);
	ans = cgt_query(ws, cache, "foo NOT bar", NULL);
	/* NOT is a word, not an operator: the page with all three wins. */
	assert_int_equal(cgt_rank(ans, "near.md"), 0);
	json_decref(ans);
	ans = cgt_query(ws, cache, "admin@x.org", NULL);
	assert_int_equal(cgt_rank(ans, "cpp.md"), 0);
	json_decref(ans);
}

static void
test_nothing_provisioned(void **state)
{
	char *err = NULL;
	int rc = cgt_run(NULL, &err, "query", "--workspace", empty_ws,
	                 "--cache", cache, "anything", NULL);

	assert_int_equal(rc, 10);
	assert_non_null(strstr(err, ".guild/wiki"));
	free(err);
}

static void
test_empty_result_note(void **state)
{
	json_t *ans = cgt_query(ws, cache, "zebra", NULL);

	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 0);
	assert_non_null(
	    strstr(json_string_value(json_object_get(ans, "note")), "grep"));
	json_decref(ans);
	ans = cgt_query(ws, cache, "style", NULL);
	assert_null(json_object_get(ans, "note"));
	assert_non_null(json_object_get(ans, "evidence"));
	assert_true(json_is_array(json_object_get(ans, "assumptions")));
	assert_true(json_is_array(json_object_get(ans, "followups")));
	assert_int_equal(json_array_size(json_object_get(ans, "changed_files")),
	                 0);
	json_decref(ans);
}

static void
test_help_and_unknown(void **state)
{
	char *out = NULL;

	assert_int_equal(cgt_run(&out, NULL, "query", "--help", NULL), 0);
	assert_non_null(strstr(out, "--category"));
	free(out);
	assert_int_equal(cgt_run(&out, NULL, "index", "--help", NULL), 0);
	free(out);
	assert_int_equal(cgt_run(NULL, NULL, "frobnicate", NULL), 2);
	assert_int_equal(cgt_run(NULL, NULL, "query", "--bogus", NULL), 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plural_category),
	    cmocka_unit_test(test_unknown_category),
	    cmocka_unit_test(test_bad_dates_and_values),
	    cmocka_unit_test(test_empty_query_needs_filter),
	    cmocka_unit_test(test_filters_apply_before_limit),
	    cmocka_unit_test(test_fts_syntax_is_text),
	    cmocka_unit_test(test_sensible_results),
	    cmocka_unit_test(test_nothing_provisioned),
	    cmocka_unit_test(test_empty_result_note),
	    cmocka_unit_test(test_help_and_unknown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
