/*
 * test_open_beneath.c - unit tests of cg_open_beneath (common/cg_fs.h),
 * the one secure open of a file below a folder that page reads and grep
 * share: a regular file is opened, a symlink anywhere on the path is
 * refused (even one pointing inside the folder), and every other failure
 * has its documented code, errno, and a message that names the path.
 *
 * Fixtures live in a temporary folder made by the test and removed after.
 */

/* cmocka.h needs these first. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cg_err.h"
#include "common/cg_fs.h"

/* The fixture: root/ holds a/b/page.md ("hello"), a/fifo, link.md ->
 * a/b/page.md, linkdir -> a, and out.md beside root that a symlink
 * root/a/escape.md points at. */
struct fx {
	char top[64];
	char root[128];
	int dirfd;
};

static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
at(char *out, size_t n, const struct fx *f, const char *rel)
{
	(void)snprintf(out, n, "%s/%s", f->root, rel);
}

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char p[512];

	assert_non_null(f);
	(void)snprintf(f->top, sizeof(f->top), "/tmp/cg-beneath-XXXXXX");
	assert_non_null(mkdtemp(f->top));
	(void)snprintf(f->root, sizeof(f->root), "%s/root", f->top);
	at(p, sizeof(p), f, "a/b");
	assert_int_equal(cg_mkdir_p(p, NULL), 0);
	at(p, sizeof(p), f, "a/b/page.md");
	put(p, "hello");
	at(p, sizeof(p), f, "a/fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	at(p, sizeof(p), f, "link.md");
	assert_int_equal(symlink("a/b/page.md", p), 0);
	at(p, sizeof(p), f, "linkdir");
	assert_int_equal(symlink("a", p), 0);
	(void)snprintf(p, sizeof(p), "%s/out.md", f->top);
	put(p, "outside");
	at(p, sizeof(p), f, "a/escape.md");
	assert_int_equal(symlink("../../out.md", p), 0);
	f->dirfd = open(f->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(f->dirfd >= 0);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;

	close(f->dirfd);
	assert_int_equal(cg_rm_rf(f->top), 0);
	free(f);
	return 0;
}

/* Opens rel (all of it) below the fixture; returns the code, the
 * descriptor in *fd, errno in *e and the message in err. */
static int
try_open(struct fx *f, const char *rel, int *fd, int *e, cg_err *err)
{
	int rc;

	cg_err_clear(err);
	errno = 0;
	rc = cg_open_beneath(fd, f->dirfd, rel, strlen(rel), err);
	*e = errno;
	/* The caller's folder is never closed or moved. */
	assert_true(fcntl(f->dirfd, F_GETFD) != -1);
	return rc;
}

/* Checks that rel is refused with code, errno e_want (or ENOTDIR in place
 * of ENOENT), no descriptor, and a message naming rel and saying why. */
static void
refused(struct fx *f, const char *rel, int code, int e_want, const char *why)
{
	cg_err err;
	int fd = 7;
	int e;

	assert_int_equal(try_open(f, rel, &fd, &e, &err), code);
	assert_int_equal(fd, -1);
	assert_int_equal(err.code, code);
	assert_true(e == e_want || (e_want == ENOENT && e == ENOTDIR));
	assert_non_null(strstr(err.msg, rel));
	assert_non_null(strstr(err.msg, why));
}

static void
test_regular_file_is_opened(void **state)
{
	struct fx *f = *state;
	char buf[16] = {0};
	cg_err err;
	int fd = -1;
	int e;

	assert_int_equal(try_open(f, "a/b/page.md", &fd, &e, &err), 0);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 5);
	assert_string_equal(buf, "hello");
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

static void
test_only_len_bytes_count(void **state)
{
	struct fx *f = *state;
	const char *rel = "a/b/page.md and more";
	cg_err err;
	int fd = -1;

	cg_err_clear(&err);
	assert_int_equal(
	    cg_open_beneath(&fd, f->dirfd, rel, strlen("a/b/page.md"), &err),
	    0);
	assert_true(fd >= 0);
	close(fd);
}

static void
test_symlinks_are_refused(void **state)
{
	/* A symlinked file, a symlinked folder on the way, and a symlink
	 * out of the folder: all refused, never followed. */
	refused(*state, "link.md", CG_EDENIED, ELOOP, "symlink");
	refused(*state, "linkdir/b/page.md", CG_EDENIED, ELOOP, "symlink");
	refused(*state, "a/escape.md", CG_EDENIED, ELOOP, "symlink");
}

static void
test_missing_is_not_found(void **state)
{
	refused(*state, "a/b/nope.md", CG_ENOTFOUND, ENOENT, "not found");
	refused(*state, "nope/page.md", CG_ENOTFOUND, ENOENT, "not found");
	refused(*state, "a/b/page.md/x", CG_ENOTFOUND, ENOTDIR, "not found");
}

static void
test_not_regular_is_invalid(void **state)
{
	/* A folder, and a FIFO (which must not block the open). */
	refused(*state, "a/b", CG_EINVAL, EINVAL, "not a regular file");
	refused(*state, "a/fifo", CG_EINVAL, EINVAL, "not a regular file");
}

static void
test_malformed_paths_are_invalid(void **state)
{
	const char *rels[] = {"",
	                      "/a/b/page.md",
	                      "a//b/page.md",
	                      "./a/b/page.md",
	                      "a/../a/b/page.md",
	                      "a/b/",
	                      "a/b/."};

	for (size_t i = 0; i < sizeof(rels) / sizeof(rels[0]); i++)
		refused(*state, rels[i], CG_EINVAL, EINVAL, "component");
}

static void
test_nul_byte_is_invalid(void **state)
{
	struct fx *f = *state;
	const char rel[] = "a/b\0/page.md";
	cg_err err;
	int fd = 7;

	cg_err_clear(&err);
	assert_int_equal(
	    cg_open_beneath(&fd, f->dirfd, rel, sizeof(rel) - 1, &err),
	    CG_EINVAL);
	assert_int_equal(fd, -1);
}

static void
test_long_component_is_too_big(void **state)
{
	char rel[NAME_MAX + 8];

	(void)snprintf(rel, sizeof(rel), "a/");
	memset(rel + 2, 'x', NAME_MAX + 1);
	rel[NAME_MAX + 3] = '\0';
	refused(*state, rel, CG_ETOOBIG, ENAMETOOLONG, "too long");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_regular_file_is_opened, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_only_len_bytes_count, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_symlinks_are_refused, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_missing_is_not_found, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_not_regular_is_invalid, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_paths_are_invalid,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nul_byte_is_invalid, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_long_component_is_too_big,
	                                    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
