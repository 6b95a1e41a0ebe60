/*
 * test_fed_page.c - the federation side of the page tools called
 * directly over an embedded workspace: the line-range parser, the
 * JSON-argument entry points a tool table uses (argument checks, peek
 * reporting a failed page inside a successful answer), and uris naming
 * another workspace.
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "federation/fed_links.h"
#include "federation/fed_page.h"
#include "gateway/embed.h"

static char *ws;
static char *cache;
static cg_embed *emb;

static int
setup(void **state)
{
	json_t *rep = NULL;

	ws = cgt_tmpdir("fedpage");
	cache = cgt_tmpdir("fedpage-cache");
	cgt_page(ws, ".guild/wiki/concepts/alpha.md",
	         "type: concept\naliases: [first]",
	         "# Alpha\n\nLinks to [[beta]].\n");
	cgt_page(ws, ".guild/wiki/concepts/beta.md", "type: concept",
	         "# Beta\n\nBack to [[first]].\n");
	assert_int_equal(cg_embed_open(&emb, ws, cache, NULL), 0);
	assert_int_equal(cg_fed_sync(cg_embed_fed(emb), &rep, NULL), 0);
	json_decref(rep);
	return 0;
}

static int
teardown(void **state)
{
	cg_embed_free(emb);
	cgt_rm(ws);
	cgt_rm(cache);
	free(ws);
	free(cache);
	return 0;
}

static void
lines_ok(const char *s, long long a, long long b)
{
	long long x = -1;
	long long y = -1;

	assert_int_equal(cg_lines_parse(s, &x, &y, NULL), 0);
	assert_int_equal(x, a);
	assert_int_equal(y, b);
}

static void
test_lines_parse(void **state)
{
	static const char *const bad[] = {"",     "0",     "0:2", "3:2", "a",
	                                  "1:b",  "1:2:3", "-1",  "2:0", " 1",
	                                  "1 :2", "1: 2",  "+1",  NULL};
	long long a;
	long long b;

	lines_ok("3:7", 3, 7);
	lines_ok("3:", 3, 0);
	lines_ok(":7", 1, 7);
	lines_ok("5", 5, 5);
	lines_ok("4:4", 4, 4);
	lines_ok(":", 1, 0);
	for (size_t i = 0; bad[i] != NULL; i++) {
		cg_err err;

		cg_err_clear(&err);
		assert_int_equal(cg_lines_parse(bad[i], &a, &b, &err),
		                 CG_EINVAL);
		assert_non_null(strstr(err.msg, "A:B"));
	}
}

static void
test_json_args(void **state)
{
	cg_fed *f = cg_embed_fed(emb);
	json_t *args = json_pack("{s:i}", "uri", 5);
	json_t *out = NULL;
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_fed_read_json(f, args, &out, &err), CG_EINVAL);
	assert_null(out);
	assert_non_null(strstr(err.msg, "uri"));
	json_decref(args);
	cg_err_clear(&err);
	assert_int_equal(cg_fed_links_json(f, NULL, &out, &err), CG_EINVAL);
	cg_err_clear(&err);
	assert_int_equal(cg_fed_resolve_json(f, NULL, &out, &err), CG_EINVAL);
	args = json_pack("{s:s, s:s}", "uri",
	                 "root/.guild/wiki/concepts/"
	                 "alpha.md",
	                 "lines", "5:5");
	assert_int_equal(cg_fed_read_json(f, args, &out, NULL), 0);
	assert_string_equal(json_string_value(json_object_get(out, "text")),
	                    "# Alpha\n");
	json_decref(out);
	json_decref(args);
	args = json_pack("{s:s}", "name", "[[first]]");
	assert_int_equal(cg_fed_resolve_json(f, args, &out, NULL), 0);
	assert_int_equal(json_array_size(json_object_get(out, "matches")), 1);
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_array_get(json_object_get(out, "matches"), 0), "match")),
	    "alias");
	json_decref(out);
	json_decref(args);
}

static void
test_peek_json_reports_pages(void **state)
{
	cg_fed *f = cg_embed_fed(emb);
	json_t *args =
	    json_pack("{s:[s, s]}", "uris", "root/.guild/wiki/concepts/beta.md",
	              "root/.guild/wiki/../x.md");
	json_t *out = NULL;
	const json_t *pages;
	const json_t *lk;
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_fed_peek_json(f, args, &out, &err), 0);
	assert_int_equal(err.code, 0);
	pages = json_object_get(out, "pages");
	lk = json_array_get(json_object_get(json_array_get(pages, 0), "links"),
	                    0);
	assert_true(json_is_true(json_object_get(lk, "resolved")));
	assert_string_equal(json_string_value(json_object_get(lk, "match")),
	                    "alias");
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_object_get(json_array_get(pages, 1), "error"), "code")),
	    "denied");
	json_decref(out);
	/* The plain call returns the page's code, with the answer. */
	out = NULL;
	{
		const char *u[] = {"root/.guild/wiki/concepts/beta.md",
		                   "root/.guild/wiki/nope.md"};

		assert_int_equal(cg_fed_peek(f, u, 2, &out, NULL),
		                 CG_ENOTFOUND);
		assert_non_null(out);
		json_decref(out);
	}
	json_decref(args);
}

static void
test_other_workspace(void **state)
{
	json_t *out = NULL;
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_fed_read(cg_embed_fed(emb),
	                             "cg://elsewhere/root/.guild/wiki/concepts/"
	                             "alpha.md",
	                             NULL, &out, &err),
	                 CG_EINVAL);
	assert_null(out);
	assert_non_null(strstr(err.msg, "elsewhere"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lines_parse),
	    cmocka_unit_test(test_json_args),
	    cmocka_unit_test(test_peek_json_reports_pages),
	    cmocka_unit_test(test_other_workspace),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
