/*
 * test_acl_sources.c - whether a policy hides a whole source
 * (cg_acl_sees_source, proto/acl.h; issue 15, finding 12): an allow list
 * that no uri of the source can match hides it, a deny glob matching
 * every uri of the source hides it, and every glob that leaves one page
 * visible (a deny of one page, of *.md files only, an allow with a
 * wildcard workspace, a bracket) keeps it; the answer agrees with the
 * page check (cg_acl_allows) on a page of each source.
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "proto/acl.h"

/* The verdict of policy {allow, deny} (JSON text) on source src of
 * workspace ws. */
static bool
sees(const char *policy, const char *src)
{
	json_t *p = json_loads(policy, 0, NULL);
	cg_acl acl;
	bool v;

	assert_non_null(p);
	assert_int_equal(cg_acl_from_json(&acl, p), 0);
	v = cg_acl_sees_source(&acl, "acme", src);
	/* A source with a visible page is never hidden. */
	acl.workspace = "acme";
	if (cg_acl_allows(&acl, src, "notes/page.md"))
		assert_true(v);
	cg_acl_fini(&acl);
	json_decref(p);
	return v;
}

static void
test_allow_list(void **state)
{
	const char *billing = "{\"allow\": [\"cg://acme/billing/*\"]}";

	(void)state;
	assert_true(sees(billing, "billing"));
	assert_false(sees(billing, "web"));
	assert_false(sees(billing, "bill"));
	assert_true(sees("{\"allow\": [\"cg://*/billing/*\"]}", "billing"));
	assert_true(sees("{\"allow\": [\"cg://acme/[bw]*\"]}", "web"));
	assert_false(sees("{\"allow\": [\"cg://acme/[bw]*\"]}", "root"));
	assert_true(sees("{\"allow\": [\"cg://acme/w?b/x.md\"]}", "web"));
	assert_false(sees("{\"allow\": []}", "web"));
	assert_true(sees("{}", "web"));
}

static void
test_deny_list(void **state)
{
	(void)state;
	assert_false(sees("{\"deny\": [\"cg://acme/web/*\"]}", "web"));
	assert_true(sees("{\"deny\": [\"cg://acme/web/*\"]}", "webx"));
	assert_false(sees("{\"deny\": [\"cg://acme/w*\"]}", "web"));
	assert_false(sees("{\"deny\": [\"*/web/*\"]}", "web"));
	assert_false(sees("{\"deny\": [\"*\"]}", "web"));
	assert_true(sees("{\"deny\": [\"cg://acme/web/*.md\"]}", "web"));
	assert_true(sees("{\"deny\": [\"cg://acme/web/a/*\"]}", "web"));
	assert_true(sees("{\"deny\": [\"cg://acme/web/\"]}", "web"));
	assert_false(sees("{\"allow\": [\"cg://acme/*\"], \"deny\": "
	                  "[\"cg://acme/web*\"]}",
	                  "web"));
}

/* Many stars cannot make the check take long: it gives the cautious
 * answer (visible) when out of steps. */
static void
test_star_bomb(void **state)
{
	char glob[1100] = "cg://";
	json_t *p;
	cg_acl acl;

	(void)state;
	for (size_t i = strlen(glob); i < 1000; i += 2)
		memcpy(glob + i, "*a", 3);
	p = json_pack("{s:[s]}", "deny", glob);
	assert_int_equal(cg_acl_from_json(&acl, p), 0);
	(void)cg_acl_sees_source(&acl, "acme",
	                         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	cg_acl_fini(&acl);
	json_decref(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_allow_list),
	    cmocka_unit_test(test_deny_list),
	    cmocka_unit_test(test_star_bomb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
