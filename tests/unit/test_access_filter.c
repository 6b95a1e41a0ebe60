/*
 * test_access_filter.c - the gateway's second check of an answer against
 * a caller's policy (gateway/access.c), on answers built here: an object
 * in an array is removed when its uri, from, target_uri or winner names
 * a hidden page; a conflict is dropped whole when any of its pages is
 * hidden; strings that are not page uris are left alone; an inactive
 * policy changes nothing; the walk stops at depth 32.
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "gateway/access.h"

#define PUB    "cg://ws/pub/"
#define SECRET "cg://ws/secret/"

static cg_acl acl;

static int
setup(void **state)
{
	json_t *p = json_pack("{s:s, s:[s]}", "workspace", "ws", "deny",
	                      "cg://ws/secret/*");

	(void)state;
	assert_int_equal(cg_acl_from_json(&acl, p), 0);
	json_decref(p);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	cg_acl_fini(&acl);
	return 0;
}

static size_t
size_at(const json_t *o, const char *key)
{
	return json_array_size(json_object_get(o, key));
}

static void
test_hidden_items_removed(void **state)
{
	json_t *ans = json_pack(
	    "{s:[{s:s}, {s:s}, {s:s}], s:[{s:s, s:i}, {s:s, s:i}],"
	    " s:[{s:s, s:s}, {s:s, s:s}], s:[{s:s, s:s}]}",
	    "hits", "uri", PUB "a.md", "uri", SECRET "b.md", "uri", PUB "c.md",
	    "backlinks", "from", SECRET "d.md", "line", 3, "from", PUB "e.md",
	    "line", 4, "outgoing", "target", "x", "target_uri", SECRET "x.md",
	    "target", "y", "target_uri", PUB "y.md", "pick", "winner",
	    SECRET "w.md", "note", "a hidden winner");

	(void)state;
	assert_int_equal(cg_access_filter_answer(&acl, ans), 4);
	assert_int_equal(size_at(ans, "hits"), 2);
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_array_get(json_object_get(ans, "hits"), 1), "uri")),
	    PUB "c.md");
	assert_int_equal(size_at(ans, "backlinks"), 1);
	assert_int_equal(size_at(ans, "outgoing"), 1);
	assert_int_equal(size_at(ans, "pick"), 0);
	json_decref(ans);
}

/* A peek of a hidden page and of a missing one answer alike (issue 15,
 * finding 7): the node says not_found for both, and the item that holds
 * only that error is kept, while a hidden item with content goes. */
static void
test_error_items_kept(void **state)
{
	json_t *ans = json_pack(
	    "{s:[{s:i, s:s, s:s, s:{s:s, s:s}}, {s:i, s:s, s:s, s:{s:s, s:s}},"
	    " {s:i, s:s, s:s}]}",
	    "pages", "index", 0, "uri", SECRET "h.md", "path", "h.md", "error",
	    "code", "not_found", "message", "no such page 'h.md'", "index", 1,
	    "uri", PUB "m.md", "path", "m.md", "error", "code", "not_found",
	    "message", "no such page 'm.md'", "index", 2, "uri", SECRET "t.md",
	    "title", "Secret title");

	(void)state;
	assert_int_equal(cg_access_filter_answer(&acl, ans), 1);
	assert_int_equal(size_at(ans, "pages"), 2);
	json_decref(ans);
}

static void
test_conflict_dropped_whole(void **state)
{
	json_t *ans = json_pack(
	    "{s:[{s:s, s:s, s:[{s:s}, {s:s}]}, {s:s, s:s, s:[{s:s}, {s:s}]}]}",
	    "conflicts", "claim_key", "db", "winner", PUB "a.md", "pages",
	    "uri", PUB "a.md", "uri", SECRET "b.md", "claim_key", "cache",
	    "winner", PUB "c.md", "pages", "uri", PUB "c.md", "uri",
	    PUB "d.md");

	(void)state;
	/* The visible winner alone would reveal that a hidden page
	 * disagrees: the whole conflict goes. */
	assert_int_equal(cg_access_filter_answer(&acl, ans), 1);
	assert_int_equal(size_at(ans, "conflicts"), 1);
	assert_string_equal(
	    json_string_value(json_object_get(
	        json_array_get(json_object_get(ans, "conflicts"), 0),
	        "claim_key")),
	    "cache");
	json_decref(ans);
}

static void
test_other_strings_kept(void **state)
{
	cg_acl pub_only;
	json_t *p = json_pack("{s:s, s:[s]}", "workspace", "ws", "allow",
	                      "cg://ws/pub/*");
	json_t *ans = json_pack("{s:s, s:[{s:s}, {s:s}, s, {s:s}, {s:s}]}",
	                        "uri", SECRET "top.md", "items", "uri",
	                        "https://secret.example/x", "uri",
	                        "secret/b.md", SECRET "as-a-string.md", "title",
	                        SECRET "in-a-title.md", "uri", SECRET "c.md");

	(void)state;
	assert_int_equal(cg_acl_from_json(&pub_only, p), 0);
	/* Only objects in arrays are removed, and only by their uri keys
	 * holding a cg:// uri that the policy does not grant. */
	assert_int_equal(cg_access_filter_answer(&pub_only, ans), 1);
	assert_int_equal(size_at(ans, "items"), 4);
	cg_acl_fini(&pub_only);
	json_decref(p);
	json_decref(ans);
}

static void
test_inactive_policy(void **state)
{
	cg_acl none;
	json_t *ans = json_pack("{s:[{s:s}]}", "hits", "uri", SECRET "b.md");

	(void)state;
	assert_int_equal(cg_acl_from_json(&none, NULL), 0);
	assert_int_equal(cg_access_filter_answer(&none, ans), 0);
	assert_int_equal(size_at(ans, "hits"), 1);
	cg_acl_fini(&none);
	json_decref(ans);
}

/* {"x": [{"x": [ ... [hidden] ]}]} with levels arrays: the last array
 * sits at depth 2 * levels - 1. */
static json_t *
nested(int levels)
{
	json_t *v = json_pack("[{s:s}]", "uri", SECRET "deep.md");

	for (int i = 1; i < levels; i++)
		v = json_pack("[{s:o}]", "x", v);
	return json_pack("{s:o}", "x", v);
}

static void
test_depth_bound(void **state)
{
	json_t *in = nested(16);   /* hidden item's array at depth 31 */
	json_t *past = nested(17); /* at depth 33: not walked */

	(void)state;
	assert_int_equal(cg_access_filter_answer(&acl, in), 1);
	assert_int_equal(cg_access_filter_answer(&acl, past), 0);
	json_decref(in);
	json_decref(past);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hidden_items_removed),
	    cmocka_unit_test(test_error_items_kept),
	    cmocka_unit_test(test_conflict_dropped_whole),
	    cmocka_unit_test(test_other_strings_kept),
	    cmocka_unit_test(test_inactive_policy),
	    cmocka_unit_test(test_depth_bound),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
