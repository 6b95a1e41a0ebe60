/*
 * cgproc.c - long-running children and a node wire client for tests (see
 * cgproc.h).  Every wait here has a deadline: a broken node makes a test
 * fail, never hang.  Between fork and exec the child calls only
 * async-signal-safe functions (the test process runs nng threads).
 */
#define _GNU_SOURCE
#include "cgproc.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/reqrep0/req.h>

#include "cgtest.h"

int64_t
cgt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
cgt_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

cgt_proc *
cgt_spawnv(const char *log_path, const char *const *argv)
{
	const char *bin = getenv("CG_BIN");
	cgt_proc *p = calloc(1, sizeof(*p));
	int po[2];
	int logfd = -1;

	assert_non_null(bin);
	assert_non_null(p);
	assert_int_equal(pipe2(po, O_CLOEXEC), 0);
	if (log_path != NULL) {
		logfd = open(log_path,
		             O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		assert_true(logfd >= 0);
	}
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		(void)dup2(po[1], 1);
		if (logfd >= 0)
			(void)dup2(logfd, 2);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	if (logfd >= 0)
		close(logfd);
	p->out = po[0];
	p->status = -1;
	return p;
}

char *
cgt_proc_line(cgt_proc *p, int timeout_ms)
{
	int64_t deadline = cgt_now_ms() + timeout_ms;

	while (p->out >= 0) {
		char *nl = memchr(p->buf, '\n', p->len);
		struct pollfd pf = {p->out, POLLIN, 0};
		int64_t left = deadline - cgt_now_ms();
		ssize_t n;

		if (nl != NULL)
			return strndup(p->buf, (size_t)(nl - p->buf));
		if (left <= 0 || p->len + 1 >= sizeof(p->buf))
			return NULL;
		if (poll(&pf, 1, (int)left) <= 0)
			continue;
		n = read(p->out, p->buf + p->len, sizeof(p->buf) - 1 - p->len);
		if (n <= 0) {
			close(p->out);
			p->out = -1;
			break;
		}
		p->len += (size_t)n;
		p->buf[p->len] = '\0';
	}
	return NULL;
}

void
cgt_proc_kill(cgt_proc *p, int sig)
{
	if (p->pid > 0)
		assert_int_equal(kill(p->pid, sig), 0);
}

int
cgt_proc_wait(cgt_proc *p, int timeout_ms)
{
	int64_t deadline = cgt_now_ms() + timeout_ms;
	int st = 0;

	while (p->pid > 0) {
		pid_t r = waitpid(p->pid, &st, WNOHANG);

		if (r == p->pid) {
			p->pid = 0;
			p->status = WIFEXITED(st) ? WEXITSTATUS(st)
			                          : 128 + WTERMSIG(st);
			break;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		if (cgt_now_ms() >= deadline)
			return -1;
		cgt_sleep_ms(5);
	}
	return p->status;
}

void
cgt_proc_free(cgt_proc *p)
{
	if (p == NULL)
		return;
	if (p->pid > 0) {
		(void)kill(p->pid, SIGKILL);
		while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (p->out >= 0)
		close(p->out);
	free(p);
}

static void
dump_log(const char *path)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	char line[1024];

	if (f == NULL)
		return;
	fprintf(stderr, "--- %s\n", path);
	while (fgets(line, sizeof(line), f) != NULL)
		fputs(line, stderr);
	fclose(f);
}

cgt_proc *
cgt_node_start(const char *ws, const char *cache, const char *log_path,
               char **url, ...)
{
	const char *argv[64] = {"corpus-gw", "node",    "--root",
	                        ws,          "--cache", cache};
	size_t n = 6;
	cgt_proc *p;
	char *line;
	va_list ap;

	va_start(ap, url);
	for (const char *a = va_arg(ap, const char *); a != NULL && n < 63;
	     a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	p = cgt_spawnv(log_path, argv);
	line = cgt_proc_line(p, 30000);
	if (line == NULL || strncmp(line, "listening ", 10) != 0) {
		fprintf(stderr, "node did not report listening: %s\n",
		        line ? line : "(no line)");
		dump_log(log_path);
	}
	assert_non_null(line);
	assert_true(strncmp(line, "listening ", 10) == 0);
	*url = strdup(line + 10);
	free(line);
	return p;
}

void
cgt_node_stop(cgt_proc *p, int timeout_ms)
{
	cgt_proc_kill(p, SIGTERM);
	assert_int_equal(cgt_proc_wait(p, timeout_ms), 0);
}

int
cgt_nodefx_setup(void **state)
{
	cgt_nodefx *f = calloc(1, sizeof(*f));
	char *dir = cgt_tmpdir("node");

	assert_non_null(f);
	assert_true(strlen(dir) < sizeof(f->dir));
	(void)snprintf(f->dir, sizeof(f->dir), "%s", dir);
	free(dir);
	(void)snprintf(f->ws, sizeof(f->ws), "%s/ws", f->dir);
	(void)snprintf(f->cache, sizeof(f->cache), "%s/cache", f->dir);
	(void)snprintf(f->log, sizeof(f->log), "%s/node.log", f->dir);
	assert_int_equal(mkdir(f->ws, 0755), 0);
	*state = f;
	return 0;
}

int
cgt_nodefx_teardown(void **state)
{
	cgt_nodefx *f = *state;

	cgt_rm(f->dir);
	free(f);
	return 0;
}

nng_socket
cgt_client(const char *url, int timeout_ms)
{
	nng_socket s;

	assert_int_equal(nng_req0_open(&s), 0);
	assert_int_equal(nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, timeout_ms),
	                 0);
	assert_int_equal(nng_socket_set_ms(s, NNG_OPT_SENDTIMEO, timeout_ms),
	                 0);
	assert_int_equal(nng_socket_set_size(s, NNG_OPT_RECVMAXSZ, 64u << 20),
	                 0);
	assert_int_equal(
	    nng_socket_set_ms(s, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE),
	    0);
	assert_int_equal(nng_dial(s, url, NULL, NNG_FLAG_NONBLOCK), 0);
	return s;
}

json_t *
cgt_call_raw(nng_socket s, const void *buf, size_t len, int *rv)
{
	char *rbuf = NULL;
	size_t rlen = 0;
	json_t *reply;
	int r = nng_send(s, (void *)buf, len, 0);

	if (r == 0)
		r = nng_recv(s, &rbuf, &rlen, NNG_FLAG_ALLOC);
	if (rv != NULL)
		*rv = r;
	if (r != 0)
		return NULL;
	reply = json_loadb(rbuf, rlen, 0, NULL);
	nng_free(rbuf, rlen);
	return reply;
}

json_t *
cgt_call(nng_socket s, const char *op, json_t *args)
{
	json_int_t id = (json_int_t)(cgt_now_ms() % 1000000000);
	json_t *req =
	    json_pack("{s:i, s:I, s:s, s:o}", "v", 1, "id", id, "op", op,
	              "args", args != NULL ? args : json_object());
	char *text = json_dumps(req, JSON_COMPACT);
	int rv = 0;
	json_t *reply;

	assert_non_null(text);
	reply = cgt_call_raw(s, text, strlen(text), &rv);
	if (reply == NULL)
		fprintf(stderr, "no reply to %s: %s\n", op,
		        rv ? nng_strerror(rv) : "not JSON");
	assert_non_null(reply);
	assert_int_equal(json_integer_value(json_object_get(reply, "id")), id);
	free(text);
	json_decref(req);
	return reply;
}

bool
cgt_reply_ok(const json_t *reply)
{
	return json_is_true(json_object_get(reply, "ok")) &&
	       json_is_string(json_object_get(reply, "node")) &&
	       json_is_object(json_object_get(reply, "generation"));
}

json_t *
cgt_call_ok(nng_socket s, const char *op, const json_t *args, int timeout_ms)
{
	int64_t deadline = cgt_now_ms() + timeout_ms;

	for (;;) {
		json_t *r = cgt_call(s, op, args ? json_deep_copy(args) : NULL);

		if (cgt_reply_ok(r))
			return r;
		if (cgt_now_ms() >= deadline) {
			char *t = json_dumps(r, JSON_COMPACT);

			fprintf(stderr, "%s never succeeded: %s\n", op, t);
			free(t);
			fail();
		}
		json_decref(r);
		cgt_sleep_ms(20);
	}
}

json_t *
cgt_node_search(nng_socket s, const char *q, int limit)
{
	json_t *st = cgt_call(s, "stats", json_pack("{s:s}", "q", q));
	json_t *stats;
	json_t *reply;

	if (!cgt_reply_ok(st))
		return st;
	stats = json_object_get(json_object_get(st, "result"), "stats");
	reply = cgt_call(s, "search",
	                 json_pack("{s:s, s:i, s:O}", "q", q, "limit", limit,
	                           "stats", stats));
	json_decref(st);
	return reply;
}

json_t *
cgt_hits(const json_t *reply)
{
	if (!cgt_reply_ok(reply))
		return NULL;
	return json_object_get(json_object_get(reply, "result"), "hits");
}

bool
cgt_has_hit(const json_t *reply, const char *suffix)
{
	size_t i;
	const json_t *h;
	size_t n = strlen(suffix);

	json_array_foreach(cgt_hits(reply), i, h) {
		const char *p = json_string_value(json_object_get(h, "path"));
		size_t m = p ? strlen(p) : 0;

		if (p != NULL && m >= n && strcmp(p + m - n, suffix) == 0)
			return true;
	}
	return false;
}
