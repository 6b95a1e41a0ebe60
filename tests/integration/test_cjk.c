/*
 * test_cjk.c - Chinese text is found by any substring a person would type
 * (SPEC 4.1, issue acceptance 3), mixed with Latin text, and adding CJK
 * pages does not change how English queries rank.
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"

static char *ws;    /* English + Chinese */
static char *ws_en; /* the same English pages alone */
static char *cache;

static const char *const english[][2] = {
    {"concepts/deploy-db.md",
     "# Deploying the database\n\nDeploy postgres on fly with a volume "
     "and a replica.\n"},
    {"concepts/deploy-web.md",
     "# Deploying the web tier\n\nThe web tier deploys on every merge; "
     "the database is untouched.\n"},
    {"concepts/backups.md",
     "# Backups\n\nNightly database backups go to object storage.\n"},
    {"decisions/pricing.md",
     "# Pricing\n\nPricing is per seat; a database add-on is extra.\n"},
};

static void
write_english(const char *dir)
{
	for (size_t i = 0; i < sizeof(english) / sizeof(english[0]); i++) {
		char rel[256];

		(void)snprintf(rel, sizeof(rel), ".guild/wiki/%s",
		               english[i][0]);
		cgt_page(dir, rel, "confidence: medium\nupdated_at: 2026-01-01",
		         english[i][1]);
	}
}

static int
setup(void **state)
{
	ws = cgt_tmpdir("cjk");
	ws_en = cgt_tmpdir("cjk-en");
	cache = cgt_tmpdir("cjk-cache");
	write_english(ws);
	write_english(ws_en);
	cgt_page(
	    ws, ".guild/wiki/concepts/semiotics.md", "type: concept",
	    "# 符号学笔记\n\n皮尔斯的无限衍义理论说明符号不断产生新的解释。\n");
	cgt_page(
	    ws, ".guild/wiki/context/licences.md", "type: context",
	    "# 团队背景\n\n## 与三张资格证相关的要求\n\n每位工程师需要持证上岗。\n");
	cgt_page(ws, ".guild/wiki/concepts/sequences.md", "type: concept",
	         "# 序列\n\n这里讨论三个序列的生成方式。\n");
	cgt_page(ws, ".guild/wiki/concepts/tar.md", "type: concept",
	         "# tar 归档\n\n使用 tar 命令创建归档文件。\n");
	return 0;
}

static int
teardown(void **state)
{
	cgt_rm(ws);
	cgt_rm(ws_en);
	cgt_rm(cache);
	free(ws);
	free(ws_en);
	free(cache);
	return 0;
}

static void
expect_top(const char *query, const char *suffix)
{
	json_t *ans = cgt_query(ws, cache, query, NULL);

	if (cgt_rank(ans, suffix) != 0)
		fprintf(stderr, "query %s: %s not first\n", query, suffix);
	assert_int_equal(cgt_rank(ans, suffix), 0);
	assert_null(json_object_get(ans, "note"));
	json_decref(ans);
}

static void
test_whole_and_inner_substring(void **state)
{
	expect_top("无限衍义", "semiotics.md");
	expect_top("限衍", "semiotics.md");
	expect_top("衍", "semiotics.md");
}

static void
test_heading_substring(void **state)
{
	json_t *ans;

	expect_top("三张资格证", "licences.md");
	expect_top("资格证", "licences.md");
	ans = cgt_query(ws, cache, "资格证", NULL);
	/* The hit is the heading's section, with its line range. */
	assert_int_equal(
	    json_integer_value(json_array_get(
	        json_object_get(cgt_hit(ans, "licences.md"), "line_range"), 0)),
	    6);
	json_decref(ans);
}

static void
test_sequence_phrase(void **state)
{
	json_t *ans = cgt_query(ws, cache, "三个序列", NULL);

	assert_int_equal(cgt_rank(ans, "sequences.md"), 0);
	json_decref(ans);
}

static void
test_order_matters(void **state)
{
	/* The characters in another order are not the phrase. */
	json_t *ans = cgt_query(ws, cache, "衍限", NULL);

	assert_true(cgt_rank(ans, "semiotics.md") != 0 ||
	            strcmp(json_string_value(json_object_get(
	                       json_array_get(json_object_get(ans, "hits"), 0),
	                       "match")),
	                   "phrase") != 0);
	json_decref(ans);
}

static void
test_mixed_latin_cjk(void **state)
{
	json_t *ans = cgt_query(ws, cache, "tar 归档", NULL);

	assert_int_equal(cgt_rank(ans, "tar.md"), 0);
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_array_get(json_object_get(ans, "hits"), 0), "match")),
	    "phrase");
	json_decref(ans);
}

static void
test_english_ranking_unchanged(void **state)
{
	static const char *const queries[] = {"database", "deploy database",
	                                      "web tier", "backups storage"};

	for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
		json_t *a = cgt_query(ws, cache, queries[q], NULL);
		json_t *b = cgt_query(ws_en, cache, queries[q], NULL);
		const json_t *ha = json_object_get(a, "hits");
		const json_t *hb = json_object_get(b, "hits");

		assert_true(json_array_size(hb) > 0);
		assert_int_equal(json_array_size(ha), json_array_size(hb));
		for (size_t i = 0; i < json_array_size(ha); i++)
			assert_string_equal(
			    json_string_value(
			        json_object_get(json_array_get(ha, i), "path")),
			    json_string_value(json_object_get(
			        json_array_get(hb, i), "path")));
		json_decref(a);
		json_decref(b);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_whole_and_inner_substring),
	    cmocka_unit_test(test_heading_substring),
	    cmocka_unit_test(test_sequence_phrase),
	    cmocka_unit_test(test_order_matters),
	    cmocka_unit_test(test_mixed_latin_cjk),
	    cmocka_unit_test(test_english_ranking_unchanged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
