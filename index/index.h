/*
 * index.h - one source's derived SQLite FTS5 index.
 *
 * The markdown files are the truth; the index is rebuilt or updated from
 * them.  Layout under the cache directory:
 *
 *   <cache>/<source-key>/CURRENT        names the live generation file
 *   <cache>/<source-key>/gen-<N>.db     a generation (WAL mode)
 *   <cache>/<source-key>/lock           flock(2) held by the one writer
 *
 * An incremental sync runs in one transaction on the live generation, so a
 * reader sees the old or the new state, never an empty or half-built one.
 * A schema change or a corrupt database makes a full rebuild into the next
 * generation, published by rewriting CURRENT atomically; the old file is not
 * renamed over (its -wal would follow the name) and is removed one
 * generation later.
 *
 * One cg_index is used by one thread at a time; several handles on one
 * source (a node's workers, its sync thread) share nothing but the files,
 * and their writes are serialised by the lock.  What a generation holds
 * (and what a sync reports) is index/schema.h; the SQLite helpers every
 * file of index/ shares are index/sql.h; both come with this header.
 *
 * May be included by index/ and the layers above it (node, gateway, cli).
 */
#ifndef CG_INDEX_H
#define CG_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

#include "common/cg_err.h"
#include "conf/source.h"
#include "index/schema.h"
#include "index/sql.h"
#include "proto/stats.h"

typedef struct cg_index cg_index;

typedef struct cg_index_opts {
	const char *cache_dir;   /* root of all indexes */
	const cg_source *source; /* borrowed; the index keeps a copy */
	/* A process that opens, reads and exits (the CLI): the index reads
	 * on a read-only connection, so a query whose sync finds nothing
	 * changed makes no write at all; a sync with something to write
	 * reopens read-write. */
	int oneshot;
} cg_index_opts;

int cg_index_open(cg_index **out, const cg_index_opts *opts, cg_err *err);
void cg_index_free(cg_index *idx);

/* Brings the index up to date with the files (incremental).  On a corrupt
 * database it rebuilds into a new generation. */
int cg_index_sync(cg_index *idx, cg_sync_stats *st, cg_err *err);

/* Why the source has no generation yet (its first build failed), into
 * out; 0 (out "") when no build failed or one has succeeded since. */
int cg_index_unbuilt_reason(const cg_index *idx, char *out, size_t n);

/* Why the last attempt to open the generation CURRENT names failed, ""
 * when it did not (borrowed).  A generation the file system will not let
 * SQLite open normally (a full disk or a read-only cache, missing its
 * -wal or -shm file) is read as an immutable file when it has no WAL
 * content: it answers, and a sync reports that it cannot be updated. */
const char *cg_index_open_error(const cg_index *idx);

/* Rebuilds into a new generation (reason is recorded).  When another
 * handle published a generation newer than the one this handle reads
 * (two workers of a node meeting the same damage), that one is followed
 * instead and nothing is built (st->rebuilt 0). */
int cg_index_rebuild(cg_index *idx, const char *reason, cg_sync_stats *st,
                     cg_err *err);

/* Checks the file of the live generation with PRAGMA quick_check, on a
 * connection of its own (a long-lived one may answer from its page cache),
 * and rebuilds a generation that fails it from the pages (st->rebuilt,
 * the reason "quick_check: ..." in st and in the new generation's meta).
 * A damaged page is then found before a query reads it.  Costs a read of
 * the whole database: the node runs it for one source per reconcile.  A
 * check that cannot run (I/O) fails with that error; nothing is rebuilt. */
int cg_index_check(cg_index *idx, cg_sync_stats *st, cg_err *err);

/* The reason the live generation was built ("new index", "corrupt: ...",
 * "quick_check: ..."), malloc'd, or NULL when it does not say. */
char *cg_index_build_reason(cg_index *idx);

/* Follows a generation another handle or process published since this
 * one opened (cheap: one fstat of the CURRENT file it followed last while
 * nothing was published, else a read of CURRENT).  A reader calls it before
 * each request; a writer's sync does it itself. */
void cg_index_refresh(cg_index *idx);

/* Runs sql, a statement without rows to read (BEGIN, COMMIT), on the live
 * connection through the statement cache: no parse after the first run.
 * An SQLite result code (SQLITE_OK when it ran). */
int cg_index_exec(cg_index *idx, const char *sql);

/* Statements cached per connection (see cg_index_stmt). */
#define CG_INDEX_STMTS 48

/* A prepared statement for sql on the live connection, cached: reset and
 * with its bindings cleared, owned by the index (never finalize it; reset
 * it when done).  NULL when it cannot be prepared (sqlite3_errmsg of
 * cg_index_db tells why).  Valid until the next sync or rebuild. */
sqlite3_stmt *cg_index_stmt(cg_index *idx, const char *sql);
/* Resets every cached statement: no read transaction outlives a request
 * (a reader must see the next commit). */
void cg_index_stmts_reset(cg_index *idx);

/* The open connection (borrowed); NULL until a first generation exists. */
sqlite3 *cg_index_db(cg_index *idx);
/* The access policy of the request being answered (NULL: all visible);
 * read by the SQL function cg_visible(path) and by the tools. */
struct cg_acl;
void cg_index_set_acl(cg_index *idx, const struct cg_acl *acl);
const struct cg_acl *cg_index_acl(const cg_index *idx);

/* The rank context the "cg_match" function reads (borrowed; index/rank.h). */
struct cg_rank_ctx *cg_index_rank(cg_index *idx);

const char *cg_index_source(const cg_index *idx);
const char *cg_index_repo(const cg_index *idx);
const char *cg_index_wiki(const cg_index *idx);
/* The wiki folder relative to the repository root (".guild/wiki"),
 * borrowed; NULL when the wiki is not below the repository (a corpus,
 * whose folder is both). */
const char *cg_index_wiki_rel(const cg_index *idx);
int64_t cg_index_generation(const cg_index *idx);
/* enum cg_source_kind: a wiki, or a local or remote corpus. */
int cg_index_kind(const cg_index *idx);
/* A corpus's registering repository (registry-graph, state), or NULL. */
const char *cg_index_registrar(const cg_index *idx);

/* The epoch of what a search is scored with: "<generation>.<n>", where n
 * counts the syncs that added, deleted or re-indexed a page in this
 * generation.  Equal epochs mean equal statistics, claim keys and page
 * ids, so the federation may keep what it learnt under an epoch (stats,
 * claim keys) until a reply names another one.  Read in the request's
 * transaction. */
#define CG_EPOCH_MAX 48
void cg_index_epoch(cg_index *idx, char out[CG_EPOCH_MAX]);

/* Total rows and per-column token totals of the sections table. */
int cg_index_totals(cg_index *idx, int64_t *nrows, int64_t tot[CG_NCOLS],
                    cg_err *err);

/* Problems recorded by the last syncs (broken frontmatter, skipped files,
 * missing raw metadata...), as a new JSON array of {path, kind, message}. */
json_t *cg_index_problems(cg_index *idx);

/* cg_index_sql_fail (index/sql.h) for a statement on idx's connection: the
 * message names the operation and the source, "<what> (<source>): <message>".
 */
int cg_index_query_fail(cg_index *idx, int rc, const char *what, cg_err *err);

#endif
