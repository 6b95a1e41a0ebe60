/*
 * watch.c - the node service's inotify watcher (see watch.h).
 *
 * What it must not do: follow a symlink into another tree, watch the
 * folders the scan skips, or decide when to sync (server.c debounces).
 */
#define _GNU_SOURCE
#include "node/watch.h"

#include <sys/inotify.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cg_fs.h"

#define WATCH_MASK                                                \
	(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | \
	 IN_MOVED_TO | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)

static void
say(const cg_watch *w, const char *msg)
{
	if (w->warn != NULL)
		w->warn(w->warn_ctx, msg);
}

void
cg_watch_init(cg_watch *w, const cg_source *sources, size_t nsources,
              cg_watch_warn_fn warn, void *warn_ctx)
{
	*w = (cg_watch){-1, false, false, sources, nsources, warn, warn_ctx};
}

static bool
is_subdir(DIR *d, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(st.st_mode);
}

/* Says, once, that the watch limit stopped the watcher at dir. */
static void
limit_reached(cg_watch *w, const char *dir)
{
	char msg[1024];

	if (w->full)
		return;
	w->full = true;
	(void)snprintf(msg, sizeof(msg),
	               "inotify watch limit reached; changes are seen by the "
	               "reconcile only dir=%s",
	               dir);
	say(w, msg);
}

/* Watches dir and its sub-directories, skipping the folders the scan
 * skips ('.' and '_' prefixes); adding an existing watch is harmless. */
/* NOLINTBEGIN(misc-no-recursion): one folder deeper per call, and no
 * deeper than CG_WATCH_MAX_DEPTH. */
static void
watch_tree(cg_watch *w, const char *dir, int depth)
{
	DIR *d;
	struct dirent *de;

	if (inotify_add_watch(w->fd, dir,
	                      WATCH_MASK | IN_ONLYDIR | IN_DONT_FOLLOW) < 0) {
		if (errno == ENOSPC || errno == ENOMEM)
			limit_reached(w, dir);
		return;
	}
	if (depth >= CG_WATCH_MAX_DEPTH)
		return;
	d = opendir(dir);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char *sub;

		if (de->d_name[0] == '.' || de->d_name[0] == '_' ||
		    !is_subdir(d, de))
			continue;
		sub = cg_path_join(dir, de->d_name);
		if (sub != NULL)
			watch_tree(w, sub, depth + 1);
		free(sub);
	}
	closedir(d);
}
/* NOLINTEND(misc-no-recursion) */

void
cg_watch_rescan(cg_watch *w)
{
	w->rescan = false;
	if (w->fd < 0)
		return;
	for (size_t i = 0; i < w->nsources; i++) {
		const cg_source *src = &w->sources[i];
		char *parent;

		watch_tree(w, src->wiki, 0);
		if (src->kind != CG_SRC_CORPUS_REMOTE)
			continue;
		/* A fetch publishes by swapping the folder: the old one's
		 * watches die with it, its parent sees the swap; before the
		 * first fetch that parent may not exist yet, and its own
		 * parent (next to registry.yaml) sees it appear. */
		parent = strdup(src->wiki);
		for (int up = 1; up <= 2 && parent != NULL; up++) {
			char *slash = strrchr(parent, '/');

			if (slash == NULL || slash == parent)
				break;
			*slash = '\0'; /* lexical: the folder may not exist */
			(void)inotify_add_watch(w->fd, parent,
			                        WATCH_MASK | IN_ONLYDIR |
			                            IN_DONT_FOLLOW);
		}
		free(parent);
	}
}

void
cg_watch_start(cg_watch *w)
{
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0) {
		char msg[256];

		(void)snprintf(msg, sizeof(msg),
		               "inotify unavailable; changes are seen by the "
		               "reconcile only reason=\"%s\"",
		               cg_strerror(errno).s);
		say(w, msg);
		return;
	}
	cg_watch_rescan(w);
}

void
cg_watch_fini(cg_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

/* True when an event can change what the index holds: a directory, a
 * watched directory itself, or a markdown file (editor swap files and the
 * like are ignored). */
static bool
event_matters(const struct inotify_event *ev, const char *name)
{
	size_t n = strnlen(name, ev->len);

	if (ev->mask & IN_IGNORED)
		return false;
	if ((ev->mask & IN_ISDIR) || n == 0)
		return true;
	/* .yaml: a corpus's index, config and graph. */
	return (n >= 3 && memcmp(name + n - 3, ".md", 3) == 0) ||
	       (n >= 5 && memcmp(name + n - 5, ".yaml", 5) == 0);
}

int
cg_watch_read(cg_watch *w)
{
	char buf[16384]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	int count = 0;
	ssize_t len;

	while ((len = read(w->fd, buf, sizeof(buf))) > 0) {
		size_t off = 0;

		while (off + sizeof(struct inotify_event) <= (size_t)len) {
			struct inotify_event ev;

			memcpy(&ev, buf + off, sizeof(ev));
			if (ev.mask & IN_Q_OVERFLOW) {
				w->rescan = true;
				count++;
			}
			if ((ev.mask & IN_ISDIR) &&
			    (ev.mask & (IN_CREATE | IN_MOVED_TO)))
				w->rescan = true;
			if (event_matters(&ev, buf + off + sizeof(ev)))
				count++;
			off += sizeof(ev) + ev.len;
		}
	}
	return count;
}
