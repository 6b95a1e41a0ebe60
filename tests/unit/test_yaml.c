/*
 * test_yaml.c - the bounded YAML reader's aliases (common/cg_yaml.h,
 * issue 15 finding 8): an alias is a copy of its anchor within the caps; an
 * alias bomb, a cycle, an unknown anchor and too many aliases are refused
 * with their reason, fast.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "common/cg_yaml.h"

static json_t *
load(const char *y, size_t max_nodes, int *rc, cg_err *err)
{
	json_t *v = NULL;

	cg_err_clear(err);
	*rc = cg_yaml_load(y, strlen(y), 1 << 20, max_nodes, &v, err);
	return v;
}

static void
test_alias_copies_anchor(void **state)
{
	const char *y = "defaults: &d\n  strategy: none\n  ttl: 3\n"
	                "a:\n  cache: *d\n"
	                "name: &n harbour\n"
	                "b: [*n, *n]\n"
	                "*n : keyed\n";
	cg_err err;
	int rc;
	json_t *v = load(y, 1000, &rc, &err);
	json_t *cache;

	(void)state;
	assert_int_equal(rc, 0);
	cache = json_object_get(json_object_get(v, "a"), "cache");
	assert_true(json_equal(cache, json_object_get(v, "defaults")));
	/* A copy: changing it leaves the anchor alone. */
	json_object_set_new(cache, "ttl", json_integer(9));
	assert_int_equal(json_integer_value(json_object_get(
	                     json_object_get(v, "defaults"), "ttl")),
	                 3);
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(v, "b"), 1)),
	    "harbour");
	assert_string_equal(json_string_value(json_object_get(v, "harbour")),
	                    "keyed");
	json_decref(v);
}

static void
test_alias_bomb_refused(void **state)
{
	char y[4096];
	size_t off = 0;
	cg_err err;
	int rc;
	json_t *v;

	(void)state;
	off += (size_t)snprintf(y, sizeof(y), "a: &a [x,x,x,x,x,x,x,x,x]\n");
	for (char c = 'b'; c <= 'z'; c++)
		off += (size_t)snprintf(y + off, sizeof(y) - off,
		                        "%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,"
		                        "*%c,*%c]\n",
		                        c, c, c - 1, c - 1, c - 1, c - 1, c - 1,
		                        c - 1, c - 1, c - 1, c - 1);
	v = load(y, 2000000, &rc, &err);
	assert_null(v);
	assert_int_equal(rc, CG_ETOOBIG);
	assert_non_null(strstr(err.msg, "aliases expand to more than 1000 "));
}

static void
test_alias_refusals(void **state)
{
	char y[16384];
	size_t off;
	cg_err err;
	int rc;

	(void)state;
	assert_null(load("a: &a [1, *a]\n", 1000, &rc, &err));
	assert_non_null(strstr(err.msg, "inside its own anchor"));
	assert_null(load("a: *nope\n", 1000, &rc, &err));
	assert_int_equal(rc, CG_EPARSE);
	assert_non_null(strstr(err.msg, "names no anchor"));
	/* 1,001 aliases of one node each: the alias cap also caps their
	 * number. */
	off = (size_t)snprintf(y, sizeof(y), "a: &a 1\nb: [");
	for (int i = 0; i < CG_YAML_MAX_ALIAS_NODES; i++)
		off += (size_t)snprintf(y + off, sizeof(y) - off, "*a,");
	(void)snprintf(y + off, sizeof(y) - off, "*a]\n");
	assert_null(load(y, 1000000, &rc, &err));
	assert_non_null(strstr(err.msg, "aliases expand to more than 1000 "));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_alias_copies_anchor),
	    cmocka_unit_test(test_alias_bomb_refused),
	    cmocka_unit_test(test_alias_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
