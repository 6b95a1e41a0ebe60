/*
 * sql.h - the SQLite helpers every file of index/ shares: the one
 * translation of a failed SQLite call into a cg_code and a message, and the
 * readers of a row's text and JSON columns.
 *
 * May be included by index/ and the layers above it (node, gateway, cli);
 * index.h includes it.  Must not: know a table of the schema.
 */
#ifndef CG_SQL_H
#define CG_SQL_H

#include <jansson.h>
#include <sqlite3.h>

#include "common/cg_err.h"

/* The one translation of a failed SQLite call on db: CG_ECORRUPT for a
 * damaged file, CG_ENOMEM, else CG_EIO, with the message "<what>:
 * <sqlite3_errmsg(db)>".  Returns the code. */
int cg_index_sql_fail(sqlite3 *db, int rc, const char *what, cg_err *err);

/* Text column i of a row as a new JSON string (invalid UTF-8 replaced), or
 * null for SQL NULL. */
json_t *cg_index_col_text(sqlite3_stmt *st, int i);

/* Column i of a row holding JSON text (tags, aliases, headings...) parsed
 * into a new value; an empty array when it is NULL or does not parse. */
json_t *cg_index_col_json(sqlite3_stmt *st, int i);

/* db's fts5_api (to register tokenizers and auxiliary functions), or NULL
 * when FTS5 is missing. */
fts5_api *cg_index_fts5_api(sqlite3 *db);

#endif
