/*
 * test_corpus_local.c - a corpus registered as `type: local` is read in
 * place: its v1 index.md (no index.yaml) lists documents of a `self`
 * source, which are searchable and readable; an entry of a git source this
 * host has not fetched is still searchable from its summary but not
 * readable; dangling entries are reported, never fatal; a broken index
 * keeps what was indexed; and `status` shows the corpus.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "cgtest.h"

static char *T;
static char *WS;
static char *CACHE;

static int
setup(void **state)
{
	(void)state;
	cgt_tree("corpus-local", &T, &WS, &CACHE);
	cgt_page(WS, ".guild/wiki/standards/style.md",
	         "type: standard\nupdated_at: 2026-10-01",
	         "# Style\n\nTabs, not spaces.\n");
	cgt_write(WS, ".hiivmind/corpus/registry.yaml",
	          "schema_version: 1\ncorpora:\n"
	          "  - id: handbook\n    source:\n      type: local\n"
	          "      path: corpora/handbook\n    cache:\n"
	          "      strategy: none\n"
	          "  - id: gone\n    source:\n      type: local\n"
	          "      path: corpora/missing\n"
	          "  - id: root\n    source:\n      type: local\n"
	          "      path: corpora/handbook\n");
	cgt_write(WS, "corpora/handbook/config.yaml",
	          "schema_version: 2\ncorpus:\n  name: handbook\nsources:\n"
	          "  - id: hb\n    type: self\n    docs_root: \"./docs/\"\n"
	          "  - id: upstream\n    type: git\n    repo_owner: acme\n"
	          "    repo_name: upstream\n    branch: main\n"
	          "    docs_root: docs\n");
	cgt_write(WS, "corpora/handbook/index.md",
	          "# Handbook\n\n## Guide\n\n"
	          "- **Onboarding** `hb:onboarding.md` - First week checklist\n"
	          "- **Release train** `upstream:release.md` - How the "
	          "pelican release train runs\n"
	          "- **Nowhere** `ghost:page.md` - a source nobody declared\n"
	          "not an entry line\n");
	cgt_write(WS, "corpora/handbook/docs/onboarding.md",
	          "# Onboarding\n\nAsk for a capybara badge on day one.\n");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	cgt_tree_free(T, WS, CACHE);
	return 0;
}

static void
test_search_and_read(void **state)
{
	json_t *ans = cgt_query(WS, CACHE, "capybara badge", NULL);
	json_t *h = cgt_hit(ans, "docs/onboarding.md");
	char *out = NULL;
	char *err = NULL;

	(void)state;
	assert_non_null(h);
	assert_string_equal(json_string_value(json_object_get(h, "source")),
	                    "handbook");
	assert_string_equal(json_string_value(json_object_get(h, "category")),
	                    "guide");
	assert_null(json_object_get(h, "freshness")); /* local: no cache */
	json_decref(ans);
	assert_int_equal(cgt_run(&out, NULL, "read", "--workspace", WS,
	                         "--cache", CACHE,
	                         "cg://ws/handbook/docs/onboarding.md", NULL),
	                 0);
	assert_non_null(strstr(out, "capybara badge"));
	free(out);
	/* An entry of an unfetched git source: found by its summary... */
	ans = cgt_query(WS, CACHE, "pelican", NULL);
	h = cgt_hit(ans, "_entries/upstream:release.md");
	assert_non_null(h);
	assert_non_null(
	    json_object_get(json_object_get(h, "corpus"), "document_missing"));
	json_decref(ans);
	/* ...but not readable. */
	out = NULL;
	assert_int_not_equal(
	    cgt_run(&out, &err, "read", "--workspace", WS, "--cache", CACHE,
	            "cg://ws/handbook/_entries/upstream:release.md", NULL),
	    0);
	free(out);
	free(err);
}

static void
test_warnings_reported(void **state)
{
	json_t *ans = cgt_query(WS, CACHE, "capybara", NULL);
	char *text = json_dumps(json_object_get(ans, "followups"), 0);

	(void)state;
	/* The dangling entry (a source config.yaml does not declare). */
	assert_non_null(strstr(text, "ghost"));
	free(text);
	json_decref(ans);
}

static void
test_names_and_missing(void **state)
{
	char *out = NULL;
	char *err = NULL;

	(void)state;
	/* "root" is the root wiki's name; "gone" has no folder: both are
	 * skipped with a warning, the rest is served. */
	assert_int_equal(cgt_run(&out, &err, "status", "--workspace", WS,
	                         "--cache", CACHE, "--json", NULL),
	                 0);
	assert_non_null(strstr(out, "\"handbook\""));
	assert_null(strstr(out, "\"gone\""));
	free(out);
	free(err);
}

static void
test_bad_documents(void **state)
{
	static const char blob[] = "# Blob\n\0\0\x01binary\n";
	static const char index[] =
	    "## Guide\n\n"
	    "- **Onboarding** `hb:onboarding.md` - First week checklist\n"
	    "- **Blob** `hb:blob.md` - a binary file\n"
	    "- **Latin** `hb:latin.md` - caf\xe9 au lait wombat\n";
	json_t *ans;
	char *fu;

	(void)state;
	cgt_write_bytes(WS, "corpora/handbook/docs/blob.md", blob,
	                sizeof(blob) - 1);
	cgt_write_bytes(WS, "corpora/handbook/index.md", index,
	                sizeof(index) - 1);
	cgt_write(WS, "corpora/handbook/docs/latin.md", "# Latin\n\nok\n");
	ans = cgt_query(WS, CACHE, "wombat", NULL);
	/* Invalid UTF-8 in the index is replaced; the entry is found. */
	assert_non_null(cgt_hit(ans, "docs/latin.md"));
	json_decref(ans);
	ans = cgt_query(WS, CACHE, "capybara", NULL);
	assert_non_null(cgt_hit(ans, "docs/onboarding.md"));
	fu = json_dumps(json_object_get(ans, "followups"), 0);
	assert_non_null(strstr(fu, "blob.md"));
	assert_non_null(strstr(fu, "binary"));
	free(fu);
	json_decref(ans);
}

static void
test_huge_index_keeps_pages(void **state)
{
	size_t n = 17u << 20;
	char *big = malloc(n);
	json_t *ans;

	(void)state;
	assert_non_null(big);
	memset(big, '#', n); /* a 17 MB comment: over the 16 MB cap */
	big[n - 1] = '\n';
	cgt_write_bytes(WS, "corpora/handbook/index.yaml", big, n);
	free(big);
	ans = cgt_query(WS, CACHE, "capybara", NULL);
	assert_non_null(cgt_hit(ans, "docs/onboarding.md"));
	json_decref(ans);
}

static void
test_broken_index_keeps_pages(void **state)
{
	json_t *ans;

	(void)state;
	cgt_write(WS, "corpora/handbook/index.md.bak", "");
	cgt_write(WS, "corpora/handbook/index.yaml", "entries: [\n  - {");
	ans = cgt_query(WS, CACHE, "capybara", NULL);
	assert_non_null(cgt_hit(ans, "docs/onboarding.md"));
	json_decref(ans);
}

/* A corpus that never indexed (its index.yaml broken from the start)
 * fails alone (issue 15, finding 3): the wiki of the same repository
 * still answers, the answer names the failed source and why, and
 * `index` exits non-zero (finding 4's cron half). */
static void
test_broken_corpus_fails_alone(void **state)
{
	char *ws = malloc(strlen(T) + 16);
	char *cache = malloc(strlen(T) + 16);
	json_t *ans;
	char *ev;

	(void)state;
	sprintf(ws, "%s/ws2", T);       /* NOLINT: sized above */
	sprintf(cache, "%s/cache2", T); /* NOLINT */
	cgt_page(ws, ".guild/wiki/standards/style.md",
	         "type: standard\nupdated_at: 2026-10-01",
	         "# Style\n\nTabs, not spaces; the ocelot rule.\n");
	cgt_write(ws, ".hiivmind/corpus/registry.yaml",
	          "schema_version: 1\ncorpora:\n"
	          "  - id: broken\n    source:\n      type: local\n"
	          "      path: corpora/broken\n");
	cgt_write(ws, "corpora/broken/config.yaml",
	          "schema_version: 2\ncorpus:\n  name: broken\nsources:\n"
	          "  - id: b\n    type: self\n    docs_root: \"./docs/\"\n");
	cgt_write(ws, "corpora/broken/index.yaml", "entries: [\n  - {");
	ans = cgt_query(ws, cache, "ocelot", NULL);
	assert_non_null(cgt_hit(ans, ".guild/wiki/standards/style.md"));
	ev = json_dumps(json_object_get(ans, "evidence"), 0);
	assert_non_null(strstr(ev, "broken"));
	assert_non_null(strstr(ev, "index.yaml"));
	free(ev);
	json_decref(ans);
	/* `index` exits non-zero, so cron sees the failed source. */
	assert_int_not_equal(cgt_run(NULL, NULL, "index", "--workspace", ws,
	                             "--cache", cache, NULL),
	                     0);
	free(ws);
	free(cache);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_search_and_read),
	    cmocka_unit_test(test_warnings_reported),
	    cmocka_unit_test(test_names_and_missing),
	    cmocka_unit_test(test_bad_documents),
	    cmocka_unit_test(test_huge_index_keeps_pages),
	    cmocka_unit_test(test_broken_index_keeps_pages),
	    cmocka_unit_test(test_broken_corpus_fails_alone),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
