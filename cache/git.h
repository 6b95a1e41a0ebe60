/*
 * git.h - the remote side of a corpus cache with libgit2 1.5: fetch one
 * branch into a bare repository, and materialise chosen paths of a commit
 * into a fresh directory.
 *
 * libgit2 1.5 has no network timeout, no shallow clone and no sparse
 * checkout (FACTS.md), so:
 * - a fetch runs in a forked child process killed at its deadline; the
 *   parent never calls into libgit2's network code;
 * - nothing is "checked out": materialising walks the commit's tree and
 *   writes only regular blobs below the wanted folder, into a directory it
 *   creates itself, so a symlink in the tree (to /etc/passwd or anywhere)
 *   is never written or followed and a hostile name ("..", "a/b", ".git")
 *   never leaves the destination.
 *
 * Each function calls git_libgit2_init/git_libgit2_shutdown itself (they
 * are reference counted), so callers need not.  The fetch child is made
 * with fork() (cache/child_int.h) and runs libgit2 in it: call
 * cg_git_fetch from a process whose other threads do not hold libgit2
 * locks across the fork (the deadline still bounds a child that
 * deadlocks).
 *
 * Must not: parse corpus files, talk HTTP, know about _cache_meta.json.
 *
 * May be included by cache/ only (update.c drives it, in the worker
 * processes of a fetch run), the tests and the fuzz targets: libgit2 stays
 * behind this one module, and the layers above fetch through
 * cache/fetch.h.
 */
#ifndef CG_GIT_H
#define CG_GIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cg_err.h"

/* What one fetch transferred (from libgit2's indexer progress). */
typedef struct cg_git_stats {
	unsigned total_objects; /* objects in the pack(s) received */
	unsigned received_objects;
	unsigned local_objects; /* deltas completed from local objects */
	uint64_t received_bytes;
	int up_to_date; /* 1 when the remote had nothing new */
} cg_git_stats;

/* What one materialisation wrote and refused. */
typedef struct cg_git_mat_stats {
	unsigned files; /* regular files written */
	uint64_t bytes;
	unsigned skipped;     /* symlinks, submodules, unsafe names, too deep */
	char first_skip[256]; /* "docs/evil.md: symlink not written" or "" */
} cg_git_mat_stats;

#define CG_GIT_MAX_FILES 200000 /* files + folders one materialise makes */
#define CG_GIT_MAX_BYTES ((uint64_t)2 << 30)
#define CG_GIT_MAX_DEPTH 64 /* folders nested deeper are skipped */

/*
 * True when the len bytes at name may be written as one file or folder
 * name: not "", ".", "..", ".git" (any case), no '/', '\\' or NUL, at
 * most 255 bytes.
 */
bool cg_git_name_safe(const char *name, size_t len);

/*
 * True when branch is a branch name cg_git_fetch accepts: 1-200 bytes of
 * [A-Za-z0-9._/-], no "..", "//" or "/.", not starting with '-', '/' or
 * '.', not ending with '/' or ".lock".
 */
bool cg_git_branch_safe(const char *branch);

/*
 * Fetches `branch` of url (any URL libgit2 speaks: file://, https://) into
 * the bare repository gitdir (created when missing; a damaged one is
 * recreated), with refspec +refs/heads/<branch>:refs/remotes/origin/<branch>
 * and no tags.  Only objects the repository lacks are transferred.  An
 * existing gitdir that libgit2 cannot open is removed and recreated only
 * when it is empty or looks like a git directory (has HEAD, objects or
 * refs); anything else is refused with CG_EINVAL.  Runs in a child
 * process that is killed (SIGKILL) after timeout_ms: then
 * CG_ETIMEDOUT "fetch of URL timed out after N ms".  Lock files a killed
 * fetch left behind in gitdir are removed first (the caller holds the
 * cache lock, so no other fetch can own them).  On success sha receives the
 * branch head (40 hex + NUL) and st (may be NULL) what moved.  An
 * unreachable URL or a missing branch is CG_EUNAVAIL with libgit2's message.
 * A bad branch name or timeout_ms <= 0 is CG_EINVAL.  Messages never show
 * the URL's userinfo ("user:pass@" is cut, and scrubbed from libgit2's
 * text).
 */
int cg_git_fetch(const char *gitdir, const char *url, const char *branch,
                 int timeout_ms, char sha[41], cg_git_stats *st, cg_err *err);

/* 1 when gitdir holds the commit sha (40 hex), 0 when not or on error. */
int cg_git_has_commit(const char *gitdir, const char *sha);

enum cg_git_depth {
	CG_GIT_TOP_FILES = 0, /* only regular files directly in subdir */
	CG_GIT_RECURSIVE = 1, /* everything below subdir */
};

/*
 * Writes the tree of commit sha below subdir ("" or NULL = the root;
 * "a/b" = that folder) into dest, which must not exist yet (it is created,
 * mode 0755, with its parents).  Only blobs of mode 100644/100755 are
 * written (as 0644); symlinks (120000), submodules (160000), entries
 * whose name fails cg_git_name_safe, duplicate names and folders deeper
 * than CG_GIT_MAX_DEPTH are skipped and counted (first_skip holds the
 * first, its path from the repository root).  With CG_GIT_TOP_FILES the
 * folders inside subdir are ignored, not counted (unless unsafely named).
 * subdir's own components must pass cg_git_name_safe (CG_EINVAL).  Directories
 * are made with mkdirat and files opened with O_CREAT|O_EXCL|O_NOFOLLOW
 * relative to directory fds this function created, so nothing can be
 * redirected. Past CG_GIT_MAX_FILES files and folders or CG_GIT_MAX_BYTES bytes
 * it fails with CG_ETOOBIG.  A subdir missing from the commit (or not a
 * folder), or a sha gitdir lacks, is CG_ENOTFOUND; an existing dest is
 * CG_EINVAL.  gitdir may be bare or a work tree.  On failure dest may hold
 * a partial tree: the caller removes it.
 */
int cg_git_materialise(const char *gitdir, const char *sha, const char *subdir,
                       enum cg_git_depth depth, const char *dest,
                       cg_git_mat_stats *st, cg_err *err);

/* cg_git_materialise with other caps than CG_GIT_MAX_FILES/_BYTES. */
int cg_git_materialise_capped(const char *gitdir, const char *sha,
                              const char *subdir, enum cg_git_depth depth,
                              const char *dest, unsigned max_files,
                              uint64_t max_bytes, cg_git_mat_stats *st,
                              cg_err *err);

#endif
