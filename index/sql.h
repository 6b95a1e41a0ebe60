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

#include <stdbool.h>

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
 * into a new value; an empty array when it is NULL; NULL when it does
 * not parse (not an empty list): the index wrote it with json_dumps, so
 * text that does not parse means memory ran out (jansson's lexer reports
 * a failed allocation inside a string as "invalid token", a syntax
 * error) or a damaged row, and either is an error. */
json_t *cg_index_col_json(sqlite3_stmt *st, int i);

/* True when reading the current row's columns of st ran out of memory:
 * sqlite3_column_text and its siblings then return NULL or 0, which look
 * like SQL NULL, and set the connection's error code to SQLITE_NOMEM.  A
 * caller checks it once it read a row, before it trusts the values. */
bool cg_index_row_nomem(sqlite3_stmt *st);

/* db's fts5_api (to register tokenizers and auxiliary functions), or NULL
 * when FTS5 is missing. */
fts5_api *cg_index_fts5_api(sqlite3 *db);

#endif
