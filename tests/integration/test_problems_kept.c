/*
 * test_problems_kept.c - the problems list a sync keeps in the index
 * (index/index_write.c, keep_problems) is the list the tables give: a
 * search reports a source's problems from the kept list, a sync that
 * changes a page keeps the new list, and a write by anything else (here,
 * SQL on the live generation, as a binary that keeps no list would write)
 * drops the kept list, so the next query computes the list again rather
 * than report a stale one.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cgtest.h"

static char *ws;
static char *cache;

static int
setup(void **state)
{
	(void)state;
	ws = cgt_tmpdir("kept");
	cache = cgt_tmpdir("kept-cache");
	cgt_page(ws, ".guild/wiki/concepts/harbour.md", "type: concept",
	         "# Harbour\n\nBoats moor here; see [[lighthouse-keeper]].\n");
	cgt_page(ws, ".guild/wiki/concepts/quay.md", "type: concept",
	         "# Quay\n\nBoats unload at the quay.\n");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	cgt_rm(ws);
	cgt_rm(cache);
	free(ws);
	free(cache);
	return 0;
}

/* The live generation file of the root source. */
static char *
live_db(void)
{
	char pattern[4096];
	glob_t g;
	char *out;

	(void)snprintf(pattern, sizeof(pattern), "%s/*-root/gen-*.db", cache);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	out = strdup(g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	return out;
}

/* The kept list's text, or NULL when the index keeps none. */
static char *
kept(void)
{
	char *path = live_db();
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
	                 SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(db,
	                       "SELECT value FROM meta WHERE key = 'problems'",
	                       -1, &st, NULL),
	    SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		out = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);
	return out;
}

/* Runs sql on the live generation, as another writer would. */
static void
foreign_write(const char *sql)
{
	char *path = live_db();
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	free(path);
}

/* How many of the answer's followups are index problems of path with a
 * message holding text. */
static size_t
problems_of(const json_t *ans, const char *path, const char *text)
{
	const json_t *fu = json_object_get(ans, "followups");
	const json_t *f;
	size_t i;
	size_t n = 0;

	json_array_foreach(fu, i, f) {
		const char *p = json_string_value(json_object_get(f, "path"));
		const char *m =
		    json_string_value(json_object_get(f, "message"));

		n += p != NULL && m != NULL && strstr(p, path) != NULL &&
		     strstr(m, text) != NULL;
	}
	return n;
}

static void
test_kept_then_dropped(void **state)
{
	json_t *ans;
	char *k;

	(void)state;
	/* The first query builds the index and keeps its list. */
	ans = cgt_query(ws, cache, "boats", NULL);
	assert_int_equal(problems_of(ans, "harbour.md", "lighthouse-keeper"),
	                 1);
	json_decref(ans);
	k = kept();
	assert_non_null(k);
	assert_non_null(strstr(k, "lighthouse-keeper"));
	free(k);

	/* A write the sync did not make: the kept list goes with it, and
	 * the (read-only) query reports what the tables now say. */
	foreign_write("UPDATE pages SET fm_status = 2, fm_error = 'tide "
	              "table unreadable' WHERE path LIKE '%quay.md'");
	k = kept();
	assert_null(k);
	ans = cgt_query(ws, cache, "boats", NULL);
	assert_int_equal(problems_of(ans, "quay.md", "tide table unreadable"),
	                 1);
	assert_int_equal(problems_of(ans, "harbour.md", "lighthouse-keeper"),
	                 1);
	json_decref(ans);
}

static void
test_sync_keeps_the_new_list(void **state)
{
	json_t *ans;
	char *k;

	(void)state;
	/* The link fixed: the sync rewrites the page and keeps the list
	 * without its problem. */
	cgt_page(ws, ".guild/wiki/concepts/harbour.md", "type: concept",
	         "# Harbour\n\nBoats moor here; see [[quay]].\n");
	cgt_sh("touch -d '+5 seconds' '%s/.guild/wiki/concepts/harbour.md'",
	       ws);
	ans = cgt_query(ws, cache, "boats", NULL);
	assert_int_equal(problems_of(ans, "harbour.md", "lighthouse-keeper"),
	                 0);
	json_decref(ans);
	k = kept();
	assert_non_null(k);
	assert_null(strstr(k, "lighthouse-keeper"));
	/* The foreign write to quay.md stays in the tables, so in the list. */
	assert_non_null(strstr(k, "tide table unreadable"));
	free(k);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kept_then_dropped),
	    cmocka_unit_test(test_sync_keeps_the_new_list),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
