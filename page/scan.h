/*
 * scan.h - lists the page files of a wiki directory without reading them.
 *
 * Pages are *.md files at any depth, except index.md, log.md and lint-*.md
 * (wiki bookkeeping, SPEC 3.1) and anything under a directory whose name
 * starts with '.' or '_' (hidden and archive folders).  Symlinks are never
 * followed: a symlinked page or folder is listed with its kind so the
 * caller can report it.  Paths are relative to the repository root.
 *
 * May be included by page/ and every layer above it (proto, index, node,
 * federation, gateway, cli).
 */
#ifndef CG_SCAN_H
#define CG_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/cg_err.h"

enum cg_scan_kind {
	CG_SCAN_FILE = 0,    /* a regular page file */
	CG_SCAN_SYMLINK = 1, /* a symlink named *.md: not followed */
};

typedef struct cg_scan_entry {
	char *rel;            /* path relative to the repo root */
	const char *category; /* static category of its top folder, or NULL */
	int64_t size;
	int64_t mtime_ns;
	enum cg_scan_kind kind;
	/* Corpus sources (page/corpus_scan.c) only, else NULL/false: */
	json_t *overlay;       /* the index entry's metadata, owned */
	uint64_t overlay_hash; /* of its canonical JSON: part of the content */
	bool virt; /* no document here: the entry alone is indexed */
} cg_scan_entry;

typedef struct cg_scan {
	cg_scan_entry *v; /* sorted by rel */
	size_t n;
	size_t cap;
} cg_scan;

/* Walks wiki (absolute, inside repo).  Caps at 1,000,000 entries and a
 * folder depth of 32. */
int cg_scan_wiki(cg_scan *out, const char *repo, const char *wiki, cg_err *err);
void cg_scan_fini(cg_scan *s);

/* Sorts by rel (the order every consumer bsearches in). */
void cg_scan_sort(cg_scan *s);
/* Appends an entry (rel copied); CG_ENOMEM or CG_ETOOBIG. */
int cg_scan_push(cg_scan *s, const char *rel, int64_t size, int64_t mtime_ns,
                 enum cg_scan_kind kind);

/* True when the file name is wiki bookkeeping, not a page. */
int cg_scan_excluded(const char *name);

#endif
