/*
 * sql.c - the SQLite helpers of index/ (see sql.h).
 *
 * What it must not do: hide a corrupt database behind another code (a
 * caller rebuilds on CG_ECORRUPT), or fail on text that is not UTF-8.
 */
#include "index/sql.h"

#include <stdbool.h>

#include "common/cg_json.h"

/* True for an SQLite result code that means the file is damaged. */
static bool
is_corrupt(int rc)
{
	rc &= 0xff;
	return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

int
cg_index_sql_fail(sqlite3 *db, int rc, const char *what, cg_err *err)
{
	int code = is_corrupt(rc)       ? CG_ECORRUPT
	           : rc == SQLITE_NOMEM ? CG_ENOMEM
	                                : CG_EIO;

	return cg_err_set(err, code, "%s: %s", what,
	                  db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

json_t *
cg_index_col_text(sqlite3_stmt *st, int i)
{
	return cg_json_text((const char *)sqlite3_column_text(st, i));
}

json_t *
cg_index_col_json(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	json_error_t je = {0};
	json_t *v = s != NULL ? json_loads(s, 0, &je) : NULL;

	if (v == NULL && s != NULL)
		return NULL; /* the index wrote it: see cg_index_json_nomem */
	return v != NULL ? v : json_array();
}

bool
cg_index_row_nomem(sqlite3_stmt *st)
{
	return sqlite3_errcode(sqlite3_db_handle(st)) == SQLITE_NOMEM;
}

fts5_api *
cg_index_fts5_api(sqlite3 *db)
{
	fts5_api *api = NULL;
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) !=
	    SQLITE_OK)
		return NULL;
	if (sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL) ==
	    SQLITE_OK)
		(void)sqlite3_step(st);
	sqlite3_finalize(st);
	return api;
}
