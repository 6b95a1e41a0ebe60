/*
 * cgtest.c - test helpers: temporary trees, shell command lines, and the
 * real binary run as a child process with its output captured through
 * pipes.
 */
#define _GNU_SOURCE
#include "cgtest.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cg_buf.h"
#include "common/cg_fs.h"

char *
cgt_tmpdir(const char *tag)
{
	const char *base = getenv("TMPDIR");
	char path[4096];

	(void)snprintf(path, sizeof(path), "%s/cgt-%s-XXXXXX",
	               base && *base ? base : "/tmp", tag);
	assert_non_null(mkdtemp(path));
	return strdup(path);
}

void
cgt_write_bytes(const char *dir, const char *rel, const void *p, size_t n)
{
	char *path = cg_path_join(dir, rel);
	char *slash;
	FILE *f;

	assert_non_null(path);
	slash = strrchr(path, '/');
	*slash = '\0';
	assert_int_equal(cg_mkdir_p(path, NULL), 0);
	*slash = '/';
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	free(path);
}

char *
cgt_path(const char *dir, const char *rel)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", dir, rel) > 0);
	return p;
}

void
cgt_tree(const char *tag, char **t, char **ws, char **cache)
{
	*t = cgt_tmpdir(tag);
	*ws = cgt_path(*t, "ws");
	*cache = cgt_path(*t, "cache");
}

void
cgt_tree_free(char *t, char *ws, char *cache)
{
	cgt_rm(t);
	free(t);
	free(ws);
	free(cache);
}

void
cgt_escape_new(const char *tag, char **ws, char **cache, char **outside,
               char **wsname)
{
	char *t = NULL;

	*ws = cgt_tmpdir(tag);
	assert_true(asprintf(&t, "%s-cache", tag) > 0);
	*cache = cgt_tmpdir(t);
	free(t);
	assert_true(asprintf(&t, "%s-outside", tag) > 0);
	*outside = cgt_tmpdir(t);
	free(t);
	if (wsname != NULL) {
		*wsname = strdup(strrchr(*ws, '/') + 1);
		assert_non_null(*wsname);
	}
}

void
cgt_escape_free(char *ws, char *cache, char *outside, char *wsname)
{
	cgt_rm(ws);
	cgt_rm(cache);
	cgt_rm(outside);
	free(ws);
	free(cache);
	free(outside);
	free(wsname);
}

void
cgt_write(const char *dir, const char *rel, const char *content)
{
	cgt_write_bytes(dir, rel, content, strlen(content));
}

int
cgt_slowdown(void)
{
	const char *s = getenv("CG_TEST_SLOWDOWN");
	char *end = NULL;
	long k = s != NULL ? strtol(s, &end, 10) : 1;

	if (s == NULL || end == s || *end != '\0' || k < 1 || k > 10)
		k = 1;
	return (int)k;
}

void
cgt_rm(const char *dir)
{
	if (dir != NULL && getenv("CGT_KEEP") == NULL)
		(void)cg_rm_rf(dir);
}

void
cgt_sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	(void)vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	assert_int_equal(rc, 0);
}

char *
cgt_sh_out(const char *fmt, ...)
{
	char cmd[8192];
	char buf[4096];
	va_list ap;
	FILE *p;
	size_t n;

	va_start(ap, fmt);
	(void)vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(buf, 1, sizeof(buf) - 1, p);
	assert_int_equal(pclose(p), 0);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return strdup(buf);
}

void
cgt_page(const char *dir, const char *rel, const char *fm, const char *body)
{
	cg_buf b;

	cg_buf_init(&b, 1u << 30);
	if (fm != NULL) {
		(void)cg_buf_puts(&b, "---\n");
		(void)cg_buf_puts(&b, fm);
		if (b.len > 0 && b.data[b.len - 1] != '\n')
			(void)cg_buf_putc(&b, '\n');
		(void)cg_buf_puts(&b, "---\n");
	}
	(void)cg_buf_puts(&b, body);
	cgt_write_bytes(dir, rel, b.data, b.len);
	cg_buf_fini(&b);
}

static void
drain(int fds[2], cg_buf *out, cg_buf *err)
{
	struct pollfd p[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
	int open_fds = 2;
	char buf[65536];

	while (open_fds > 0) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n > 0) {
				(void)cg_buf_append(i == 0 ? out : err, buf,
				                    (size_t)n);
				continue;
			}
			close(p[i].fd);
			p[i].fd = -1;
			open_fds--;
		}
	}
}

int
cgt_runv(char **out, char **err, const char *const *argv)
{
	const char *bin = getenv("CG_BIN");
	int po[2];
	int pe[2];
	int fds[2];
	int status = 0;
	cg_buf bo;
	cg_buf be;
	pid_t pid;

	assert_non_null(bin);
	assert_int_equal(pipe(po), 0);
	assert_int_equal(pipe(pe), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		close(po[1]);
		close(pe[1]);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	cg_buf_init(&bo, 1u << 30);
	cg_buf_init(&be, 1u << 30);
	fds[0] = po[0];
	fds[1] = pe[0];
	drain(fds, &bo, &be);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (out != NULL)
		*out = cg_buf_take(&bo);
	if (err != NULL)
		*err = cg_buf_take(&be);
	cg_buf_fini(&bo);
	cg_buf_fini(&be);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int
cgt_run(char **out, char **err, const char *arg, ...)
{
	const char *argv[128];
	size_t n = 0;
	va_list ap;

	argv[n++] = "corpus-gw";
	va_start(ap, arg);
	for (const char *a = arg; a != NULL && n < 127;
	     a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	return cgt_runv(out, err, argv);
}

int
cgt_fetchv(const char *ws, const char *api, const char *git, char **err,
           va_list ap)
{
	const char *argv[32] = {"corpus-gw",  "fetch", "--workspace", ws,
	                        "--api-base", api,     "--git-base",  git};
	size_t n = 8;
	const char *a;
	char *out = NULL;
	int rc;

	while ((a = va_arg(ap, const char *)) != NULL && n < 30)
		argv[n++] = a;
	argv[n] = NULL;
	rc = cgt_runv(&out, err, argv);
	assert_string_equal(out, ""); /* nothing on stdout, ever */
	free(out);
	return rc;
}

int
cgt_fetch(const char *ws, const char *api, const char *git, char **err, ...)
{
	va_list ap;
	int rc;

	va_start(ap, err);
	rc = cgt_fetchv(ws, api, git, err, ap);
	va_end(ap);
	return rc;
}

json_t *
cgt_query(const char *ws, const char *cache, ...)
{
	const char *argv[128] = {"corpus-gw",   "query", "--json",
	                         "--workspace", ws,      "--cache",
	                         cache};
	size_t n = 7;
	char *out = NULL;
	char *err = NULL;
	json_error_t jerr;
	json_t *ans;
	va_list ap;
	int rc;

	va_start(ap, cache);
	for (const char *a = va_arg(ap, const char *); a != NULL && n < 127;
	     a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	rc = cgt_runv(&out, &err, argv);
	if (rc != 0)
		fprintf(stderr, "query exited %d: %s\n", rc, err);
	assert_int_equal(rc, 0);
	ans = json_loads(out, 0, &jerr);
	if (ans == NULL)
		fprintf(stderr, "not JSON: %s\n%s\n", jerr.text, out);
	assert_non_null(ans);
	free(out);
	free(err);
	return ans;
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s);
	size_t b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

int
cgt_rank(const json_t *ans, const char *suffix)
{
	size_t i;
	const json_t *h;

	json_array_foreach(json_object_get(ans, "hits"), i, h) {
		const char *p = json_string_value(json_object_get(h, "path"));

		if (p != NULL && ends_with(p, suffix))
			return (int)i;
	}
	return -1;
}

json_t *
cgt_hit(const json_t *ans, const char *suffix)
{
	int r = cgt_rank(ans, suffix);

	return r < 0 ? NULL
	             : json_array_get(json_object_get(ans, "hits"), (size_t)r);
}
