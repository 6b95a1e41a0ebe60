/*
 * cg_fs.c - file system helpers.  Reads are capped and refuse symlinks so a
 * page or a config file can never pull in /etc/passwd or exhaust memory.
 */
#define _GNU_SOURCE
#include "common/cg_fs.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
cg_file_read(const char *path, size_t max, char **out, size_t *len, cg_err *err)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd;
	int rc = 0;

	*out = NULL;
	if (len != NULL)
		*len = 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ELOOP)
			return cg_err_set(err, CG_EDENIED,
			                  "%s: is a symlink, not followed",
			                  path);
		if (errno == ENOENT)
			return cg_err_set(err, CG_ENOTFOUND, "%s: not found",
			                  path);
		return cg_err_set(err, CG_EIO, "%s: %s", path,
		                  cg_strerror(errno).s);
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = cg_err_set(err, CG_EINVAL, "%s: not a regular file", path);
		goto out_close;
	}
	if ((uint64_t)st.st_size > max) {
		rc = cg_err_set(err, CG_ETOOBIG,
		                "%s: %lld bytes, over the %zu byte limit", path,
		                (long long)st.st_size, max);
		goto out_close;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf == NULL) {
		rc = cg_err_set(err, CG_ENOMEM, "%s: out of memory", path);
		goto out_close;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = cg_err_set(err, CG_EIO, "%s: %s", path,
			                cg_strerror(errno).s);
			goto out_free;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*out = buf;
	if (len != NULL)
		*len = got;
	buf = NULL;
out_free:
	free(buf);
out_close:
	close(fd);
	return rc;
}

/* Sets err for rel and leaves errno at e; returns code. */
static int
beneath_fail(cg_err *err, int code, int e, const char *rel, size_t len,
             const char *why)
{
	int n = len > 300 ? 300 : (int)len;

	(void)cg_err_set(err, code, "'%.*s': %s", n, rel, why);
	errno = e;
	return code;
}

/* The error for a failed openat of the component name below dfd. */
static int
beneath_open_fail(int dfd, const char *name, int e, const char *rel, size_t len,
                  cg_err *err)
{
	struct stat st;

	/* O_DIRECTORY | O_NOFOLLOW on a symlink may say ENOTDIR. */
	if (e == ELOOP || (e == ENOTDIR &&
	                   fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	                   S_ISLNK(st.st_mode)))
		return beneath_fail(err, CG_EDENIED, ELOOP, rel, len,
		                    "a symlink on the path, not followed");
	if (e == ENOENT || e == ENOTDIR)
		return beneath_fail(err, CG_ENOTFOUND, e, rel, len,
		                    "not found");
	if (e == ENAMETOOLONG)
		return beneath_fail(err, CG_ETOOBIG, e, rel, len,
		                    "a path component is too long");
	return beneath_fail(err, CG_EIO, e, rel, len, cg_strerror(e).s);
}

/* Opens the component [p, p + n) below dfd: a folder unless last. */
static int
beneath_step(int dfd, const char *p, size_t n, bool last, int *next,
             const char *rel, size_t len, cg_err *err)
{
	char name[NAME_MAX + 1];

	if (n == 0 || (n == 1 && p[0] == '.') ||
	    (n == 2 && p[0] == '.' && p[1] == '.'))
		return beneath_fail(err, CG_EINVAL, EINVAL, rel, len,
		                    "an empty, '.' or '..' path component");
	if (n > NAME_MAX)
		return beneath_fail(err, CG_ETOOBIG, ENAMETOOLONG, rel, len,
		                    "a path component is too long");
	memcpy(name, p, n);
	name[n] = '\0';
	*next = openat(dfd, name,
	               O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	                   (last ? O_NONBLOCK : O_DIRECTORY));
	if (*next < 0)
		return beneath_open_fail(dfd, name, errno, rel, len, err);
	return 0;
}

int
cg_open_beneath(int *fd, int dirfd, const char *rel, size_t len, cg_err *err)
{
	const char *p = rel;
	const char *end = rel + len;
	struct stat st;
	int dfd = dirfd;
	int rc;

	*fd = -1;
	if (memchr(rel, '\0', len) != NULL)
		return beneath_fail(err, CG_EINVAL, EINVAL, rel, len,
		                    "a NUL byte in the path");
	for (;;) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t n = slash ? (size_t)(slash - p) : (size_t)(end - p);
		int next = -1;
		int e;

		rc = beneath_step(dfd, p, n, slash == NULL, &next, rel, len,
		                  err);
		e = errno;
		if (dfd != dirfd)
			close(dfd);
		if (rc != 0) {
			errno = e;
			return rc;
		}
		dfd = next;
		if (slash == NULL)
			break;
		p = slash + 1;
	}
	if (fstat(dfd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(dfd);
		return beneath_fail(err, CG_EINVAL, EINVAL, rel, len,
		                    "not a regular file");
	}
	*fd = dfd;
	return 0;
}

/* Writes path through a temporary file and rename(2); durable: fsync the
 * file before the rename. */
static int
write_replace(const char *path, const void *data, size_t len, bool durable,
              cg_err *err)
{
	char tmp[PATH_MAX];
	const char *p = data;
	int fd;

	/* A unique name (mkstemp): two threads of one process writing the
	 * same path never share a temporary file. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >=
	    (int)sizeof(tmp))
		return cg_err_set(err, CG_EINVAL, "%s: path too long", path);
	fd = mkstemp(tmp);
	if (fd >= 0 &&
	    (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || fchmod(fd, 0644) != 0)) {
		close(fd);
		unlink(tmp);
		fd = -1;
	}
	if (fd < 0)
		return cg_err_set(err, CG_EIO, "%s: %s", tmp,
		                  cg_strerror(errno).s);
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			unlink(tmp);
			return cg_err_set(err, CG_EIO, "%s: %s", tmp,
			                  cg_strerror(errno).s);
		}
		p += n;
		len -= (size_t)n;
	}
	if ((durable && fsync(fd) != 0) || close(fd) != 0) {
		unlink(tmp);
		return cg_err_set(err, CG_EIO, "%s: %s", tmp,
		                  cg_strerror(errno).s);
	}
	if (rename(tmp, path) != 0) {
		unlink(tmp);
		return cg_err_set(err, CG_EIO, "%s: %s", path,
		                  cg_strerror(errno).s);
	}
	return 0;
}

int
cg_file_write_atomic(const char *path, const void *data, size_t len,
                     cg_err *err)
{
	return write_replace(path, data, len, true, err);
}

int
cg_file_write_advisory(const char *path, const void *data, size_t len,
                       cg_err *err)
{
	return write_replace(path, data, len, false, err);
}

char *
cg_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	size_t lb = strlen(b);
	char *p;

	while (la > 1 && a[la - 1] == '/')
		la--;
	p = malloc(la + lb + 2);
	if (p == NULL)
		return NULL;
	memcpy(p, a, la);
	p[la] = '/';
	memcpy(p + la + 1, b, lb + 1);
	return p;
}

int
cg_mkdir_p(const char *dir, cg_err *err)
{
	char path[PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(path))
		return cg_err_set(err, CG_EINVAL, "bad directory path '%s'",
		                  dir);
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return cg_err_set(err, CG_EIO, "mkdir %s: %s", path,
			                  cg_strerror(errno).s);
		if (i < n)
			path[i] = '/';
	}
	if (!cg_is_dir(dir))
		return cg_err_set(err, CG_EIO, "%s: not a directory", dir);
	return 0;
}

int
cg_mkdir_parents(const char *path, cg_err *err)
{
	char *d = strdup(path);
	char *slash = d != NULL ? strrchr(d, '/') : NULL;
	int rc;

	if (d == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	if (slash == NULL || slash == d) {
		free(d);
		return 0; /* in the current folder, or at the root */
	}
	*slash = '\0';
	rc = cg_mkdir_p(d, err);
	free(d);
	return rc;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

int
cg_rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : CG_EIO;
	/* Depth first, symlinks removed as links, never followed. */
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : CG_EIO;
}

/* Links every entry of the folder src into dst (which exists): folders
 * recreated, regular files hard-linked, symlinks recreated as links (their
 * targets are not read), anything else skipped.  depth bounds recursion. */
/* NOLINTBEGIN(misc-no-recursion): one folder deeper per call, and depth
 * bounds it. */
static int
link_dir(const char *src, const char *dst, int depth, cg_err *err)
{
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (depth > 64)
		return cg_err_set(err, CG_EINVAL, "%s: folders nested too deep",
		                  src);
	d = opendir(src);
	if (d == NULL)
		return cg_err_set(err, CG_EIO, "%s: %s", src,
		                  cg_strerror(errno).s);
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char a[PATH_MAX];
		char b[PATH_MAX];
		char t[PATH_MAX];
		struct stat st;
		ssize_t k;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(a, sizeof(a), "%s/%s", src, e->d_name) >=
		        (int)sizeof(a) ||
		    snprintf(b, sizeof(b), "%s/%s", dst, e->d_name) >=
		        (int)sizeof(b)) {
			rc = cg_err_set(err, CG_EINVAL, "%s: path too long",
			                src);
			break;
		}
		if (lstat(a, &st) != 0)
			rc = cg_err_set(err, CG_EIO, "%s: %s", a,
			                cg_strerror(errno).s);
		else if (S_ISDIR(st.st_mode))
			rc = mkdir(b, 0755) != 0 && errno != EEXIST
			         ? cg_err_set(err, CG_EIO, "%s: %s", b,
			                      cg_strerror(errno).s)
			         : link_dir(a, b, depth + 1, err);
		else if (S_ISREG(st.st_mode) && link(a, b) != 0)
			rc = cg_err_set(err, CG_EIO, "link %s: %s", b,
			                cg_strerror(errno).s);
		else if (S_ISLNK(st.st_mode) &&
		         ((k = readlink(a, t, sizeof(t) - 1)) < 0 ||
		          (t[k] = '\0', symlink(t, b) != 0)))
			rc = cg_err_set(err, CG_EIO, "symlink %s: %s", b,
			                cg_strerror(errno).s);
	}
	closedir(d);
	return rc;
}
/* NOLINTEND(misc-no-recursion) */

int
cg_tree_link(const char *src, const char *dst, cg_err *err)
{
	if (mkdir(dst, 0755) != 0)
		return cg_err_set(err, CG_EIO, "%s: %s", dst,
		                  cg_strerror(errno).s);
	return link_dir(src, dst, 0, err);
}

uint64_t
cg_hash64(const void *p, size_t n)
{
	const unsigned char *u = p;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= u[i];
		h *= 1099511628211ULL;
	}
	return h;
}

bool
cg_is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *
cg_realpath(const char *path)
{
	return realpath(path, NULL);
}

char *
cg_default_cache_dir(void)
{
	const char *v = getenv("CORPUS_GW_CACHE");
	char path[4096];

	if (v != NULL && *v != '\0')
		return strdup(v);
	v = getenv("XDG_CACHE_HOME");
	if (v != NULL && *v == '/') {
		(void)snprintf(path, sizeof(path), "%s/corpus-gw", v);
		return strdup(path);
	}
	v = getenv("HOME");
	if (v != NULL && *v == '/') {
		(void)snprintf(path, sizeof(path), "%s/.cache/corpus-gw", v);
		return strdup(path);
	}
	(void)snprintf(path, sizeof(path), "/tmp/corpus-gw-%ld",
	               (long)getuid());
	return strdup(path);
}
