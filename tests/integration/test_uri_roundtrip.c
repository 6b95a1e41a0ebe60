/*
 * test_uri_roundtrip.c - any file name a page can have round-trips from a
 * search hit to read: names with '%', spaces, '#', '?', a literal "%20",
 * and non-ASCII characters get uris that are percent-encoded where they
 * must be (federation/uri.c) and that `read` and `peek` decode back to
 * the same file.  cg_uri_make and cg_uri_parse are also checked directly,
 * with a name that is not valid UTF-8.
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "federation/uri.h"

static char *ws;
static char *cache;

/* File name, a word only that page holds, and what its uri ends with. */
static const char *const pages[][3] = {
    {"rollout 100%.md", "zeppelinone", "/rollout%20100%25.md"},
    {"a#b?c.md", "zeppelintwo", "/a%23b%3Fc.md"},
    {"literal%20name.md", "zeppelinthree", "/literal%2520name.md"},
    {"日本 ü.md", "zeppelinfour", "/日本%20ü.md"},
    {"sp [x] {y}.md", "zeppelinfive", "/sp%20%5Bx%5D%20%7By%7D.md"},
};
#define NPAGES (sizeof(pages) / sizeof(pages[0]))

static int
setup(void **state)
{
	(void)state;
	ws = cgt_tmpdir("uri");
	cache = cgt_tmpdir("uri-cache");
	for (size_t i = 0; i < NPAGES; i++) {
		char rel[256];
		char body[256];

		(void)snprintf(rel, sizeof(rel), ".guild/wiki/context/%s",
		               pages[i][0]);
		(void)snprintf(body, sizeof(body),
		               "# Page %zu\n\nOnly here: %s.\n", i,
		               pages[i][1]);
		cgt_page(ws, rel, "type: context", body);
	}
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
test_search_then_read(void **state)
{
	(void)state;
	for (size_t i = 0; i < NPAGES; i++) {
		json_t *ans = cgt_query(ws, cache, pages[i][1], NULL);
		const json_t *hit =
		    json_array_get(json_object_get(ans, "hits"), 0);
		const char *uri =
		    json_string_value(json_object_get(hit, "uri"));
		char *out = NULL;
		char *err = NULL;
		int rc;

		assert_non_null(uri);
		if (strlen(uri) < strlen(pages[i][2]) ||
		    strcmp(uri + strlen(uri) - strlen(pages[i][2]),
		           pages[i][2]) != 0)
			fail_msg("uri of %s: %s", pages[i][0], uri);
		rc = cgt_run(&out, &err, "read", "--workspace", ws, "--cache",
		             cache, uri, NULL);
		if (rc != 0 || strstr(out, pages[i][1]) == NULL)
			fail_msg("read %s: exit %d\n%s%s", uri, rc, out, err);
		free(out);
		free(err);
		rc = cgt_run(&out, &err, "peek", "--workspace", ws, "--cache",
		             cache, "--json", uri, NULL);
		if (rc != 0 || strstr(out, pages[i][0]) == NULL)
			fail_msg("peek %s: exit %d\n%s%s", uri, rc, out, err);
		free(out);
		free(err);
		json_decref(ans);
	}
}

static void
test_make_parse(void **state)
{
	static const char *const paths[] = {
	    "a/rollout 100%.md",   "x#y?z", "%41",  "日本/ü ü", "\x01\x7f",
	    "bad\xff\xfe utf8.md", "",      "a/b/c"};
	cg_uri u;

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char *uri = cg_uri_make("my ws", "src#1", paths[i]);

		assert_non_null(uri);
		assert_null(strchr(uri, ' '));
		assert_null(strchr(uri, '#'));
		assert_null(strchr(uri, '?'));
		assert_int_equal(cg_uri_parse(&u, uri, NULL), 0);
		assert_string_equal(u.workspace, "my ws");
		assert_string_equal(u.source, "src#1");
		assert_string_equal(u.path, paths[i]);
		cg_uri_fini(&u);
		free(uri);
	}
	/* non-ASCII UTF-8 stays readable; invalid bytes are escaped */
	{
		char *a = cg_uri_make("w", "s", "日本.md");
		char *b = cg_uri_make("w", "s", "a\xff.md");

		assert_string_equal(a, "cg://w/s/日本.md");
		assert_string_equal(b, "cg://w/s/a%FF.md");
		free(a);
		free(b);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_search_then_read),
	    cmocka_unit_test(test_make_parse),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
