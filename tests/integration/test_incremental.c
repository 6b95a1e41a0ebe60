/*
 * test_incremental.c - the index follows the files (issue acceptance 5):
 * only a changed page is re-read, a deleted page disappears, a touched but
 * unchanged page is re-read but not re-indexed, and a truncated or
 * damaged database is rebuilt into a new generation with correct results.
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgtest.h"

static char *ws;
static char *cache;

static int
setup(void **state)
{
	ws = cgt_tmpdir("incr");
	cache = cgt_tmpdir("incr-cache");
	for (int i = 0; i < 6; i++) {
		char rel[128];
		char body[256];

		(void)snprintf(rel, sizeof(rel),
		               ".guild/wiki/concepts/page-%d.md", i);
		(void)snprintf(body, sizeof(body),
		               "# Page %d\n\nCommon words about lighthouses. "
		               "Unique%d marker.\n",
		               i, i);
		cgt_page(ws, rel, "type: concept\nupdated_at: 2026-01-01",
		         body);
	}
	return 0;
}

static int
teardown(void **state)
{
	cgt_rm(ws);
	cgt_rm(cache);
	free(ws);
	free(cache);
	return 0;
}

static json_t *
index_stats(const json_t *ans)
{
	return json_object_get(
	    json_object_get(json_object_get(ans, "evidence"), "index"), "root");
}

static long long
stat_of(const json_t *ans, const char *k)
{
	return json_integer_value(json_object_get(index_stats(ans), k));
}

/* Sets a file's mtime to a distinct value so a rewrite within the same
 * clock tick is still seen. */
static void
bump_mtime(const char *rel, int seconds)
{
	char path[4096];
	struct timespec ts[2];

	(void)snprintf(path, sizeof(path), "%s/%s", ws, rel);
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec += seconds;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void
test_first_then_nothing(void **state)
{
	json_t *ans = cgt_query(ws, cache, "lighthouses", NULL);

	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 6);
	assert_int_equal(stat_of(ans, "read"), 6);
	json_decref(ans);
	ans = cgt_query(ws, cache, "lighthouses", NULL);
	assert_int_equal(stat_of(ans, "read"), 0);
	assert_int_equal(stat_of(ans, "reparsed"), 0);
	json_decref(ans);
}

static void
test_one_changed_page(void **state)
{
	json_t *ans;

	cgt_page(ws, ".guild/wiki/concepts/page-3.md",
	         "type: concept\nupdated_at: 2026-02-01",
	         "# Page 3\n\nNow about windmills instead.\n");
	bump_mtime(".guild/wiki/concepts/page-3.md", 10);
	ans = cgt_query(ws, cache, "windmills", NULL);
	assert_int_equal(stat_of(ans, "read"), 1);
	assert_int_equal(stat_of(ans, "reparsed"), 1);
	assert_int_equal(cgt_rank(ans, "page-3.md"), 0);
	json_decref(ans);
	ans = cgt_query(ws, cache, "unique3", NULL);
	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 0);
	json_decref(ans);
}

static void
test_touch_without_change(void **state)
{
	json_t *ans;

	bump_mtime(".guild/wiki/concepts/page-1.md", 20);
	ans = cgt_query(ws, cache, "unique1", NULL);
	assert_int_equal(stat_of(ans, "read"), 1);
	assert_int_equal(stat_of(ans, "reparsed"), 0);
	assert_int_equal(cgt_rank(ans, "page-1.md"), 0);
	json_decref(ans);
}

static void
test_deleted_page(void **state)
{
	char path[4096];
	json_t *ans;

	(void)snprintf(path, sizeof(path), "%s/.guild/wiki/concepts/page-5.md",
	               ws);
	assert_int_equal(unlink(path), 0);
	ans = cgt_query(ws, cache, "lighthouses", NULL);
	assert_int_equal(stat_of(ans, "deleted"), 1);
	assert_int_equal(cgt_rank(ans, "page-5.md"), -1);
	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 4);
	json_decref(ans);
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

static void
expect_rebuilt_and_right(void)
{
	json_t *ans = cgt_query(ws, cache, "lighthouses", NULL);

	assert_true(json_is_true(json_object_get(index_stats(ans), "rebuilt")));
	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 4);
	json_decref(ans);
	ans = cgt_query(ws, cache, "windmills", NULL);
	assert_int_equal(cgt_rank(ans, "page-3.md"), 0);
	assert_false(
	    json_is_true(json_object_get(index_stats(ans), "rebuilt")));
	json_decref(ans);
}

static void
test_truncated_to_zero(void **state)
{
	char *db = live_db();

	assert_int_equal(truncate(db, 0), 0);
	expect_rebuilt_and_right();
	free(db);
}

static void
test_truncated_halfway(void **state)
{
	char *db = live_db();
	struct stat st;

	assert_int_equal(stat(db, &st), 0);
	assert_int_equal(truncate(db, st.st_size / 2), 0);
	expect_rebuilt_and_right();
	free(db);
}

static void
test_garbage_database(void **state)
{
	char *db = live_db();
	FILE *f = fopen(db, "r+b");
	char junk[8192];

	assert_non_null(f);
	memset(junk, 0x5a, sizeof(junk));
	assert_int_equal(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	assert_int_equal(fclose(f), 0);
	expect_rebuilt_and_right();
	free(db);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_then_nothing),
	    cmocka_unit_test(test_one_changed_page),
	    cmocka_unit_test(test_touch_without_change),
	    cmocka_unit_test(test_deleted_page),
	    cmocka_unit_test(test_truncated_to_zero),
	    cmocka_unit_test(test_truncated_halfway),
	    cmocka_unit_test(test_garbage_database),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
