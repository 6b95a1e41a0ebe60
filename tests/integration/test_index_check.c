/*
 * test_index_check.c - a damaged index is found by the node's reconcile,
 * not by the query that happens to read the damage (issue 15, finding 13):
 * a running `corpus-gw node` whose index file gets 8 KiB of garbage over
 * pages no sync reads (the section text) logs the damage, rebuilds the
 * index from the pages and says so in status (build_reason), with no query
 * sent in between; queries then answer from the new generation.
 */
/* The index is built by `corpus-gw index` first, so that the node starts
 * on a generation whose WAL is empty: the damage lands in pages SQLite
 * reads from the database file. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cgproc.h"
#include "cgtest.h"
#include "common/cg_fs.h"

static bool
log_has(const char *path, const char *needle)
{
	char *text = NULL;
	size_t len = 0;
	bool found;

	if (cg_file_read(path, 16u << 20, &text, &len, NULL) != 0)
		return false;
	found = strstr(text, needle) != NULL;
	free(text);
	return found;
}

/* The one generation-1 database under cache (malloc'd path). */
static char *
gen1(const char *cache)
{
	char pat[4200];
	glob_t g;
	char *p;

	(void)snprintf(pat, sizeof(pat), "%s/*-root/gen-000001.db", cache);
	assert_int_equal(glob(pat, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	p = strdup(g.gl_pathv[0]);
	globfree(&g);
	return p;
}

/* Two leaf pages of the section text (sec_content), from the middle of
 * the list: what a sync that finds nothing changed never reads.  Read with
 * SQLite's dbstat table.  `index` has checkpointed the WAL into the file
 * when it closed (and a sync that finds nothing writes nothing), so these
 * pages are read from the database file itself. */
static void
text_pages(const char *db, long long page[2], long long *size)
{
	char uri[4200];
	sqlite3 *c = NULL;
	sqlite3_stmt *st = NULL;
	long long v[512];
	int n = 0;

	(void)snprintf(uri, sizeof(uri), "file:%s", db);
	assert_int_equal(sqlite3_open_v2(uri, &c,
	                                 SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
	                                 NULL),
	                 SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(c, "PRAGMA page_size", -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	*size = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	assert_int_equal(
	    sqlite3_prepare_v2(c,
	                       "SELECT pageno FROM dbstat WHERE name = "
	                       "'sec_content' AND pagetype = 'leaf' "
	                       "ORDER BY pageno",
	                       -1, &st, NULL),
	    SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW && n < 512)
		v[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(c);
	assert_true(n >= 4);
	page[0] = v[n / 2];
	page[1] = v[n / 2 + 1];
}

/* 8 KiB of garbage (a fixed pseudo-random sequence) over the two pages. */
static void
damage(const char *db, const long long page[2], long long size)
{
	int fd = open(db, O_WRONLY);
	unsigned x = 2463534242u;

	assert_true(fd >= 0);
	for (int k = 0; k < 2; k++) {
		char *buf = malloc((size_t)size);

		assert_non_null(buf);
		for (long long i = 0; i < size; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			buf[i] = (char)(x & 0xff);
		}
		assert_int_equal(
		    pwrite(fd, buf, (size_t)size, (page[k] - 1) * size), size);
		free(buf);
	}
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(close(fd), 0);
}

static void
test_reconcile_finds_damage(void **state)
{
	char *dir = cgt_tmpdir("check");
	char ws[4096];
	char cache[4096];
	char logp[4096];
	char *db;
	char *url = NULL;
	long long page[2];
	long long size = 0;
	int64_t deadline;
	cgt_proc *p;
	nng_socket s;
	json_t *r;
	const json_t *src;

	(void)state;
	(void)snprintf(ws, sizeof(ws), "%s/ws", dir);
	(void)snprintf(cache, sizeof(cache), "%s/cache", dir);
	(void)snprintf(logp, sizeof(logp), "%s/node.log", dir);
	for (int i = 0; i < 150; i++) {
		char rel[128];
		char body[2048];
		size_t off = 0;

		(void)snprintf(rel, sizeof(rel),
		               ".guild/wiki/notes/note-%03d.md", i);
		off +=
		    (size_t)snprintf(body, sizeof(body),
		                     "# Note %d\n\nThe otter%d rule. ", i, i);
		for (int k = 0; k < 20 && off < sizeof(body) - 64; k++)
			off += (size_t)snprintf(
			    body + off, sizeof(body) - off,
			    "Line %d of note %d says w%dx%d. ", k, i, i, k);
		cgt_page(ws, rel, "type: concept\nupdated_at: 2026-10-01",
		         body);
	}
	assert_int_equal(cgt_run(NULL, NULL, "index", "--workspace", ws,
	                         "--cache", cache, NULL),
	                 0);
	db = gen1(cache);
	text_pages(db, page, &size);
	p = cgt_node_start(ws, cache, logp, &url, "--listen",
	                   "tcp://127.0.0.1:0", "--reconcile", "1", NULL);
	deadline = cgt_now_ms() + 30000LL * cgt_slowdown();
	while (!log_has(logp, "sync done reason=start") &&
	       cgt_now_ms() < deadline)
		cgt_sleep_ms(20);
	assert_true(log_has(logp, "sync done reason=start"));

	damage(db, page, size);

	/* No query: the reconcile's check finds it, and rebuilds. */
	deadline = cgt_now_ms() + 30000LL * cgt_slowdown();
	while (!log_has(logp, "index damaged, rebuilt source=root") &&
	       cgt_now_ms() < deadline)
		cgt_sleep_ms(50);
	assert_true(log_has(logp, "index damaged, rebuilt source=root"));
	assert_true(log_has(logp, "reason=\"quick_check: "));

	s = cgt_client(url, 10000);
	r = cgt_call_ok(s, "status", NULL, 10000);
	src = json_array_get(
	    json_object_get(json_object_get(r, "result"), "sources"), 0);
	assert_int_equal(json_integer_value(json_object_get(src, "generation")),
	                 2);
	assert_int_equal(json_integer_value(json_object_get(src, "pages")),
	                 150);
	assert_true(
	    strncmp(json_string_value(json_object_get(src, "build_reason")),
	            "quick_check: ", 13) == 0);
	json_decref(r);
	r = cgt_node_search(s, "otter77", 5);
	assert_true(cgt_has_hit(r, "notes/note-077.md"));
	json_decref(r);
	nng_close(s);
	cgt_node_stop(p, 10000);
	cgt_proc_free(p);
	free(url);
	free(db);
	cgt_rm(dir);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reconcile_finds_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
