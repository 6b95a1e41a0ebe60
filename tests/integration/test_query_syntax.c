/*
 * test_query_syntax.c - the query syntax through the real binary:
 * "exact phrase" keeps only pages with the phrase, -word drops whole pages
 * (as one argument, as a separate argument, and after "--"), word* and OR
 * widen, a query of exclusions only is a clear error, and hostile text
 * (unbalanced quotes, lone operators, FTS5 syntax, control bytes) never
 * leaks an FTS5 error or crashes.  --help documents the syntax.
 *
 * Fixtures are written inline: a workspace with two sub-guilds.
 */
#define _GNU_SOURCE /* strcasestr */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"

static char *ws;
static char *cache;

static int
setup(void **state)
{
	(void)state;
	ws = cgt_tmpdir("qsyn");
	cache = cgt_tmpdir("qsyn-cache");
	cgt_write(ws, ".guild/workspace.json",
	          "{\"schema\": \"guild.workspace.v1\", \"root_wiki\": true,"
	          " \"sub_guilds\": ["
	          "  {\"name\": \"mobile\", \"path\": \"apps/mobile\","
	          "   \"kind\": \"service\", \"has_wiki\": true},"
	          "  {\"name\": \"payments\", \"path\": \"services/payments\","
	          "   \"kind\": \"service\", \"has_wiki\": true}]}");
	cgt_page(ws, "apps/mobile/.guild/wiki/standards/retry-policy.md",
	         "type: standard",
	         "# Retry policy\n\nRetry requests with exponential backoff."
	         "\n\n## Scope\n\nApplies to the phone clients of the mobile "
	         "app.\n");
	cgt_page(ws, "services/payments/.guild/wiki/standards/retry-policy.md",
	         "type: standard",
	         "# Retry policy\n\nRetry charges with the same idempotency "
	         "key.\n");
	cgt_page(ws, ".guild/wiki/concepts/keys.md", "type: concept",
	         "# Keys\n\nThe key of a charge is not an idempotency "
	         "token.\n");
	cgt_page(ws, ".guild/wiki/context/backoff.md", "type: context",
	         "# Backoff\n\nBackoff between attempts.\n");
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

static size_t
nhits(const json_t *ans)
{
	return json_array_size(json_object_get(ans, "hits"));
}

/* The hit of source whose uri ends with suffix, or NULL. */
static const json_t *
find(const json_t *ans, const char *source, const char *suffix)
{
	const json_t *h;
	size_t i;

	json_array_foreach(json_object_get(ans, "hits"), i, h) {
		const char *u = json_string_value(json_object_get(h, "uri"));
		const char *s = json_string_value(json_object_get(h, "source"));

		if (u != NULL && s != NULL && strcmp(s, source) == 0 &&
		    strlen(u) >= strlen(suffix) &&
		    strcmp(u + strlen(u) - strlen(suffix), suffix) == 0)
			return h;
	}
	return NULL;
}

#define MOBILE   "mobile", "standards/retry-policy.md"
#define PAYMENTS "payments", "standards/retry-policy.md"
#define KEYS     "root", "concepts/keys.md"
#define BACKOFF  "root", "context/backoff.md"

static void
test_phrase(void **state)
{
	json_t *a = cgt_query(ws, cache, "\"idempotency key\"", NULL);
	json_t *b = cgt_query(ws, cache, "idempotency key", NULL);
	json_t *c = cgt_query(ws, cache, "charge \"idempotency key\"", NULL);

	(void)state;
	assert_int_equal(nhits(a), 1);
	assert_non_null(find(a, PAYMENTS));
	/* without quotes the page holding both words is found too */
	assert_non_null(find(b, PAYMENTS));
	assert_non_null(find(b, KEYS));
	/* with another word, still only pages with the phrase */
	assert_int_equal(nhits(c), 1);
	assert_non_null(find(c, PAYMENTS));
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

/* -mobile drops the mobile page though "mobile" is in another section
 * than "retry"; as one argument, two, and after "--". */
static void
test_exclude(void **state)
{
	json_t *plain = cgt_query(ws, cache, "retry", NULL);
	json_t *a = cgt_query(ws, cache, "retry -mobile", NULL);
	json_t *b = cgt_query(ws, cache, "retry", "-mobile", NULL);
	json_t *c = cgt_query(ws, cache, "--", "-mobile", "retry", NULL);
	json_t *d = cgt_query(ws, cache, "retry -\"phone clients\"", NULL);
	const json_t *v[] = {a, b, c, d};

	(void)state;
	assert_non_null(find(plain, MOBILE));
	assert_non_null(find(plain, PAYMENTS));
	for (size_t i = 0; i < 4; i++) {
		assert_null(find(v[i], MOBILE));
		assert_non_null(find(v[i], PAYMENTS));
	}
	json_decref(plain);
	for (size_t i = 0; i < 4; i++)
		json_decref((json_t *)v[i]);
}

static void
test_prefix_or(void **state)
{
	/* "idempo" is no word form of "idempotency" (its stem is
	 * "idempot"): only the '*' finds it */
	json_t *a = cgt_query(ws, cache, "idempo*", NULL);
	json_t *b = cgt_query(ws, cache, "idempo", NULL);
	json_t *c = cgt_query(ws, cache, "backoff OR token", NULL);
	json_t *d = cgt_query(ws, cache, "retry backoff OR idempotency", NULL);

	(void)state;
	assert_non_null(find(a, PAYMENTS));
	assert_non_null(find(a, KEYS));
	assert_int_equal(nhits(b), 0);
	assert_int_equal(nhits(c), 3);
	assert_non_null(find(c, KEYS));
	assert_non_null(find(c, BACKOFF));
	assert_non_null(find(c, MOBILE));
	/* both retry pages hold "retry" and one of the alternatives: the
	 * all-words class */
	assert_string_equal(
	    json_string_value(json_object_get(find(d, MOBILE), "match")),
	    "all");
	assert_string_equal(
	    json_string_value(json_object_get(find(d, PAYMENTS), "match")),
	    "all");
	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(d);
}

/* True when text shows an FTS5 or SQLite error leaking through. */
static bool
leaks(const char *text)
{
	static const char *const marks[] = {"fts5",           "syntax error",
	                                    "malformed",      "unterminated",
	                                    "no such column", "sqlite"};

	for (size_t i = 0; text != NULL && i < 6; i++)
		if (strcasestr(text, marks[i]) != NULL)
			return true;
	return false;
}

static void
test_hostile(void **state)
{
	static const char *const hostile[] = {
	    "\"retry",
	    "retry\"",
	    "-",
	    "- retry",
	    "*",
	    "retry *",
	    "OR",
	    "OR OR",
	    "retry OR",
	    "OR retry",
	    "retry OR OR backoff",
	    "NOT retry",
	    "retry NOT mobile",
	    "NEAR(retry backoff)",
	    "title:retry",
	    "{title body}: retry",
	    "retry^",
	    "\"\"",
	    "-\"\"",
	    "retry -",
	    "(retry",
	    "retry AND",
	    "\x01retry\x02",
	    "retry\x1f-mobile\x7f",
	    "-*",
	    "\"a\"\"b\"",
	    "***retry***",
	    "retry -\"unbalanced",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		const char *argv[] = {
		    "corpus-gw", "query", "--json", "--workspace", ws,
		    "--cache",   cache,   "--",     hostile[i],    NULL};
		char *out = NULL;
		char *err = NULL;
		int rc = cgt_runv(&out, &err, argv);

		if (rc != 0 || leaks(out) || leaks(err))
			fail_msg("query '%s': exit %d\n%s\n%s", hostile[i], rc,
			         out, err);
		free(out);
		free(err);
	}
}

static void
test_exclusions_only(void **state)
{
	static const char *const texts[] = {"-mobile", "-mobile -\"a b\"",
	                                    "-retry*"};

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		char *out = NULL;
		char *err = NULL;
		int rc = cgt_run(&out, &err, "query", "--workspace", ws,
		                 "--cache", cache, "--", texts[i], NULL);

		assert_int_not_equal(rc, 0);
		assert_non_null(strstr(err, "only excludes"));
		assert_false(leaks(err));
		free(out);
		free(err);
	}
}

static void
test_help(void **state)
{
	char *out = NULL;
	int rc = cgt_run(&out, NULL, "query", "--help", NULL);

	(void)state;
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "Query syntax"));
	assert_non_null(strstr(out, "-word"));
	assert_non_null(strstr(out, "word*"));
	assert_non_null(strstr(out, "a OR b"));
	assert_non_null(strstr(out, "\"exact phrase\""));
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_phrase),
	    cmocka_unit_test(test_exclude),
	    cmocka_unit_test(test_prefix_or),
	    cmocka_unit_test(test_hostile),
	    cmocka_unit_test(test_exclusions_only),
	    cmocka_unit_test(test_help),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
