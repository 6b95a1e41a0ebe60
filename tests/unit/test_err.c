/*
 * test_err.c - unit tests of common/cg_err.h's cg_err_set.
 *
 * cg_err_set is a macro over the function of the same name (so that the
 * static analyzers see the code it returns): it must still return the code
 * it was given, evaluate that code exactly once, keep the first message,
 * and accept a NULL error struct.
 */

/* cmocka.h needs these first. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_set_returns_code_once),
	    cmocka_unit_test(test_first_message_wins),
	    cmocka_unit_test(test_null_err),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
