/*
 * local.c - the gateway's local socket (local.h): the roster key, the
 * private directory under $XDG_RUNTIME_DIR, binding with a stale socket
 * replaced, the client's look-up and the peer's uid.  It must not answer
 * requests (http.c serves the socket) and must not remove any file but a
 * socket it found stale or the one it bound itself.
 *
 * A stale socket is told from a live one by connecting to it: refused
 * means no process listens (its gateway crashed or was killed), and it is
 * unlinked and bound again; a connection means another gateway serves
 * the same roster, which keeps it (the second serve runs without a local
 * socket and says so).  Two gateways starting at once may both find the
 * path stale; bind then fails for one of them, which logs it and runs on
 * without the socket.
 */
#define _GNU_SOURCE
#include "gateway/local.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cg_buf.h"
#include "common/cg_fs.h"
#include "common/cg_sha256.h"

#define LOCAL_DIR "corpus-gw" /* under $XDG_RUNTIME_DIR */

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A workspace's line: by its real path when it resolves, so ./ws and
 * /abs/ws name the same roster. */
static char *
workspace_line(const cg_conf_workspace *w)
{
	char *real = cg_realpath(w->path);
	char *line = NULL;

	if (asprintf(&line, "w\t%s\t%s", w->name ? w->name : "",
	             real ? real : w->path) < 0)
		line = NULL;
	free(real);
	return line;
}

/* One line per workspace and remote node (NULL: out of memory). */
static char *
roster_line(const cg_config *c, size_t i)
{
	const cg_conf_node *n;
	cg_buf b;

	if (i < c->nworkspaces)
		return workspace_line(&c->workspaces[i]);
	n = &c->nodes[i - c->nworkspaces];
	cg_buf_init(&b, 1 << 20);
	(void)cg_buf_printf(&b, "n\t%s\t%s\t%s", n->name ? n->name : "",
	                    n->url ? n->url : "",
	                    n->workspace ? n->workspace : "");
	for (size_t k = 0; k < n->nsources; k++)
		(void)cg_buf_printf(&b, "\t%s", n->sources[k]);
	return cg_buf_take(&b);
}

int
cg_local_key(const cg_config *c, char out[CG_LOCAL_KEY_LEN + 1])
{
	size_t n = c->nworkspaces + c->nnodes;
	char **lines = calloc(n + 1, sizeof(*lines));
	uint8_t md[32];
	cg_buf all;
	int rc = 0;

	out[0] = '\0';
	if (lines == NULL)
		return CG_ENOMEM;
	for (size_t i = 0; i < n && rc == 0; i++) {
		lines[i] = roster_line(c, i);
		if (lines[i] == NULL)
			rc = CG_ENOMEM;
	}
	cg_buf_init(&all, 64u << 20);
	if (rc == 0) {
		qsort(lines, n, sizeof(*lines), cmp_str);
		for (size_t i = 0; i < n && rc == 0; i++)
			if (cg_buf_puts(&all, lines[i]) != 0 ||
			    cg_buf_putc(&all, '\n') != 0)
				rc = CG_ENOMEM;
	}
	if (rc == 0) {
		cg_sha256(all.data ? all.data : "", all.len, md);
		for (size_t i = 0; i < CG_LOCAL_KEY_LEN / 2; i++)
			(void)snprintf(out + 2 * i, 3, "%02x", md[i]);
	}
	cg_buf_fini(&all);
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return rc;
}

/* $XDG_RUNTIME_DIR/corpus-gw into dir; CG_ENOTFOUND when unset. */
static int
local_dir(char dir[CG_LOCAL_PATH_MAX], cg_err *err)
{
	const char *run = getenv("XDG_RUNTIME_DIR");

	if (run == NULL || run[0] != '/')
		return cg_err_set(
		    err, CG_ENOTFOUND,
		    "XDG_RUNTIME_DIR is not set: no local socket");
	if ((size_t)snprintf(dir, CG_LOCAL_PATH_MAX, "%s/%s", run, LOCAL_DIR) >=
	    CG_LOCAL_PATH_MAX)
		return cg_err_set(err, CG_ETOOBIG,
		                  "XDG_RUNTIME_DIR is too long for a unix "
		                  "socket: no local socket");
	return 0;
}

int
cg_local_path(const cg_config *c, char out[CG_LOCAL_PATH_MAX], cg_err *err)
{
	char dir[CG_LOCAL_PATH_MAX];
	char key[CG_LOCAL_KEY_LEN + 1];
	int rc = local_dir(dir, err);

	if (rc != 0)
		return rc;
	if (cg_local_key(c, key) != 0)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	if ((size_t)snprintf(out, CG_LOCAL_PATH_MAX, "%s/%s.sock", dir, key) >=
	    CG_LOCAL_PATH_MAX)
		return cg_err_set(err, CG_ETOOBIG,
		                  "XDG_RUNTIME_DIR is too long for a unix "
		                  "socket: no local socket");
	return 0;
}

/* Whether st is a directory of this user that no one else may enter. */
static bool
private_dir(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == geteuid() &&
	       (st->st_mode & 077) == 0;
}

/* The directory holding path, created 0700 when missing. */
static int
make_dir(const char *path, cg_err *err)
{
	char dir[CG_LOCAL_PATH_MAX];
	char *slash;
	struct stat st;

	(void)snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		return cg_err_set(err, CG_EINVAL, "%s: not a path", path);
	*slash = '\0';
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return cg_err_set(err, CG_EIO, "%s: %s", dir,
		                  cg_strerror(errno).s);
	if (lstat(dir, &st) != 0)
		return cg_err_set(err, CG_EIO, "%s: %s", dir,
		                  cg_strerror(errno).s);
	if (!private_dir(&st))
		return cg_err_set(err, CG_EDENIED,
		                  "%s is not a directory of this user closed "
		                  "to others (mode 0700): no local socket",
		                  dir);
	return 0;
}

static void
fill_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	(void)snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", path);
}

/* 1 when something listens at path (a live gateway), 0 when connecting is
 * refused (a stale socket). */
static int
listening(const char *path)
{
	struct sockaddr_un sa;
	/* Non-blocking: a full backlog answers EAGAIN at once. */
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int live;

	if (fd < 0)
		return 0;
	fill_addr(&sa, path);
	live = connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) == 0 ||
	       errno == EAGAIN; /* a full backlog: someone listens */
	close(fd);
	return live;
}

/* What is at path before binding: nothing, or a stale socket (removed);
 * a live socket or another kind of file is an error. */
static int
clear_path(const char *path, cg_err *err)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0
		                       : cg_err_set(err, CG_EIO, "%s: %s", path,
		                                    cg_strerror(errno).s);
	if (!S_ISSOCK(st.st_mode))
		return cg_err_set(err, CG_EIO,
		                  "%s exists and is not a socket: left alone, "
		                  "no local socket",
		                  path);
	if (listening(path))
		return cg_err_set(err, CG_EINVAL,
		                  "another gateway serves this workspace on "
		                  "unix:%s: no local socket here",
		                  path);
	if (unlink(path) != 0 && errno != ENOENT)
		return cg_err_set(err, CG_EIO, "%s: %s", path,
		                  cg_strerror(errno).s);
	return 0;
}

/* Binds path, makes it 0600, then listens: no connection is accepted
 * before the mode is set (and the directory is 0700 all along).  The
 * umask is left alone: it is the whole process's, and node threads are
 * creating files and folders meanwhile. */
static int
bind_listen(cg_local *l, cg_err *err)
{
	struct sockaddr_un sa;
	struct stat st = {0};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int e = 0;

	if (fd < 0)
		return cg_err_set(err, CG_EIO, "socket: %s",
		                  cg_strerror(errno).s);
	fill_addr(&sa, l->path);
	if (bind(fd, (const struct sockaddr *)&sa, sizeof(sa)) != 0)
		e = errno != 0 ? errno : EIO;
	else if (chmod(l->path, 0600) != 0 || listen(fd, SOMAXCONN) != 0 ||
	         stat(l->path, &st) != 0) {
		e = errno != 0 ? errno : EIO;
		(void)unlink(l->path); /* bound here: ours */
	}
	if (e != 0) {
		close(fd);
		return cg_err_set(err, CG_EIO, "unix:%s: %s", l->path,
		                  cg_strerror(e).s);
	}
	l->fd = fd;
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	return 0;
}

int
cg_local_listen(cg_local *l, const cg_config *c, cg_err *err)
{
	int rc;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	rc = cg_local_path(c, l->path, err);
	if (rc == 0 && cg_local_key(c, l->key) != 0)
		rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	if (rc == 0)
		rc = make_dir(l->path, err);
	if (rc == 0)
		rc = clear_path(l->path, err);
	if (rc == 0)
		rc = bind_listen(l, err);
	if (rc != 0)
		l->path[0] = '\0';
	return rc;
}

void
cg_local_close(cg_local *l)
{
	struct stat st;

	if (l == NULL || l->path[0] == '\0')
		return;
	if (lstat(l->path, &st) == 0 && st.st_dev == l->dev &&
	    st.st_ino == l->ino)
		(void)unlink(l->path);
	l->path[0] = '\0';
	l->fd = -1;
}

int
cg_local_find(const cg_config *c, char out[CG_LOCAL_PATH_MAX])
{
	char dir[CG_LOCAL_PATH_MAX];
	struct stat st;
	cg_err err;

	cg_err_clear(&err);
	if (cg_local_path(c, out, &err) != 0 || local_dir(dir, &err) != 0)
		return 0;
	if (lstat(dir, &st) != 0 || !private_dir(&st))
		return 0;
	return lstat(out, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       st.st_uid == geteuid();
}

bool
cg_local_peer_ok(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 ||
	    len != sizeof(cr))
		return false;
	return cr.uid == geteuid();
}
