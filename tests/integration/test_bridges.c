/*
 * test_bridges.c - `related` from registry-graph.yaml bridges: groups
 * that carry entries come first and empty ones (bridges to concepts no
 * index entry carries) are dropped, so two bridges to entry-less concepts
 * before a useful one do not take the two slots.  Two local corpora
 * (cgfixture.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cgfixture.h"
#include "cgtest.h"

static char *ws;
static char *cache;

static int
setup(void **state)
{
	(void)state;
	ws = cgt_tmpdir("bridges");
	cache = cgt_tmpdir("bridges-cache");
	cgt_page(ws, ".guild/wiki/context/overview.md", "type: context",
	         "# Overview\n\nThe workspace.\n");
	cgt_local_registry(ws, "handbook", "extra", NULL);
	cgt_write(ws, ".hiivmind/corpus/registry-graph.yaml",
	          "bridges:\n"
	          "  - concept_a: \"handbook:start\"\n"
	          "    concept_b: \"extra:ghost-one\"\n    type: see-also\n"
	          "  - concept_a: \"handbook:start\"\n"
	          "    concept_b: \"extra:ghost-two\"\n    type: see-also\n"
	          "  - concept_a: \"handbook:start\"\n"
	          "    concept_b: \"extra:useful\"\n    type: see-also\n");
	cgt_corpus(ws, "handbook", "start.md", "start", "Getting started",
	           "The zebrafish tank comes first.");
	cgt_corpus(ws, "extra", "useful.md", "useful", "Useful guide",
	           "Feeding schedules.");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	cgt_rm(ws);
	cgt_rm(cache);
	free(ws);
	free(cache);
	return 0;
}

static void
test_groups_with_entries_first(void **state)
{
	json_t *ans = cgt_query(ws, cache, "zebrafish", NULL);
	const json_t *rel = json_object_get(ans, "related");
	const json_t *g = json_array_get(rel, 0);
	const json_t *e = json_array_get(json_object_get(g, "entries"), 0);
	size_t i;

	(void)state;
	assert_non_null(cgt_hit(ans, "docs/start.md"));
	assert_int_equal(json_array_size(rel), 1);
	assert_string_equal(json_string_value(json_object_get(
	                        json_object_get(g, "bridge"), "to")),
	                    "extra:useful");
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "title")),
	                    "Useful guide");
	json_array_foreach(rel, i, g)
		assert_true(json_array_size(json_object_get(g, "entries")) > 0);
	json_decref(ans);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_groups_with_entries_first),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
