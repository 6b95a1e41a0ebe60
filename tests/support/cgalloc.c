/*
 * cgalloc.c - the hooks of tests/support/cgalloc.h: the --wrap targets
 * for our own code and the allocators given to SQLite, jansson, libgit2,
 * libcurl and libcrypto, each asking common/cg_alloc.h whether to fail
 * and otherwise calling the real allocator (__real_malloc: the name the
 * linker's --wrap gives libc's malloc in a wrapped binary).
 *
 * Must not: be linked into a binary without CG_ALLOC_WRAP (its
 * __real_* references would be undefined; a static library's object is
 * linked only when something calls it, so the other tests never pull it
 * in), or change what a successful allocation returns.
 */
#define _GNU_SOURCE
#include "cgalloc.h"

#include <errno.h>
#include <malloc.h>
#include <openssl/crypto.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <git2.h>
#include <git2/sys/alloc.h>
#include <jansson.h>
#include <sqlite3.h>

#include "common/cg_alloc.h"

/* The real functions, as --wrap names them, and our wrappers. */
void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
char *__real_realpath(const char *path, char *resolved);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_asprintf(char **out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *__wrap_realpath(const char *path, char *resolved);

/* True when this allocation must fail (errno set as libc sets it). */
static int
fail(void)
{
	if (!cg_alloc_fault())
		return 0;
	errno = ENOMEM;
	return 1;
}

void *
__wrap_malloc(size_t n)
{
	return fail() ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t k, size_t n)
{
	return fail() ? NULL : __real_calloc(k, n);
}

void *
__wrap_realloc(void *p, size_t n)
{
	return fail() ? NULL : __real_realloc(p, n);
}

char *
__wrap_strdup(const char *s)
{
	return fail() ? NULL : __real_strdup(s);
}

char *
__wrap_strndup(const char *s, size_t n)
{
	return fail() ? NULL : __real_strndup(s, n);
}

int
__wrap_asprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int rc;

	if (fail())
		return -1;
	va_start(ap, fmt);
	rc = vasprintf(out, fmt, ap);
	va_end(ap);
	return rc;
}

char *
__wrap_realpath(const char *path, char *resolved)
{
	if (resolved == NULL && fail())
		return NULL;
	return __real_realpath(path, resolved);
}

/* --- SQLite: its size query is malloc_usable_size, as its own default
 * allocator's is on glibc. */

static void *
sq_malloc(int n)
{
	return n <= 0 || fail() ? NULL : __real_malloc((size_t)n);
}

static void
sq_free(void *p)
{
	free(p);
}

static void *
sq_realloc(void *p, int n)
{
	return n <= 0 || fail() ? NULL : __real_realloc(p, (size_t)n);
}

static int
sq_size(void *p)
{
	return p ? (int)malloc_usable_size(p) : 0;
}

static int
sq_roundup(int n)
{
	return (n + 7) & ~7;
}

static int
sq_init(void *app)
{
	return SQLITE_OK;
}

static void
sq_shutdown(void *app)
{
}

/* --- jansson, libcurl ---------------------------------------------------- */

static void *
plain_malloc(size_t n)
{
	return __wrap_malloc(n);
}

static void
plain_free(void *p)
{
	free(p);
}

/* --- libgit2 -------------------------------------------------------------- */

static void *
g_malloc(size_t n, const char *file, int line)
{
	return __wrap_malloc(n);
}

static void *
g_calloc(size_t k, size_t n, const char *file, int line)
{
	return __wrap_calloc(k, n);
}

static char *
g_strdup(const char *s, const char *file, int line)
{
	return __wrap_strdup(s);
}

static char *
g_strndup(const char *s, size_t n, const char *file, int line)
{
	return __wrap_strndup(s, n);
}

static char *
g_substrdup(const char *s, size_t n, const char *file, int line)
{
	char *p = n == (size_t)-1 ? NULL : __wrap_malloc(n + 1);

	if (p != NULL) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

static void *
g_realloc(void *p, size_t n, const char *file, int line)
{
	return __wrap_realloc(p, n);
}

static void *
g_reallocarray(void *p, size_t k, size_t n, const char *file, int line)
{
	if (n != 0 && k > (size_t)-1 / n)
		return NULL;
	return __wrap_realloc(p, k * n);
}

static void *
g_mallocarray(size_t k, size_t n, const char *file, int line)
{
	return g_reallocarray(NULL, k, n, file, line);
}

/* --- libcrypto -------------------------------------------------------- */

static void *
c_malloc(size_t n, const char *file, int line)
{
	return __wrap_malloc(n);
}

static void *
c_realloc(void *p, size_t n, const char *file, int line)
{
	return __wrap_realloc(p, n);
}

static void
c_free(void *p, const char *file, int line)
{
	free(p);
}

void
cga_install(void)
{
	static const sqlite3_mem_methods sq = {
	    sq_malloc,  sq_free, sq_realloc,  sq_size,
	    sq_roundup, sq_init, sq_shutdown, NULL};
	static git_allocator ga = {g_malloc,       g_calloc,      g_strdup,
	                           g_strndup,      g_substrdup,   g_realloc,
	                           g_reallocarray, g_mallocarray, free};
	static int done;

	if (done)
		return;
	done = 1;
	/* libcrypto first: libcurl's global init starts it. */
	if (CRYPTO_set_mem_functions(c_malloc, c_realloc, c_free) != 1 ||
	    sqlite3_config(SQLITE_CONFIG_MALLOC, &sq) != SQLITE_OK) {
		(void)fprintf(stderr, "cga_install: called too late (a library"
		                      " allocated before it)\n");
		abort();
	}
	json_set_alloc_funcs(plain_malloc, plain_free);
	if (git_libgit2_opts(GIT_OPT_SET_ALLOCATOR, &ga) < 0 ||
	    git_libgit2_init() < 0)
		abort();
	if (curl_global_init_mem(CURL_GLOBAL_DEFAULT, plain_malloc, plain_free,
	                         __wrap_realloc, __wrap_strdup,
	                         __wrap_calloc) != CURLE_OK)
		abort();
}
