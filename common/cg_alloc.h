/*
 * cg_alloc.h - the allocator seam: the one place that decides whether an
 * allocation fails, for the allocation-failure sweeps of the tests
 * (STYLE.md: faults injected into the allocator to test every error path).
 * Every allocator hook counts itself here with cg_alloc_fault(), which says
 * whether this allocation is the one to fail; the hooks themselves (the
 * linker's --wrap=malloc,... of our own code, and the custom allocators of
 * SQLite, jansson, libgit2, libcurl and libcrypto) live with the test
 * support (tests/support/cgalloc.h), since they call the real allocator by
 * the names the linker's --wrap gives it and only a test binary links so.
 *
 * Production pays nothing: the product's code calls malloc and friends
 * directly, nothing in the product calls this module, and a static
 * library's unused object is not linked into the corpus-gw binary.
 *
 * What it counts is only what the hooks see (tests/support/cgalloc.h says
 * which allocations those are and which not: nng, libmicrohttpd, libyaml,
 * utf8proc, PCRE2, md4c, libstemmer and libc's own allocations inside
 * asprintf's siblings, getline or opendir have no hook).
 *
 * May be included by any layer; used by tests only.  Must not allocate
 * (it is called from inside allocators) or take a lock that an allocation
 * could re-enter.
 */
#ifndef CG_ALLOC_H
#define CG_ALLOC_H

#include <stdbool.h>

/* Starts counting allocations from zero; the n-th one from now (1-based)
 * fails and every other one succeeds; n 0 fails none (a counting run). */
void cg_alloc_arm(unsigned long n);

/* Stops counting and failing; returns how many allocations were counted
 * since cg_alloc_arm. */
unsigned long cg_alloc_disarm(void);

/* Called by every hook before it allocates: counts one allocation while
 * armed and returns true when it must fail (return NULL, errno ENOMEM). */
bool cg_alloc_fault(void);

/* How many allocations failed since the last cg_alloc_arm (0 or 1): a
 * sweep checks it, so that a step whose fault was never reached cannot
 * pass for one that held. */
unsigned long cg_alloc_failed(void);

#endif
