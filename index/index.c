/*
 * index.c - one source's SQLite FTS5 index: generations, schema, the
 * incremental sync from the page files, and the SQL functions (cg_match,
 * index/rank.c; cg_totals; cg_visible).
 *
 * What it must not do: rename a database over one that may be open, leave
 * an empty index visible to a reader, or follow a symlink out of the wiki.
 * Every write of a sync happens in one transaction.
 */
#define _GNU_SOURCE
#include "index/index.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cg_buf.h"
#include "common/cg_fs.h"
#include "common/cg_utf8.h"
#include "index/fts_tokenizer.h"
#include "index/index_write_int.h"
#include "index/rank.h"
#include "page/scan.h"
#include "proto/acl.h"

/* What cg_visible(path) reads at call time: the policy of the request
 * being answered (NULL: everything visible) and the index's source. */
struct visibility {
	const cg_acl *acl;
	const char *source;
};

struct cg_index {
	cg_source src; /* what is indexed (a copy) */
	char *dir;     /* this source's folder in the cache */
	sqlite3 *db;   /* live generation, NULL before open */
	int64_t gen;   /* live generation number */
	int oneshot;   /* reads on a read-only connection (index.h) */
	/* The live connection reads the generation as an immutable file:
	 * the file system would not let SQLite open it normally (a full
	 * disk or a read-only cache without its wal-index, see
	 * open_live).  Such a connection never writes; each refresh and
	 * sync tries a normal open again. */
	int fallback;
	/* Why the last normal open of a generation failed ("" when none
	 * did): what a reader says instead of "not built yet", and what a
	 * sync on a fallback connection reports. */
	char open_err[CG_ERR_MSG_MAX];
	int open_tried; /* a oneshot index opened lazily once */
	int lockfd;     /* the writer lock file, -1 when closed */
	/* The CURRENT file this handle last followed, kept open (-1: none),
	 * with the generation it names and its size and mtime: see
	 * current_kept.  Invariant: cur_fd >= 0 only while gen == cur_gen
	 * and the connection is not a fallback one. */
	int cur_fd;
	int64_t cur_gen;
	off_t cur_size;
	struct timespec cur_mtime;
	cg_rank_ctx rank;      /* read by cg_match() */
	struct visibility vis; /* read by cg_visible() */
	/* The problems list, cached: computing it is a large query (every
	 * link against every name) and every search reports it.  Valid
	 * while the generation and SQLite's data_version (bumped by another
	 * connection's commit) are unchanged and this handle has not synced
	 * since. */
	json_t *problems;
	int64_t problems_gen;
	int64_t problems_version;
	/* Prepared statements of the query paths, by SQL text: preparing is
	 * a large share of a query's cost (the parse), so each is prepared
	 * once per connection. */
	struct {
		char *sql;
		sqlite3_stmt *st;
	} stmts[CG_INDEX_STMTS];
	size_t nstmts;
};

static sqlite3 *live(cg_index *idx);
static void follow_current(cg_index *idx);

static void
stmts_drop(cg_index *idx)
{
	for (size_t i = 0; i < idx->nstmts; i++) {
		sqlite3_finalize(idx->stmts[i].st);
		free(idx->stmts[i].sql);
	}
	idx->nstmts = 0;
}

/* Replaces the live connection (db may be NULL): cached statements die
 * with the old one. */
static void
set_db(cg_index *idx, sqlite3 *db)
{
	stmts_drop(idx);
	sqlite3_close(idx->db);
	idx->db = db;
}

void
cg_index_stmts_reset(cg_index *idx)
{
	for (size_t i = 0; i < idx->nstmts; i++)
		sqlite3_reset(idx->stmts[i].st);
}

sqlite3_stmt *
cg_index_stmt(cg_index *idx, const char *sql)
{
	sqlite3_stmt *st = NULL;

	for (size_t i = 0; i < idx->nstmts; i++) {
		char *hit_sql = idx->stmts[i].sql;

		if (strcmp(hit_sql, sql) != 0)
			continue;
		st = idx->stmts[i].st;
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		/* Most recently asked last: a full cache drops the statement
		 * asked longest ago, never one a caller is stepping. */
		memmove(&idx->stmts[i], &idx->stmts[i + 1],
		        (idx->nstmts - i - 1) * sizeof(idx->stmts[0]));
		idx->stmts[idx->nstmts - 1].sql = hit_sql;
		idx->stmts[idx->nstmts - 1].st = st;
		return st;
	}
	if (live(idx) == NULL ||
	    sqlite3_prepare_v3(idx->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st,
	                       NULL) != SQLITE_OK)
		return NULL;
	if (idx->nstmts == CG_INDEX_STMTS) {
		/* Full: the oldest goes (the query paths use fewer). */
		sqlite3_finalize(idx->stmts[0].st);
		free(idx->stmts[0].sql);
		memmove(&idx->stmts[0], &idx->stmts[1],
		        (CG_INDEX_STMTS - 1) * sizeof(idx->stmts[0]));
		idx->nstmts--;
	}
	idx->stmts[idx->nstmts].sql = strdup(sql);
	if (idx->stmts[idx->nstmts].sql == NULL) {
		sqlite3_finalize(st);
		return NULL;
	}
	idx->stmts[idx->nstmts++].st = st;
	return st;
}

static const char *const schema_sql =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE pages("
    " id INTEGER PRIMARY KEY,"
    " path TEXT UNIQUE NOT NULL," /* relative to the repo root */
    " slug TEXT NOT NULL,"
    " size INTEGER, mtime_ns INTEGER, hash INTEGER,"
    " title TEXT, category TEXT, category_raw TEXT, owner TEXT,"
    " confidence TEXT, conf_rank INTEGER,"
    " created_at TEXT, updated_at TEXT, expires_at TEXT,"
    " claim_key TEXT, body_hash INTEGER,"
    " tags TEXT, fm TEXT, source_refs TEXT, supersedes TEXT,"
    " aliases TEXT, headings TEXT, first_line TEXT, nlines INTEGER,"
    " fm_status INTEGER, fm_error TEXT, utf8_fixed INTEGER);"
    "CREATE INDEX pages_claim ON pages(claim_key);"
    "CREATE INDEX pages_slug ON pages(slug);"
    "CREATE TABLE links(page_id INTEGER, kind INTEGER, target TEXT,"
    " anchor TEXT, text TEXT, line INTEGER);"
    "CREATE INDEX links_page ON links(page_id);"
    "CREATE TABLE problems(path TEXT PRIMARY KEY, kind TEXT, message TEXT);"
    "CREATE VIRTUAL TABLE sec USING fts5(title, headings, body, tags, meta,"
    " line_start UNINDEXED, line_end UNINDEXED, tokenize='cgw');";

/* --- SQL functions ------------------------------------------------- */

/* cg_totals(sec): "rows tot0 tot1 tot2 tot3 tot4" for the whole table. */
static void
totals_fn(const Fts5ExtensionApi *api, Fts5Context *fc, sqlite3_context *ctx,
          int nval, sqlite3_value **val)
{
	sqlite3_int64 nrow = 0;
	char out[256];
	size_t off;

	int rc = api->xRowCount(fc, &nrow);

	off = (size_t)snprintf(out, sizeof(out), "%lld", (long long)nrow);
	for (int c = 0; rc == SQLITE_OK && c < CG_NCOLS && off < sizeof(out);
	     c++) {
		sqlite3_int64 t = 0;

		rc = api->xColumnTotalSize(fc, c, &t);
		off += (size_t)snprintf(out + off, sizeof(out) - off, " %lld",
		                        (long long)t);
	}
	/* Totals short of a count would score every hit wrongly. */
	if (rc != SQLITE_OK)
		sqlite3_result_error_code(ctx, rc);
	else
		sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

static void
visible_fn(sqlite3_context *ctx, int n, sqlite3_value **v)
{
	const struct visibility *c = sqlite3_user_data(ctx);
	const char *path = (const char *)sqlite3_value_text(v[0]);

	(void)n;
	sqlite3_result_int(ctx, path != NULL &&
	                            cg_acl_allows(c->acl, c->source, path));
}

/* Registers cg_visible(path) on db. */
static int
register_visible(sqlite3 *db, const struct visibility *ctx)
{
	return sqlite3_create_function(db, "cg_visible", 1, SQLITE_UTF8,
	                               (void *)ctx, visible_fn, NULL, NULL);
}

static int
register_functions(sqlite3 *db, cg_rank_ctx *rank, struct visibility *vis)
{
	fts5_api *api = NULL;
	int rc;

	rc = cg_fts_tokenizer_register(db);
	if (rc == SQLITE_OK)
		rc = register_visible(db, vis);
	if (rc != SQLITE_OK)
		return rc;
	api = cg_index_fts5_api(db);
	if (api == NULL)
		return SQLITE_ERROR;
	rc = api->xCreateFunction(api, "cg_totals", NULL, totals_fn, NULL);
	if (rc == SQLITE_OK)
		rc = cg_rank_register(db, rank);
	return rc;
}

/* --- generations ------------------------------------------------------ */

static char *
gen_path(const cg_index *idx, int64_t gen)
{
	char name[64];

	(void)snprintf(name, sizeof(name), "gen-%06" PRId64 ".db", gen);
	return cg_path_join(idx->dir, name);
}

static void
unlink_gen(const cg_index *idx, int64_t gen)
{
	static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
	char *base = gen_path(idx, gen);

	if (base == NULL)
		return;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		char path[4096];

		(void)snprintf(path, sizeof(path), "%s%s", base, sfx[i]);
		(void)unlink(path);
	}
	free(base);
}

/* The generation number a name starts with ("gen-N", then anything: the
 * database and its -wal, -shm and -journal files); -1 when it has none. */
static int
parse_gen(const char *name, int64_t *gen)
{
	char *end = NULL;
	long long v;

	if (strncmp(name, "gen-", 4) != 0)
		return -1;
	errno = 0;
	v = strtoll(name + 4, &end, 10);
	if (end == name + 4 || errno != 0)
		return -1;
	*gen = v;
	return 0;
}

/* Reads CURRENT: the live generation number, 0 when there is none. */
static int64_t
read_current(const cg_index *idx)
{
	char *path = cg_path_join(idx->dir, "CURRENT");
	char *text = NULL;
	int64_t gen = 0;

	if (path != NULL && cg_file_read(path, 128, &text, NULL, NULL) == 0 &&
	    parse_gen(text, &gen) != 0)
		gen = 0;
	free(text);
	free(path);
	return gen;
}

static int
write_current(const cg_index *idx, int64_t gen, cg_err *err)
{
	char *path = cg_path_join(idx->dir, "CURRENT");
	char text[64];
	int n = snprintf(text, sizeof(text), "gen-%06" PRId64 ".db\n", gen);
	int rc;

	if (path == NULL)
		return cg_err_set(err, CG_ENOMEM, "index: out of memory");
	rc = cg_file_write_atomic(path, text, (size_t)n, err);
	free(path);
	return rc;
}

/* Removes generation files other than keep and keep-1 (the previous one
 * may still be open in another process). */
static void
collect_old_gens(const cg_index *idx, int64_t keep)
{
	DIR *d = opendir(idx->dir);
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		int64_t g;

		if (parse_gen(de->d_name, &g) != 0)
			continue;
		if (g != keep && g != keep - 1)
			unlink_gen(idx, g);
	}
	closedir(d);
}

static int
exec(sqlite3 *db, const char *sql, cg_err *err, const char *what)
{
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : cg_index_sql_fail(db, rc, what, err);
}

/* How open_db opens a generation. */
enum open_mode {
	OPEN_RW,       /* read-write (the writer; a long-lived reader) */
	OPEN_RO,       /* read-only, the wal-index read-only too */
	OPEN_IMMUTABLE /* the file as it is: no lock, WAL or wal-index */
};

/* "file:<path>?<param>", the path %-escaped as a uri path. */
static char *
readonly_uri(const char *path, const char *param)
{
	char *esc = cg_pct_encode(path, true);
	char *uri = NULL;

	if (esc != NULL && asprintf(&uri, "file:%s?%s", esc, param) < 0)
		uri = NULL;
	free(esc);
	return uri;
}

/* Opens generation gen.  A read-only connection reads the wal-index
 * read-only too (readonly_shm): when no other process has the index open,
 * SQLite reads the WAL into memory instead of rebuilding the -shm file,
 * so a process that only reads writes nothing.  A read-write connection
 * keeps the WAL and -shm files when it closes (PERSIST_WAL, the WAL
 * truncated to nothing), since a read-only one cannot create them.  An
 * immutable one is open_live's last resort. */
static int
open_db(cg_index *idx, int64_t gen, enum open_mode mode, sqlite3 **out,
        cg_err *err)
{
	char *path = gen_path(idx, gen);
	char *uri = NULL;
	sqlite3 *db = NULL;
	int flags = SQLITE_OPEN_NOMUTEX;
	int readonly = mode != OPEN_RW;
	int rc;

	*out = NULL;
	if (path != NULL && readonly)
		uri = readonly_uri(path, mode == OPEN_RO ? "readonly_shm=1"
		                                         : "immutable=1");
	if (path == NULL || (readonly && uri == NULL)) {
		free(path);
		return cg_err_set(err, CG_ENOMEM, "index: out of memory");
	}
	flags |= readonly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
	                  : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(readonly ? uri : path, &db, flags, NULL);
	free(uri);
	free(path);
	if (rc == SQLITE_OK && !readonly) {
		int one = 1;

		(void)sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL,
		                           &one);
		(void)sqlite3_exec(db, "PRAGMA journal_size_limit=0", NULL,
		                   NULL, NULL);
	}
	if (rc != SQLITE_OK) {
		rc = cg_err_set(err, CG_EIO, "index open: %s",
		                db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return rc;
	}
	sqlite3_busy_timeout(db, 10000);
	if (register_functions(db, &idx->rank, &idx->vis) != SQLITE_OK) {
		sqlite3_close(db);
		return cg_err_set(err, CG_ERR,
		                  "index: cannot register FTS5 "
		                  "tokenizer and functions");
	}
	*out = db;
	return 0;
}

/* Checks that a generation is usable: right schema, meta readable. */
static int
validate_db(sqlite3 *db, const char *source, cg_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;
	int version = -1;
	int ok = 0;

	rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) /* the file does not read (I/O, damage) */
		return cg_index_sql_fail(db, rc, "database unreadable", err);
	if (version != CG_SCHEMA_VERSION)
		return cg_err_set(err, CG_ECORRUPT,
		                  "schema version %d, expected %d", version,
		                  CG_SCHEMA_VERSION);
	rc = sqlite3_prepare_v2(
	    db, "SELECT value FROM meta WHERE key = 'source'", -1, &st, NULL);
	if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		ok = v != NULL && strcmp(v, source) == 0;
	}
	sqlite3_finalize(st);
	if (!ok)
		return cg_err_set(err, CG_ECORRUPT, "database unreadable: %s",
		                  sqlite3_errmsg(db));
	return 0;
}

static int
set_meta(sqlite3 *db, const char *key, const char *value)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(
	    db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", -1,
	    &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int
create_schema(cg_index *idx, sqlite3 *db, cg_err *err)
{
	char sql[64];
	int rc;

	rc = exec(db, "PRAGMA journal_mode=WAL", err, "index journal");
	if (rc == 0)
		rc = exec(db, "BEGIN", err, "index schema");
	if (rc == 0)
		rc = exec(db, schema_sql, err, "index schema");
	(void)snprintf(sql, sizeof(sql), "PRAGMA user_version=%d",
	               CG_SCHEMA_VERSION);
	if (rc == 0)
		rc = exec(db, sql, err, "index schema");
	if (rc == 0 && (set_meta(db, "source", idx->src.name) != SQLITE_OK ||
	                set_meta(db, "repo", idx->src.repo) != SQLITE_OK ||
	                set_meta(db, "wiki", idx->src.wiki) != SQLITE_OK))
		rc = cg_err_set(err, CG_EIO, "index schema: %s",
		                sqlite3_errmsg(db));
	if (rc == 0)
		rc = exec(db, "COMMIT", err, "index schema");
	return rc;
}

static int
lock_writer(cg_index *idx, cg_err *err)
{
	char *path = cg_path_join(idx->dir, "lock");

	if (path == NULL)
		return cg_err_set(err, CG_ENOMEM, "index: out of memory");
	if (idx->lockfd < 0)
		idx->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(path);
	if (idx->lockfd < 0)
		return cg_err_set(err, CG_EIO, "index lock: %s",
		                  cg_strerror(errno).s);
	while (flock(idx->lockfd, LOCK_EX) != 0)
		if (errno != EINTR)
			return cg_err_set(err, CG_EIO, "index lock: %s",
			                  cg_strerror(errno).s);
	return 0;
}

static void
unlock_writer(cg_index *idx)
{
	if (idx->lockfd >= 0)
		(void)flock(idx->lockfd, LOCK_UN);
}

/* The cache folder of a source: "<cache>/<hash>-<source>". */
static char *
source_dir(const cg_index_opts *o)
{
	cg_buf key;
	char name[160];
	uint64_t h;
	size_t n;

	cg_buf_init(&key, 1 << 16);
	if (cg_buf_puts(&key, o->source->repo) != 0 ||
	    cg_buf_putc(&key, '\n') != 0 ||
	    cg_buf_puts(&key, o->source->wiki) != 0) {
		cg_buf_fini(&key);
		return NULL;
	}
	h = cg_hash64(key.data, key.len);
	cg_buf_fini(&key);
	n = (size_t)snprintf(name, sizeof(name), "%016" PRIx64 "-", h);
	for (const char *s = o->source->name; *s && n + 1 < sizeof(name); s++) {
		char c = *s;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		         (c >= '0' && c <= '9') || c == '-' || c == '.';

		name[n++] = (char)(ok ? c : '_');
	}
	name[n] = '\0';
	return cg_path_join(o->cache_dir, name);
}

/* A connection to generation gen in mode that passes validate_db, or NULL
 * (why in err). */
static sqlite3 *
open_valid(cg_index *idx, int64_t gen, enum open_mode mode, cg_err *err)
{
	sqlite3 *db = NULL;

	if (open_db(idx, gen, mode, &db, err) != 0)
		return NULL;
	if (validate_db(db, idx->src.name, err) == 0)
		return db;
	sqlite3_close(db);
	return NULL;
}

/* True when generation gen has no WAL content: no -wal file, or an empty
 * one.  Its database file alone is then the whole committed index. */
static bool
wal_empty(const cg_index *idx, int64_t gen)
{
	char *base = gen_path(idx, gen);
	char path[4096];
	struct stat sb;
	bool empty;

	if (base == NULL)
		return false;
	(void)snprintf(path, sizeof(path), "%s-wal", base);
	free(base);
	empty = stat(path, &sb) != 0 ? errno == ENOENT : sb.st_size == 0;
	return empty;
}

/* A usable connection to generation gen, or NULL (the next sync rebuilds).
 * A oneshot index reads on a read-only connection and falls back to a
 * read-write one when that cannot open (no -shm file yet, an index built
 * before the WAL was kept).
 *
 * When neither opens (why kept in idx->open_err), the file system may be
 * what refuses: a WAL database cannot be opened at all without its -wal and
 * -shm files, which a full disk or a read-only cache will not let SQLite
 * create.  With fallback, and only when the generation has no WAL content
 * (its database file is then the whole committed index, and a writer, who
 * would need the wal-index first, has not written since), it is read as an
 * immutable file instead, *fb set: the index that exists keeps answering.
 * A writer that comes back (the fault ended) appends to the WAL first, so
 * each refresh of a fallback connection tries a normal open again.
 *
 * Within one process SQLite shares one wal-index per database file, opened
 * read-only when a read-only connection opened it first, and a read-write
 * connection cannot write through it.  So a oneshot index opens lazily (at
 * its first use, see live()): in the CLI the writer's sync comes first and
 * reopens read-write before any reader exists when there is something to
 * write. */
static sqlite3 *
open_live(cg_index *idx, int64_t gen, bool fallback, bool *fb)
{
	sqlite3 *db = NULL;
	cg_err e;

	*fb = false;
	cg_err_clear(&e);
	for (int ro = idx->oneshot; ro >= 0 && db == NULL; ro--) {
		cg_err_clear(&e);
		db = open_valid(idx, gen, ro ? OPEN_RO : OPEN_RW, &e);
	}
	if (db != NULL) {
		idx->open_err[0] = '\0';
		return db;
	}
	(void)snprintf(idx->open_err, sizeof(idx->open_err), "%s", e.msg);
	if (!fallback || !wal_empty(idx, gen))
		return NULL;
	db = open_valid(idx, gen, OPEN_IMMUTABLE, NULL);
	*fb = db != NULL;
	return db;
}

/* The live connection, opened now when the index is oneshot and has not
 * opened yet; NULL when there is no usable generation. */
static sqlite3 *
live(cg_index *idx)
{
	if (idx->db == NULL && idx->oneshot && idx->gen > 0 &&
	    !idx->open_tried) {
		bool fb = false;

		idx->open_tried = 1;
		idx->db = open_live(idx, idx->gen, true, &fb);
		idx->fallback = fb;
	}
	return idx->db;
}

/* Swaps a read-only live connection for a read-write one, for a sync with
 * something to write. */
static int
reopen_writable(cg_index *idx, cg_err *err)
{
	sqlite3 *db = NULL;
	int rc = open_db(idx, idx->gen, OPEN_RW, &db, err);

	if (rc == 0) {
		set_db(idx, db);
		idx->fallback = 0;
	}
	return rc;
}

/* --- public ------------------------------------------------------------ */

int
cg_index_open(cg_index **out, const cg_index_opts *opts, cg_err *err)
{
	cg_index *idx = calloc(1, sizeof(*idx));
	int rc;

	*out = NULL;
	if (idx == NULL)
		return cg_err_set(err, CG_ENOMEM, "index: out of memory");
	idx->lockfd = -1;
	idx->cur_fd = -1;
	cg_rank_init(&idx->rank);
	if (cg_source_copy(&idx->src, opts->source) != 0) {
		cg_index_free(idx);
		return cg_err_set(err, CG_ENOMEM, "index: out of memory");
	}
	idx->dir = source_dir(opts);
	idx->vis.source = idx->src.name;
	if (idx->dir == NULL) {
		cg_index_free(idx);
		return cg_err_set(err, CG_ENOMEM, "index: out of memory");
	}
	rc = cg_mkdir_p(idx->dir, err);
	if (rc != 0) {
		cg_index_free(idx);
		return rc;
	}
	idx->oneshot = opts->oneshot;
	idx->gen = read_current(idx);
	if (idx->gen > 0 && !idx->oneshot) {
		bool fb = false;

		idx->db = open_live(idx, idx->gen, true, &fb);
		idx->fallback = fb;
	}
	*out = idx;
	return 0;
}

void
cg_index_free(cg_index *idx)
{
	if (idx == NULL)
		return;
	set_db(idx, NULL);
	json_decref(idx->problems);
	if (idx->lockfd >= 0)
		close(idx->lockfd);
	if (idx->cur_fd >= 0)
		close(idx->cur_fd);
	cg_source_fini(&idx->src);
	free(idx->dir);
	free(idx);
}

sqlite3 *
cg_index_db(cg_index *idx)
{
	return live(idx);
}

void
cg_index_set_acl(cg_index *idx, const cg_acl *acl)
{
	idx->vis.acl = acl;
}

const cg_acl *
cg_index_acl(const cg_index *idx)
{
	return idx->vis.acl;
}

struct cg_rank_ctx *
cg_index_rank(cg_index *idx)
{
	return &idx->rank;
}

const char *
cg_index_source(const cg_index *idx)
{
	return idx->src.name;
}

const char *
cg_index_repo(const cg_index *idx)
{
	return idx->src.repo;
}

const char *
cg_index_wiki(const cg_index *idx)
{
	return idx->src.wiki;
}

const char *
cg_index_wiki_rel(const cg_index *idx)
{
	const char *repo = idx->src.repo;
	const char *wiki = idx->src.wiki;
	size_t n = strlen(repo);

	while (n > 1 && repo[n - 1] == '/')
		n--;
	if (strncmp(wiki, repo, n) != 0 || wiki[n] != '/' || wiki[n + 1] == 0)
		return NULL;
	return wiki + n + 1;
}

int
cg_index_kind(const cg_index *idx)
{
	return idx->src.kind;
}

const char *
cg_index_registrar(const cg_index *idx)
{
	return idx->src.registrar;
}

const char *
cg_index_open_error(const cg_index *idx)
{
	return idx->open_err;
}

int64_t
cg_index_generation(const cg_index *idx)
{
	return idx->gen;
}

/* Builds generation gen+1 from scratch and publishes it. */
static int
rebuild_locked(cg_index *idx, const char *reason, cg_sync_stats *st,
               cg_err *err)
{
	int64_t gen = (idx->gen > 0 ? idx->gen : read_current(idx)) + 1;
	sqlite3 *db = NULL;
	int rc;

	unlink_gen(idx, gen); /* leftover of a killed build */
	rc = open_db(idx, gen, OPEN_RW, &db, err);
	if (rc == 0)
		rc = create_schema(idx, db, err);
	if (rc == 0 && set_meta(db, "build_reason", reason) != SQLITE_OK)
		rc = cg_index_sql_fail(db, sqlite3_errcode(db), "index meta",
		                       err);
	if (rc == 0)
		rc = cg_index_write_sync(db, idx->src.repo, idx->src.wiki,
		                         idx->src.kind, st, err);
	if (rc == 0)
		rc = write_current(idx, gen, err);
	if (rc != 0) {
		sqlite3_close(db);
		unlink_gen(idx, gen);
		return rc;
	}
	set_db(idx, db);
	idx->gen = gen;
	idx->fallback = 0;
	idx->open_err[0] = '\0';
	st->generation = gen;
	st->rebuilt = 1;
	(void)snprintf(st->rebuild_reason, sizeof(st->rebuild_reason), "%s",
	               reason);
	collect_old_gens(idx, gen);
	return 0;
}

/* A rebuild asked of the generation this handle reads: when another
 * handle (another worker of the node, the sync thread, another process)
 * published a newer one while this one waited for the lock, that one is
 * followed instead; building gen+1 again would unlink the live file the
 * other handles read. */
int
cg_index_rebuild(cg_index *idx, const char *reason, cg_sync_stats *st,
                 cg_err *err)
{
	int64_t seen = idx->gen;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = lock_writer(idx, err);
	if (rc != 0)
		return rc;
	if (seen > 0 && read_current(idx) > seen) {
		follow_current(idx);
		st->generation = idx->gen;
		unlock_writer(idx);
		return 0;
	}
	rc = rebuild_locked(idx, reason, st, err);
	unlock_writer(idx);
	return rc;
}

/* Follows a generation published by another process since we opened; a
 * fallback connection to the live generation is replaced by a normal one
 * as soon as one opens. */
static void
follow_current(cg_index *idx)
{
	int64_t cur = read_current(idx);
	bool same = cur == idx->gen;
	sqlite3 *db = NULL;
	bool fb = false;

	if (cur == 0 || (same && !idx->fallback))
		return;
	db = open_live(idx, cur, !same, &fb);
	if (db == NULL)
		return;
	set_db(idx, db);
	idx->gen = cur;
	idx->fallback = fb;
}

static void
problems_forget(cg_index *idx)
{
	json_decref(idx->problems);
	idx->problems = NULL;
}

static void
forget_current(cg_index *idx)
{
	if (idx->cur_fd >= 0)
		close(idx->cur_fd);
	idx->cur_fd = -1;
}

/* True when CURRENT still names the generation this handle reads, known
 * from one fstat of the CURRENT file it followed last.  CURRENT is only
 * replaced by rename (write_current, cg_file_write_atomic), which leaves
 * the replaced file without a link; an open file's inode is not reused;
 * so a kept file that still has a link is still CURRENT.  Its size and
 * mtime guard against a hand edit in place. */
static bool
current_kept(cg_index *idx)
{
	struct stat st;

	return idx->cur_fd >= 0 && !idx->fallback && idx->gen == idx->cur_gen &&
	       fstat(idx->cur_fd, &st) == 0 && st.st_nlink > 0 &&
	       st.st_size == idx->cur_size &&
	       st.st_mtim.tv_sec == idx->cur_mtime.tv_sec &&
	       st.st_mtim.tv_nsec == idx->cur_mtime.tv_nsec;
}

/* Opens CURRENT and keeps it with the generation it names, before
 * follow_current reads it by name: what is followed is then the kept
 * file's generation or a newer one, never an older one. */
static void
keep_current(cg_index *idx)
{
	char *path = cg_path_join(idx->dir, "CURRENT");
	char text[64];
	struct stat st;
	ssize_t n = -1;
	int fd;

	forget_current(idx);
	fd = path != NULL ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	if (fd >= 0 && fstat(fd, &st) == 0)
		n = read(fd, text, sizeof(text) - 1);
	if (n > 0)
		text[n] = '\0';
	if (n <= 0 || parse_gen(text, &idx->cur_gen) != 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	idx->cur_fd = fd;
	idx->cur_size = st.st_size;
	idx->cur_mtime = st.st_mtim;
}

/* A reader's check before each request: one fstat while nothing was
 * published (current_kept), else CURRENT is read and followed. */
void
cg_index_refresh(cg_index *idx)
{
	if (current_kept(idx))
		return;
	keep_current(idx);
	follow_current(idx);
	if (idx->gen != idx->cur_gen || idx->fallback)
		forget_current(idx); /* not followed (yet): read it next time */
}

/* The file that says why a source has no generation yet ("unbuilt"): its
 * first build failed (a corpus index that does not parse, a full disk).
 * Written by the writer that failed, removed by the one that succeeds, read
 * by readers (cg_index_unbuilt_reason), which are other connections and
 * often other processes. */
static char *
unbuilt_path(const cg_index *idx)
{
	return cg_path_join(idx->dir, "unbuilt");
}

static void
note_unbuilt(const cg_index *idx, int rc, const cg_err *why)
{
	char *path = unbuilt_path(idx);

	if (path == NULL)
		return;
	if (rc != 0)
		(void)cg_file_write_atomic(path, why->msg, strlen(why->msg),
		                           NULL);
	else if (access(path, F_OK) == 0)
		(void)unlink(path);
	free(path);
}

int
cg_index_unbuilt_reason(const cg_index *idx, char *out, size_t n)
{
	char *path = unbuilt_path(idx);
	char *text = NULL;
	int found = 0;

	if (n > 0)
		out[0] = '\0';
	if (path != NULL && n > 0 &&
	    cg_file_read(path, CG_ERR_MSG_MAX, &text, NULL, NULL) == 0) {
		(void)snprintf(out, n, "%s", text);
		found = 1;
	}
	free(text);
	free(path);
	return found;
}

int
cg_index_sync(cg_index *idx, cg_sync_stats *st, cg_err *err)
{
	cg_err local;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = lock_writer(idx, err);
	if (rc != 0)
		return rc;
	follow_current(idx);
	if (live(idx) != NULL && idx->fallback) {
		/* The generation reads, but SQLite cannot open it to write:
		 * it keeps answering as it is; nothing is rebuilt. */
		rc = cg_err_set(err, CG_EIO,
		                "source %s: index generation %lld cannot be "
		                "updated, it answers as last built: %s",
		                idx->src.name, (long long)idx->gen,
		                idx->open_err);
		goto out;
	}
	if (live(idx) == NULL) {
		cg_err_clear(&local);
		rc = rebuild_locked(
		    idx, read_current(idx) ? "unusable index" : "new index", st,
		    &local);
		note_unbuilt(idx, rc, &local);
		if (rc != 0)
			cg_err_set(err, rc, "%s", local.msg);
		goto out;
	}
	cg_err_clear(&local);
	problems_forget(idx); /* this connection's commits do not bump
	                         data_version */
	rc = cg_index_write_sync(idx->db, idx->src.repo, idx->src.wiki,
	                         idx->src.kind, st, &local);
	if (rc == CG_WRITE_READONLY) {
		rc = reopen_writable(idx, &local);
		if (rc == 0)
			rc = cg_index_write_sync(idx->db, idx->src.repo,
			                         idx->src.wiki, idx->src.kind,
			                         st, &local);
	}
	if (rc == CG_ECORRUPT) {
		char reason[CG_ERR_MSG_MAX + 16];

		(void)snprintf(reason, sizeof(reason), "corrupt: %s",
		               local.msg);
		memset(st, 0, sizeof(*st));
		rc = rebuild_locked(idx, reason, st, err);
	} else if (rc != 0) {
		cg_err_set(err, rc, "source %s: %s", idx->src.name, local.msg);
	}
	st->generation = idx->gen;
out:
	unlock_writer(idx);
	return rc;
}

/* PRAGMA quick_check of generation gen on a fresh connection: 0 when it
 * passes, 1 with the first complaint in why when the file is damaged, a
 * negative code when the check could not run. */
static int
quick_check(cg_index *idx, int64_t gen, char *why, size_t n, cg_err *err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = open_db(idx, gen, OPEN_RW, &db, err);

	if (rc != 0)
		return rc;
	rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		rc = t != NULL && strcmp(t, "ok") == 0 ? 0 : 1;
		(void)snprintf(why, n, "%s", t != NULL ? t : "no answer");
	} else if ((rc & 0xff) == SQLITE_CORRUPT ||
	           (rc & 0xff) == SQLITE_NOTADB) {
		(void)snprintf(why, n, "%s", sqlite3_errmsg(db));
		rc = 1;
	} else {
		rc = cg_index_query_fail(idx, rc, "index check", err);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int
cg_index_check(cg_index *idx, cg_sync_stats *st, cg_err *err)
{
	char why[CG_ERR_MSG_MAX];
	char reason[CG_ERR_MSG_MAX + 16];
	int rc;

	memset(st, 0, sizeof(*st));
	follow_current(idx);
	/* Nothing to check yet; or a generation read as an immutable file
	 * (the file system refuses writes: a rebuild could not be written,
	 * and quick_check would need the wal-index it cannot create). */
	if (idx->gen <= 0 || idx->fallback)
		return 0;
	rc = quick_check(idx, idx->gen, why, sizeof(why), err);
	st->generation = idx->gen;
	if (rc <= 0)
		return rc;
	(void)snprintf(reason, sizeof(reason), "quick_check: %s", why);
	return cg_index_rebuild(idx, reason, st, err);
}

char *
cg_index_build_reason(cg_index *idx)
{
	sqlite3_stmt *st = cg_index_stmt(
	    idx, "SELECT value FROM meta WHERE key = 'build_reason'");
	char *v = NULL;

	if (st != NULL && sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_text(st, 0) != NULL)
		v = strdup((const char *)sqlite3_column_text(st, 0));
	if (st != NULL)
		sqlite3_reset(st);
	return v;
}

/* cg_totals' text, the row count then the token total of each column
 * ("N T0 T1 ..."), into v; -1 when t is not that. */
static int
parse_totals(const char *t, long long v[CG_NCOLS + 1])
{
	const char *p = t;

	for (int i = 0; i < CG_NCOLS + 1; i++) {
		char *end = NULL;

		errno = 0;
		v[i] = strtoll(p, &end, 10);
		if (end == p || errno != 0)
			return -1;
		p = end;
	}
	return 0;
}

void
cg_index_epoch(cg_index *idx, char out[CG_EPOCH_MAX])
{
	sqlite3_stmt *st =
	    cg_index_stmt(idx, "SELECT value FROM meta WHERE key = 'epoch'");
	long long seq = 0;

	if (st != NULL && sqlite3_step(st) == SQLITE_ROW)
		seq = sqlite3_column_int64(st, 0);
	if (st != NULL)
		sqlite3_reset(st);
	(void)snprintf(out, CG_EPOCH_MAX, "%lld.%lld", (long long)idx->gen,
	               seq);
}

int
cg_index_totals(cg_index *idx, int64_t *nrows, int64_t tot[CG_NCOLS],
                cg_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	*nrows = 0;
	memset(tot, 0, sizeof(int64_t) * CG_NCOLS);
	st = cg_index_stmt(idx, "SELECT cg_totals(sec) FROM sec LIMIT 1");
	rc = st ? sqlite3_step(st) : sqlite3_errcode(idx->db);
	if (rc == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		long long v[CG_NCOLS + 1] = {0};

		if (t == NULL && cg_index_row_nomem(st)) {
			sqlite3_reset(st);
			return cg_err_set(err, CG_ENOMEM,
			                  "index totals: out of "
			                  "memory");
		}
		if (t != NULL && parse_totals(t, v) == 0) {
			*nrows = v[0];
			for (int c = 0; c < CG_NCOLS; c++)
				tot[c] = v[c + 1];
		}
		rc = SQLITE_DONE;
	}
	if (st != NULL)
		sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return cg_index_sql_fail(idx->db, rc, "index totals", err);
	return 0;
}

/* PRAGMA data_version on the cached statement (read when stepped). */
static int64_t
data_version(cg_index *idx)
{
	sqlite3_stmt *st = cg_index_stmt(idx, "PRAGMA data_version");
	int64_t v = -1;

	if (st != NULL && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	if (st != NULL)
		sqlite3_reset(st);
	return v;
}

int
cg_index_exec(cg_index *idx, const char *sql)
{
	sqlite3_stmt *st = cg_index_stmt(idx, sql);
	int rc;

	if (st == NULL)
		return live(idx) != NULL
		           ? sqlite3_exec(idx->db, sql, NULL, NULL, NULL)
		           : SQLITE_MISUSE;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

json_t *
cg_index_problems(cg_index *idx)
{
	int64_t v;

	if (live(idx) == NULL)
		return json_array();
	v = data_version(idx);
	if (idx->problems == NULL || idx->problems_gen != idx->gen ||
	    idx->problems_version != v || v < 0) {
		problems_forget(idx);
		idx->problems = cg_index_write_problems(idx->db);
		idx->problems_gen = idx->gen;
		idx->problems_version = v;
	}
	return json_deep_copy(idx->problems);
}

int
cg_index_query_fail(cg_index *idx, int rc, const char *what, cg_err *err)
{
	char ctx[256];

	(void)snprintf(ctx, sizeof(ctx), "%s (%s)", what, idx->src.name);
	return cg_index_sql_fail(idx->db, rc, ctx, err);
}
