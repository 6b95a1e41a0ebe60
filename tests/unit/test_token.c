/*
 * test_token.c - unit tests of the project tokenizer (node/token.c): word
 * splitting, folding, CJK characters, byte offsets, hostile bytes, and the
 * "cgw" FTS5 tokenizer in a real in-memory SQLite database.
 *
 * Fixtures are written inline; nothing here reads files or the network.
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
#include <string.h>

#include "common/cg_err.h"
#include "index/fts_tokenizer.h"
#include "page/token.h"

#define MAX_SEEN 64

/* One token as the callback saw it. */
struct seen_tok {
	char text[CG_TOKEN_MAX + 1]; /* NUL-terminated copy */
	int start;                   /* byte offsets in the input */
	int end;
	bool cjk;
};

/* Everything one walk produced. */
struct seen {
	struct seen_tok tok[MAX_SEEN];
	int n;             /* tokens seen */
	char joined[4096]; /* tokens joined by '|' */
	int stop_after;    /* return 7 after this many tokens; 0 = never */
};

static int
collect(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	struct seen *s = ctx;
	size_t used = strlen(s->joined);

	assert_true(ntok > 0 && ntok <= CG_TOKEN_MAX);
	assert_true(start >= 0 && start < end);
	assert_true(s->n < MAX_SEEN);
	memcpy(s->tok[s->n].text, tok, (size_t)ntok);
	s->tok[s->n].text[ntok] = '\0';
	s->tok[s->n].start = start;
	s->tok[s->n].end = end;
	s->tok[s->n].cjk = cjk;
	s->n++;
	assert_true(used + (size_t)ntok + 2 < sizeof(s->joined));
	if (used > 0)
		s->joined[used++] = '|';
	memcpy(s->joined + used, tok, (size_t)ntok);
	s->joined[used + (size_t)ntok] = '\0';
	if (s->stop_after > 0 && s->n >= s->stop_after)
		return 7;
	return 0;
}

/* Tokenizes a NUL-terminated string into *s and returns the joined form. */
static const char *
run(struct seen *s, const char *text)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(cg_token_each(text, (int)strlen(text), collect, s), 0);
	return s->joined;
}

static void
test_fold_latin(void **state)
{
	struct seen s;

	(void)state;
	assert_string_equal(run(&s, "Café ÆSIR Øre STRAẞE straße"),
	                    "cafe|aesir|ore|strasse|strasse");
	assert_string_equal(run(&s, "œuvre Łódź Ångström Þing Ĳssel"),
	                    "oeuvre|lodz|angstrom|thing|ijssel");
	assert_string_equal(run(&s, "ŠKODA Dvořák naïve façade Ğ ı"),
	                    "skoda|dvorak|naive|facade|g|i");
	assert_string_equal(run(&s, "ǅemal Ș ț ɏ ſ"), "dzemal|s|t|y|s");
	/* letters without a base letter are only lowercased */
	assert_string_equal(run(&s, "Ʒ ʒ Ǯ Ƹ"), "ʒ|ʒ|ǯ|ƹ");
	/* NFD: the combining acute folds away, like the precomposed form. */
	assert_string_equal(run(&s, "Cafe\xcc\x81 CAFE"), "cafe|cafe");
	/* a, micro sign and o ordinal are letters in Latin-1; their
	 * compatibility forms are mu, a and o */
	assert_string_equal(run(&s, "5µm 1ª 2º"), "5μm|1a|2o");
}

static void
test_fold_fullwidth(void **state)
{
	struct seen s;

	(void)state;
	assert_string_equal(run(&s, "ＡＢＣ１２３ｘｙｚ"), "abc123xyz");
	/* fullwidth punctuation separates like its ASCII twin */
	assert_string_equal(run(&s, "ＡＢ！ＣＤ（ｅ）＿ｆ"), "ab|cd|e|f");
}

static void
test_fold_greek_cyrillic(void **state)
{
	struct seen s;

	(void)state;
	assert_string_equal(run(&s, "ΣΟΦΊΑ σοφός Ελλάδα ΐ"),
	                    "σοφια|σοφοσ|ελλαδα|ι");
	assert_string_equal(run(&s, "МОСКВА Ёлка ЂАК ёж"),
	                    "москва|елка|ђак|еж");
	/* other scripts pass through unchanged, but their compatibility
	 * forms fold (Arabic presentation forms to the letters) */
	assert_string_equal(run(&s, "שלום עולם ﻣﺮﺣﺒﺎ"), "שלום|עולם|مرحبا");
}

/* Everything outside the tables above folds with libutf8proc:
 * compatibility forms, case and accents. */
static void
test_fold_utf8proc(void **state)
{
	struct seen s;

	(void)state;
	assert_string_equal(run(&s, "Việt Nam TIẾNG VIỆT"),
	                    "viet|nam|tieng|viet");
	assert_string_equal(run(&s, "ﬁle ﬂow eﬃcient"), "file|flow|efficient");
	assert_string_equal(run(&s, "Ⅸ ㎏"), "ix|kg");
	/* the folded ligature keeps the byte offsets of the source */
	assert_string_equal(run(&s, "a ﬁle"), "a|file");
	assert_int_equal(s.tok[1].start, 2);
	assert_int_equal(s.tok[1].end, 2 + 3 + 2);
}

/* Mnemonic brackets inside a word join it; other brackets separate. */
static void
test_mnemonic_brackets(void **state)
{
	struct seen s;

	(void)state;
	assert_string_equal(run(&s, "[c]reate a g[z]ipped E[x]tract"),
	                    "create|a|gzipped|extract");
	assert_string_equal(run(&s, "[d]ry-[r]un [v]erbose"),
	                    "dry|run|verbose");
	/* not followed by a word character, too long, or empty: separators */
	assert_string_equal(run(&s, "a[i] [x] done [abcd]ef []x [c"),
	                    "a|i|x|done|abcd|ef|x|c");
	assert_int_equal(run(&s, "[c]reate") != NULL, 1);
	assert_int_equal(s.tok[0].start, 1);
}

/* Word forms: English stems, marked; none for other words. */
static void
test_word_forms(void **state)
{
	cg_stemmer *st = cg_stemmer_new();
	char f[CG_FORM_MAX];

	(void)state;
	assert_non_null(st);
	assert_int_equal(cg_token_form(st, "retries", 7, f), 6);
	assert_string_equal(f, "\x01retri");
	assert_int_equal(cg_token_form(st, "retried", 7, f), 6);
	assert_string_equal(f, "\x01retri");
	assert_int_equal(cg_token_form(st, "deploy", 6, f), 7);
	assert_string_equal(f, "\x01"
	                       "deploy");
	assert_int_equal(cg_token_form(st, "ab", 2, f), 0);
	assert_int_equal(cg_token_form(st, "x86", 3, f), 0);
	assert_int_equal(cg_token_form(st, "caf\xc3\xa9", 5, f), 0);
	assert_int_equal(cg_token_form(NULL, "retries", 7, f), 0);
	cg_stemmer_free(st);
	cg_stemmer_free(NULL);
}

static void
test_separators(void **state)
{
	struct seen s;

	(void)state;
	assert_string_equal(run(&s, "snake_case e-mail C++ a.b admin@x.org"),
	                    "snake|case|e|mail|c|a|b|admin|x|org");
	assert_string_equal(run(&s, "x—y…z «q» a→b ≤c ¿d?"), "x|y|z|q|a|b|c|d");
	assert_string_equal(run(&s, "a😀b a\xc2\xa0"
	                            "b \xef\xbb\xbfz a×b"),
	                    "a|b|a|b|z|a|b");
	assert_string_equal(run(&s, "a\xee\x80\x80z"), "a|z"); /* U+E000 */
	assert_string_equal(run(&s, "a\xe3\x80\x80z"), "a|z"); /* U+3000 */
}

static void
test_cjk_split(void **state)
{
	struct seen s;

	(void)state;
	assert_string_equal(run(&s, "无限衍义"), "无|限|衍|义");
	assert_int_equal(s.n, 4);
	for (int i = 0; i < 4; i++) {
		assert_true(s.tok[i].cjk);
		assert_int_equal(s.tok[i].start, 3 * i);
		assert_int_equal(s.tok[i].end, 3 * i + 3);
	}
	assert_string_equal(run(&s, "ひらがなカタカナ한국어"),
	                    "ひ|ら|が|な|カ|タ|カ|ナ|한|국|어");
	assert_string_equal(run(&s, "時々〇，中。"), "時|々|〇|中");
	/* halfwidth Katakana is CJK; fullwidth punctuation is not */
	assert_string_equal(run(&s, "ｶﾀ"), "ｶ|ﾀ");
	/* an extension-B Han character (4 bytes) */
	assert_string_equal(run(&s, "\xf0\xa0\x80\x80x"), "\xf0\xa0\x80\x80|x");
	assert_true(s.tok[0].cjk);
	assert_int_equal(s.tok[0].end, 4);
	assert_false(s.tok[1].cjk);
}

static void
test_mixed_latin_cjk(void **state)
{
	struct seen s;

	(void)state;
	assert_string_equal(run(&s, "abc中文DEF"), "abc|中|文|def");
	assert_int_equal(s.tok[0].start, 0);
	assert_int_equal(s.tok[0].end, 3);
	assert_false(s.tok[0].cjk);
	assert_int_equal(s.tok[1].start, 3);
	assert_int_equal(s.tok[2].end, 9);
	assert_int_equal(s.tok[3].start, 9);
	assert_int_equal(s.tok[3].end, 12);
	assert_false(s.tok[3].cjk);
	assert_string_equal(run(&s, "tar 归档 files"), "tar|归|档|files");
}

static void
test_offsets(void **state)
{
	struct seen s;

	(void)state;
	assert_string_equal(run(&s, "  Hello, Wörld "), "hello|world");
	assert_int_equal(s.tok[0].start, 2);
	assert_int_equal(s.tok[0].end, 7);
	assert_int_equal(s.tok[1].start, 9);
	assert_int_equal(s.tok[1].end, 15); /* ö is two bytes */
	/* fullwidth: 3 source bytes per folded byte */
	assert_string_equal(run(&s, "-ＡＢ"), "ab");
	assert_int_equal(s.tok[0].start, 1);
	assert_int_equal(s.tok[0].end, 7);
}

static void
test_invalid_utf8(void **state)
{
	struct seen s;

	(void)state;
	assert_string_equal(run(&s, "ab\xff"
	                            "cd\xc3"),
	                    "ab|cd");
	assert_int_equal(s.tok[1].start, 3);
	assert_int_equal(s.tok[1].end, 5);
	/* overlong '/', a lone continuation byte, a surrogate */
	assert_string_equal(run(&s, "a\xc0\xafz\x80q\xed\xa0\x80r"), "a|z|q|r");
	assert_string_equal(run(&s, "中\x80文"), "中|文");
	/* a truncated CJK character at the end is dropped */
	assert_string_equal(run(&s, "中\xe6\x96"), "中");
}

static void
test_long_word(void **state)
{
	struct seen s;
	char text[256];

	(void)state;
	memset(text, 'A', 100);
	memcpy(text + 100, " b", 3);
	run(&s, text);
	assert_int_equal(s.n, 2);
	assert_int_equal((int)strlen(s.tok[0].text), CG_TOKEN_MAX);
	assert_int_equal(s.tok[0].text[0], 'a');
	assert_int_equal(s.tok[0].start, 0);
	assert_int_equal(s.tok[0].end, 100); /* spans the whole word */
	assert_string_equal(s.tok[1].text, "b");

	/* "a" + 40 alphas: 1 + 2 * 31 = 63 bytes fit, the 32nd alpha not */
	text[0] = 'a';
	for (int i = 0; i < 40; i++)
		memcpy(text + 1 + (size_t)2 * i, "α", 2);
	text[81] = '\0';
	run(&s, text);
	assert_int_equal(s.n, 1);
	assert_int_equal((int)strlen(s.tok[0].text), 63);
	assert_int_equal(s.tok[0].end, 81);
}

static void
test_empty_and_stop(void **state)
{
	const char *three = "one 二 three";
	struct seen s;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(cg_token_each("", 0, collect, &s), 0);
	assert_int_equal(cg_token_each(NULL, 0, collect, &s), 0);
	assert_int_equal(s.n, 0);
	assert_string_equal(run(&s, "  ,,, -- !!! ___ "), "");
	assert_int_equal(s.n, 0);
	/* only the first n bytes are read */
	memset(&s, 0, sizeof(s));
	assert_int_equal(cg_token_each("abc def", 5, collect, &s), 0);
	assert_string_equal(s.joined, "abc|d");
	/* a non-zero return stops the walk and is returned */
	memset(&s, 0, sizeof(s));
	s.stop_after = 1;
	assert_int_equal(cg_token_each(three, (int)strlen(three), collect, &s),
	                 7);
	assert_int_equal(s.n, 1);
	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	assert_int_equal(cg_token_each(three, (int)strlen(three), collect, &s),
	                 7);
	assert_string_equal(s.joined, "one|二");
}

static void
test_is_cjk(void **state)
{
	(void)state;
	assert_true(cg_token_is_cjk(0x4E00));
	assert_true(cg_token_is_cjk(0x9FFF));
	assert_true(cg_token_is_cjk(0x3400));
	assert_true(cg_token_is_cjk(0x3005));
	assert_true(cg_token_is_cjk(0x3042));
	assert_true(cg_token_is_cjk(0x30AB));
	assert_true(cg_token_is_cjk(0xAC00));
	assert_true(cg_token_is_cjk(0x1100));
	assert_true(cg_token_is_cjk(0xFF66));
	assert_true(cg_token_is_cjk(0x20000));
	assert_false(cg_token_is_cjk('a'));
	assert_false(cg_token_is_cjk(0xE9));
	assert_false(cg_token_is_cjk(0x3001));
	assert_false(cg_token_is_cjk(0xFF01));
	assert_false(cg_token_is_cjk(0xFF65));
	assert_false(cg_token_is_cjk(0x1F600));
}

/* Counts the rows of t matching expr; -1 on an SQLite error. */
static int
count_match(sqlite3 *db, const char *expr)
{
	sqlite3_stmt *st = NULL;
	int n = 0;
	int rc;

	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "SELECT count(*) FROM t WHERE t "
	                                    "MATCH ?1",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	else
		n = -1;
	sqlite3_finalize(st);
	return n;
}

/* The rowid of the single row matching expr, or -1. */
static int
only_row(sqlite3 *db, const char *expr)
{
	sqlite3_stmt *st = NULL;
	int id = -1;

	assert_int_equal(count_match(db, expr), 1);
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "SELECT rowid FROM t WHERE t "
	                                    "MATCH ?1",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return id;
}

static void
test_fts5_round_trip(void **state)
{
	sqlite3 *db = NULL;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(cg_fts_tokenizer_register(db), 0);
	assert_int_equal(sqlite3_exec(db,
	                              "CREATE VIRTUAL TABLE t USING fts5(body, "
	                              "tokenize='cgw');"
	                              "INSERT INTO t(rowid, body) VALUES"
	                              " (1, '这是无限衍义的例子'),"
	                              " (2, '与三张资格证相关'),"
	                              " (3, 'Café au lait'),"
	                              " (4, 'tar 归档 files and snake_case');",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	assert_int_equal(only_row(db, "\"限 衍\""), 1);
	assert_int_equal(only_row(db, "\"限衍\""), 1);
	assert_int_equal(only_row(db, "\"三 张 资 格 证\""), 2);
	assert_int_equal(only_row(db, "\"资 格 证\""), 2);
	assert_int_equal(only_row(db, "cafe"), 3);
	assert_int_equal(only_row(db, "\"CAFÉ\""), 3);
	assert_int_equal(only_row(db, "\"ＬＡＩＴ\""), 3);
	assert_int_equal(only_row(db, "\"归 档\" files"), 4);
	assert_int_equal(only_row(db, "snake case"), 4);
	assert_int_equal(count_match(db, "\"衍 限\""), 0);
	assert_int_equal(count_match(db, "\"证 资\""), 0);
	assert_int_equal(count_match(db, "caf"), 0); /* no prefix matching */
	/* the integrity check re-tokenizes every row */
	assert_int_equal(sqlite3_exec(db,
	                              "INSERT INTO t(t) VALUES"
	                              "('integrity-check')",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	assert_int_equal(cg_fts_tokenizer_register(NULL), CG_EINVAL);
	sqlite3_close(db);
}

/* Documents get word forms at the word's position and a boundary between
 * paragraphs; queries get neither. */
static void
test_fts5_forms_and_paragraphs(void **state)
{
	sqlite3 *db = NULL;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(cg_fts_tokenizer_register(db), 0);
	assert_int_equal(
	    sqlite3_exec(db,
	                 "CREATE VIRTUAL TABLE t USING fts5(body, "
	                 "tokenize='cgw');"
	                 "INSERT INTO t(rowid, body) VALUES"
	                 " (1, 'The request was retried twice.'),"
	                 " (2, 'Use the {{default}}\n\n- Open a file'),"
	                 " (3, 'Set the default open mode'),"
	                 " (4, 'one\n- two\n3. three\nfour');",
	                 NULL, NULL, NULL),
	    SQLITE_OK);
	/* the marked stem is found, the bare stem and the word are not */
	assert_int_equal(only_row(db, "\"\x01retri\""), 1);
	assert_int_equal(count_match(db, "retri"), 0);
	assert_int_equal(only_row(db, "retried"), 1);
	/* "retried twice" stays a phrase: the form takes no position */
	assert_int_equal(only_row(db, "\"retried twice\""), 1);
	/* no phrase across a blank line or into a list item */
	assert_int_equal(only_row(db, "\"default open\""), 3);
	assert_int_equal(count_match(db, "\"one two\""), 0);
	assert_int_equal(count_match(db, "\"two three\""), 0);
	assert_int_equal(only_row(db, "\"three four\""), 4);
	/* user text cannot reach a form: the mark separates in a word */
	assert_int_equal(count_match(db, "\"x\x01retri\""), 0);
	assert_int_equal(sqlite3_exec(db,
	                              "INSERT INTO t(t) VALUES"
	                              "('integrity-check')",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
}

/* cg_fts_boundaries walks on past upto to the next boundary (the end of
 * the unit that holds upto, which rank.c measures), and no further. */
static void
test_boundaries_to_unit_end(void **state)
{
	/* one0 two1 |2 three3 four4 five5 |6 six7 |8 seven9 */
	static const char text[] =
	    "one two\n\n- three four five\n- six\n\nseven";
	cg_fts_bounds b;

	(void)state;
	cg_fts_boundaries(text, (int)strlen(text), 4, &b);
	assert_int_equal(b.n, 2);
	assert_int_equal(b.pos[0], 2);
	assert_int_equal(b.pos[1], 6);
	/* a position in the last unit: every boundary, to the text's end */
	cg_fts_boundaries(text, (int)strlen(text), 9, &b);
	assert_int_equal(b.n, 3);
	assert_int_equal(b.pos[2], 8);
	cg_fts_boundaries(NULL, 0, 3, &b);
	assert_int_equal(b.n, 0);
	assert_int_equal(b.nstop, 0);
}

/* ... and counts the stopwords before each boundary (a unit's length
 * without them, index/rank.c). */
static void
test_boundaries_count_stopwords(void **state)
{
	/* the0* cat1 |2 a3* dog4 and5* the6* fox7 |8 six9 */
	static const char text[] = "The cat\n\n- a dog and the fox\n- six";
	cg_fts_bounds b;

	(void)state;
	cg_fts_boundaries(text, (int)strlen(text), 4, &b);
	assert_int_equal(b.n, 2);
	assert_int_equal(b.pos[1], 8);
	assert_int_equal(b.stop[0], 1);
	assert_int_equal(b.stop[1], 4); /* 3 in the list item */
	cg_fts_boundaries(text, (int)strlen(text), 9, &b);
	assert_int_equal(b.nstop, 4); /* to the text's end */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fts5_forms_and_paragraphs),
	    cmocka_unit_test(test_boundaries_to_unit_end),
	    cmocka_unit_test(test_boundaries_count_stopwords),
	    cmocka_unit_test(test_fold_latin),
	    cmocka_unit_test(test_fold_fullwidth),
	    cmocka_unit_test(test_fold_greek_cyrillic),
	    cmocka_unit_test(test_separators),
	    cmocka_unit_test(test_cjk_split),
	    cmocka_unit_test(test_mixed_latin_cjk),
	    cmocka_unit_test(test_offsets),
	    cmocka_unit_test(test_invalid_utf8),
	    cmocka_unit_test(test_long_word),
	    cmocka_unit_test(test_empty_and_stop),
	    cmocka_unit_test(test_is_cjk),
	    cmocka_unit_test(test_fts5_round_trip),
	    cmocka_unit_test(test_fold_utf8proc),
	    cmocka_unit_test(test_mnemonic_brackets),
	    cmocka_unit_test(test_word_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
