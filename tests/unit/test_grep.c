/*
 * test_grep.c - unit tests of the grep line matcher (page/grep.c): PCRE2
 * syntax, literal matching, case folding, refused patterns, the match
 * limits on a pathological pattern, the deadline, context lines, line
 * splitting across chunks, long lines in windows, binary input, shown
 * text.
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
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cg_err.h"
#include "common/cg_time.h"
#include "page/grep.h"

#define MAX_HITS 64

/* What a stream reported. */
struct seen {
	int n;                     /* hits seen */
	int64_t line[MAX_HITS];    /* their line numbers */
	int64_t col[MAX_HITS];     /* their columns (0 = counted only) */
	char text[MAX_HITS][1600]; /* their text ("" = counted only) */
	bool clipped[MAX_HITS];
	int kind[MAX_HITS]; /* enum cg_grep_kind */
};

static int
on_hit(void *ctx, const cg_grep_hit *h)
{
	struct seen *s = ctx;

	if (s->n < MAX_HITS) {
		s->line[s->n] = h->line;
		s->col[s->n] = h->col;
		s->clipped[s->n] = h->clipped;
		s->kind[s->n] = h->kind;
		(void)snprintf(s->text[s->n], sizeof(s->text[0]), "%s",
		               h->text ? h->text : "");
	}
	s->n++;
	return 0;
}

static cg_grep *
make(const char *pat, bool fixed, bool cs, size_t window)
{
	cg_grep_opts o = {pat, fixed, cs, window, 0, 0, 0};
	cg_grep *g = NULL;
	cg_err err;

	cg_err_clear(&err);
	if (cg_grep_new(&g, &o, &err) != 0)
		fail_msg("cg_grep_new(%s): %s", pat, err.msg);
	return g;
}

/* Streams text in chunks of step bytes (0 = all at once). */
static void
run(cg_grep *g, const char *text, size_t len, size_t step, int64_t detail,
    struct seen *s, cg_grep_file *st)
{
	memset(s, 0, sizeof(*s));
	cg_grep_begin(g, detail, on_hit, s, st);
	for (size_t i = 0; i < len;) {
		size_t k = step == 0 || len - i < step ? len - i : step;

		assert_int_equal(cg_grep_feed(g, text + i, k), 0);
		i += k;
	}
	assert_int_equal(cg_grep_end(g), 0);
}

static int
refused(const char *pat, bool fixed, char *msg, size_t cap)
{
	cg_grep_opts o = {pat, fixed, false, 0, 0, 0, 0};
	cg_grep *g = NULL;
	cg_err err;
	int rc;

	cg_err_clear(&err);
	rc = cg_grep_new(&g, &o, &err);
	assert_null(g);
	if (msg != NULL)
		(void)snprintf(msg, cap, "%s", err.msg);
	return rc;
}

static void
test_regex_case(void **state)
{
	cg_grep *g = make("deploy(ed|s)? the [a-z]+base", false, false, 0);
	cg_grep *cs = make("deploy(ed|s)? the [a-z]+base", false, true, 0);
	size_t col = 99;

	assert_true(cg_grep_match(g, "We DEPLOYED the database", &col));
	assert_int_equal(col, 3);
	assert_false(cg_grep_match(cs, "We DEPLOYED the database", NULL));
	assert_true(cg_grep_match(cs, "we deploys the codebase", NULL));
	assert_false(cg_grep_match(g, "deploying the database", NULL));
	cg_grep_free(g);
	cg_grep_free(cs);
}

static void
test_unicode(void **state)
{
	cg_grep *re = make("école|符.学", false, false, 0);
	cg_grep *lit = make("ÉCOLE", true, false, 0);
	cg_grep *lit_cs = make("ÉCOLE", true, true, 0);
	cg_grep *cy = make("москва", true, false, 0);
	size_t col = 0;

	assert_true(cg_grep_unicode(re));
	assert_true(cg_grep_match(re, "Une ÉCOLE", NULL));
	assert_true(cg_grep_match(re, "关于符号学的笔记", &col));
	assert_int_equal(col, 6); /* two 3-byte characters before it */
	assert_true(cg_grep_match(lit, "à l'école", &col));
	assert_int_equal(col, 5); /* à is two bytes */
	assert_false(cg_grep_match(lit_cs, "à l'école", NULL));
	assert_true(cg_grep_match(cy, "Город МОСКВА", NULL));
	cg_grep_free(re);
	cg_grep_free(lit);
	cg_grep_free(lit_cs);
	cg_grep_free(cy);
}

static void
test_fixed_is_literal(void **state)
{
	cg_grep *g = make("a.b(c", true, true, 0);

	assert_true(cg_grep_match(g, "x a.b(c y", NULL));
	assert_false(cg_grep_match(g, "x aXb(c y", NULL));
	cg_grep_free(g);
}

static void
test_refused(void **state)
{
	char msg[CG_ERR_MSG_MAX];
	char big[CG_GREP_PATTERN_MAX + 2];
	char deep[300];

	assert_int_equal(refused("(unclosed", false, msg, sizeof(msg)),
	                 CG_EINVAL);
	assert_non_null(strstr(msg, "invalid regular expression"));
	assert_non_null(strstr(msg, "(unclosed"));
	assert_non_null(strstr(msg, "at byte"));
	assert_int_equal(refused("a)b", false, msg, sizeof(msg)), CG_EINVAL);
	assert_non_null(strstr(msg, "parenthesis"));
	assert_int_equal(refused("a\\Cb", false, msg, sizeof(msg)), CG_EINVAL);
	/* nesting past 64 groups */
	memset(deep, '(', 100);
	deep[100] = 'a';
	memset(deep + 101, ')', 100);
	deep[201] = '\0';
	assert_int_equal(refused(deep, false, msg, sizeof(msg)), CG_EINVAL);
	assert_int_equal(refused("", false, NULL, 0), CG_EINVAL);
	assert_int_equal(refused("", true, NULL, 0), CG_EINVAL);
	assert_int_equal(refused("\xff\xfe", true, NULL, 0), CG_EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(refused(big, true, NULL, 0), CG_ETOOBIG);
	/* what POSIX regex refused and PCRE2 runs under its limits */
	cg_grep_free(make("(a)\\1", false, false, 0));
	cg_grep_free(make("(a*)+b", false, false, 0));
	cg_grep_free(make("a{1000}", false, false, 0));
	cg_grep_free(make("(\\1)", true, false, 0)); /* literal */
}

/* What agents type: Perl syntax, as ripgrep takes it. */
static void
test_pcre2_syntax(void **state)
{
	cg_grep *d = make("\\d+ times", false, true, 0);
	cg_grep *inl = make("(?i)RETRY", false, true, 0);
	cg_grep *wb = make("\\bcat\\b", false, true, 0);
	cg_grep *look = make("deploy(?=ed)", false, true, 0);
	cg_grep *back = make("(\\w)\\1", false, true, 0);
	cg_grep *uw = make("^\\w+$", false, true, 0);
	size_t col = 99;

	assert_true(cg_grep_match(d, "we tried 12 times", &col));
	assert_int_equal(col, 9);
	assert_false(cg_grep_match(d, "we tried a few times", NULL));
	assert_true(cg_grep_match(inl, "on Retry, wait", NULL));
	assert_true(cg_grep_match(wb, "the cat sat", NULL));
	assert_false(cg_grep_match(wb, "concatenate", NULL));
	assert_true(cg_grep_match(look, "we deployed it", NULL));
	assert_false(cg_grep_match(look, "we deploy it", NULL));
	assert_true(cg_grep_match(back, "a book", &col));
	assert_int_equal(col, 3);
	assert_true(cg_grep_match(uw, "école", NULL));  /* Unicode \w */
	assert_true(cg_grep_jit(d) || !cg_grep_jit(d)); /* either runs */
	cg_grep_free(d);
	cg_grep_free(inl);
	cg_grep_free(wb);
	cg_grep_free(look);
	cg_grep_free(back);
	cg_grep_free(uw);
}

/* A pathological pattern answers with a clear error naming the limit and
 * the line, quickly, never a silent non-match. */
static void
test_limits(void **state)
{
	static const char text[] =
	    "fine line\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\n";
	cg_grep *g = make("(a+)+$", false, true, 0);
	cg_grep *h = make("(?:a|a)+$", false, true, 0);
	struct seen s;
	cg_grep_file st;
	int64_t t0 = cg_mono_ms();

	memset(&s, 0, sizeof(s));
	cg_grep_begin(g, 10, on_hit, &s, &st);
	assert_int_equal(cg_grep_feed(g, text, sizeof(text) - 1), CG_EINVAL);
	assert_non_null(strstr(cg_grep_error(g), "too costly"));
	assert_non_null(strstr(cg_grep_error(g), "limit"));
	assert_non_null(strstr(cg_grep_error(g), "line 2"));
	assert_false(cg_grep_match(
	    h, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", NULL));
	assert_non_null(strstr(cg_grep_error(h), "too costly"));
	/* the bound is loose for sanitizers and slow machines: without
	 * limits this takes hours */
	assert_true(cg_mono_ms() - t0 < 20000);
	/* a new stream starts clean */
	cg_grep_begin(g, 10, on_hit, &s, &st);
	assert_string_equal(cg_grep_error(g), "");
	assert_int_equal(cg_grep_feed(g, "aab\naa\n", 7), 0);
	assert_int_equal(cg_grep_end(g), 0);
	assert_int_equal(st.matches, 1);
	cg_grep_free(g);
	cg_grep_free(h);
}

/* cg_grep_fd stops at its deadline with CG_ETIMEDOUT. */
static void
test_deadline(void **state)
{
	cg_grep_opts o = {"x", true, false, 0, 0, 0, 0};
	FILE *f = tmpfile();
	cg_grep *g = NULL;
	cg_grep_file st;
	struct seen s;
	cg_err err;

	assert_non_null(f);
	assert_int_equal(fputs("x\ny\n", f) >= 0, 1);
	assert_int_equal(fflush(f), 0);
	o.deadline_ms = cg_mono_ms() - 1;
	cg_err_clear(&err);
	assert_int_equal(cg_grep_new(&g, &o, &err), 0);
	rewind(f);
	assert_int_equal(cg_grep_fd(g, fileno(f), 10, on_hit, &s, &st, &err),
	                 CG_ETIMEDOUT);
	assert_non_null(strstr(err.msg, "time limit"));
	cg_grep_free(g);
	o.deadline_ms = cg_mono_ms() + 60000;
	memset(&s, 0, sizeof(s));
	assert_int_equal(cg_grep_new(&g, &o, &err), 0);
	assert_int_equal(lseek(fileno(f), 0, SEEK_SET), 0);
	assert_int_equal(cg_grep_fd(g, fileno(f), 10, on_hit, &s, &st, &err),
	                 0);
	assert_int_equal(s.n, 1);
	cg_grep_free(g);
	(void)fclose(f);
}

/* -B/-A as ripgrep: each line once, the after count restarts at a
 * match, no context around matches counted only. */
static void
test_context(void **state)
{
	static const char text[] = "l1\nl2 m\nl3\nl4\nl5\nl6 m\nl7 m\nl8\n"
	                           "l9\nl10\nl11 m\nl12\n";
	cg_grep_opts o = {"m", true, true, 0, 2, 1, 0};
	static const int64_t want_line[] = {1, 2, 3, 4, 5, 6, 7, 8};
	static const int want_kind[] = {
	    CG_GREP_BEFORE, CG_GREP_MATCH, CG_GREP_AFTER, CG_GREP_BEFORE,
	    CG_GREP_BEFORE, CG_GREP_MATCH, CG_GREP_MATCH, CG_GREP_AFTER};
	cg_grep *g = NULL;
	cg_grep_file st;
	struct seen s;
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_grep_new(&g, &o, &err), 0);
	for (size_t step = 0; step < 5; step++) {
		run(g, text, sizeof(text) - 1, step, 3, &s, &st);
		/* 8 lines with text, then line 11 counted only */
		assert_int_equal(s.n, 9);
		for (int i = 0; i < 8; i++) {
			assert_int_equal(s.line[i], want_line[i]);
			assert_int_equal(s.kind[i], want_kind[i]);
		}
		assert_string_equal(s.text[3], "l4");
		assert_int_equal(s.col[2], 0);
		assert_int_equal(s.line[8], 11);
		assert_string_equal(s.text[8], "");
		assert_int_equal(st.matches, 4);
	}
	cg_grep_free(g);
	o.before = CG_GREP_CONTEXT_LINES + 1;
	assert_int_equal(cg_grep_new(&g, &o, &err), CG_EINVAL);
	assert_null(g);
}

static void
test_stream_lines(void **state)
{
	static const char text[] = "alpha\r\nbeta\n\nALPHA beta\ngamma alpha";
	cg_grep *g = make("alpha", false, false, 0);
	struct seen s;
	cg_grep_file st;

	for (size_t step = 0; step < 8; step++) {
		run(g, text, sizeof(text) - 1, step, 10, &s, &st);
		assert_int_equal(s.n, 3);
		assert_int_equal(s.line[0], 1);
		assert_int_equal(s.line[1], 4);
		assert_int_equal(s.line[2], 5);
		assert_string_equal(s.text[0], "alpha"); /* '\r' dropped */
		assert_string_equal(s.text[2], "gamma alpha");
		assert_int_equal(s.col[2], 7);
		assert_int_equal(st.lines, 5);
		assert_int_equal(st.matches, 3);
		assert_int_equal(st.bytes, (int64_t)sizeof(text) - 1);
		assert_false(st.binary);
	}
	cg_grep_free(g);
}

static void
test_anchors_and_empty_lines(void **state)
{
	static const char text[] = "x\n\n y\n\n";
	cg_grep *g = make("^$", false, false, 0);
	struct seen s;
	cg_grep_file st;

	run(g, text, sizeof(text) - 1, 0, 10, &s, &st);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.line[0], 2);
	assert_int_equal(s.line[1], 4);
	assert_int_equal(st.lines, 4);
	cg_grep_free(g);
}

static void
test_detail_limit(void **state)
{
	static const char text[] = "a1\na2\na3\na4\n";
	cg_grep *g = make("a", true, false, 0);
	struct seen s;
	cg_grep_file st;

	run(g, text, sizeof(text) - 1, 0, 2, &s, &st);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.text[1], "a2");
	assert_string_equal(s.text[2], "");
	assert_int_equal(s.col[3], 0);
	assert_int_equal(st.matches, 4);
	cg_grep_free(g);
}

static void
test_binary(void **state)
{
	static const char text[] = "match\nmore\n\0match\n";
	cg_grep *g = make("match", false, false, 0);
	struct seen s;
	cg_grep_file st;

	run(g, text, sizeof(text) - 1, 3, 10, &s, &st);
	assert_true(st.binary);
	cg_grep_free(g);
}

/* A long line of filler with needle at byte offset at. */
static char *
long_line(size_t len, const char *needle, size_t at)
{
	char *p = malloc(len + 2);

	assert_non_null(p);
	memset(p, 'x', len);
	memcpy(p + at, needle, strlen(needle));
	p[len] = '\n';
	p[len + 1] = '\0';
	return p;
}

static void
test_windows(void **state)
{
	/* window 64: regex overlap 32; the needle straddles 64 */
	char *line = long_line(1000, "needle", 61);
	cg_grep *g = make("needle", false, false, 64);
	cg_grep *start = make("^y", false, false, 64);
	cg_grep *end = make("z$", false, false, 64);
	struct seen s;
	cg_grep_file st;

	run(g, line, 1001, 7, 10, &s, &st);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.col[0], 62);
	assert_true(s.clipped[0]);
	assert_int_equal(st.windowed, 1); /* found in the second window */
	free(line);
	line = long_line(1000, "needle", 900);
	run(g, line, 1001, 0, 10, &s, &st);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.col[0], 901);
	assert_int_equal(st.windowed, 1);
	assert_non_null(strstr(s.text[0], "needle"));
	assert_memory_equal(s.text[0], "…", strlen("…"));
	free(line);
	/* '^' only at the real start, '$' only at the real end: line 1 has
	 * a 'y' where a window starts (96) and a 'z' where one ends (63) */
	line = long_line(1000, "", 0);
	line[96] = 'y';
	line[63] = 'z';
	line[500] = '\n';
	line[501] = 'y';
	line[999] = 'z';
	run(start, line, 1001, 0, 10, &s, &st);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.line[0], 2);
	run(end, line, 1001, 0, 10, &s, &st);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.line[0], 2);
	free(line);
	cg_grep_free(g);
	cg_grep_free(start);
	cg_grep_free(end);
}

static void
test_big_line_default_window(void **state)
{
	size_t len = 3u << 20;
	char *line = long_line(len, "三张资格证", len - 100);
	cg_grep *g = make("三张资格证", true, false, 0);
	cg_grep *re = make("资格.$", false, false, 0);
	struct seen s;
	cg_grep_file st;

	run(g, line, len + 1, 65536, 10, &s, &st);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.col[0], (int64_t)(len - 100 + 1));
	assert_int_equal(st.windowed, 1);
	assert_true(strlen(s.text[0]) <= CG_GREP_TEXT_MAX + strlen("…"));
	run(re, line, len + 1, 65536, 10, &s, &st);
	assert_int_equal(s.n, 0); /* the line goes on after 证 */
	free(line);
	cg_grep_free(g);
	cg_grep_free(re);
}

/* No match spans an invalid byte; after one, '^' does not match. */
static void
test_invalid_bytes_split_runs(void **state)
{
	cg_grep *a = make("needle", false, false, 0);
	cg_grep *b = make("b.*needle", false, false, 0);
	cg_grep *c = make("^ cd", false, false, 0);
	cg_grep *d = make("^ab", false, false, 0);
	cg_grep *e = make("a+b", false, true, 0);
	size_t col = 0;

	assert_true(cg_grep_match(a, "ab\xff cd needle", &col));
	assert_int_equal(col, 7);
	assert_false(cg_grep_match(b, "ab\xff cd needle", NULL));
	assert_true(cg_grep_match(b, "ab cd needle", NULL));
	assert_false(cg_grep_match(c, "ab\xff cd needle", NULL));
	assert_true(cg_grep_match(d, "ab\xff cd needle", NULL));
	/* the column: the leftmost match's start */
	assert_true(cg_grep_match(e, "xaaab aab", &col));
	assert_int_equal(col, 1);
	cg_grep_free(a);
	cg_grep_free(b);
	cg_grep_free(c);
	cg_grep_free(d);
	cg_grep_free(e);
}

static void
test_text_sanitized_and_clipped(void **state)
{
	char line[2100];
	cg_grep *g = make("bad", true, false, 0);
	struct seen s;
	cg_grep_file st;

	memset(line, 'a', sizeof(line));
	memcpy(line, "\xff bad ", 6);
	line[sizeof(line) - 1] = '\n';
	run(g, line, sizeof(line), 0, 10, &s, &st);
	assert_int_equal(s.n, 1);
	assert_memory_equal(s.text[0], "\xef\xbf\xbd bad", 7);
	assert_int_equal(strlen(s.text[0]), CG_GREP_TEXT_MAX + 2);
	assert_true(s.clipped[0]);
	cg_grep_free(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_regex_case),
	    cmocka_unit_test(test_unicode),
	    cmocka_unit_test(test_fixed_is_literal),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_stream_lines),
	    cmocka_unit_test(test_anchors_and_empty_lines),
	    cmocka_unit_test(test_detail_limit),
	    cmocka_unit_test(test_binary),
	    cmocka_unit_test(test_windows),
	    cmocka_unit_test(test_big_line_default_window),
	    cmocka_unit_test(test_pcre2_syntax),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_deadline),
	    cmocka_unit_test(test_context),
	    cmocka_unit_test(test_invalid_bytes_split_runs),
	    cmocka_unit_test(test_text_sanitized_and_clipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
