/*
 * fuzz_git_path.c - libFuzzer target for the name rules of cache/git.c.
 * The first byte picks the rule, the rest is the input:
 *   0: cg_git_name_safe(bytes) must agree with an independent oracle;
 *   1: cg_git_branch_safe(string) may accept only a ref name of the
 *      documented shape;
 *   2: cg_git_materialise with the bytes as subdir (against a gitdir that
 *      does not exist) must say CG_EINVAL exactly when a component is
 *      unsafe, and CG_ENOTFOUND otherwise, creating nothing.
 * It must not print or write files.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <git2.h>

#include "cache/git.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NO_GITDIR "/nonexistent-cg-fuzz-git/repo"
#define NO_DEST   "/nonexistent-cg-fuzz-git/dest"
#define SHA       "0123456789abcdef0123456789abcdef01234567"

static bool
oracle_name(const uint8_t *p, size_t n)
{
	char low[4];

	if (n == 0 || n > 255)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] == 0 || p[i] == '/' || p[i] == '\\')
			return false;
	if (n == 1 && p[0] == '.')
		return false;
	if (n == 2 && p[0] == '.' && p[1] == '.')
		return false;
	if (n != 4)
		return true;
	for (size_t i = 0; i < 4; i++)
		low[i] = (char)tolower(p[i]);
	return memcmp(low, ".git", 4) != 0;
}

static void
check_name(const uint8_t *p, size_t n)
{
	/* An exact-size copy, so that a read past the end is caught. */
	uint8_t *copy = malloc(n ? n : 1);

	if (copy == NULL)
		return;
	memcpy(copy, p, n);
	if (cg_git_name_safe((const char *)copy, n) != oracle_name(copy, n))
		abort();
	free(copy);
}

static bool
branch_shape(const char *b)
{
	size_t n = strlen(b);

	if (n == 0 || n > 200 || strchr("-/.", b[0]) != NULL ||
	    b[n - 1] == '/' || strstr(b, "..") || strstr(b, "//") ||
	    strstr(b, "/.") || (n >= 5 && strcmp(b + n - 5, ".lock") == 0))
		return false;
	return strspn(b, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                 "0123456789._/-") == n;
}

static void
check_branch(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s == NULL)
		return;
	memcpy(s, p, n);
	s[n] = '\0';
	if (cg_git_branch_safe(s) != branch_shape(s))
		abort();
	free(s);
}

/* Every '/'-separated component of s (trailing '/' dropped) is safe. */
static bool
subdir_ok(const char *s)
{
	size_t n = strlen(s);
	size_t i = 0;

	while (n > 0 && s[n - 1] == '/')
		n--;
	while (i < n) {
		const char *slash = memchr(s + i, '/', n - i);
		size_t k = slash ? (size_t)(slash - (s + i)) : n - i;

		if (!oracle_name((const uint8_t *)s + i, k))
			return false;
		i += k + 1;
	}
	return true;
}

static void
check_subdir(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);
	cg_git_mat_stats st;
	int rc;

	if (s == NULL)
		return;
	memcpy(s, p, n);
	s[n] = '\0';
	rc = cg_git_materialise(NO_GITDIR, SHA, s, CG_GIT_RECURSIVE, NO_DEST,
	                        &st, NULL);
	if (rc != (subdir_ok(s) ? CG_ENOTFOUND : CG_EINVAL) || st.files != 0)
		abort();
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int held;

	/*
	 * One reference held for the process: cg_git_materialise's own
	 * init/shutdown pair is then cheap.
	 */
	if (!held)
		held = git_libgit2_init() > 0;
	if (size == 0)
		return 0;
	switch (data[0] % 3) {
	case 0:
		check_name(data + 1, size - 1);
		break;
	case 1:
		check_branch(data + 1, size - 1);
		break;
	default:
		check_subdir(data + 1, size - 1);
		break;
	}
	return 0;
}
