/*
 * test_hostile.c - bad input never crashes, hangs or loses the index
 * (issue acceptance 6): a YAML alias bomb and 100k-deep nesting in
 * frontmatter, invalid UTF-8, a binary file named .md, a 50 MB page and a
 * symlink pointing outside the wiki.  Each is indexed with a followup or
 * skipped with a followup, and the good pages stay searchable.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgtest.h"
#include "common/cg_buf.h"

static char *ws;
static char *cache;
static char *outside;

static void
write_alias_bomb(void)
{
	cg_buf b;

	cg_buf_init(&b, 1 << 20);
	(void)cg_buf_puts(&b,
	                  "type: concept\nowner: mallory\n"
	                  "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
	for (char c = 'b'; c <= 'j'; c++)
		(void)cg_buf_printf(&b, "%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c]\n",
		                    c, c, c - 1, c - 1, c - 1, c - 1, c - 1,
		                    c - 1);
	cgt_page(ws, ".guild/wiki/concepts/bomb.md", b.data,
	         "# Alias bomb\n\nThe quokka survives the bomb.\n");
	cg_buf_fini(&b);
}

static void
write_deep_nesting(void)
{
	cg_buf b;

	cg_buf_init(&b, 1 << 20);
	(void)cg_buf_puts(&b, "type: concept\ndeep: ");
	for (int i = 0; i < 100000; i++)
		(void)cg_buf_putc(&b, '[');
	cgt_page(ws, ".guild/wiki/concepts/deep.md", b.data,
	         "# Deep nesting\n\nThe pangolin survives the nesting.\n");
	cg_buf_fini(&b);
}

static void
write_bad_files(void)
{
	static const char bad_utf8[] =
	    "---\ntype: concept\n---\n# Broken \xff\xfe text\n\nThe axolotl "
	    "lives in \xc3\x28 invalid \xed\xa0\x80 bytes.\n";
	static const char binary[] = "\x7f"
	                             "ELF\x02\x01\x01\0\0\0\0narwhal\0";
	size_t big = 50u << 20;
	char *huge = malloc(big);
	char target[4096];
	char link[4096];

	cgt_write_bytes(ws, ".guild/wiki/concepts/utf8.md", bad_utf8,
	                sizeof(bad_utf8) - 1);
	cgt_write_bytes(ws, ".guild/wiki/concepts/binary.md", binary,
	                sizeof(binary) - 1);
	assert_non_null(huge);
	memset(huge, 'x', big);
	memcpy(huge, "# Huge\n\nokapi ", 14);
	for (size_t i = 100; i < big; i += 100)
		huge[i] = (i % 1000 == 0) ? '\n' : ' ';
	cgt_write_bytes(ws, ".guild/wiki/concepts/huge.md", huge, big);
	free(huge);
	cgt_write(outside, "secret.md", "# Secret\n\nThe wombat password.\n");
	(void)snprintf(target, sizeof(target), "%s/secret.md", outside);
	(void)snprintf(link, sizeof(link), "%s/.guild/wiki/concepts/link.md",
	               ws);
	assert_int_equal(symlink(target, link), 0);
	(void)snprintf(link, sizeof(link), "%s/.guild/wiki/linked-dir", ws);
	assert_int_equal(symlink(outside, link), 0);
}

static int
setup(void **state)
{
	cgt_escape_new("hostile", &ws, &cache, &outside, NULL);
	cgt_page(ws, ".guild/wiki/concepts/good.md",
	         "type: concept\nupdated_at: 2026-01-01",
	         "# Good page\n\nThe capybara is fine.\n");
	write_alias_bomb();
	write_deep_nesting();
	write_bad_files();
	return 0;
}

static int
teardown(void **state)
{
	cgt_escape_free(ws, cache, outside, NULL);
	return 0;
}

/* True when a followup of kind names a path ending with suffix. */
static int
followup(const json_t *ans, const char *kind, const char *suffix)
{
	size_t i;
	const json_t *f;

	json_array_foreach(json_object_get(ans, "followups"), i, f) {
		const char *k = json_string_value(json_object_get(f, "kind"));
		const char *u = json_string_value(json_object_get(f, "uri"));

		if (k && u && strcmp(k, kind) == 0 &&
		    strlen(u) >= strlen(suffix) &&
		    strcmp(u + strlen(u) - strlen(suffix), suffix) == 0)
			return 1;
	}
	return 0;
}

static void
test_index_is_bounded(void **state)
{
	struct timespec a;
	struct timespec b;
	char *out = NULL;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = cgt_run(&out, NULL, "index", "--json", "--workspace", ws,
	             "--cache", cache, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_int_equal(rc, 0);
	/* Generous: the point is no blow-up (an unbounded alias walk or a
	 * quadratic parse takes minutes), not speed. */
	assert_true(b.tv_sec - a.tv_sec < 60);
	free(out);
}

static void
test_frontmatter_bombs_still_indexed(void **state)
{
	json_t *ans = cgt_query(ws, cache, "quokka", NULL);

	assert_int_equal(cgt_rank(ans, "bomb.md"), 0);
	assert_true(followup(ans, "frontmatter", "bomb.md"));
	json_decref(ans);
	ans = cgt_query(ws, cache, "pangolin", NULL);
	assert_int_equal(cgt_rank(ans, "deep.md"), 0);
	assert_true(followup(ans, "frontmatter", "deep.md"));
	json_decref(ans);
}

static void
test_invalid_utf8(void **state)
{
	json_t *ans = cgt_query(ws, cache, "axolotl", NULL);
	const char *dump;
	char *text;

	assert_int_equal(cgt_rank(ans, "utf8.md"), 0);
	assert_true(followup(ans, "invalid_utf8", "utf8.md"));
	/* What is returned is valid UTF-8 (jansson refuses anything else). */
	text = json_dumps(ans, 0);
	assert_non_null(text);
	dump = text;
	assert_non_null(strstr(dump, "axolotl"));
	free(text);
	json_decref(ans);
}

static void
test_binary_and_huge_skipped(void **state)
{
	json_t *ans = cgt_query(ws, cache, "narwhal", NULL);

	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 0);
	assert_true(followup(ans, "binary", "binary.md"));
	assert_true(followup(ans, "too_large", "huge.md"));
	json_decref(ans);
	ans = cgt_query(ws, cache, "okapi", NULL);
	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 0);
	json_decref(ans);
}

static void
test_symlink_not_followed(void **state)
{
	json_t *ans = cgt_query(ws, cache, "wombat", NULL);

	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 0);
	assert_true(followup(ans, "symlink", "link.md"));
	json_decref(ans);
}

static void
test_good_page_unharmed(void **state)
{
	json_t *ans = cgt_query(ws, cache, "capybara", NULL);

	assert_int_equal(cgt_rank(ans, "good.md"), 0);
	json_decref(ans);
}

static void
test_bad_rewrite_keeps_indexed_page(void **state)
{
	static const char binary[] = "\0\0\0capybara\0";
	json_t *ans;

	/* A good page overwritten with binary junk: the last good version
	 * keeps serving, with a followup. */
	cgt_write_bytes(ws, ".guild/wiki/concepts/good.md", binary,
	                sizeof(binary) - 1);
	ans = cgt_query(ws, cache, "capybara", NULL);
	assert_int_equal(cgt_rank(ans, "good.md"), 0);
	assert_true(followup(ans, "binary", "good.md"));
	json_decref(ans);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_index_is_bounded),
	    cmocka_unit_test(test_frontmatter_bombs_still_indexed),
	    cmocka_unit_test(test_invalid_utf8),
	    cmocka_unit_test(test_binary_and_huge_skipped),
	    cmocka_unit_test(test_symlink_not_followed),
	    cmocka_unit_test(test_good_page_unharmed),
	    cmocka_unit_test(test_bad_rewrite_keeps_indexed_page),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
