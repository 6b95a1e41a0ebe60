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

/* Runs `corpus-gw query --json --workspace ws --cache cache ARGS...` and
 * returns the parsed answer (fails the test when the exit code is not 0
 * or the output is not JSON). */
json_t *cgt_query(const char *ws, const char *cache, ...);

/* The hit whose path ends with suffix, or NULL. */
json_t *cgt_hit(const json_t *ans, const char *suffix);
/* 0-based rank of the hit whose path ends with suffix, or -1. */
int cgt_rank(const json_t *ans, const char *suffix);

#endif
