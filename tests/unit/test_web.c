/*
 * test_web.c - the search page's HTML (gateway/web_html.c): the one
 * escaping function turns & < > " ' into entities and leaves everything
 * else (UTF-8 included) as it is; a query value is percent-encoded so it
 * can sit in an href; a snippet's **marks** become <mark> with the rest
 * escaped and an unclosed mark closed; a search answer and a page whose
 * titles, snippets, bodies, uris and link targets hold markup come out
 * with no tag of theirs; a conflict shows both pages with the winner
 * marked and the rule; the page view numbers its lines from the file's
 * first and marks the hit's.  Answers are built here in the tools'
 * shapes (gateway/schema/).  The browser test
 * (tests/integration/test_web_browser.sh) checks the same in chromium.
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "common/cg_buf.h"
#include "gateway/web.h"

#define EVIL "<script>alert(1)</script><b onmouseover='x'>&\"t\"</b>"
#define EVIL_ESC                                                             \
	"&lt;script&gt;alert(1)&lt;/script&gt;&lt;b onmouseover=&#39;x&#39;" \
	"&gt;&amp;&quot;t&quot;&lt;/b&gt;"

static char *
escaped(const char *s)
{
	cg_buf b;

	cg_buf_init(&b, 1 << 20);
	cg_web_escape(&b, s);
	return cg_buf_take(&b);
}

static void
test_escape(void **state)
{
	char *s = escaped(EVIL);

	(void)state;
	assert_string_equal(s, EVIL_ESC);
	free(s);
	s = escaped("plain text, 日本語 and é");
	assert_string_equal(s, "plain text, 日本語 and é");
	free(s);
	s = escaped("");
	assert_true(s == NULL || s[0] == '\0');
	free(s);
	s = escaped(NULL);
	assert_true(s == NULL || s[0] == '\0');
	free(s);
	s = escaped("&amp;");
	assert_string_equal(s, "&amp;amp;"); /* escaped again, not trusted */
	free(s);
}

static void
test_query_value(void **state)
{
	cg_buf b;

	(void)state;
	cg_buf_init(&b, 1024);
	cg_web_query_value(&b, "cg://acme/root/a b&c=\"<é>.md");
	assert_string_equal(cg_buf_str(&b), "cg%3A%2F%2Facme%2Froot%2Fa%20b%26c"
	                                    "%3D%22%3C%C3%A9%3E.md");
	cg_buf_fini(&b);
}

static json_t *
hit(const char *uri, const char *title, const char *snippet)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:[i,i], "
	                 "s:s}",
	                 "uri", uri, "workspace", "acme", "source", "root",
	                 "title", title, "snippet", snippet, "match", "all",
	                 "category", "decision", "line_range", 8, 10,
	                 "updated_at", "2026-05-01");
}

static char *
results(json_t *ans)
{
	cg_buf b;

	cg_buf_init(&b, 1 << 20);
	cg_web_render_results(&b, ans);
	json_decref(ans);
	return cg_buf_take(&b);
}

static void
test_results_escape_everything(void **state)
{
	char *html = results(json_pack(
	    "{s:[o], s:[], s:[{s:s, s:s}], s:s}", "hits",
	    hit("cg://acme/root/" EVIL ".md", EVIL, "a **" EVIL "** b"),
	    "conflicts", "followups", "kind", "lint", "message", EVIL, "note",
	    EVIL));

	(void)state;
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<b "));
	assert_null(strstr(html, "'x'"));
	/* The title, the snippet (its mark kept), the followup, the note. */
	assert_non_null(strstr(html, ">" EVIL_ESC "</a>"));
	assert_non_null(strstr(html, "a <mark>" EVIL_ESC "</mark> b"));
	assert_non_null(strstr(html, "<li>" EVIL_ESC "</li>"));
	assert_non_null(strstr(html, "class=\"note\">" EVIL_ESC "</p>"));
	/* The uri in the href is percent-encoded, the line range kept. */
	assert_non_null(strstr(html, "href=\"/page?uri=cg%3A%2F%2Facme%2Froot"
	                             "%2F%3Cscript%3E"));
	assert_non_null(strstr(html, "&amp;lines=8:10#L8\""));
	assert_non_null(strstr(html, "lines 8&ndash;10"));
	assert_non_null(strstr(html, "<span class=\"source\" title=\"acme\">"
	                             "root</span>"));
	free(html);
}

static void
test_snippet_marks(void **state)
{
	char *html = results(json_pack(
	    "{s:[o,o], s:[]}", "hits", hit("cg://a/r/1.md", "t", "**one** two"),
	    hit("cg://a/r/2.md", "t", "x **open"), "conflicts"));

	(void)state;
	assert_non_null(strstr(html, ">2 hits<"));
	assert_non_null(strstr(html, "<mark>one</mark> two"));
	assert_non_null(strstr(html, "x <mark>open</mark></p>"));
	free(html);
}

static void
test_conflict_side_by_side(void **state)
{
	const char *a = "cg://acme/root/queue-a.md";
	const char *b = "cg://acme/root/queue-b.md";
	char *html = results(json_pack(
	    "{s:[o,o], s:[{s:s, s:s, s:s, s:[{s:s, s:s}, {s:s, s:s}]}]}",
	    "hits", hit(a, "Queue A", "rabbitmq"), hit(b, "Queue B", "nats"),
	    "conflicts", "title", "Message <Queue>", "winner", b, "resolution",
	    "newer updated_at wins", "pages", "uri", a, "updated_at",
	    "2026-02-01", "uri", b, "updated_at", "2026-05-01"));
	const char *sides = strstr(html, "<div class=\"sides\">");
	const char *first = strstr(html, "<div class=\"side\">");
	const char *win = strstr(html, "<div class=\"side winner\">");

	(void)state;
	assert_non_null(sides);
	assert_non_null(first);
	assert_non_null(win);
	assert_true(sides < first && first < win);
	assert_non_null(strstr(first, "Queue A"));
	assert_non_null(strstr(win, "Queue B"));
	assert_non_null(strstr(html, "<h3>Message &lt;Queue&gt;</h3>"));
	assert_non_null(strstr(html, "rule: newer updated_at wins"));
	free(html);
}

static void
test_page_view(void **state)
{
	json_t *read = json_pack(
	    "{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:[s]}", "uri",
	    "cg://acme/root/x.md", "workspace", "acme", "source", "root",
	    "title", EVIL, "frontmatter_raw", "---\ntitle: t\n---\n", "body",
	    "# X\n\n" EVIL "\nlast", "body_line", 4, "tags", EVIL);
	json_t *links = json_pack(
	    "{s:[{s:s, s:s, s:b, s:s, s:s, s:s, s:i}, {s:s, s:b, s:i}], "
	    "s:[{s:s, s:s, s:s, s:i}]}",
	    "outgoing", "kind", "wikilink", "target", "y", "resolved", 1, "uri",
	    "cg://acme/root/y.md", "title", EVIL, "source", "root", "line", 6,
	    "target", EVIL, "resolved", 0, "line", 7, "backlinks", "uri",
	    "cg://acme/api/z.md", "title", "Zed", "source", "api", "line", 3);
	cg_buf b;

	(void)state;
	cg_buf_init(&b, 1 << 20);
	cg_web_render_page(&b, read, links, 5, 6);
	assert_null(strstr(cg_buf_str(&b), "<script"));
	assert_null(strstr(cg_buf_str(&b), "<b "));
	assert_non_null(strstr(cg_buf_str(&b), "<h1>" EVIL_ESC "</h1>"));
	assert_non_null(strstr(cg_buf_str(&b),
	                       "<li value=\"1\" id=\"L1\" class=\"fm\">"
	                       "---</li>"));
	assert_non_null(
	    strstr(cg_buf_str(&b), "<li value=\"4\" id=\"L4\"># X</li>"));
	assert_non_null(strstr(cg_buf_str(&b), "<li value=\"5\" id=\"L5\" "
	                                       "class=\"hit\"></li>"));
	assert_non_null(strstr(cg_buf_str(&b),
	                       "<li value=\"6\" id=\"L6\" "
	                       "class=\"hit\">" EVIL_ESC "</li>"));
	assert_non_null(
	    strstr(cg_buf_str(&b), "<li value=\"7\" id=\"L7\">last</li>"));
	/* The backlink opens the linking page at its line. */
	assert_non_null(strstr(cg_buf_str(&b),
	                       "href=\"/page?uri=cg%3A%2F%2Facme%2Fapi%2Fz.md"
	                       "&amp;lines=3:3#L3\">Zed</a>"));
	assert_non_null(
	    strstr(cg_buf_str(&b), "class=\"unresolved\">" EVIL_ESC));
	cg_buf_fini(&b);
	json_decref(read);
	json_decref(links);
}

static void
test_assets_embedded(void **state)
{
	(void)state;
	assert_non_null(cg_web_asset_text("page.css"));
	assert_non_null(strstr(cg_web_asset_text("search.js"), "DOMParser"));
	assert_non_null(
	    strstr(cg_web_asset_text("layout.html"), "<!--main-->"));
	assert_null(cg_web_asset_text("missing.js"));
	assert_true(cg_web_owns("/") && cg_web_owns("/page") &&
	            cg_web_owns("/static/page.css") && cg_web_owns("/token"));
	assert_false(cg_web_owns("/v1/search") || cg_web_owns("/mcp") ||
	             cg_web_owns("/pages"));
	assert_true(cg_web_takes_post("/token", "POST"));
	assert_false(cg_web_takes_post("/", "POST"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escape),
	    cmocka_unit_test(test_query_value),
	    cmocka_unit_test(test_results_escape_everything),
	    cmocka_unit_test(test_snippet_marks),
	    cmocka_unit_test(test_conflict_side_by_side),
	    cmocka_unit_test(test_page_view),
	    cmocka_unit_test(test_assets_embedded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
