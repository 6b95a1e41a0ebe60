/*
 * index_write_int.h - the write side of an index (index_write.c): reconciles a
 * generation's tables with the page files in one transaction.  Used by
 * index.c for both incremental syncs and full rebuilds (a rebuild is a sync
 * into an empty generation), so there is one path from a file to its rows.
 *
 * Private to index/: index.c and index_write.c include it; the rest of
 * the project reaches an index through index.h.  The writer stands on
 * schema.h and sql.h, never on index.h, so it does not depend on the
 * index.c that calls it.
 */
#ifndef CG_INDEX_WRITE_INT_H
#define CG_INDEX_WRITE_INT_H

#include <jansson.h>
#include <sqlite3.h>

#include "common/cg_err.h"
#include "index/schema.h"

/* Reconciles db with the wiki files: unchanged files (same size and
 * mtime) are not opened; changed ones are read and hashed, and re-indexed
 * only when the content changed; missing ones are deleted.  All in one
 * transaction, opened only when something changed (a sync that finds
 * nothing to do writes nothing).  kind is an enum cg_source_kind
 * (conf/source.h): a corpus lists its index entries instead of walking a wiki.
 * CG_ECORRUPT when SQLite reports a damaged file. */
/* cg_index_write_sync's answer when db is read-only and the files changed:
 * nothing was written; sync again on a read-write connection. */
#define CG_WRITE_READONLY 2

int cg_index_write_sync(sqlite3 *db, const char *repo, const char *wiki,
                        int kind, cg_sync_stats *st, cg_err *err);

/* Problems known to db as a new JSON array of {path, kind, message}. */
json_t *cg_index_write_problems(sqlite3 *db);

#endif
