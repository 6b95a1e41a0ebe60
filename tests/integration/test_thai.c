/*
 * test_thai.c - text in the scripts written without spaces (Thai, Lao,
 * Khmer, Myanmar; issue 16) is found by any substring of whole grapheme
 * clusters through the real binary, including queries cut inside a
 * cluster and mixed Thai/English pages; snippets are highlighted on
 * cluster boundaries; and adding such pages does not change how English
 * queries rank.  The pages are written for this test.
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "page/token.h"

static char *ws;    /* English + the other scripts */
static char *ws_en; /* the same English pages alone */
static char *cache;

static const char *const english[][2] = {
    {"concepts/deploy-db.md",
     "# Deploying the database\n\nDeploy postgres on fly with a volume "
     "and a replica.\n"},
    {"concepts/backups.md",
     "# Backups\n\nNightly database backups go to object storage.\n"},
    {"decisions/pricing.md",
     "# Pricing\n\nPricing is per seat; a database add-on is extra.\n"},
};

/* Pages: path, body.  Thai: "search" (this system helps search text in
 * the team's wiki), "morning market" (river prawns are cheap at the
 * morning market every day), "deploy" (mixed: deploy Postgres with the
 * team's script, then back up the data every night); Lao, Khmer and
 * Myanmar: "we/our team write(s) documents every day". */
static const char *const pages[][2] = {
    {"concepts/search.md", "# การค้นหา\n\nระบบนี้ช่วยการค้นหาข้อความในวิกิของทีม\n"},
    {"context/market.md", "# ตลาดเช้า\n\nกุ้งแม่น้ำราคาถูกที่ตลาดเช้าทุกวัน\n"},
    {"runbooks/deploy.md", "# Deploy\n\nDeploy Postgres ด้วยสคริปต์ของทีม "
                           "แล้วสำรองข้อมูลทุกคืน.\n"},
    {"context/lao.md", "# ເອກະສານ\n\nພວກເຮົາຂຽນເອກະສານທຸກມື້\n"},
    {"context/khmer.md", "# ឯកសារ\n\nក្រុមរបស់យើងសរសេរឯកសាររៀងរាល់ថ្ងៃ\n"},
    {"context/myanmar.md", "# စာရေးခြင်း\n\nကျွန်ုပ်တို့အဖွဲ့သည်နေ့တိုင်းစာရေးသည်\n"},
};

static void
write_pages(const char *dir, const char *const (*p)[2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char rel[256];

		(void)snprintf(rel, sizeof(rel), ".guild/wiki/%s", p[i][0]);
		cgt_page(dir, rel, "confidence: medium\nupdated_at: 2026-01-01",
		         p[i][1]);
	}
}

static int
setup(void **state)
{
	(void)state;
	ws = cgt_tmpdir("thai");
	ws_en = cgt_tmpdir("thai-en");
	cache = cgt_tmpdir("thai-cache");
	write_pages(ws, english, sizeof(english) / sizeof(english[0]));
	write_pages(ws_en, english, sizeof(english) / sizeof(english[0]));
	write_pages(ws, pages, sizeof(pages) / sizeof(pages[0]));
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	cgt_rm(ws);
	cgt_rm(ws_en);
	cgt_rm(cache);
	free(ws);
	free(ws_en);
	free(cache);
	return 0;
}

/* Every "**" of the snippet sits on a grapheme cluster boundary of the
 * text without the marks, and the snippet holds at least one. */
static void
check_marks(const char *snippet)
{
	size_t n = strlen(snippet);
	char *plain = malloc(n + 1);
	size_t at[64];
	size_t nat = 0;
	size_t len = 0;

	assert_non_null(plain);
	for (size_t i = 0; i < n; i++) {
		if (snippet[i] == '*' && snippet[i + 1] == '*') {
			assert_true(nat < 64);
			at[nat++] = len;
			i++;
			continue;
		}
		plain[len++] = snippet[i];
	}
	plain[len] = '\0';
	assert_true(nat >= 2);
	for (size_t k = 0; k < nat; k++)
		assert_false(cg_token_joins(plain, at[k], len));
	free(plain);
}

/* query finds the page first; its snippet is highlighted on cluster
 * boundaries and holds want (with its marks) when want is not NULL. */
static void
expect_top(const char *query, const char *suffix, const char *want)
{
	json_t *ans = cgt_query(ws, cache, query, NULL);
	const char *snip;

	if (cgt_rank(ans, suffix) != 0)
		fprintf(stderr, "query %s: %s not first\n", query, suffix);
	assert_int_equal(cgt_rank(ans, suffix), 0);
	assert_null(json_object_get(ans, "note"));
	snip =
	    json_string_value(json_object_get(cgt_hit(ans, suffix), "snippet"));
	assert_non_null(snip);
	check_marks(snip);
	if (want != NULL && strstr(snip, want) == NULL)
		fprintf(stderr, "query %s: snippet %s lacks %s\n", query, snip,
		        want);
	assert_true(want == NULL || strstr(snip, want) != NULL);
	json_decref(ans);
}

/* The three misses and other substrings of 1-4 clusters. */
static void
test_thai_substrings(void **state)
{
	(void)state;
	expect_top("ค้นหา", "search.md", "**ค้นหา**");
	expect_top("ข้อความ", "search.md", "**ข้อความ**");
	/* FTS5's window (24 tokens from the sentence start) ends inside
	 * this match, as it does for a CJK phrase: still whole clusters */
	expect_top("วิกิ", "search.md", NULL);
	expect_top("ช่วย", "search.md", "**ช่วย**");
	expect_top("แม่น้ำ", "market.md", "**แม่น้ำ**");
	expect_top("ถูก", "market.md", "**ถูก**");
	expect_top("สคริปต์", "deploy.md", "**สคริปต์**");
}

/* A query cut inside a cluster: the highlight covers the whole clusters
 * it touches. */
static void
test_cut_inside_cluster(void **state)
{
	json_t *ans;

	(void)state;
	/* ends inside น้ำ (the tone mark typed, SARA AM not) */
	expect_top("แม่น้", "market.md", "**แม่น้ำ**");
	/* starts with the tone mark of ค้ */
	expect_top("\u0e49\u0e19\u0e2b\u0e32\u0e02\u0e49", "search.md", NULL);
	/* starts with the tone mark of ด้: the highlight covers ด้ whole,
	 * and ช่วย (another tone mark on its cluster) is no hit */
	expect_top("\u0e49\u0e27\u0e22", "deploy.md", "**ด้วย**");
	ans = cgt_query(ws, cache, "\u0e49\u0e27\u0e22", NULL);
	assert_int_equal(cgt_rank(ans, "search.md"), -1);
	json_decref(ans);
	/* marks typed in the other order: ก + MAI THO + SARA U */
	expect_top("\u0e01\u0e49\u0e38\u0e07\u0e41\u0e21\u0e48", "market.md",
	           NULL);
}

static void
test_lao_khmer_myanmar(void **state)
{
	(void)state;
	expect_top("ເອກະສານທຸກ", "lao.md", NULL);
	expect_top("ມື້", "lao.md", "**ມື້**");
	expect_top("ឯកសារ", "khmer.md", NULL);
	expect_top("ថ្ងៃ", "khmer.md", "**ថ្ងៃ**");
	expect_top("အဖွဲ့", "myanmar.md", "**အဖွဲ့**");
	expect_top("နေ့တိုင်း", "myanmar.md", "**နေ့တိုင်း**");
}

/* Mixed Thai/English: both kinds of term in one query, and the English
 * word alone. */
static void
test_mixed(void **state)
{
	json_t *ans;

	(void)state;
	expect_top("postgres ของทีม", "deploy.md", NULL);
	ans = cgt_query(ws, cache, "Postgres ด้วยสคริปต์", NULL);
	assert_int_equal(cgt_rank(ans, "deploy.md"), 0);
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_array_get(json_object_get(ans, "hits"), 0), "match")),
	    "phrase");
	json_decref(ans);
	/* the clusters in another order are not the phrase */
	ans = cgt_query(ws, cache, "หาค้น", NULL);
	assert_int_equal(cgt_rank(ans, "search.md"), -1);
	json_decref(ans);
}

static void
test_english_ranking_unchanged(void **state)
{
	static const char *const queries[] = {"database", "deploy database",
	                                      "backups storage", "postgres"};

	(void)state;
	for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
		json_t *a = cgt_query(ws, cache, queries[q], NULL);
		json_t *b = cgt_query(ws_en, cache, queries[q], NULL);
		const json_t *ha = json_object_get(a, "hits");
		const json_t *hb = json_object_get(b, "hits");
		size_t shown = 0;

		assert_true(json_array_size(hb) > 0);
		/* the mixed page may add a hit; the English order holds */
		for (size_t i = 0; i < json_array_size(ha); i++) {
			const char *p = json_string_value(
			    json_object_get(json_array_get(ha, i), "path"));

			if (strstr(p, "runbooks/deploy.md") != NULL)
				continue;
			assert_string_equal(
			    p, json_string_value(json_object_get(
			           json_array_get(hb, shown), "path")));
			shown++;
		}
		assert_int_equal(shown, json_array_size(hb));
		json_decref(a);
		json_decref(b);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_thai_substrings),
	    cmocka_unit_test(test_cut_inside_cluster),
	    cmocka_unit_test(test_lao_khmer_myanmar),
	    cmocka_unit_test(test_mixed),
	    cmocka_unit_test(test_english_ranking_unchanged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
