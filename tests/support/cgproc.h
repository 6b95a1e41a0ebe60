/*
 * cgproc.h - test helpers for long-running children and the node service:
 * start the real corpus-gw binary ($CG_BIN) in the background, read its
 * first stdout line with a deadline, signal it, wait for it with a
 * deadline; a node test's temporary tree (workspace, cache, log); and a
 * REQ client that talks the node wire protocol with a receive timeout, so
 * no test can hang.  Include after cgtest.h.
 */
#ifndef CG_PROC_H
#define CG_PROC_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <nng/nng.h>

typedef struct cgt_proc {
	pid_t pid;      /* the child, 0 once reaped */
	int out;        /* read end of its stdout, -1 when closed */
	int status;     /* exit code once reaped (128+N for signal N) */
	char buf[4096]; /* stdout bytes read so far, NUL-terminated */
	size_t len;
} cgt_proc;

/* Monotonic milliseconds. */
int64_t cgt_now_ms(void);

/* Sleeps ms milliseconds (the pacing of a polling loop, never a wait for
 * an outcome). */
void cgt_sleep_ms(int ms);

/* Starts $CG_BIN with argv (argv[0] is replaced by the binary path's
 * name; NULL-terminated).  Its stderr is appended to log_path, or
 * inherited when log_path is NULL. */
cgt_proc *cgt_spawnv(const char *log_path, const char *const *argv);

/* The first stdout line without its newline (malloc'd), or NULL when none
 * arrives within timeout_ms or stdout closes first. */
char *cgt_proc_line(cgt_proc *p, int timeout_ms);

void cgt_proc_kill(cgt_proc *p, int sig);

/* Waits up to timeout_ms for the child to exit: its exit code (128+N when
 * killed by signal N), or -1 on timeout (the child keeps running). */
int cgt_proc_wait(cgt_proc *p, int timeout_ms);

/* SIGKILLs the child when still running, reaps it and frees. */
void cgt_proc_free(cgt_proc *p);

/* Starts `corpus-gw node --root ws --cache cache EXTRA...` (NULL-ended)
 * with stderr appended to log_path (inherited when NULL) and waits (30 s
 * at most) for its "listening URL" line; *url gets the URL (malloc'd).
 * Fails the test when no such line comes. */
cgt_proc *cgt_node_start(const char *ws, const char *cache,
                         const char *log_path, char **url, ...);

/* SIGTERM, then asserts a clean exit (code 0) within timeout_ms. */
void cgt_node_stop(cgt_proc *p, int timeout_ms);

/* A node test's temporary tree: dir (a new cgt_tmpdir) holding ws (made,
 * empty), cache (not made: the node makes it) and log (the node's stderr,
 * for cgt_node_start). */
typedef struct cgt_nodefx {
	char dir[1024];   /* parent of everything below */
	char ws[1100];    /* workspace root */
	char cache[1100]; /* index cache */
	char log[1100];   /* node stderr */
} cgt_nodefx;

/* cmocka setup: *state gets a new tree under a new temporary directory;
 * fails the test when it cannot. */
int cgt_nodefx_setup(void **state);

/* cmocka teardown: removes the whole tree of *state and frees it. */
int cgt_nodefx_teardown(void **state);

/* A REQ socket dialed (in the background) to url: receive and send
 * timeouts of timeout_ms, a 64 MiB receive limit, resend disabled so a
 * dropped connection fails the pending request at once. */
nng_socket cgt_client(const char *url, int timeout_ms);

/* Sends len raw bytes and returns the reply parsed as JSON, or NULL when
 * no reply came (*rv, when not NULL, gets the nng error) or it was not
 * JSON (*rv = 0). */
json_t *cgt_call_raw(nng_socket s, const void *buf, size_t len, int *rv);

/* Sends {"v":1,"id":N,"op":op,"args":args} (args consumed, may be NULL)
 * and returns the reply; fails the test when none comes. */
json_t *cgt_call(nng_socket s, const char *op, json_t *args);

/* Repeats cgt_call every 20 ms until the reply is ok (returned) or
 * timeout_ms passes (fails the test).  args is borrowed. */
json_t *cgt_call_ok(nng_socket s, const char *op, const json_t *args,
                    int timeout_ms);

/* True when reply is {"ok":true,...} carrying "node" and "generation". */
bool cgt_reply_ok(const json_t *reply);

/* A full search as the federation does it: stats, then search with those
 * statistics.  Returns the search reply (NULL when either round failed to
 * get a reply; an error reply is returned as is). */
json_t *cgt_node_search(nng_socket s, const char *q, int limit);

/* The hits array of a search reply (borrowed), NULL when not ok. */
json_t *cgt_hits(const json_t *reply);

/* Whether a hit's path ends with suffix. */
bool cgt_has_hit(const json_t *reply, const char *suffix);

#endif
