/*
 * cg_fs.h - the file system helpers every module shares: capped reads that
 * never follow a symlink, the one secure open of a file below a folder,
 * path joining, directory creation, atomic writes, a tree copied as hard
 * links and the content hash used for change detection.
 *
 * May be included by any layer.
 */
#ifndef CG_FS_H
#define CG_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cg_err.h"

/*
 * Reads a regular file into a malloc'd NUL-terminated buffer.  The final
 * path component is opened with O_NOFOLLOW: a symlink is refused with
 * CG_EDENIED.  A file larger than max gives CG_ETOOBIG.
 */
int cg_file_read(const char *path, size_t max, char **out, size_t *len,
                 cg_err *err);

/*
 * Opens the regular file rel (its first len bytes, a path relative to the
 * folder open at dirfd) read-only, one component at a time with
 * openat(O_NOFOLLOW): no symlink on the path is followed, not even one
 * whose target lies below dirfd (how dirfd itself was reached is the
 * caller's business).  Folders are opened O_DIRECTORY and the last
 * component O_NONBLOCK, so a FIFO cannot block the open (it is then refused
 * as not regular).  dirfd stays open.  *fd is the new descriptor
 * (O_CLOEXEC), -1 on failure:
 *   CG_EINVAL     rel holds a NUL byte or an empty, "." or ".." component,
 *                 or the last component is not a regular file
 *   CG_ETOOBIG    a component is longer than NAME_MAX bytes
 *   CG_ENOTFOUND  a component does not exist
 *   CG_EDENIED    a component is a symlink
 *   CG_EIO        any other failure
 * err (may be NULL) quotes rel; errno is left saying why (the failing
 * call's, ELOOP for a symlink, EINVAL, ENAMETOOLONG) for callers that
 * word their own message.  This is the only place that opens a file
 * named by a caller below a root: page reads and grep both come here.
 */
int cg_open_beneath(int *fd, int dirfd, const char *rel, size_t len,
                    cg_err *err);

/* Writes data to path through a temporary file and rename(2). */
int cg_file_write_atomic(const char *path, const void *data, size_t len,
                         cg_err *err);

/* Returns a malloc'd "a/b"; a trailing slash on a is not doubled. */
char *cg_path_join(const char *a, const char *b);

/* Creates dir and its parents (mode 0755); existing dirs are fine. */
int cg_mkdir_p(const char *dir, cg_err *err);

/* Removes a directory tree (no symlink is followed). */
int cg_rm_rf(const char *path);

/*
 * Makes dst (which must not exist) a copy of the tree src that shares its
 * files: folders are created, regular files hard-linked, symlinks
 * recreated (never followed).  Same file system only.  A file of dst must
 * be replaced (unlink, then create), never written in place: its inode is
 * src's too.  On failure dst may be left half made (the caller removes it).
 */
int cg_tree_link(const char *src, const char *dst, cg_err *err);

/* 64-bit FNV-1a of the bytes: change detection, not security. */
uint64_t cg_hash64(const void *p, size_t n);

/* True when path is an existing directory (symlinks not followed). */
bool cg_is_dir(const char *path);

/* The default index cache directory: $CORPUS_GW_CACHE, else
 * $XDG_CACHE_HOME/corpus-gw, else $HOME/.cache/corpus-gw, else
 * /tmp/corpus-gw-<uid>; malloc'd. */
char *cg_default_cache_dir(void);

/* realpath(3) into a malloc'd string, NULL when it fails. */
char *cg_realpath(const char *path);

#endif
