/*
 * prefix.h - the path prefix list, map and grep take (args.prefix): a
 * string prefix of the page path, matched against the path relative to
 * the repository root (".guild/wiki/decisions/") and relative to the wiki
 * folder ("decisions/"); "" or absent means everything.  Which source a
 * user's prefix names is the federation's business, not the node's.
 *
 * May be included by node/ only (ops_walk.c, ops_grep.c).  Must not: touch
 * the file system or the index beyond naming the wiki folder.
 */
#ifndef CG_PREFIX_H
#define CG_PREFIX_H

#include <stdbool.h>

#include "common/cg_err.h"
#include "index/index.h"

/* Longest prefix accepted, in bytes. */
#define CG_PREFIX_MAX 4096

/* A prefix as two half-open ranges of paths, for SQL: relative to the
 * repository [lo1, hi1) and relative to the wiki [lo2, hi2).  hi = lo +
 * 0xFF, a byte no UTF-8 path holds, so lo <= path < hi exactly when path
 * starts with lo.  All NULL when any. */
typedef struct cg_prefix {
	bool any; /* no prefix: everything */
	char *lo1, *hi1, *lo2, *hi2;
} cg_prefix;

/* The prefix s (NULL or "" for everything) in the source of idx.
 * CG_ETOOBIG over CG_PREFIX_MAX bytes, CG_ENOMEM. */
int cg_prefix_init(cg_prefix *p, const char *s, const cg_index *idx,
                   cg_err *err);
/* True when path (relative to the repository) starts with the prefix. */
bool cg_prefix_has(const cg_prefix *p, const char *path);
void cg_prefix_fini(cg_prefix *p);

#endif
