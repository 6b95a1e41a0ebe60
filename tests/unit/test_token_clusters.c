/*
 * test_token_clusters.c - unit tests of the scripts written without spaces
 * (issue 16): Thai, Lao, Khmer and Myanmar text is tokenized one grapheme
 * cluster per token (page/token.c), queries over it become phrases of
 * clusters (page/query.c), and any substring of whole clusters is found in
 * a real in-memory SQLite FTS5 table using the "cgw" tokenizer, including
 * queries that start or end inside a cluster and mixed Thai/English text.
 *
 * The sentences are written for this test (nothing is read from files or
 * the network).  Code points are spelled out where the byte order matters.
 */

/* cmocka.h needs these first. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "common/cg_err.h"
#include "index/fts_tokenizer.h"
#include "page/query.h"
#include "page/token.h"

/* Everything one walk produced. */
struct seen {
	char joined[4096]; /* tokens joined by '|' */
	int start[128];    /* byte offsets of each token */
	int end[128];
	bool unit[128]; /* the callback's cjk flag */
	int n;
};

static int
collect(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	struct seen *s = ctx;
	size_t used = strlen(s->joined);

	assert_true(ntok > 0 && ntok <= CG_TOKEN_MAX);
	assert_true(start >= 0 && start < end);
	assert_true(s->n < 128);
	assert_true(used + (size_t)ntok + 2 < sizeof(s->joined));
	s->start[s->n] = start;
	s->end[s->n] = end;
	s->unit[s->n] = cjk;
	s->n++;
	if (used > 0)
		s->joined[used++] = '|';
	memcpy(s->joined + used, tok, (size_t)ntok);
	s->joined[used + (size_t)ntok] = '\0';
	return 0;
}

static const char *
run(struct seen *s, const char *text)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(cg_token_each(text, (int)strlen(text), collect, s), 0);
	return s->joined;
}

/* Thai: a base consonant with its vowel sign and tone mark is one token;
 * leading vowels (เ แ โ ใ ไ) and SARA AA are clusters of their own, as
 * UAX #29 has them. */
static void
test_thai_clusters(void **state)
{
	struct seen s;

	(void)state;
	/* "the team searches the wiki": ค้ is ค + MAI THO */
	assert_string_equal(run(&s, "ทีมค้นหาวิกิ"), "ที|ม|ค้|น|ห|า|วิ|กิ");
	for (int i = 0; i < s.n; i++)
		assert_true(s.unit[i]);
	assert_int_equal(s.start[2], 9);
	assert_int_equal(s.end[2], 15); /* ค้ is two code points */
	/* SARA AM is a spacing mark: น้ำ (water) is one cluster */
	assert_string_equal(run(&s, "น้ำ"), "น้ำ");
	/* "our team writes documents every day" */
	assert_string_equal(run(&s, "ทีมของเราเขียนเอกสารทุกวัน"),
	                    "ที|ม|ข|อ|ง|เ|ร|า|เ|ขี|ย|น|เ|อ|ก|ส|า|ร|ทุ|ก|"
	                    "วั|น");
	/* Thai digits are clusters; PAIYANNOI is a letter, FONGMAN and
	 * ANGKHANKHU are punctuation and separate */
	assert_string_equal(run(&s, "ข้อ๑๒ ฯ\u0e4fกา\u0e5aขา"),
	                    "ข้|อ|๑|๒|ฯ|ก|า|ข|า");
}

static void
test_lao_khmer_myanmar(void **state)
{
	struct seen s;

	(void)state;
	/* Lao: "we write documents every day" */
	assert_string_equal(run(&s, "ພວກເຮົາຂຽນເອກະສານທຸກມື້"),
	                    "ພ|ວ|ກ|ເ|ຮົ|າ|ຂ|ຽ|ນ|ເ|ອ|ກ|ະ|ສ|າ|ນ|ທຸ|ກ|ມື້");
	/* Khmer: "our team writes documents"; the COENG stays with the
	 * consonant before it (UAX #29 extended clusters) */
	assert_string_equal(run(&s, "ក្រុមរបស់យើងសរសេរឯកសារ"),
	                    "ក្|រុ|ម|រ|ប|ស់|យើ|ង|ស|រ|សេ|រ|ឯ|ក|សា|រ");
	/* Myanmar: "our group writes every day"; tall AA and visarga are
	 * clusters of their own in UAX #29 */
	assert_string_equal(run(&s, "ကျွန်ုပ်တို့အဖွဲ့နေ့တိုင်းစာရေး"),
	                    "ကျွ|န်ု|ပ်|တို့|အ|ဖွဲ့|နေ့|တို|င်|း|စ|ာ|ရေ|း");
	/* the Myanmar section sign separates */
	assert_string_equal(run(&s, "စာ\u104aရေး"), "စ|ာ|ရေ|း");
}

/* The token is the cluster in canonical form: the tone mark and the vowel
 * mark typed in either order are one token, and ZWJ/ZWNJ/ZWSP inside a
 * cluster are dropped; the offsets still cover the typed bytes. */
static void
test_cluster_normalised(void **state)
{
	struct seen a;
	struct seen b;

	(void)state;
	/* ก + MAI EK + SARA U, and ก + SARA U + MAI EK */
	run(&a, "\u0e01\u0e48\u0e38\u0e07");
	run(&b, "\u0e01\u0e38\u0e48\u0e07");
	assert_string_equal(a.joined, b.joined);
	assert_string_equal(a.joined, "\u0e01\u0e38\u0e48|\u0e07");
	assert_int_equal(a.end[0], 9);
	/* a ZWJ after a Khmer sign is part of the cluster, not of the token */
	run(&a, "\u1780\u17d2\u200d\u179a");
	assert_string_equal(a.joined, "\u1780\u17d2|\u179a");
	assert_int_equal(a.end[0], 9);
	/* a zero-width space between words separates (Thai and Khmer text
	 * often carries one where a word ends) */
	assert_string_equal(run(&a, "\u0e01\u200b\u0e01"), "\u0e01|\u0e01");
}

/* Mixed Thai/English text: Latin words are folded words as before, a Thai
 * cluster ends a word in progress, and English is not split. */
static void
test_mixed_thai_english(void **state)
{
	struct seen s;

	(void)state;
	assert_string_equal(run(&s, "Deploy wikiของทีม ด้วย Postgres."),
	                    "deploy|wiki|ข|อ|ง|ที|ม|ด้|ว|ย|postgres");
	assert_false(s.unit[0]);
	assert_false(s.unit[1]);
	assert_true(s.unit[2]);
	assert_false(s.unit[10]);
	/* a combining acute after a Thai base joins its cluster; after a
	 * Latin letter it still folds away */
	assert_string_equal(run(&s, "\u0e01\u0301 cafe\u0301"),
	                    "\u0e01\u0301|cafe");
}

/* A mark with no base (after a space, at the start) is a token of marks;
 * an endless cluster is cut at CG_TOKEN_MAX and skipped past whole. */
static void
test_orphan_marks_and_long_cluster(void **state)
{
	char text[512];
	struct seen s;
	size_t n = 0;

	(void)state;
	assert_string_equal(run(&s, "\u0e48\u0e07 \u0e38"),
	                    "\u0e48|\u0e07|\u0e38");
	assert_int_equal(cg_token_unit("\u0e48", 3), CG_UNIT_MARKS);
	assert_int_equal(cg_token_unit("\u0e04\u0e49", 6), CG_UNIT_CLUSTER);
	assert_int_equal(cg_token_unit("\u1038", 3), CG_UNIT_CLUSTER);
	assert_int_equal(cg_token_unit("abc", 3), CG_UNIT_OTHER);
	assert_int_equal(cg_token_unit("\u4e2d", 3), CG_UNIT_OTHER);
	/* the tails of กุ้ (ก SARA U MAI THO) */
	{
		char t[CG_TOKEN_MAX + 1];
		const char *c = "\u0e01\u0e38\u0e49";

		assert_int_equal(cg_token_tail(c, 9, 1, t), 7);
		assert_memory_equal(t, "\x03\u0e38\u0e49", 7);
		assert_int_equal(cg_token_tail(c, 9, 2, t), 4);
		assert_memory_equal(t, "\x03\u0e49", 4);
		assert_int_equal(cg_token_tail(c, 9, 3, t), 0);
		assert_int_equal(cg_token_tail("\u0e01", 3, 1, t), 0);
		assert_int_equal(cg_token_tail("\u0e48", 3, 1, t), 0);
		assert_int_equal(cg_token_tail("abc", 3, 1, t), 0);
	}
	assert_true(cg_token_is_cluster(0x0E01));
	assert_true(cg_token_is_cluster(0x1780));
	assert_false(cg_token_is_cluster(0x0E00 - 1));
	assert_false(cg_token_is_cjk(0x0E01));

	memcpy(text + n, "\u0e01", 3);
	n += 3;
	for (int i = 0; i < 100; i++, n += 3)
		memcpy(text + n, i % 2 ? "\u0e48" : "\u0e34", 3);
	memcpy(text + n, " \u0e02", 5);
	n += 4;
	text[n] = '\0';
	run(&s, text);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.start[0], 0);
	assert_int_equal(s.end[0], 303);
	assert_int_equal(s.start[1], 304);
	assert_true(strlen(s.joined) <= CG_TOKEN_MAX + 4);
}

/* --- queries ------------------------------------------------------------ */

static void
test_query_terms(void **state)
{
	cg_query q;
	cg_err err = {0};

	(void)state;
	/* a run of clusters is one term, its last cluster a prefix */
	assert_int_equal(cg_query_parse(&q, "ค้นหา", &err), 0);
	assert_int_equal(q.n, 1);
	assert_string_equal(q.terms[0].text, "ค้ น ห า");
	assert_int_equal(q.terms[0].ntok, 4);
	assert_int_equal(q.terms[0].cjk, 1);
	assert_int_equal(q.terms[0].prefix, 1);
	cg_query_fini(&q);
	/* leading marks without a base are the tail of the cluster cut */
	assert_int_equal(
	    cg_query_parse(&q, "\u0e48\u0e07\u0e19\u0e49\u0e33", &err), 0);
	assert_int_equal(q.n, 1);
	assert_string_equal(q.terms[0].text, "\x03\u0e48 ง น้ำ");
	assert_string_equal(q.phrase, "\x03\u0e48 ง น้ำ");
	assert_int_equal(q.terms[0].ntok, 3);
	cg_query_fini(&q);
	/* alone, they are searched as they are */
	assert_int_equal(cg_query_parse(&q, "\u0e48", &err), 0);
	assert_int_equal(q.n, 1);
	assert_string_equal(q.terms[0].text, "\u0e48");
	cg_query_fini(&q);
	/* mixed: the English word is a term, the phrase class stays */
	assert_int_equal(cg_query_parse(&q, "wiki ของทีม", &err), 0);
	assert_int_equal(q.n, 2);
	assert_string_equal(q.terms[0].text, "wiki");
	assert_string_equal(q.terms[1].text, "ข อ ง ที ม");
	assert_true(cg_query_has_phrase(&q));
	cg_query_fini(&q);
	/* quoted: the clusters exactly (no prefix) */
	assert_int_equal(cg_query_parse(&q, "\"ค้นหา\"", &err), 0);
	assert_int_equal(q.terms[0].prefix, 0);
	assert_int_equal(q.terms[0].quoted, 1);
	cg_query_fini(&q);
	/* CJK runs are not prefixes */
	assert_int_equal(cg_query_parse(&q, "资格证", &err), 0);
	assert_int_equal(q.terms[0].prefix, 0);
	cg_query_fini(&q);
}

/* Rows of t whose text matches the class-ALL expression of a query. */
static int
rows(sqlite3 *db, const char *query, int *first)
{
	cg_query q;
	cg_err err = {0};
	sqlite3_stmt *st = NULL;
	char *expr;
	int n = 0;

	assert_int_equal(cg_query_parse(&q, query, &err), 0);
	expr = cg_query_fts(&q, CG_MATCH_ALL);
	assert_non_null(expr);
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "SELECT rowid FROM t WHERE t MATCH "
	                                    "?1 ORDER BY rowid",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	sqlite3_bind_text(st, 1, expr, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n == 0)
			*first = sqlite3_column_int(st, 0);
		n++;
	}
	sqlite3_finalize(st);
	cg_query_fini(&q);
	free(expr);
	return n;
}

/* The one row a query finds (fails when it finds none or several). */
static int
only(sqlite3 *db, const char *query)
{
	int first = 0;
	int n = rows(db, query, &first);

	if (n != 1)
		fprintf(stderr, "query %s: %d rows\n", query, n);
	assert_int_equal(n, 1);
	return first;
}

static const char *const pages[] = {
    /* 1: Thai, "this system helps search for text in the team's wiki" */
    "ระบบนี้ช่วยการค้นหาข้อความในวิกิของทีม",
    /* 2: Thai, "river prawns are cheap at the morning market" */
    "กุ้งแม่น้ำราคาถูกที่ตลาดเช้า",
    /* 3: Lao, "we write documents every day" */
    "ພວກເຮົາຂຽນເອກະສານທຸກມື້",
    /* 4: Khmer, "our team writes documents every day" */
    "ក្រុមរបស់យើងសរសេរឯកសាររៀងរាល់ថ្ងៃ",
    /* 5: Myanmar, "our group writes every day" */
    "ကျွန်ုပ်တို့အဖွဲ့သည်နေ့တိုင်းစာရေးသည်",
    /* 6: mixed, "deploy Postgres with the team's script" */
    "Deploy Postgres ด้วยสคริปต์ของทีม, then run the backup.",
    /* 7: English only */
    "The team writes the wiki every day.",
};

static sqlite3 *
open_pages(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(cg_fts_tokenizer_register(db), 0);
	assert_int_equal(sqlite3_exec(db,
	                              "CREATE VIRTUAL TABLE t USING "
	                              "fts5(title, headings, body, tags, meta, "
	                              "tokenize='cgw')",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "INSERT INTO t(rowid, body) "
	                                    "VALUES (?1, ?2)",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		sqlite3_bind_int(st, 1, (int)i + 1);
		sqlite3_bind_text(st, 2, pages[i], -1, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return db;
}

/* Every substring of 1-4 whole clusters is found: the issue's own
 * example, one syllable, words in the middle, the last cluster. */
static void
test_find_substrings(void **state)
{
	sqlite3 *db = open_pages();
	int first = 0;

	(void)state;
	assert_int_equal(only(db, "ค้นหา"), 1);
	assert_int_equal(only(db, "ข้อความ"), 1);
	assert_int_equal(only(db, "วิกิ"), 1);
	assert_int_equal(only(db, "ช่วย"), 1);
	assert_int_equal(only(db, "แม่น้ำ"), 2);
	assert_int_equal(only(db, "น้ำ"), 2);
	assert_int_equal(only(db, "เช้า"), 2);
	assert_int_equal(only(db, "ເອກະສານ"), 3);
	assert_int_equal(only(db, "ມື້"), 3);
	assert_int_equal(only(db, "ឯកសារ"), 4);
	assert_int_equal(only(db, "ក្រុម"), 4);
	assert_int_equal(only(db, "ថ្ងៃ"), 4);
	assert_int_equal(only(db, "အဖွဲ့"), 5);
	assert_int_equal(only(db, "နေ့တိုင်း"), 5);
	assert_int_equal(only(db, "စာရေး"), 5);
	/* a substring found in two pages is found in both */
	assert_int_equal(rows(db, "ของทีม", &first), 2);
	assert_int_equal(first, 1);
	/* the clusters in another order are not the substring */
	assert_int_equal(rows(db, "หาค้น", &first), 0);
	assert_int_equal(rows(db, "ความข้อ", &first), 0);
	/* a base without the marks of the page's cluster in the middle of
	 * the query is another text: "คน" is not in "ค้น" */
	assert_int_equal(rows(db, "คนหา", &first), 0);
	sqlite3_close(db);
}

/* Queries that start or end inside a cluster are treated as the clusters
 * they touch; marks typed in another order still match. */
static void
test_cut_clusters(void **state)
{
	sqlite3 *db = open_pages();
	int first = 0;

	(void)state;
	/* ends inside ค้: ค alone touches ค้ */
	assert_int_equal(only(db, "การค"), 1);
	/* ends inside น้ำ after its tone mark: น้ touches น้ำ */
	assert_int_equal(only(db, "แม่น้"), 2);
	/* starts with the tone mark of ค้ (base cut off) */
	assert_int_equal(only(db, "\u0e49\u0e19\u0e2b\u0e32"), 1);
	/* starts with the vowel and tone of ทุ (Lao) */
	assert_int_equal(only(db, "\u0eb8\u0e81\u0ea1\u0eb7\u0ec9"), 3);
	/* starts with the Khmer COENG of ក្ and ends in the Khmer cluster
	 * រុ cut before its vowel sign */
	assert_int_equal(only(db, "\u17d2\u179a"), 4);
	/* Myanmar, starts with the marks of ဖွဲ့ */
	assert_int_equal(only(db, "\u103d\u1032\u1037\u101e\u100a\u103a"), 5);
	/* marks typed in the other canonical order: กุ้ง with the tone
	 * mark before the vowel sign */
	assert_int_equal(only(db, "\u0e01\u0e49\u0e38\u0e07"), 2);
	/* the tail is looked up, not dropped: "้วย" is in ด้วย (page 6),
	 * not in ช่วย (page 1, another tone mark) */
	assert_int_equal(only(db, "\u0e49\u0e27\u0e22"), 6);
	assert_int_equal(only(db, "\u0e48\u0e27\u0e22"), 1);
	/* a mark alone matches no page (no page has it without a base) */
	assert_int_equal(rows(db, "\u0e49", &first), 0);
	sqlite3_close(db);
}

/* Mixed pages: English words and Thai substrings together; English is
 * found as before and Thai does not match English. */
static void
test_mixed_pages(void **state)
{
	sqlite3 *db = open_pages();
	int first = 0;

	(void)state;
	assert_int_equal(only(db, "postgres สคริปต์"), 6);
	assert_int_equal(only(db, "deploy ของทีม"), 6);
	assert_int_equal(only(db, "backup ด้วย"), 6);
	assert_int_equal(only(db, "wiki"), 7);
	assert_int_equal(rows(db, "team", &first), 1);
	assert_int_equal(first, 7);
	/* the integrity check re-tokenizes every row */
	assert_int_equal(sqlite3_exec(db,
	                              "INSERT INTO t(t) VALUES"
	                              "('integrity-check')",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_thai_clusters),
	    cmocka_unit_test(test_lao_khmer_myanmar),
	    cmocka_unit_test(test_cluster_normalised),
	    cmocka_unit_test(test_mixed_thai_english),
	    cmocka_unit_test(test_orphan_marks_and_long_cluster),
	    cmocka_unit_test(test_query_terms),
	    cmocka_unit_test(test_find_substrings),
	    cmocka_unit_test(test_cut_clusters),
	    cmocka_unit_test(test_mixed_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
