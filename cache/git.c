/*
 * git.c - fetch one branch into a bare repository and materialise paths of
 * a commit, with libgit2 1.5.
 *
 * The fetch runs in a forked child (cache/child_int.h): libgit2 1.5 has no
 * network timeout, so the parent waits for the child's reply on a pipe
 * until the deadline and then kills it.  Materialising never uses libgit2's
 * checkout (which writes symlinks that point anywhere): it walks the tree and
 * writes regular blobs itself, relative to directory fds it created, with
 * O_EXCL|O_NOFOLLOW.
 *
 * Must not: print, keep state between calls, show a URL's userinfo.
 */
#define _GNU_SOURCE
#include "cache/git.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "cache/child_int.h"
#include "common/cg_fs.h"
#include "common/cg_time.h"

#define URL_SHOWN_MAX 256  /* a URL as messages show it */
#define REL_MAX       1024 /* a path as first_skip shows it */
#define BRANCH_MAX    200

bool
cg_git_name_safe(const char *name, size_t len)
{
	if (name == NULL || len == 0 || len > 255)
		return false;
	if (memchr(name, '\0', len) != NULL || memchr(name, '/', len) != NULL ||
	    memchr(name, '\\', len) != NULL)
		return false;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return false;
	/* ".git" in any case: a case-folding file system would see it. */
	return !(len == 4 && strncasecmp(name, ".git", 4) == 0);
}

static bool
branch_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '/' ||
	       c == '-';
}

bool
cg_git_branch_safe(const char *branch)
{
	size_t n;

	if (branch == NULL)
		return false;
	n = strlen(branch);
	if (n == 0 || n > BRANCH_MAX || branch[0] == '-' || branch[0] == '/' ||
	    branch[0] == '.' || branch[n - 1] == '/')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!branch_char_ok(branch[i]))
			return false;
	if (strstr(branch, "..") != NULL || strstr(branch, "//") != NULL ||
	    strstr(branch, "/.") != NULL)
		return false;
	return !(n >= 5 && strcmp(branch + n - 5, ".lock") == 0);
}

static bool
sha_valid(const char *sha)
{
	if (sha == NULL || strlen(sha) != 40)
		return false;
	for (size_t i = 0; i < 40; i++)
		if (!isxdigit((unsigned char)sha[i]))
			return false;
	return true;
}

/* Checks subdir's components; *len gets its length without trailing '/'. */
static int
subdir_check(const char *subdir, size_t *len, cg_err *err)
{
	size_t n = subdir == NULL ? 0 : strlen(subdir);
	size_t i = 0;

	while (n > 0 && subdir[n - 1] == '/')
		n--;
	*len = n;
	while (i < n) {
		size_t k = strcspn(subdir + i, "/");

		if (k > n - i)
			k = n - i;
		if (!cg_git_name_safe(subdir + i, k))
			return cg_err_set(err, CG_EINVAL,
			                  "subdir '%s': unsafe component",
			                  subdir);
		i += k + 1;
	}
	return 0;
}

/* Where the userinfo of url starts and its length (0 when none). */
static size_t
url_userinfo(const char *url, const char **start)
{
	const char *host = strstr(url, "://");
	const char *at = NULL;
	size_t end;

	host = host == NULL ? url : host + 3;
	end = strcspn(host, "/?#");
	for (size_t i = 0; i < end; i++)
		if (host[i] == '@')
			at = host + i;
	*start = host;
	return at == NULL ? 0 : (size_t)(at - host) + 1;
}

/* url without "user:pass@", for messages. */
static void
url_shown(const char *url, char *out, size_t n)
{
	const char *ui;
	size_t len = url_userinfo(url, &ui);

	(void)snprintf(out, n, "%.*s%s", (int)(ui - url), url, ui + len);
}

/* Replaces every occurrence of the len bytes at what in msg by "***". */
static void
scrub(char *msg, size_t cap, const char *what, size_t len)
{
	char out[CG_ERR_MSG_MAX];
	size_t o = 0;
	const char *p = msg;

	if (len < 3)
		return; /* too short to scrub without mangling the text */
	while (*p != '\0' && o + 4 < sizeof(out)) {
		if (strncmp(p, what, len) == 0) {
			memcpy(out + o, "***", 3);
			o += 3;
			p += len;
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
	(void)snprintf(msg, cap, "%s", out);
}

/* Removes url's userinfo, and its password alone, from msg. */
static void
scrub_userinfo(char *msg, size_t cap, const char *url)
{
	const char *ui;
	size_t len = url_userinfo(url, &ui);
	const char *colon;

	if (len == 0)
		return;
	scrub(msg, cap, ui, len - 1);
	colon = memchr(ui, ':', len - 1);
	if (colon != NULL)
		scrub(msg, cap, colon + 1, (size_t)(ui + len - 1 - colon - 1));
}

static const char *
git_msg(void)
{
	const git_error *e = git_error_last();

	return e != NULL && e->message != NULL ? e->message
	                                       : "unknown libgit2 error";
}

static bool
is_lock(const char *name)
{
	size_t n = strlen(name);

	return n >= 5 && strcmp(name + n - 5, ".lock") == 0;
}

/*
 * What a killed fetch leaves in gitdir, objects and objects/pack: lock
 * files; libgit2 1.5's probe files "_git2_*", its indexer's pack
 * "pack_git2_*" and index "pack_git2_*.lock" (linked to pack-<sha>.* when
 * done) and loose objects "tmp_object_git2_*"; git's own "tmp_*" packs.
 * No git file in those folders has such a name.
 */
static bool
is_stale(const char *name)
{
	return is_lock(name) || strncmp(name, "_git2_", 6) == 0 ||
	       strncmp(name, "pack_git2_", 10) == 0 ||
	       strncmp(name, "tmp_", 4) == 0;
}

/*
 * Unlinks the regular files in dir (relative to at) whose name matches;
 * with depth > 0, also in its folders, that many levels down.
 */
/* NOLINTBEGIN(misc-no-recursion): one level down per call, depth levels
 * at most. */
static void
unlink_matching(int at, const char *dir, bool (*match)(const char *), int depth)
{
	int fd =
	    openat(at, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth > 0)
			unlink_matching(fd, de->d_name, match, depth - 1);
		else if (S_ISREG(st.st_mode) && match(de->d_name))
			(void)unlinkat(fd, de->d_name, 0);
	}
	closedir(d);
}
/* NOLINTEND(misc-no-recursion) */

/* Refs are only ever *.lock: a branch may be named "tmp_x". */
static void
clean_stale(const char *gitdir)
{
	int fd = open(gitdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	unlink_matching(fd, ".", is_stale, 0);
	unlink_matching(fd, "refs", is_lock, 32);
	unlink_matching(fd, "objects", is_stale, 0);
	unlink_matching(fd, "objects/pack", is_stale, 0);
	close(fd);
}

/* Empty, or holding something only a git directory holds. */
static bool
removable_gitdir(const char *gitdir)
{
	static const char *const marks[] = {"HEAD", "objects", "refs",
	                                    "packed-refs"};
	DIR *d = opendir(gitdir);
	struct dirent *de;
	bool empty = true;
	bool ok = false;

	if (d == NULL)
		return false;
	while ((de = readdir(d)) != NULL && !ok) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		empty = false;
		for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
			if (strcmp(de->d_name, marks[i]) == 0)
				ok = true;
	}
	closedir(d);
	return empty || ok;
}

/* Opens the bare repository at gitdir, creating or recreating it. */
static int
repo_prepare(git_repository **repo, const char *gitdir, cg_err *err)
{
	struct stat st;

	if (lstat(gitdir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return cg_err_set(err, CG_EINVAL, "%s: not a directory",
			                  gitdir);
		clean_stale(gitdir);
		if (git_repository_open_ext(repo, gitdir,
		                            GIT_REPOSITORY_OPEN_NO_SEARCH |
		                                GIT_REPOSITORY_OPEN_BARE,
		                            NULL) == 0)
			return 0;
		if (!removable_gitdir(gitdir))
			return cg_err_set(err, CG_EINVAL,
			                  "%s: not a git directory, "
			                  "refusing to replace it",
			                  gitdir);
		if (cg_rm_rf(gitdir) != 0)
			return cg_err_set(err, CG_EIO, "%s: cannot remove: %s",
			                  gitdir, cg_strerror(errno).s);
	}
	if (git_repository_init(repo, gitdir, 1) != 0)
		return cg_err_set(err, CG_EIO, "%s: %s", gitdir, git_msg());
	return 0;
}

static int
on_progress(const git_indexer_progress *p, void *payload)
{
	cg_git_stats *st = payload;

	st->total_objects = p->total_objects;
	st->received_objects = p->received_objects;
	st->local_objects = p->local_objects;
	st->received_bytes = p->received_bytes;
	return 0;
}

static int
remote_fetch(git_remote **remote, git_repository *repo, const char *url,
             const char *branch, cg_git_stats *st, cg_err *err)
{
	git_fetch_options opts;
	char spec[2 * BRANCH_MAX + 64];
	char *specs[1] = {spec};
	git_strarray refspecs = {specs, 1};

	(void)snprintf(spec, sizeof(spec),
	               "+refs/heads/%s:refs/remotes/origin/%s", branch, branch);
	(void)git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	opts.prune = GIT_FETCH_NO_PRUNE;
	opts.update_fetchhead = 0;
	opts.callbacks.transfer_progress = on_progress;
	opts.callbacks.payload = st;
	if (git_remote_create_anonymous(remote, repo, url) != 0 ||
	    git_remote_fetch(*remote, &refspecs, &opts, NULL) != 0)
		return cg_err_set(err, CG_EUNAVAIL, "%s", git_msg());
	return 0;
}

/* The fetched head of branch, checked against what the remote listed. */
static int
branch_head(git_repository *repo, git_remote *remote, const char *branch,
            char sha[41], cg_err *err)
{
	const git_remote_head **heads = NULL;
	const git_oid *listed = NULL;
	char name[BRANCH_MAX + 32];
	size_t n = 0;
	git_oid oid;

	(void)snprintf(name, sizeof(name), "refs/heads/%s", branch);
	if (git_remote_ls(&heads, &n, remote) != 0)
		return cg_err_set(err, CG_EUNAVAIL, "%s", git_msg());
	for (size_t i = 0; i < n && listed == NULL; i++)
		if (strcmp(heads[i]->name, name) == 0)
			listed = &heads[i]->oid;
	if (listed == NULL)
		return cg_err_set(err, CG_EUNAVAIL, "no branch '%s'", branch);
	(void)snprintf(name, sizeof(name), "refs/remotes/origin/%s", branch);
	if (git_reference_name_to_id(&oid, repo, name) != 0)
		return cg_err_set(err, CG_EUNAVAIL, "%s: %s", name, git_msg());
	if (!git_oid_equal(&oid, listed))
		return cg_err_set(err, CG_ERR, "%s was not updated", name);
	git_oid_tostr(sha, 41, &oid);
	return 0;
}

static int
fetch_run(const char *gitdir, const char *url, const char *branch, char sha[41],
          cg_git_stats *st, cg_err *err)
{
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	int rc;

	rc = repo_prepare(&repo, gitdir, err);
	if (rc == 0)
		rc = remote_fetch(&remote, repo, url, branch, st, err);
	if (rc == 0)
		rc = branch_head(repo, remote, branch, sha, err);
	st->up_to_date = rc == 0 && st->received_objects == 0;
	git_remote_free(remote);
	git_repository_free(repo);
	return rc;
}

/* Writes all n bytes at p to fd. */
static int
write_fd(int fd, const char *p, uint64_t n)
{
	while (n > 0) {
		ssize_t k =
		    write(fd, p, n > (1u << 30) ? (1u << 30) : (size_t)n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (uint64_t)k;
	}
	return 0;
}

/* What the child sends back. */
struct fetch_reply {
	int code;
	char sha[41];
	cg_git_stats st;
	char msg[CG_ERR_MSG_MAX];
};

/* What the child is asked to fetch. */
struct fetch_args {
	const char *gitdir;
	const char *url;
	const char *branch;
};

/* Runs in the child (cache/child_int.h). */
static void
fetch_child(void *arg, void *reply)
{
	const struct fetch_args *a = arg;
	struct fetch_reply *r = reply;
	cg_err err;

	cg_err_clear(&err);
	if (git_libgit2_init() < 0)
		r->code = cg_err_set(&err, CG_ERR, "libgit2 init failed");
	else
		r->code = fetch_run(a->gitdir, a->url, a->branch, r->sha,
		                    &r->st, &err);
	memcpy(r->msg, err.msg, sizeof(r->msg));
	scrub_userinfo(r->msg, sizeof(r->msg), a->url);
}

/* Turns what the parent saw into the result. */
static int
fetch_result(const cg_child *c, bool ended, const char *shown, int timeout_ms,
             char sha[41], cg_git_stats *st, cg_err *err)
{
	const struct fetch_reply *r = c->reply;

	if (!ended)
		return cg_err_set(err, CG_ETIMEDOUT,
		                  "fetch of %s timed out after %d ms", shown,
		                  timeout_ms);
	if (!cg_child_replied(c))
		return cg_err_set(err, CG_ERR,
		                  "fetch of %s: child died (status %d)", shown,
		                  c->status);
	if (r->code != 0)
		return cg_err_set(err, r->code, "fetch of %s: %.400s", shown,
		                  r->msg);
	memcpy(sha, r->sha, 41);
	sha[40] = '\0';
	if (st != NULL)
		*st = r->st;
	return 0;
}

int
cg_git_fetch(const char *gitdir, const char *url, const char *branch,
             int timeout_ms, char sha[41], cg_git_stats *st, cg_err *err)
{
	struct fetch_reply r;
	struct fetch_args a = {gitdir, url, branch};
	char shown[URL_SHOWN_MAX];
	int64_t deadline = cg_mono_ms() + timeout_ms;
	cg_child c;
	bool ended;
	int rc;

	sha[0] = '\0';
	if (st != NULL)
		memset(st, 0, sizeof(*st));
	if (gitdir == NULL || *gitdir == '\0' || url == NULL || *url == '\0')
		return cg_err_set(err, CG_EINVAL, "fetch: no gitdir or URL");
	url_shown(url, shown, sizeof(shown));
	if (!cg_git_branch_safe(branch))
		return cg_err_set(err, CG_EINVAL,
		                  "fetch of %s: unsafe branch name", shown);
	if (timeout_ms <= 0)
		return cg_err_set(err, CG_EINVAL,
		                  "fetch of %s: timeout must be > 0", shown);
	memset(&r, 0, sizeof(r));
	rc = cg_child_start(&c, fetch_child, &a, &r, sizeof(r), err);
	if (rc != 0)
		return rc;
	ended = cg_child_wait(&c, deadline);
	return fetch_result(&c, ended, shown, timeout_ms, sha, st, err);
}

static int
repo_open(git_repository **repo, const char *gitdir, cg_err *err)
{
	if (gitdir == NULL ||
	    git_repository_open_ext(repo, gitdir, GIT_REPOSITORY_OPEN_NO_SEARCH,
	                            NULL) != 0)
		return cg_err_set(err, CG_ENOTFOUND, "%s: %s",
		                  gitdir ? gitdir : "(null)", git_msg());
	return 0;
}

static int
commit_lookup(git_commit **commit, git_repository *repo, const char *sha)
{
	git_oid oid;

	if (git_oid_fromstrn(&oid, sha, 40) != 0)
		return -1;
	return git_commit_lookup(commit, repo, &oid);
}

int
cg_git_has_commit(const char *gitdir, const char *sha)
{
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	int found = 0;

	if (!sha_valid(sha) || git_libgit2_init() < 0)
		return 0;
	if (repo_open(&repo, gitdir, NULL) == 0 &&
	    commit_lookup(&commit, repo, sha) == 0)
		found = 1;
	git_commit_free(commit);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return found;
}

struct mat {
	git_repository *repo;
	enum cg_git_depth depth;
	unsigned max_files; /* cap on files + folders made */
	uint64_t max_bytes; /* cap on bytes written */
	unsigned dirs;      /* folders made below dest */
	cg_git_mat_stats *st;
	char rel[REL_MAX]; /* the current folder from the root, for skips */
	size_t rel_len;
	cg_err *err;
};

/* Appends "/name" (or "name" at the root) to m->rel; returns the old end. */
static size_t
rel_push(struct mat *m, const char *name)
{
	size_t old = m->rel_len;
	int k = snprintf(m->rel + old, sizeof(m->rel) - old, "%s%s",
	                 old > 0 ? "/" : "", name);

	if (k > 0)
		m->rel_len += (size_t)k;
	if (m->rel_len >= sizeof(m->rel))
		m->rel_len = sizeof(m->rel) - 1;
	return old;
}

static void
rel_pop(struct mat *m, size_t old)
{
	m->rel_len = old;
	m->rel[old] = '\0';
}

/* Counts a skipped entry; the first one is described in first_skip. */
static void
skip(struct mat *m, const char *name, const char *why)
{
	char shown[80];
	size_t i;

	m->st->skipped++;
	if (m->st->first_skip[0] != '\0')
		return;
	for (i = 0; name[i] != '\0' && i < 64; i++)
		shown[i] =
		    (char)((unsigned char)name[i] < 0x20 || name[i] == 0x7f
		               ? '?'
		               : name[i]);
	shown[i] = '\0';
	(void)snprintf(m->st->first_skip, sizeof(m->st->first_skip),
	               "%.120s%s%s%s: %.40s", m->rel, m->rel_len > 0 ? "/" : "",
	               shown, name[i] != '\0' ? "..." : "", why);
}

static int
over_caps(struct mat *m, uint64_t more)
{
	if (m->st->files + m->dirs >= m->max_files)
		return cg_err_set(m->err, CG_ETOOBIG,
		                  "materialise: over %u files", m->max_files);
	if (more > m->max_bytes - m->st->bytes)
		return cg_err_set(m->err, CG_ETOOBIG,
		                  "materialise: over %llu bytes",
		                  (unsigned long long)m->max_bytes);
	return 0;
}

static int
write_blob(struct mat *m, int dirfd, const git_tree_entry *e)
{
	const char *name = git_tree_entry_name(e);
	git_blob *blob = NULL;
	uint64_t size;
	int fd;
	int rc;

	if (git_blob_lookup(&blob, m->repo, git_tree_entry_id(e)) != 0)
		return cg_err_set(m->err, CG_ECORRUPT, "%s/%s: %s", m->rel,
		                  name, git_msg());
	size = (uint64_t)git_blob_rawsize(blob);
	rc = over_caps(m, size);
	if (rc != 0)
		goto out;
	fd = openat(dirfd, name,
	            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST) {
		skip(m, name, "duplicate name");
		goto out;
	}
	if (fd < 0 || write_fd(fd, git_blob_rawcontent(blob), size) != 0)
		rc = cg_err_set(m->err, CG_EIO, "write %s/%s: %s", m->rel, name,
		                cg_strerror(errno).s);
	if (fd >= 0 && close(fd) != 0 && rc == 0)
		rc = cg_err_set(m->err, CG_EIO, "close %s/%s: %s", m->rel, name,
		                cg_strerror(errno).s);
	if (rc == 0) {
		m->st->files++;
		m->st->bytes += size;
	}
out:
	git_blob_free(blob);
	return rc;
}

/* NOLINTBEGIN(misc-no-recursion): write_tree, write_entry and write_dir
 * go one tree level down per round, and write_dir stops at
 * CG_GIT_MAX_DEPTH. */
static int write_tree(struct mat *m, const git_tree *tree, int dirfd,
                      int level);

static int
write_dir(struct mat *m, int dirfd, const git_tree_entry *e, int level)
{
	const char *name = git_tree_entry_name(e);
	git_tree *sub = NULL;
	size_t old;
	int fd;
	int rc;

	if (level >= CG_GIT_MAX_DEPTH) {
		skip(m, name, "too deep");
		return 0;
	}
	rc = over_caps(m, 0);
	if (rc != 0)
		return rc;
	if (git_tree_lookup(&sub, m->repo, git_tree_entry_id(e)) != 0)
		return cg_err_set(m->err, CG_ECORRUPT, "%s/%s: %s", m->rel,
		                  name, git_msg());
	if (mkdirat(dirfd, name, 0755) != 0) {
		if (errno == EEXIST)
			skip(m, name, "duplicate name");
		else
			rc = cg_err_set(m->err, CG_EIO, "mkdir %s/%s: %s",
			                m->rel, name, cg_strerror(errno).s);
		git_tree_free(sub);
		return rc;
	}
	m->dirs++;
	fd = openat(dirfd, name,
	            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		rc = cg_err_set(m->err, CG_EIO, "open %s/%s: %s", m->rel, name,
		                cg_strerror(errno).s);
	} else {
		old = rel_push(m, name);
		rc = write_tree(m, sub, fd, level + 1);
		rel_pop(m, old);
		close(fd);
	}
	git_tree_free(sub);
	return rc;
}

static int
write_entry(struct mat *m, const git_tree_entry *e, int dirfd, int level)
{
	const char *name = git_tree_entry_name(e);

	if (!cg_git_name_safe(name, strlen(name))) {
		skip(m, name, "unsafe name");
		return 0;
	}
	switch (git_tree_entry_filemode(e)) {
	case GIT_FILEMODE_BLOB:
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		return write_blob(m, dirfd, e);
	case GIT_FILEMODE_TREE:
		if (m->depth == CG_GIT_RECURSIVE)
			return write_dir(m, dirfd, e, level);
		return 0;
	case GIT_FILEMODE_LINK:
		skip(m, name, "symlink not written");
		return 0;
	case GIT_FILEMODE_COMMIT:
		skip(m, name, "submodule not written");
		return 0;
	default:
		skip(m, name, "unknown mode");
		return 0;
	}
}

static int
write_tree(struct mat *m, const git_tree *tree, int dirfd, int level)
{
	size_t n = git_tree_entrycount(tree);
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++)
		rc = write_entry(m, git_tree_entry_byindex(tree, i), dirfd,
		                 level);
	return rc;
}
/* NOLINTEND(misc-no-recursion) */

/*
 * The first entry of tree named by the k bytes at name.  A raw tree may be
 * unsorted, so no order is assumed.
 */
static const git_tree_entry *
entry_named(const git_tree *tree, const char *name, size_t k)
{
	size_t n = git_tree_entrycount(tree);

	for (size_t i = 0; i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		const char *got = git_tree_entry_name(e);

		if (strlen(got) == k && memcmp(got, name, k) == 0)
			return e;
	}
	return NULL;
}

/* The tree of sha, then of each component of subdir (len bytes). */
static int
find_tree(git_tree **out, git_repository *repo, const char *sha,
          const char *subdir, size_t len, cg_err *err)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	size_t i = 0;

	if (commit_lookup(&commit, repo, sha) != 0 ||
	    git_commit_tree(&tree, commit) != 0) {
		git_commit_free(commit);
		return cg_err_set(err, CG_ENOTFOUND, "commit %s: %s", sha,
		                  git_msg());
	}
	git_commit_free(commit);
	while (i < len) {
		size_t k = strcspn(subdir + i, "/");
		const git_tree_entry *e;
		git_tree *sub = NULL;

		if (k > len - i)
			k = len - i;
		e = entry_named(tree, subdir + i, k);
		if (e == NULL ||
		    git_tree_entry_filemode(e) != GIT_FILEMODE_TREE ||
		    git_tree_lookup(&sub, repo, git_tree_entry_id(e)) != 0) {
			git_tree_free(tree);
			return cg_err_set(err, CG_ENOTFOUND,
			                  "'%.*s' is not a folder in %s",
			                  (int)len, subdir, sha);
		}
		git_tree_free(tree);
		tree = sub;
		i += k + 1;
	}
	*out = tree;
	return 0;
}

/* Creates dest (which must not exist) and its parents; opens it. */
static int
dest_create(int *fd, const char *dest, cg_err *err)
{
	char parent[4096];
	const char *slash = strrchr(dest, '/');
	struct stat st;
	int rc;

	if (lstat(dest, &st) == 0)
		return cg_err_set(err, CG_EINVAL, "%s: already exists", dest);
	if (errno != ENOENT)
		return cg_err_set(err, CG_EIO, "%s: %s", dest,
		                  cg_strerror(errno).s);
	if (slash != NULL && slash != dest) {
		if ((size_t)(slash - dest) >= sizeof(parent))
			return cg_err_set(err, CG_EINVAL, "%s: too long", dest);
		memcpy(parent, dest, (size_t)(slash - dest));
		parent[slash - dest] = '\0';
		rc = cg_mkdir_p(parent, err);
		if (rc != 0)
			return rc;
	}
	if (mkdir(dest, 0755) != 0)
		return cg_err_set(err, errno == EEXIST ? CG_EINVAL : CG_EIO,
		                  "mkdir %s: %s", dest, cg_strerror(errno).s);
	*fd = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0)
		return cg_err_set(err, CG_EIO, "%s: %s", dest,
		                  cg_strerror(errno).s);
	return 0;
}

static int
materialise(struct mat *m, const char *gitdir, const char *sha,
            const char *subdir, size_t len, const char *dest)
{
	git_tree *tree = NULL;
	int fd = -1;
	int rc;

	rc = repo_open(&m->repo, gitdir, m->err);
	if (rc == 0)
		rc = find_tree(&tree, m->repo, sha, subdir, len, m->err);
	if (rc == 0)
		rc = dest_create(&fd, dest, m->err);
	if (rc == 0) {
		(void)snprintf(m->rel, sizeof(m->rel), "%.*s", (int)len,
		               subdir);
		m->rel_len = strlen(m->rel);
		rc = write_tree(m, tree, fd, 0);
	}
	if (fd >= 0)
		close(fd);
	git_tree_free(tree);
	git_repository_free(m->repo);
	return rc;
}

int
cg_git_materialise_capped(const char *gitdir, const char *sha,
                          const char *subdir, enum cg_git_depth depth,
                          const char *dest, unsigned max_files,
                          uint64_t max_bytes, cg_git_mat_stats *st, cg_err *err)
{
	cg_git_mat_stats local;
	struct mat m = {.depth = depth,
	                .max_files = max_files,
	                .max_bytes = max_bytes,
	                .err = err};
	size_t len;
	int rc;

	if (st == NULL)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (subdir == NULL)
		subdir = "";
	if (!sha_valid(sha))
		return cg_err_set(err, CG_EINVAL, "materialise: bad sha");
	if (dest == NULL || *dest == '\0')
		return cg_err_set(err, CG_EINVAL, "materialise: no dest");
	rc = subdir_check(subdir, &len, err);
	if (rc != 0)
		return rc;
	if (git_libgit2_init() < 0)
		return cg_err_set(err, CG_ERR, "libgit2 init failed");
	m.st = st;
	rc = materialise(&m, gitdir, sha, subdir, len, dest);
	git_libgit2_shutdown();
	return rc;
}

int
cg_git_materialise(const char *gitdir, const char *sha, const char *subdir,
                   enum cg_git_depth depth, const char *dest,
                   cg_git_mat_stats *st, cg_err *err)
{
	return cg_git_materialise_capped(gitdir, sha, subdir, depth, dest,
	                                 CG_GIT_MAX_FILES, CG_GIT_MAX_BYTES, st,
	                                 err);
}
