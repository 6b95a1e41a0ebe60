/*
 * test_bridges.c - `related` from registry-graph.yaml bridges: groups
 * that carry entries come first and empty ones (bridges to concepts no
 * index entry carries) are dropped, so two bridges to entry-less concepts
 * before a useful one do not take the two slots.  Two local corpora
 * written here.
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"

static char *ws;
static char *cache;

static void
corpus(const char *id, const char *entry, const char *concept,
       const char *title, const char *text)
{
	char rel[256];
	char body[512];

	(void)snprintf(rel, sizeof(rel), "corpora/%s/config.yaml", id);
	cgt_write(
	    ws, rel,
	    "sources:\n  - id: src\n    type: self\n    docs_root: docs\n");
	(void)snprintf(rel, sizeof(rel), "corpora/%s/index.yaml", id);
	(void)snprintf(body, sizeof(body),
	               "entries:\n  - id: \"src:%s\"\n    path: %s\n"
	               "    title: %s\n    summary: %s\n    concepts: [%s]\n",
	               entry, entry, title, title, concept);
	cgt_write(ws, rel, body);
	(void)snprintf(rel, sizeof(rel), "corpora/%s/docs/%s", id, entry);
	(void)snprintf(body, sizeof(body), "# %s\n\n%s\n", title, text);
	cgt_write(ws, rel, body);
}

static int
setup(void **state)
{
	(void)state;
	ws = cgt_tmpdir("bridges");
	cache = cgt_tmpdir("bridges-cache");
	cgt_page(ws, ".guild/wiki/context/overview.md", "type: context",
	         "# Overview\n\nThe workspace.\n");
	cgt_write(ws, ".hiivmind/corpus/registry.yaml",
	          "corpora:\n"
	          "  - id: handbook\n    source:\n      type: local\n"
	          "      path: corpora/handbook\n"
	          "  - id: extra\n    source:\n      type: local\n"
	          "      path: corpora/extra\n");
	cgt_write(ws, ".hiivmind/corpus/registry-graph.yaml",
	          "bridges:\n"
	          "  - concept_a: \"handbook:start\"\n"
	          "    concept_b: \"extra:ghost-one\"\n    type: see-also\n"
	          "  - concept_a: \"handbook:start\"\n"
	          "    concept_b: \"extra:ghost-two\"\n    type: see-also\n"
	          "  - concept_a: \"handbook:start\"\n"
	          "    concept_b: \"extra:useful\"\n    type: see-also\n");
	corpus("handbook", "start.md", "start", "Getting started",
	       "The zebrafish tank comes first.");
	corpus("extra", "useful.md", "useful", "Useful guide",
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
