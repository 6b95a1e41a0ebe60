/*
 * cgtest.h - what the tests share: temporary workspaces written file by
 * file, running the real corpus-gw binary (path in $CG_BIN) and reading its
 * JSON.  Include after cmocka's prerequisites.
 */
#ifndef CG_TEST_H
#define CG_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

/* A new empty directory under $TMPDIR (or /tmp); malloc'd path. */
char *cgt_tmpdir(const char *tag);

/* A test's temporary tree: *t gets a new cgt_tmpdir(tag), *ws t/ws and
 * *cache t/cache (neither made); all malloc'd.  cgt_tree_free removes t
 * and frees the three. */
void cgt_tree(const char *tag, char **t, char **ws, char **cache);
void cgt_tree_free(char *t, char *ws, char *cache);

/* The trees of a test of paths that must stay inside a workspace: *ws,
 * *cache and *outside (a place no answer may reach) are new
 * cgt_tmpdir(tag), (tag-cache) and (tag-outside); *wsname, unless wsname
 * is NULL, the workspace's name (the last component of *ws).  All
 * malloc'd; cgt_escape_free removes the three trees and frees all four
 * (wsname may be NULL). */
void cgt_escape_new(const char *tag, char **ws, char **cache, char **outside,
                    char **wsname);
void cgt_escape_free(char *ws, char *cache, char *outside, char *wsname);

/* dir/rel (malloc'd); fails the test when out of memory. */
char *cgt_path(const char *dir, const char *rel);

/* Writes content to dir/rel, creating parent folders. */
void cgt_write(const char *dir, const char *rel, const char *content);
void cgt_write_bytes(const char *dir, const char *rel, const void *p, size_t n);

/* Runs a shell command line built like printf (the test's own paths
 * only); fails the test when it does not exit 0. */
void cgt_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The stdout of such a command line (at most 4 KiB), trailing newlines and
 * spaces trimmed (malloc'd); fails the test when it does not exit 0. */
char *cgt_sh_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* How many times slower this build runs than a plain one:
 * CG_TEST_SLOWDOWN (tests/CMakeLists.txt: 1, ASan 3, TSan 5); 1 when unset
 * or not a number from 1 to 10.  Wall-clock bounds and waits of a test are
 * multiplied by it, never the quantities the test checks. */
int cgt_slowdown(void);

/* Removes a tree. */
void cgt_rm(const char *dir);

/* Writes a page dir/rel with the frontmatter lines fm (may be NULL) and
 * the body. */
void cgt_page(const char *dir, const char *rel, const char *fm,
              const char *body);

/* Runs the corpus-gw binary with args (NULL-terminated); stores stdout and
 * stderr (malloc'd, may pass NULL) and returns the exit status. */
int cgt_run(char **out, char **err, const char *arg, ...);
int cgt_runv(char **out, char **err, const char *const *argv);

/* Runs `corpus-gw fetch --workspace ws --api-base api --git-base git
 * EXTRA...` (NULL-ended) and returns its exit status; stderr into *err
 * (malloc'd, may pass NULL).  Fails the test when it prints anything on
 * stdout: fetch never does. */
int cgt_fetch(const char *ws, const char *api, const char *git, char **err,
              ...);
int cgt_fetchv(const char *ws, const char *api, const char *git, char **err,
               va_list ap);

/* Runs `corpus-gw query --json --workspace ws --cache cache ARGS...` and
 * returns the parsed answer (fails the test when the exit code is not 0
 * or the output is not JSON). */
json_t *cgt_query(const char *ws, const char *cache, ...);

/* The hit whose path ends with suffix, or NULL. */
json_t *cgt_hit(const json_t *ans, const char *suffix);
/* 0-based rank of the hit whose path ends with suffix, or -1. */
int cgt_rank(const json_t *ans, const char *suffix);

#endif
