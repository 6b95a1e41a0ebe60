/*
 * test_suggest.c - unit tests of "did you mean": the edit distance
 * (index/suggest.c) and the pick over several sources' answers with its
 * note (federation/fed_suggest.c).  Answers are written inline in the
 * shape the "suggest" operation replies with (node/ops.h).
 */

/* cmocka.h needs these first. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdlib.h>
#include <string.h>

#include "federation/fed_suggest.h"
#include "index/suggest.h"

static void
test_distance(void **state)
{
	(void)state;
	assert_int_equal(cg_suggest_distance("postgre", "postgres", 2), 1);
	assert_int_equal(cg_suggest_distance("postgress", "postgres", 2), 1);
	assert_int_equal(cg_suggest_distance("deplyo", "deploy", 2), 1);
	assert_int_equal(cg_suggest_distance("kitten", "sitting", 3), 3);
	assert_int_equal(cg_suggest_distance("abc", "abc", 2), 0);
	/* by code point, not byte */
	assert_int_equal(cg_suggest_distance("café", "cafe", 2), 1);
	assert_int_equal(cg_suggest_distance("限衍", "限义", 2), 1);
	/* over the cap: cap + 1, also for very different lengths */
	assert_int_equal(cg_suggest_distance("a", "abcdef", 2), 3);
	assert_int_equal(cg_suggest_max_distance(2), 0);
	assert_int_equal(cg_suggest_max_distance(4), 1);
	assert_int_equal(cg_suggest_max_distance(5), 2);
}

/* Two nodes' answers: postgres summed over three sources (10, ten times
 * the misspelling's 1) wins over the farther posters and the rarer
 * postgrex; deploy (9) is not corrected to deploys (4). */
static void
test_pick(void **state)
{
	json_t *replies = json_loads(
	    "[{\"root\": {\"postgre\": {\"df\": 1, \"near\": ["
	    "    {\"w\": \"posters\", \"df\": 2, \"d\": 2},"
	    "    {\"w\": \"postgres\", \"df\": 4, \"d\": 1}]},"
	    "  \"deploy\": {\"df\": 9, \"near\": [{\"w\": \"deploys\","
	    "    \"df\": 4, \"d\": 1}]}},"
	    "  \"svc\": {\"postgre\": {\"df\": 0, \"near\": ["
	    "    {\"w\": \"postgres\", \"df\": 6, \"d\": 1}]}}},"
	    " {\"other\": {\"postgre\": {\"df\": 0, \"near\": ["
	    "    {\"w\": \"postgrex\", \"df\": 4, \"d\": 1}]}}}]",
	    0, NULL);
	cg_query q;
	json_t *picks;
	char *note;

	(void)state;
	assert_non_null(replies);
	assert_int_equal(cg_query_parse(&q, "postgre deploy", NULL), 0);
	picks = cg_suggest_pick(&q, replies);
	assert_int_equal(json_array_size(picks), 1);
	assert_string_equal(json_string_value(json_object_get(
	                        json_array_get(picks, 0), "suggest")),
	                    "postgres");
	assert_int_equal(
	    json_integer_value(json_object_get(json_array_get(picks, 0), "df")),
	    10);
	note = cg_suggest_note(picks, false);
	assert_string_equal(note, "Did you mean \"postgres\" (for "
	                          "\"postgre\")?");
	free(note);
	note = cg_suggest_note(picks, true);
	assert_string_equal(note, "Did you mean \"postgres\"?");
	free(note);
	json_decref(picks);
	cg_query_fini(&q);

	/* prefixes, phrases and CJK are not asked about */
	assert_int_equal(
	    cg_query_parse(&q, "postgre* \"a b\" 限衍 deploy", NULL), 0);
	picks = cg_suggest_words(&q);
	assert_int_equal(json_array_size(picks), 1);
	assert_string_equal(json_string_value(json_array_get(picks, 0)),
	                    "deploy");
	json_decref(picks);
	cg_query_fini(&q);
	json_decref(replies);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_distance),
	    cmocka_unit_test(test_pick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
