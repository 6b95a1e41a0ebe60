/*
 * schema.h - what an index generation holds, as every file of index/
 * agrees on it: the schema version, the pages it takes (the size cap), how
 * a section's rowid is made, and what a sync that fills it reports.  The
 * tables themselves are created by index.c and filled by index_write.c.
 *
 * May be included by index/ and the layers above it (node, gateway, cli);
 * index.h includes it.  Must not: declare functions (it is the ground
 * index.c and index_write.c both stand on).
 */
#ifndef CG_SCHEMA_H
#define CG_SCHEMA_H

#include <stdint.h>

/* 5: grapheme clusters of Thai, Lao, Khmer, Myanmar, ... are tokens of
 * their own (page/token.h); an older index is rebuilt. */
#define CG_SCHEMA_VERSION 5

/* Pages larger than this are not indexed (reported; grep still reads). */
#define CG_PAGE_MAX_BYTES (8u << 20)

/* Section rowids are (page id << CG_SEC_SHIFT) | section number. */
#define CG_SEC_SHIFT 16

/* What one sync did; the counters feed --explain and the receipt. */
typedef struct cg_sync_stats {
	int64_t generation; /* live generation after the sync */
	int rebuilt;        /* 1 when a new generation was built */
	int files;          /* page files seen */
	int read;           /* files read (size or mtime changed) */
	int reparsed;       /* files whose content changed, re-indexed */
	int added;
	int deleted;
	int skipped; /* files refused (binary, too big, symlink) */
	char rebuild_reason[160];
} cg_sync_stats;

#endif
