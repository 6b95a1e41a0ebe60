/*
 * test_render.c - the compact text of answers (gateway/render.c), which
 * the CLI prints and MCP sends agents: a search hit keeps its title, its
 * uri with the line range and a snippet cut to 60 characters on one
 * line; the **marks** are dropped without colour and become ANSI colour
 * with it; a conflict names its pages by hit number with the winner and
 * the rule; a node that did not answer is named; the text is a fraction
 * of the answer's JSON.  Answers are built here in the search tool's
 * shape (gateway/schema/search.json).
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "common/cg_buf.h"
#include "gateway/render.h"

static json_t *
hit(const char *path, const char *title, const char *snippet)
{
	char uri[256];

	(void)snprintf(uri, sizeof(uri), "cg://acme/api/%s", path);
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:n, s:n, "
	                 "s:s, s:f, s:[i,i], s:b, s:[], s:[]}",
	                 "uri", uri, "workspace", "acme", "source", "api",
	                 "path", path, "title", title, "category", "decision",
	                 "snippet", snippet, "owner", "confidence", "match",
	                 "all", "score", 3.5, "line_range", 4, 9, "stale", 0,
	                 "tags", "supersedes");
}

static json_t *
answer(json_t *hits, json_t *conflicts, const char *outcome)
{
	return json_pack("{s:s, s:o, s:o, s:[], s:{s:i, s:i, s:[s], s:[{s:s, "
	                 "s:s}]}}",
	                 "query", "postgres", "hits", hits, "conflicts",
	                 conflicts, "followups", "evidence", "hits_returned",
	                 (int)json_array_size(hits), "candidates_walked", 7,
	                 "sources_asked", "acme/api", "nodes", "node",
	                 "acme/api", "outcome", outcome);
}

static char *
render(const json_t *ans, bool color)
{
	const cg_render_opts o = {false, color};
	cg_buf b;

	cg_buf_init(&b, 1 << 20);
	cg_render_search(&b, ans, &o);
	return cg_buf_take(&b);
}

static void
test_hit_lines(void **state)
{
	json_t *ans = answer(
	    json_pack("[o]", hit("wiki/use-postgres.md", "Use Postgres",
	                         "We chose **Postgres**\n\nfor   storage.")),
	    json_array(), "ok");
	char *t = render(ans, false);

	(void)state;
	assert_non_null(strstr(t, "1. Use Postgres · decision\n"));
	assert_non_null(
	    strstr(t, "   cg://acme/api/wiki/use-postgres.md:4-9\n"));
	/* One line, whitespace runs collapsed, no marks. */
	assert_non_null(strstr(t, "   We chose Postgres for storage.\n"));
	assert_null(strstr(t, "**"));
	assert_null(strstr(t, "\033["));
	free(t);
	json_decref(ans);
}

static void
test_snippet_cut(void **state)
{
	char longs[400];
	json_t *ans;
	char *t;
	const char *line;
	size_t n = 0;

	(void)state;
	/* 3 + 4 * 60 characters of "word " with a CJK tail: cut at 60
	 * characters (code points), never inside one. */
	(void)snprintf(longs, sizeof(longs), "%s", "**a**");
	for (int i = 0; i < 60; i++)
		(void)strncat(longs, " 日本語",
		              sizeof(longs) - strlen(longs) - 1);
	ans = answer(json_pack("[o]", hit("x.md", "X", longs)), json_array(),
	             "ok");
	t = render(ans, false);
	line = strstr(t, "\n   a ");
	assert_non_null(line);
	line += 4;
	for (const char *p = line; *p != '\n'; p++)
		n += ((unsigned char)*p & 0xC0) != 0x80;
	/* 60 characters and the ellipsis. */
	assert_int_equal(n, 61);
	assert_non_null(strstr(line, "\xe2\x80\xa6\n"));
	free(t);
	json_decref(ans);
}

/* A Thai snippet is cut after the tone mark of the cluster at the cut,
 * never between the consonant and its mark (issue 16). */
static void
test_snippet_cut_cluster(void **state)
{
	char longs[400] = "**x** ";
	json_t *ans;
	char *t;

	(void)state;
	/* x, a space and 57 consonants: the 60th character is KHO KHWAI,
	 * and its MAI THO would be the 61st */
	for (int i = 0; i < 57; i++)
		(void)strncat(longs, "\u0e01",
		              sizeof(longs) - strlen(longs) - 1);
	(void)strncat(longs, "\u0e04\u0e49\u0e19\u0e2b\u0e32",
	              sizeof(longs) - strlen(longs) - 1);
	ans = answer(json_pack("[o]", hit("x.md", "X", longs)), json_array(),
	             "ok");
	t = render(ans, false);
	assert_non_null(strstr(t, "\u0e01\u0e04\u0e49\u2026\n"));
	free(t);
	json_decref(ans);
}

static void
test_color(void **state)
{
	json_t *ans = answer(json_pack("[o]", hit("a.md", "Use Postgres",
	                                          "We chose **Postgres**.")),
	                     json_array(), "ok");
	char *t = render(ans, true);

	(void)state;
	assert_non_null(strstr(t, "\033[1mUse Postgres\033[0m"));
	assert_non_null(strstr(t, "We chose \033[1;31mPostgres\033[0m."));
	assert_null(strstr(t, "**"));
	free(t);
	json_decref(ans);
}

static void
test_conflict_and_silent_node(void **state)
{
	json_t *hits = json_pack("[o, o]", hit("new.md", "New", "n"),
	                         hit("old.md", "Old", "o"));
	json_t *c = json_pack(
	    "[{s:s, s:s, s:s, s:[{s:s}, {s:s}, {s:s, s:s, s:s}]}]", "title",
	    "Database", "winner", "cg://acme/api/new.md", "resolution",
	    "newer wins", "pages", "uri", "cg://acme/api/new.md", "uri",
	    "cg://acme/api/old.md", "uri", "cg://acme/web/far.md", "updated_at",
	    "2025-01-01", "confidence", "high");
	json_t *ans = answer(hits, c, "timeout after 800 ms");
	char *t = render(ans, false);

	(void)state;
	assert_non_null(strstr(t, "each settled by: newer wins:\n"));
	assert_non_null(strstr(t, "- \"Database\": #1 wins vs #2 vs "
	                          "cg://acme/web/far.md (2025-01-01, "
	                          "high)\n"));
	assert_non_null(strstr(t, "  node acme/api: timeout after 800 ms\n"));
	assert_non_null(strstr(t, "2 hit(s)"));
	free(t);
	json_decref(ans);
}

/* The point of the compact text: far shorter than the answer's JSON. */
static void
test_shorter_than_json(void **state)
{
	json_t *hits = json_array();
	json_t *ans;
	char *t;
	char *j;

	(void)state;
	for (int i = 0; i < 20; i++) {
		char path[32];

		(void)snprintf(path, sizeof(path), "p%d.md", i);
		json_array_append_new(
		    hits, hit(path, "A title",
		              "some **words** around the match, as a snippet "
		              "of about a hundred characters would read."));
	}
	ans = answer(hits, json_array(), "ok");
	t = render(ans, false);
	j = json_dumps(ans, JSON_INDENT(1));
	assert_true(strlen(t) * 3 < strlen(j));
	free(t);
	free(j);
	json_decref(ans);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hit_lines),
	    cmocka_unit_test(test_snippet_cut),
	    cmocka_unit_test(test_snippet_cut_cluster),
	    cmocka_unit_test(test_color),
	    cmocka_unit_test(test_conflict_and_silent_node),
	    cmocka_unit_test(test_shorter_than_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
