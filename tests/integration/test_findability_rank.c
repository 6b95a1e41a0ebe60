/*
 * test_findability_rank.c - ranking that finds what people mean (issue
 * 12), end to end through the real binary over a wiki written here: word
 * forms as a lower class that never displaces exact matches ("retries"
 * finds "retried", below a page that says "retries"), Unicode folding
 * ("viet" finds "Việt", "file" finds the ligature "ﬁle"), stopwords (never
 * the only reason for a hit, never highlighted, kept inside the phrase),
 * slugs ("postgres" finds use-postgres.md titled "PostgreSQL") and
 * proximity (terms in one list item rank above the same terms scattered),
 * and the unit tier: words in one line or list item rank above the same
 * words nearer together but in two list items, or one in the title; and
 * within the tier, the unit that holds the words with the fewest others
 * (stopwords aside) ranks first.
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"

static char *ws;
static char *cache;

/* Words that match no query of this file, to space terms apart. */
#define FILLER                                                                \
	"lorem ipsum dolor sit amet consectetur adipiscing elit sed eiusmod " \
	"tempor incididunt labore dolore magna aliqua enim minim veniam "     \
	"quis nostrud exercitation ullamco laboris nisi aliquip commodo "     \
	"consequat duis aute irure "

static int
setup(void **state)
{
	(void)state;
	ws = cgt_tmpdir("rank");
	cache = cgt_tmpdir("rank-cache");
	cgt_page(ws, ".guild/wiki/concepts/retry-log.md", NULL,
	         "# Incident log\n\nThe payment request was retried twice "
	         "before it failed.\n");
	cgt_page(ws, ".guild/wiki/concepts/retry-policy.md", NULL,
	         "# Policy\n\nClient retries: three retries with backoff.\n");
	cgt_page(ws, ".guild/wiki/concepts/hanoi.md", NULL,
	         "# Office\n\nThe team in Việt Nam runs the night shift.\n");
	cgt_page(ws, ".guild/wiki/concepts/ligature.md", NULL,
	         "# Typesetting\n\nEach ﬁle keeps its ligatures.\n");
	cgt_page(
	    ws, ".guild/wiki/decisions/use-postgres.md",
	    "type: decision\ntitle: PostgreSQL",
	    "# PostgreSQL\n\nWe store orders in one relational database.\n");
	cgt_page(ws, ".guild/wiki/runbooks/rollback.md", "type: runbook",
	         "# Rollback\n\nTo roll back a deploy, press the button.\n");
	cgt_page(ws, ".guild/wiki/concepts/article.md", NULL,
	         "# Notes\n\nThis is a page about a thing and a place.\n");
	/* Same words and length; only their distance differs.  The near page
	 * sorts last by path, so only proximity puts it first. */
	cgt_page(ws, ".guild/wiki/concepts/far.md", NULL,
	         "# Notes one\n\n- Compress " FILLER "quickly.\n- " FILLER
	         "the archive.\n");
	cgt_page(
	    ws, ".guild/wiki/concepts/near.md", NULL,
	    "# Notes two\n\n- Compress the archive quickly.\n- " FILLER FILLER
	    "\n");
	/* "mount volume": only one-item.md holds both words in one list
	 * item, five tokens apart, on the longest page; two-items.md has them
	 * three tokens apart across two items and is short; title.md has
	 * "volume" in its title.  By BM25 and distance alone either of the
	 * others would rank first. */
	cgt_page(ws, ".guild/wiki/concepts/one-item.md", NULL,
	         "# Notes five\n\n- Mount the external backup volume first.\n"
	         "- " FILLER "\n");
	cgt_page(ws, ".guild/wiki/concepts/two-items.md", NULL,
	         "# Notes six\n\n- Run mount.\n- Volume sizes.\n");
	cgt_page(ws, ".guild/wiki/concepts/title.md", NULL,
	         "# Volume\n\n- Mount it.\n");
	/* "open directory": both pages hold the words adjacent in one list
	 * item.  unit-long.md is the shorter page and says "directory" twice,
	 * so BM25 and the window alone put it first; unit-short.md's item
	 * holds the two words and nothing else, and it sorts last by path. */
	cgt_page(ws, ".guild/wiki/concepts/unit-long.md", NULL,
	         "# Notes seven\n\n- Open directory windows, each directory "
	         "in a tab of the file manager.\n");
	/* "server start": both list items are six tokens long;
	 * serve-plain.md's holds the words adjacent and four more content
	 * words, serve-stop.md's holds them a word apart with only stopwords
	 * between and after, and sorts last by path. */
	cgt_page(ws, ".guild/wiki/concepts/serve-plain.md", NULL,
	         "# Notes nine\n\n- Start server daemon process background "
	         "jobs.\n");
	cgt_page(ws, ".guild/wiki/concepts/serve-stop.md", NULL,
	         "# Notes ten\n\n- Start the server in the background.\n");
	cgt_page(ws, ".guild/wiki/concepts/unit-short.md", NULL,
	         "# Notes eight\n\n- Open directory.\n- " FILLER "\n- " FILLER
	         "\n");
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

static const char *
str(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

static void
test_word_forms_below_exact(void **state)
{
	json_t *a = cgt_query(ws, cache, "retries", NULL);
	json_t *b = cgt_query(ws, cache, "retried", NULL);

	(void)state;
	/* The exact page first, the other form after it, in its class. */
	assert_int_equal(cgt_rank(a, "retry-policy.md"), 0);
	assert_int_equal(cgt_rank(a, "retry-log.md"), 1);
	assert_string_equal(str(cgt_hit(a, "retry-policy.md"), "match"), "all");
	assert_string_equal(str(cgt_hit(a, "retry-log.md"), "match"), "forms");
	assert_non_null(
	    strstr(str(cgt_hit(a, "retry-log.md"), "snippet"), "**retried**"));
	assert_int_equal(cgt_rank(b, "retry-log.md"), 0);
	assert_int_equal(cgt_rank(b, "retry-policy.md"), 1);
	json_decref(a);
	json_decref(b);
}

static void
test_folding(void **state)
{
	json_t *a = cgt_query(ws, cache, "viet", NULL);
	json_t *b = cgt_query(ws, cache, "file", NULL);
	json_t *c = cgt_query(ws, cache, "VIỆT", NULL);

	(void)state;
	assert_int_equal(cgt_rank(a, "hanoi.md"), 0);
	assert_string_equal(str(cgt_hit(a, "hanoi.md"), "match"), "all");
	assert_int_equal(cgt_rank(b, "ligature.md"), 0);
	assert_int_equal(cgt_rank(c, "hanoi.md"), 0);
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

static void
test_stopwords(void **state)
{
	json_t *a = cgt_query(ws, cache, "how do I roll back a deploy", NULL);
	json_t *p = cgt_query(ws, cache, "roll back a deploy", NULL);
	json_t *only = cgt_query(ws, cache, "a", NULL);
	const json_t *h;
	size_t i;

	(void)state;
	/* Only the runbook: no page is a hit for "a", "how" or "do". */
	assert_int_equal(json_array_size(json_object_get(a, "hits")), 1);
	assert_int_equal(cgt_rank(a, "rollback.md"), 0);
	assert_int_equal(cgt_rank(a, "article.md"), -1);
	json_array_foreach(json_object_get(a, "hits"), i, h) {
		assert_null(strstr(str(h, "snippet"), "**a**"));
		assert_null(strstr(str(h, "snippet"), "**How**"));
	}
	/* Inside the phrase the stopword still counts. */
	assert_string_equal(str(cgt_hit(p, "rollback.md"), "match"), "phrase");
	assert_non_null(strstr(str(cgt_hit(p, "rollback.md"), "snippet"),
	                       "**roll back a deploy**"));
	/* A query of stopwords alone still searches them. */
	assert_int_equal(cgt_rank(only, "article.md"), 0);
	json_decref(a);
	json_decref(p);
	json_decref(only);
}

static void
test_slug(void **state)
{
	json_t *a = cgt_query(ws, cache, "postgres", NULL);
	json_t *b = cgt_query(ws, cache, "postgresql", NULL);

	(void)state;
	assert_int_equal(cgt_rank(a, "decisions/use-postgres.md"), 0);
	assert_string_equal(str(cgt_hit(a, "use-postgres.md"), "title"),
	                    "PostgreSQL");
	assert_int_equal(cgt_rank(b, "decisions/use-postgres.md"), 0);
	json_decref(a);
	json_decref(b);
}

static void
test_proximity(void **state)
{
	json_t *a = cgt_query(ws, cache, "archive compress", NULL);

	(void)state;
	assert_int_equal(cgt_rank(a, "near.md"), 0);
	assert_int_equal(cgt_rank(a, "far.md"), 1);
	assert_string_equal(str(cgt_hit(a, "far.md"), "match"), "all");
	json_decref(a);
}

/* Words in one list item rank above words split over two items or
 * between the title and the body, however near. */
static void
test_unit_tier(void **state)
{
	json_t *a = cgt_query(ws, cache, "volume mount", NULL);

	(void)state;
	assert_int_equal(cgt_rank(a, "one-item.md"), 0);
	assert_true(cgt_rank(a, "two-items.md") > 0);
	assert_true(cgt_rank(a, "title.md") > 0);
	assert_string_equal(str(cgt_hit(a, "two-items.md"), "match"), "all");
	assert_string_equal(str(cgt_hit(a, "title.md"), "match"), "all");
	json_decref(a);
}

/* Within the unit tier, the denser unit first: the words with the fewest
 * other words around them in their paragraph or list item. */
static void
test_unit_density(void **state)
{
	json_t *a = cgt_query(ws, cache, "directory open", NULL);

	(void)state;
	assert_int_equal(cgt_rank(a, "unit-short.md"), 0);
	assert_int_equal(cgt_rank(a, "unit-long.md"), 1);
	assert_string_equal(str(cgt_hit(a, "unit-short.md"), "match"), "all");
	assert_string_equal(str(cgt_hit(a, "unit-long.md"), "match"), "all");
	json_decref(a);
}

/* A unit's density counts its words less its stopwords: "Start the
 * server in the background" is about starting the server more than
 * "Start server daemon process background jobs", though longer in span. */
static void
test_unit_density_stopwords(void **state)
{
	json_t *a = cgt_query(ws, cache, "server start", NULL);

	(void)state;
	assert_int_equal(cgt_rank(a, "serve-stop.md"), 0);
	assert_int_equal(cgt_rank(a, "serve-plain.md"), 1);
	assert_string_equal(str(cgt_hit(a, "serve-plain.md"), "match"), "all");
	json_decref(a);
}

/* The query syntax with the ranking: an exclusion drops a page the word
 * forms bring, a required phrase filters the forms pass, and an OR group
 * whose other alternative is absent still gets the proximity bonus. */
static void
test_with_syntax(void **state)
{
	json_t *x = cgt_query(ws, cache, "retries -incident", NULL);
	json_t *q = cgt_query(ws, cache, "retries \"payment request\"", NULL);
	json_t *o = cgt_query(ws, cache, "compress OR zip archive", NULL);

	(void)state;
	assert_int_equal(cgt_rank(x, "retry-policy.md"), 0);
	assert_int_equal(cgt_rank(x, "retry-log.md"), -1);
	assert_int_equal(json_array_size(json_object_get(q, "hits")), 1);
	assert_int_equal(cgt_rank(q, "retry-log.md"), 0);
	assert_string_equal(str(cgt_hit(q, "retry-log.md"), "match"), "forms");
	assert_int_equal(cgt_rank(o, "near.md"), 0);
	assert_int_equal(cgt_rank(o, "far.md"), 1);
	assert_string_equal(str(cgt_hit(o, "far.md"), "match"), "all");
	json_decref(x);
	json_decref(q);
	json_decref(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_word_forms_below_exact),
	    cmocka_unit_test(test_folding),
	    cmocka_unit_test(test_stopwords),
	    cmocka_unit_test(test_slug),
	    cmocka_unit_test(test_proximity),
	    cmocka_unit_test(test_unit_tier),
	    cmocka_unit_test(test_unit_density),
	    cmocka_unit_test(test_unit_density_stopwords),
	    cmocka_unit_test(test_with_syntax),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
