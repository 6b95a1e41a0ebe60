/*
 * test_err.c - unit tests of common/cg_err.h's cg_err_set and cg_strerror.
 *
 * cg_err_set is a macro over the function of the same name (so that the
 * static analyzers see the code it returns): it must still return the code
 * it was given, evaluate that code exactly once, keep the first message,
 * and accept a NULL error struct.  cg_strerror must give strerror's text
 * (also for an unknown number), from a buffer of its own.
 */

/* cmocka.h needs these first. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/cg_err.h"

static int calls;

/* A code with a side effect: counts its evaluations. */
static int
counted(int code)
{
	calls++;
	return code;
}

static void
test_set_returns_code_once(void **state)
{
	cg_err err;

	(void)state;
	cg_err_clear(&err);
	calls = 0;
	assert_int_equal(cg_err_set(&err, counted(CG_EIO), "disk %d", 1),
	                 CG_EIO);
	assert_int_equal(calls, 1);
	assert_int_equal(err.code, CG_EIO);
	assert_string_equal(err.msg, "disk 1");
}

static void
test_first_message_wins(void **state)
{
	cg_err err;

	(void)state;
	cg_err_clear(&err);
	assert_int_equal(cg_err_set(&err, CG_ENOMEM, "inner"), CG_ENOMEM);
	assert_int_equal(cg_err_set(&err, CG_EINVAL, "outer %s", "x"),
	                 CG_EINVAL);
	assert_int_equal(err.code, CG_ENOMEM);
	assert_string_equal(err.msg, "inner");
}

static void
test_null_err(void **state)
{
	(void)state;
	assert_int_equal(cg_err_set(NULL, CG_ETOOBIG, "big"), CG_ETOOBIG);
}

static void
test_strerror(void **state)
{
	char want[128];

	(void)state;
	assert_string_equal(cg_strerror(ENOENT).s, strerror(ENOENT));
	assert_string_equal(cg_strerror(EACCES).s, strerror(EACCES));
	(void)snprintf(want, sizeof(want), "%s", strerror(123456));
	assert_string_equal(cg_strerror(123456).s, want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_set_returns_code_once),
	    cmocka_unit_test(test_first_message_wins),
	    cmocka_unit_test(test_null_err),
	    cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
