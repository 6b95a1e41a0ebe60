/*
 * cgalloc.h - the allocator seam's hooks, for allocation-failure sweeps
 * (common/cg_alloc.h decides which allocation fails; this file makes the
 * allocations ask it).  Two kinds of hook:
 *
 * - Our own code: a sweep binary is linked with the linker's
 *   --wrap=malloc,calloc,realloc,strdup,strndup,asprintf,realpath
 *   (tests/CMakeLists.txt, CG_ALLOC_WRAP), so every call to those in the
 *   objects linked into it (the project's static libraries, the test and
 *   its support code) goes to __wrap_malloc and the others defined here,
 *   which ask the seam and then call the real function.  Calls made inside
 *   shared libraries, libc's own included, are not rewritten.
 * - The libraries that accept an allocator: cga_install() gives SQLite
 *   (SQLITE_CONFIG_MALLOC, before sqlite3_initialize), jansson
 *   (json_set_alloc_funcs), libgit2 (GIT_OPT_SET_ALLOCATOR, with one
 *   library reference held for the process so that it stays installed),
 *   libcurl (curl_global_init_mem, before cache/httpc.c's own
 *   curl_global_init, which then only counts a reference) and libcrypto
 *   (CRYPTO_set_mem_functions, used by common/cg_sha256.c and libcurl's
 *   TLS) allocators that ask the seam.
 *
 * Not covered (no hook, so an allocation there never fails in a sweep):
 * nng and libmicrohttpd (no allocator hook; a sweep runs in-process,
 * gateway/embed.h, without either), libyaml, utf8proc, md4c, libstemmer,
 * PCRE2 (its general contexts could take one, but the product passes
 * NULL), and libc's allocations inside its own functions (getline,
 * opendir, fopen, qsort, strerror).  asprintf and realpath(p, NULL) are
 * wrapped as whole calls: they fail as a unit, as they would when libc's
 * malloc inside them failed.
 *
 * Tests only: a binary that includes this must be linked with
 * CG_ALLOC_WRAP, or __real_malloc is undefined.  Call cga_install() first
 * in main, before anything opens a database or parses JSON.
 */
#ifndef CG_TEST_ALLOC_H
#define CG_TEST_ALLOC_H

#include <stddef.h>

/* Installs the library allocators (once; later calls do nothing). */
void cga_install(void);

#endif
