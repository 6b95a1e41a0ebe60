/*
 * test_query.c - unit tests of the query sanitizer (page/query.c): term
 * grouping, caps, the exact expressions of each match class, the query
 * syntax ("phrase", -word, word*, OR) and its hostile variants, and that
 * hostile user text always yields expressions a real FTS5 table accepts
 * and reads as plain text.
 *
 * Fixtures are written inline; the FTS5 table lives in memory.
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

#include "index/fts_tokenizer.h"
#include "page/query.h"
#include "page/token.h"

static const enum cg_match classes[] = {CG_MATCH_PHRASE, CG_MATCH_ALL,
                                        CG_MATCH_SOME, CG_MATCH_META};

/* The search table of the node index, reduced to its columns. */
static sqlite3 *
open_table(void)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(cg_fts_tokenizer_register(db), 0);
	assert_int_equal(
	    sqlite3_exec(db,
	                 "CREATE VIRTUAL TABLE s USING fts5(title, headings, "
	                 "body, tags, meta, tokenize='cgw');"
	                 "INSERT INTO s(rowid, title, headings, body, tags, "
	                 "meta) VALUES"
	                 " (1, 'Mail', 'Setup', 'foo bar baz', '', ''),"
	                 " (2, 'C++ notes', 'Templates', 'write to "
	                 "admin@x.org by e-mail', 'cpp', ''),"
	                 " (3, '归档', '', '使用 tar 归档 files 无限衍义', "
	                 "'', ''),"
	                 " (4, 'Other', '', 'bar foo', 'rust', 'owner: ops'),"
	                 " (5, 'Started', '', 'what? started: NEAR(x) -foo',"
	                 " '', '');",
	                 NULL, NULL, NULL),
	    SQLITE_OK);
	return db;
}

/*
 * Runs expr against s and returns the matching rowids as a bit set (bit r
 * for rowid r); fails the test on any SQLite error.
 */
static unsigned
run_expr(sqlite3 *db, const char *expr)
{
	sqlite3_stmt *st = NULL;
	unsigned rows = 0;
	int rc;

	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "SELECT rowid FROM s WHERE s "
	                                    "MATCH ?1 ORDER BY rank",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC),
	                 SQLITE_OK);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		rows |= 1u << sqlite3_column_int(st, 0);
	if (rc != SQLITE_DONE)
		fail_msg("FTS5 rejected %s: %s", expr, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rows;
}

/* Rows matching text under class m; 0 when the class does not apply. */
static unsigned
search(sqlite3 *db, const char *text, enum cg_match m)
{
	cg_query q;
	cg_err err;
	char *expr;
	unsigned rows = 0;

	cg_err_clear(&err);
	assert_int_equal(cg_query_parse(&q, text, &err), 0);
	expr = cg_query_fts(&q, m);
	if (expr != NULL)
		rows = run_expr(db, expr);
	free(expr);
	cg_query_fini(&q);
	return rows;
}

#define ROW(r) (1u << (r))

/* Rows a ranking pass of q gives (all: the AND pass), less the rows of
 * q's exclusions, as index/search.c runs it (there per page). */
static unsigned
pass(sqlite3 *db, const cg_query *q, int all)
{
	char *expr = cg_query_fts_pass(q, all != 0);
	unsigned rows = 0;

	if (expr == NULL)
		return 0;
	rows = run_expr(db, expr);
	if (q->exclude != NULL)
		rows &= ~run_expr(db, q->exclude);
	free(expr);
	return rows;
}

/* The rows of text's ranking passes: the AND pass, else the OR pass. */
static unsigned
query_rows(sqlite3 *db, const char *text, int all)
{
	cg_query q;
	cg_err err;
	unsigned rows;

	cg_err_clear(&err);
	assert_int_equal(cg_query_parse(&q, text, &err), 0);
	rows = pass(db, &q, all);
	cg_query_fini(&q);
	return rows;
}

static void
test_terms(void **state)
{
	cg_query q;

	(void)state;
	assert_int_equal(cg_query_parse(&q, "Tar 归档 files", NULL), 0);
	assert_int_equal(q.n, 3);
	assert_string_equal(q.terms[0].text, "tar");
	assert_int_equal(q.terms[0].ntok, 1);
	assert_int_equal(q.terms[0].cjk, 0);
	assert_string_equal(q.terms[1].text, "归 档");
	assert_int_equal(q.terms[1].ntok, 2);
	assert_int_equal(q.terms[1].cjk, 1);
	assert_string_equal(q.terms[2].text, "files");
	assert_int_equal(q.truncated, 0);
	cg_query_fini(&q);

	assert_int_equal(cg_query_parse(&q, "限衍", NULL), 0);
	assert_int_equal(q.n, 1);
	assert_string_equal(q.terms[0].text, "限 衍");
	assert_int_equal(q.terms[0].ntok, 2);
	assert_int_equal(q.terms[0].cjk, 1);
	cg_query_fini(&q);

	/* a space or punctuation between CJK characters splits the run */
	assert_int_equal(cg_query_parse(&q, "限 衍、义abc文", NULL), 0);
	assert_int_equal(q.n, 5);
	assert_string_equal(q.terms[0].text, "限");
	assert_string_equal(q.terms[1].text, "衍");
	assert_string_equal(q.terms[2].text, "义");
	assert_string_equal(q.terms[3].text, "abc");
	assert_string_equal(q.terms[4].text, "文");
	cg_query_fini(&q);

	/* invalid bytes separate */
	assert_int_equal(cg_query_parse(&q,
	                                "ab\xff"
	                                "cd 中\x80文",
	                                NULL),
	                 0);
	assert_int_equal(q.n, 4);
	assert_string_equal(q.terms[1].text, "cd");
	assert_string_equal(q.terms[2].text, "中");
	assert_string_equal(q.terms[3].text, "文");
	cg_query_fini(&q);
}

static void
test_duplicates(void **state)
{
	cg_query q;
	char *e;

	(void)state;
	assert_int_equal(cg_query_parse(&q, "foo bar FOO 限衍 限衍", NULL), 0);
	assert_int_equal(q.n, 3);
	assert_string_equal(q.terms[0].text, "foo");
	assert_string_equal(q.terms[1].text, "bar");
	assert_string_equal(q.terms[2].text, "限 衍");
	assert_string_equal(q.phrase, "foo bar foo 限 衍 限 衍");
	e = cg_query_fts(&q, CG_MATCH_PHRASE);
	assert_string_equal(e, "{title headings body} : "
	                       "\"foo bar foo 限 衍 限 衍\"");
	free(e);
	e = cg_query_fts(&q, CG_MATCH_ALL);
	assert_string_equal(e, "{title headings body} : "
	                       "(\"foo\" \"bar\" \"限 衍\")");
	free(e);
	cg_query_fini(&q);

	/* one term repeated: the phrase still differs from ALL */
	assert_int_equal(cg_query_parse(&q, "foo Foo", NULL), 0);
	assert_int_equal(q.n, 1);
	e = cg_query_fts(&q, CG_MATCH_PHRASE);
	assert_string_equal(e, "{title headings body} : \"foo foo\"");
	free(e);
	cg_query_fini(&q);
}

static void
test_expressions(void **state)
{
	cg_query q;
	char *e;

	(void)state;
	assert_int_equal(cg_query_parse(&q, "X \"b\" 限衍", NULL), 0);
	assert_int_equal(q.n, 3);
	e = cg_query_fts(&q, CG_MATCH_PHRASE);
	assert_string_equal(e, "{title headings body} : \"x b 限 衍\"");
	free(e);
	e = cg_query_fts(&q, CG_MATCH_ALL);
	assert_string_equal(e,
	                    "{title headings body} : (\"x\" \"b\" \"限 衍\")");
	free(e);
	e = cg_query_fts(&q, CG_MATCH_SOME);
	assert_string_equal(
	    e, "{title headings body} : (\"x\" OR \"b\" OR \"限 衍\")");
	free(e);
	e = cg_query_fts(&q, CG_MATCH_META);
	assert_string_equal(e, "{tags meta} : (\"x\" OR \"b\" OR \"限 衍\")");
	free(e);
	assert_null(cg_query_fts(&q, CG_MATCH_NONE));
	e = cg_query_phrase_text(&q);
	assert_string_equal(e, "x b 限 衍");
	free(e);
	cg_query_fini(&q);

	/* a single term: PHRASE would equal ALL and is not built */
	assert_int_equal(cg_query_parse(&q, "限衍", NULL), 0);
	assert_null(cg_query_fts(&q, CG_MATCH_PHRASE));
	e = cg_query_fts(&q, CG_MATCH_ALL);
	assert_string_equal(e, "{title headings body} : (\"限 衍\")");
	free(e);
	cg_query_fini(&q);
}

static void
test_empty(void **state)
{
	const char *texts[] = {"", "!!!", "   ", "\"\"", "*", "\xff\xfe"};
	cg_query q;

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		assert_int_equal(cg_query_parse(&q, texts[i], NULL), 0);
		assert_int_equal(q.n, 0);
		assert_int_equal(q.truncated, 0);
		for (size_t c = 0; c < 4; c++)
			assert_null(cg_query_fts(&q, classes[c]));
		assert_null(cg_query_phrase_text(&q));
		cg_query_fini(&q);
	}
	cg_query_fini(NULL);
}

static void
test_caps(void **state)
{
	char big[5001];
	char words[400];
	size_t used = 0;
	cg_query q;
	cg_err err;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[5000] = '\0';
	cg_err_clear(&err);
	assert_int_equal(cg_query_parse(&q, big, &err), CG_ETOOBIG);
	assert_int_equal(err.code, CG_ETOOBIG);
	assert_non_null(strstr(err.msg, "4096"));
	assert_int_equal(q.n, 0);
	assert_null(q.terms);
	cg_query_fini(&q);

	big[CG_QUERY_MAX_BYTES] = '\0'; /* exactly at the cap is accepted */
	assert_int_equal(cg_query_parse(&q, big, NULL), 0);
	assert_int_equal(q.n, 1);
	assert_int_equal((int)strlen(q.terms[0].text), CG_TOKEN_MAX);
	cg_query_fini(&q);

	for (int i = 0; i < 40; i++) {
		words[used++] = 'w';
		words[used++] = (char)('a' + i / 10);
		words[used++] = (char)('0' + i % 10);
		words[used++] = ' ';
	}
	words[used] = '\0';
	assert_int_equal(cg_query_parse(&q, words, NULL), 0);
	assert_int_equal(q.n, CG_QUERY_MAX_TERMS);
	assert_int_equal(q.truncated, 1);
	assert_string_equal(q.terms[31].text, "wd1");
	cg_query_fini(&q);

	words[(size_t)32 * 4] = '\0'; /* exactly 32 words: nothing dropped */
	assert_int_equal(cg_query_parse(&q, words, NULL), 0);
	assert_int_equal(q.n, CG_QUERY_MAX_TERMS);
	assert_int_equal(q.truncated, 0);
	cg_query_fini(&q);

	/* 100 CJK characters: the run stops at the token cap */
	used = 0;
	for (int i = 0; i < 100; i++) {
		memcpy(big + used, "衍", 3);
		used += 3;
	}
	big[used] = '\0';
	assert_int_equal(cg_query_parse(&q, big, NULL), 0);
	assert_int_equal(q.n, 1);
	assert_int_equal(q.terms[0].ntok, CG_QUERY_MAX_TOKENS);
	assert_int_equal((int)strlen(q.terms[0].text),
	                 4 * CG_QUERY_MAX_TOKENS - 1);
	assert_int_equal(q.truncated, 1);
	cg_query_fini(&q);

	/* 2000 repeats of one word: one term, a phrase of 64 tokens */
	for (size_t i = 0; i < 4000; i += 2)
		memcpy(big + i, "a ", 2);
	big[4000] = '\0';
	assert_int_equal(cg_query_parse(&q, big, NULL), 0);
	assert_int_equal(q.n, 1);
	assert_int_equal((int)strlen(q.phrase), 2 * CG_QUERY_MAX_TOKENS - 1);
	assert_int_equal(q.truncated, 1);
	cg_query_fini(&q);

	cg_err_clear(&err);
	assert_int_equal(cg_query_parse(&q, NULL, &err), CG_EINVAL);
	assert_int_equal(err.code, CG_EINVAL);
}

/* Every class of every hostile query is accepted by FTS5. */
static void
test_hostile_accepted(void **state)
{
	const char *hostile[] = {
	    "C++",
	    "e-mail",
	    "admin@x.org",
	    "what?",
	    "AND",
	    "OR",
	    "NOT",
	    "-foo",
	    "started:",
	    "\"unbalanced",
	    "*",
	    "''",
	    "foo NOT bar",
	    "NEAR(",
	    "NEAR(a b, 3)",
	    "a:b",
	    "foo AND",
	    "-x",
	    "(foo",
	    "foo)",
	    "[x",
	    "{title} : x",
	    "title:foo",
	    "^foo",
	    "foo*",
	    "\"\"\"",
	    "a OR",
	    "+1",
	    "foo \"bar\" baz",
	    "限衍 AND 义",
	    "x\"y",
	    "{",
	    "}}",
	    "body:",
	    "a - b",
	    "NEAR",
	    "rank:1",
	    "\\",
	    "%",
	    "a;b",
	    "OR OR",
	    "a OR OR b",
	    "a OR b c",
	    "a OR OR b OR",
	    "x y OR z* \"p q\" OR w",
	    "OR a",
	    "a OR",
	    "-",
	    "- -",
	    "--",
	    "-*",
	    "**",
	    "\"a b",
	    "a b\"",
	    "\"\"",
	    "\"\" OR \"\"",
	    "-\"a b\"",
	    "-\"\" foo",
	    "-\"unbalanced",
	    "foo* -bar*",
	    "\"a\"\"b\"",
	    "(a OR b)",
	    "a OR -b c",
	    "title:foo*",
	    "NEAR(a b)*",
	    "{title}: -x y",
	    "\x01"
	    "foo\x1f\x7f bar\x02",
	    "\"foo\x01"
	    "bar\"",
	    "foo -\x01",
	    "限衍* OR 义",
	    "-限衍 foo",
	};
	sqlite3 *db = open_table();

	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		cg_query q;
		cg_err err;
		int rc;

		cg_err_clear(&err);
		rc = cg_query_parse(&q, hostile[i], &err);
		if (rc == CG_EINVAL) { /* exclusions only: a clear error */
			assert_non_null(strstr(err.msg, "only excludes"));
			continue;
		}
		assert_int_equal(rc, 0);
		for (size_t c = 0; c < 4; c++)
			(void)search(db, hostile[i], classes[c]);
		for (int all = 0; all < 2; all++)
			(void)pass(db, &q, all);
		cg_query_fini(&q);
	}
	sqlite3_close(db);
}

/* Operators and punctuation are searched as text. */
static void
test_hostile_as_text(void **state)
{
	sqlite3 *db = open_table();

	(void)state;
	/* NOT is a term, not an operator: SOME finds "foo bar" */
	assert_int_equal(search(db, "foo NOT bar", CG_MATCH_SOME) & ROW(1),
	                 ROW(1));
	assert_int_equal(search(db, "foo NOT bar", CG_MATCH_ALL), 0);
	assert_int_equal(search(db, "admin@x.org", CG_MATCH_PHRASE), ROW(2));
	assert_int_equal(search(db, "e-mail", CG_MATCH_PHRASE), ROW(2));
	assert_int_equal(search(db, "C++", CG_MATCH_ALL), ROW(2));
	assert_int_equal(search(db, "what?", CG_MATCH_ALL), ROW(5));
	assert_int_equal(search(db, "started:", CG_MATCH_ALL), ROW(5));
	assert_int_equal(search(db, "NEAR(", CG_MATCH_ALL), ROW(5));
	/* "foo-" is not an exclusion: the words of it */
	assert_int_equal(search(db, "foo-", CG_MATCH_ALL),
	                 ROW(1) | ROW(4) | ROW(5));
	/* the phrase is ordered; ALL is not */
	assert_int_equal(search(db, "foo bar", CG_MATCH_PHRASE), ROW(1));
	assert_int_equal(search(db, "foo bar", CG_MATCH_ALL), ROW(1) | ROW(4));
	/* CJK substrings, mixed with Latin */
	assert_int_equal(search(db, "限衍", CG_MATCH_ALL), ROW(3));
	assert_int_equal(search(db, "衍限", CG_MATCH_ALL), 0);
	assert_int_equal(search(db, "tar 归档 files", CG_MATCH_PHRASE), ROW(3));
	/* META looks at tags and meta only */
	assert_int_equal(search(db, "rust foo", CG_MATCH_META), ROW(4));
	assert_int_equal(search(db, "ops", CG_MATCH_META), ROW(4));
	assert_int_equal(search(db, "foo", CG_MATCH_META), 0);
	assert_int_equal(search(db, "rust", CG_MATCH_SOME), 0);
	/* '*' inside a word or alone is a separator, not a prefix */
	assert_int_equal(search(db, "fo*o", CG_MATCH_SOME), 0);
	assert_int_equal(search(db, "* foo", CG_MATCH_ALL),
	                 ROW(1) | ROW(4) | ROW(5));
	sqlite3_close(db);
}

/* A '"' inside a term is doubled (tokens cannot hold one; defence). */
static void
test_quote_doubling(void **state)
{
	char t0[] = "a\"b";
	char t1[] = "\"";
	char phrase[] = "a\"b \"";
	cg_qterm terms[2] = {{.text = t0, .ntok = 1}, {.text = t1, .ntok = 1}};
	cg_query q = {.terms = terms, .n = 2, .phrase = phrase};
	sqlite3 *db = open_table();
	char *e;

	(void)state;
	e = cg_query_fts(&q, CG_MATCH_ALL);
	assert_string_equal(e, "{title headings body} : (\"a\"\"b\" \"\"\"\")");
	(void)run_expr(db, e);
	free(e);
	e = cg_query_fts(&q, CG_MATCH_PHRASE);
	assert_string_equal(e, "{title headings body} : \"a\"\"b \"\"\"");
	(void)run_expr(db, e);
	free(e);
	sqlite3_close(db);
}

/* "exact phrase": one term, required in the OR pass too. */
static void
test_syntax_phrase(void **state)
{
	sqlite3 *db = open_table();
	cg_query q;
	char *e;

	(void)state;
	assert_int_equal(cg_query_parse(&q, "\"Bar Baz\" foo", NULL), 0);
	assert_int_equal(q.n, 2);
	assert_string_equal(q.terms[0].text, "bar baz");
	assert_int_equal(q.terms[0].ntok, 2);
	assert_int_equal(q.terms[0].quoted, 1);
	assert_string_equal(q.phrase, "bar baz foo");
	e = cg_query_fts_pass(&q, false);
	/* the forms of "foo" in the OR'ed part, the required phrase after */
	assert_string_equal(e, "(\"bar baz\" OR \"foo\" OR \"bar baz foo\""
	                       " OR \"\x01"
	                       "foo\") AND \"bar baz\"");
	free(e);
	cg_query_fini(&q);
	/* only rows with the phrase, in either pass: 4 has "bar foo" */
	assert_int_equal(query_rows(db, "\"foo bar\"", 0), ROW(1));
	assert_int_equal(query_rows(db, "\"foo bar\" rust", 0), ROW(1));
	assert_int_equal(query_rows(db, "\"bar foo\" baz", 0), ROW(4));
	assert_int_equal(query_rows(db, "\"foo baz\"", 0), 0);
	/* unquoted, the same words find both */
	assert_int_equal(query_rows(db, "foo bar", 0),
	                 ROW(1) | ROW(4) | ROW(5));
	/* a quoted single word is required */
	assert_int_equal(query_rows(db, "\"rust\" foo", 0), ROW(4));
	/* unbalanced: the quote is text, the words are words */
	assert_int_equal(query_rows(db, "\"foo baz", 1), ROW(1));
	assert_int_equal(query_rows(db, "foo baz\"", 1), ROW(1));
	sqlite3_close(db);
}

/* -word and -"a b" drop rows; a lone '-' is text. */
static void
test_syntax_exclude(void **state)
{
	sqlite3 *db = open_table();
	cg_query q;
	cg_err err;

	(void)state;
	assert_int_equal(cg_query_parse(&q, "foo -Rust -\"baz x\" -ma*", NULL),
	                 0);
	assert_int_equal(q.n, 1);
	assert_string_equal(q.terms[0].text, "foo");
	assert_string_equal(q.phrase, "foo");
	assert_int_equal(q.nexclude, 3);
	assert_string_equal(q.exclude, "\"rust\" OR \"baz x\" OR \"ma\"*");
	cg_query_fini(&q);
	assert_int_equal(query_rows(db, "foo -rust", 0), ROW(1) | ROW(5));
	assert_int_equal(query_rows(db, "foo -\"foo bar\"", 0),
	                 ROW(4) | ROW(5));
	assert_int_equal(query_rows(db, "foo -bar", 0), ROW(5));
	assert_int_equal(query_rows(db, "foo -start*", 0), ROW(1) | ROW(4));
	/* a lone '-' and a word after a '-' inside a word are text */
	assert_int_equal(query_rows(db, "foo - bar", 1), ROW(1) | ROW(4));
	assert_int_equal(query_rows(db, "e-mail", 1), ROW(2));
	/* exclusions only: a clear error, not an empty or full list */
	cg_err_clear(&err);
	assert_int_equal(cg_query_parse(&q, "-foo -bar", &err), CG_EINVAL);
	assert_non_null(strstr(err.msg, "only excludes"));
	assert_null(q.terms);
	assert_null(q.exclude);
	/* a long option ("--bar", pasted from a command line) is the word,
	 * not an exclusion that would drop the very page that has it */
	assert_int_equal(cg_query_parse(&q, "foo --bar", NULL), 0);
	assert_int_equal(q.nexclude, 0);
	assert_null(q.exclude);
	assert_int_equal(q.n, 2);
	assert_string_equal(q.terms[1].text, "bar");
	cg_query_fini(&q);
	assert_int_equal(query_rows(db, "foo --bar", 1), ROW(1) | ROW(4));
	/* so is a one-letter option ("-l", "-Z)"): excluding the letter
	 * would drop the page that shows it; two letters exclude */
	assert_int_equal(cg_query_parse(&q, "foo -l -Z) -7 -ab", NULL), 0);
	assert_int_equal(q.nexclude, 1);
	assert_string_equal(q.exclude, "\"ab\"");
	assert_int_equal(q.n, 4);
	assert_string_equal(q.terms[1].text, "l");
	assert_string_equal(q.terms[2].text, "z");
	cg_query_fini(&q);
	/* a '-' with nothing after it excludes nothing */
	assert_int_equal(cg_query_parse(&q, "foo -\"\" - -*", NULL), 0);
	assert_int_equal(q.nexclude, 0);
	assert_null(q.exclude);
	cg_query_fini(&q);
	sqlite3_close(db);
}

/* word*: the last token of a chunk is a prefix; '*' alone is nothing. */
static void
test_syntax_prefix(void **state)
{
	sqlite3 *db = open_table();
	cg_query q;
	char *e;

	(void)state;
	assert_int_equal(cg_query_parse(&q, "ba* e-ma** 限衍*", NULL), 0);
	assert_int_equal(q.n, 4);
	assert_int_equal(q.terms[0].prefix, 1);
	assert_int_equal(q.terms[1].prefix, 0); /* "e" */
	assert_int_equal(q.terms[2].prefix, 1); /* "ma" */
	assert_int_equal(q.terms[3].prefix, 0); /* CJK: no prefix */
	assert_false(cg_query_has_phrase(&q));
	assert_null(cg_query_fts(&q, CG_MATCH_PHRASE));
	e = cg_query_fts(&q, CG_MATCH_ALL);
	assert_string_equal(e, "{title headings body} : (\"ba\"* \"e\" "
	                       "\"ma\"* \"限 衍\")");
	free(e);
	cg_query_fini(&q);
	/* "ba" and "ba*" are different terms */
	assert_int_equal(cg_query_parse(&q, "ba ba*", NULL), 0);
	assert_int_equal(q.n, 2);
	cg_query_fini(&q);
	assert_int_equal(query_rows(db, "ba*", 0), ROW(1) | ROW(4));
	assert_int_equal(query_rows(db, "star*", 0), ROW(5));
	assert_int_equal(query_rows(db, "ba", 0), 0);
	assert_int_equal(query_rows(db, "ru* ba*", 1), ROW(4));
	sqlite3_close(db);
}

/* a OR b: alternatives; OR OR, a leading or trailing OR, lowercase or. */
static void
test_syntax_or(void **state)
{
	sqlite3 *db = open_table();
	cg_query q;
	char *e;

	(void)state;
	assert_int_equal(cg_query_parse(&q, "rust OR baz foo", NULL), 0);
	assert_int_equal(q.n, 3);
	assert_int_equal(q.terms[0].alt, 0);
	assert_int_equal(q.terms[1].alt, 1);
	assert_int_equal(q.terms[2].alt, 0);
	assert_false(cg_query_has_phrase(&q));
	e = cg_query_fts_pass(&q, true);
	assert_string_equal(e, "(\"rust\" OR \"baz\") AND \"foo\"");
	free(e);
	e = cg_query_fts(&q, CG_MATCH_ALL);
	assert_string_equal(e, "{title headings body} : ((\"rust\" OR "
	                       "\"baz\") AND \"foo\")");
	assert_int_equal(run_expr(db, e), ROW(1)); /* content columns */
	free(e);
	cg_query_fini(&q);
	assert_int_equal(query_rows(db, "rust OR baz foo", 1), ROW(1) | ROW(4));
	assert_int_equal(query_rows(db, "rust baz foo", 1), 0);
	assert_int_equal(query_rows(db, "cpp OR rust OR 归档", 1),
	                 ROW(2) | ROW(3) | ROW(4));
	/* OR OR is one OR */
	assert_int_equal(cg_query_parse(&q, "a OR OR b", NULL), 0);
	assert_int_equal(q.n, 2);
	assert_int_equal(q.terms[1].alt, 1);
	cg_query_fini(&q);
	/* first, last or lowercase: the word "or" (a stopword beside other
	 * words: in the phrase, not a term) */
	assert_int_equal(cg_query_parse(&q, "OR foo or bar OR", NULL), 0);
	assert_int_equal(q.n, 2);
	assert_int_equal(q.nstop, 1);
	assert_string_equal(q.terms[0].text, "foo");
	assert_string_equal(q.phrase, "or foo or bar or");
	for (size_t i = 0; i < q.n; i++)
		assert_int_equal(q.terms[i].alt, 0);
	assert_true(cg_query_has_phrase(&q));
	cg_query_fini(&q);
	assert_int_equal(cg_query_parse(&q, "OR OR", NULL), 0);
	assert_int_equal(q.n, 1);
	assert_string_equal(q.terms[0].text, "or");
	assert_int_equal(q.terms[0].alt, 0);
	cg_query_fini(&q);
	/* a quoted phrase in a group is an alternative, not required */
	assert_int_equal(query_rows(db, "\"foo baz\" OR cpp", 0), ROW(2));
	/* an exclusion ends a pending OR */
	assert_int_equal(cg_query_parse(&q, "x OR -bb c", NULL), 0);
	assert_int_equal(q.n, 2);
	assert_int_equal(q.terms[1].alt, 0);
	cg_query_fini(&q);
	sqlite3_close(db);
}

/* Control bytes separate words; nothing of the syntax survives in them. */
static void
test_syntax_control(void **state)
{
	sqlite3 *db = open_table();
	cg_query q;

	(void)state;
	assert_int_equal(cg_query_parse(&q,
	                                "\x01"
	                                "foo\x1f-rust\x7f*",
	                                NULL),
	                 0);
	assert_int_equal(q.n, 1);
	assert_int_equal(q.nexclude, 1);
	cg_query_fini(&q);
	assert_int_equal(query_rows(db,
	                            "\x01"
	                            "foo\x1f-rust\x7f",
	                            0),
	                 ROW(1) | ROW(5));
	sqlite3_close(db);
}

/* Stopwords are not terms beside another word, stay in the phrase, and
 * are terms when nothing else is. */
static void
test_stopwords(void **state)
{
	cg_query q;
	cg_err err;

	(void)state;
	assert_int_equal(
	    cg_query_parse(&q, "How do I roll back a deploy", &err), 0);
	assert_int_equal(q.n, 3);
	assert_string_equal(q.terms[0].text, "roll");
	assert_string_equal(q.terms[1].text, "back");
	assert_string_equal(q.terms[2].text, "deploy");
	assert_int_equal(q.nstop, 4);
	assert_string_equal(q.phrase, "how do i roll back a deploy");
	cg_query_fini(&q);
	assert_int_equal(cg_query_parse(&q, "the tar", &err), 0);
	assert_int_equal(q.n, 1);
	assert_true(cg_query_has_phrase(&q));
	cg_query_fini(&q);
	assert_int_equal(cg_query_parse(&q, "What is it?", &err), 0);
	assert_int_equal(q.n, 3); /* what, is, it: all kept */
	assert_int_equal(q.nstop, 0);
	cg_query_fini(&q);
	/* The same list for a token of a document (index/rank.c): n bytes,
	 * not NUL-terminated. */
	assert_true(cg_query_stopword("the", 3));
	assert_true(cg_query_stopword("them", 3)); /* "the" */
	assert_true(cg_query_stopword("should", 6));
	assert_false(cg_query_stopword("thee", 4));
	assert_false(cg_query_stopword("shoulder", 8));
	assert_false(cg_query_stopword("The", 3)); /* tokens are folded */
	assert_false(cg_query_stopword("", 0));
	assert_false(cg_query_stopword(NULL, 3));
}

/* Word forms: only the any-term pass looks them up, after the phrase. */
static void
test_forms_in_pass(void **state)
{
	cg_query q;
	cg_err err;
	char *e;

	(void)state;
	assert_int_equal(cg_query_parse(&q, "retries policy", &err), 0);
	assert_string_equal(q.terms[0].form, "\x01retri");
	assert_string_equal(q.terms[0].stem, "retri");
	assert_string_equal(q.terms[1].form, "\x01polici");
	e = cg_query_fts_pass(&q, true);
	assert_string_equal(e, "\"retries\" AND \"policy\" AND "
	                       "(\"retries policy\" OR \"retries\")");
	free(e);
	e = cg_query_fts_pass(&q, false);
	assert_string_equal(e, "\"retries\" OR \"policy\" OR \"retries "
	                       "policy\" OR \"\x01retri\" OR \"retri\" OR "
	                       "\"\x01polici\" OR \"polici\"");
	free(e);
	cg_query_fini(&q);
	/* CJK runs and words with digits have no forms */
	assert_int_equal(cg_query_parse(&q, "限衍 x86", &err), 0);
	assert_null(q.terms[0].form);
	assert_null(q.terms[1].form);
	cg_query_fini(&q);
	assert_string_equal(cg_match_name(CG_MATCH_FORMS), "forms");
}

/* Stopwords drop only as plain words; prefixes, OR groups and quoted
 * phrases keep them and get no word forms; the required filter stays
 * after the forms of the any-term pass. */
static void
test_syntax_with_forms(void **state)
{
	cg_query q;
	cg_err err;
	char *e;

	(void)state;
	/* "the" quoted, "to" in an OR group, "it*" a prefix: all terms */
	assert_int_equal(
	    cg_query_parse(&q, "\"the\" retries to OR from it* a", &err), 0);
	assert_int_equal(q.n, 5);
	assert_string_equal(q.terms[0].text, "the");
	assert_string_equal(q.terms[1].text, "retries");
	assert_string_equal(q.terms[2].text, "to");
	assert_string_equal(q.terms[3].text, "from");
	assert_int_equal(q.terms[3].alt, 1);
	assert_string_equal(q.terms[4].text, "it");
	assert_int_equal(q.nstop, 1); /* the bare "a" */
	/* only the plain word has forms */
	assert_null(q.terms[0].form);
	assert_string_equal(q.terms[1].form, "\x01retri");
	for (size_t i = 2; i < q.n; i++) {
		assert_null(q.terms[i].form);
		assert_null(q.terms[i].stem);
	}
	e = cg_query_fts_pass(&q, false);
	assert_string_equal(e, "(\"the\" OR \"retries\" OR \"to\" OR "
	                       "\"from\" OR \"it\"* OR \"\x01retri\" OR "
	                       "\"retri\") AND \"the\"");
	free(e);
	cg_query_fini(&q);
	/* a stopword that opens an OR group is kept, alt still right */
	assert_int_equal(cg_query_parse(&q, "the OR foo bar", &err), 0);
	assert_int_equal(q.n, 3);
	assert_int_equal(q.terms[1].alt, 1);
	assert_int_equal(q.nstop, 0);
	cg_query_fini(&q);
	/* a dropped stopword before a group leaves the group whole */
	assert_int_equal(cg_query_parse(&q, "the foo OR bar", &err), 0);
	assert_int_equal(q.n, 2);
	assert_string_equal(q.terms[0].text, "foo");
	assert_int_equal(q.terms[0].alt, 0);
	assert_int_equal(q.terms[1].alt, 1);
	assert_int_equal(q.nstop, 1);
	cg_query_fini(&q);
	/* an excluded stopword still excludes */
	assert_int_equal(cg_query_parse(&q, "foo -the", &err), 0);
	assert_string_equal(q.exclude, "\"the\"");
	cg_query_fini(&q);
}

static void
test_match_names(void **state)
{
	(void)state;
	assert_string_equal(cg_match_name(CG_MATCH_PHRASE), "phrase");
	assert_string_equal(cg_match_name(CG_MATCH_ALL), "all");
	assert_string_equal(cg_match_name(CG_MATCH_SOME), "some");
	assert_string_equal(cg_match_name(CG_MATCH_META), "frontmatter");
	assert_string_equal(cg_match_name(CG_MATCH_NONE), "none");
	assert_string_equal(cg_match_name((enum cg_match)99), "none");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_terms),
	    cmocka_unit_test(test_duplicates),
	    cmocka_unit_test(test_expressions),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_caps),
	    cmocka_unit_test(test_hostile_accepted),
	    cmocka_unit_test(test_hostile_as_text),
	    cmocka_unit_test(test_quote_doubling),
	    cmocka_unit_test(test_match_names),
	    cmocka_unit_test(test_syntax_phrase),
	    cmocka_unit_test(test_syntax_exclude),
	    cmocka_unit_test(test_syntax_prefix),
	    cmocka_unit_test(test_syntax_or),
	    cmocka_unit_test(test_syntax_control),
	    cmocka_unit_test(test_stopwords),
	    cmocka_unit_test(test_forms_in_pass),
	    cmocka_unit_test(test_syntax_with_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
