/*
 * rootwatch.c - notices that a served workspace may have gained or lost a
 * repository, for `serve`'s reload without a signal.  It watches, with
 * inotify, each workspace root, its .guild/, every immediate sub-folder
 * and that folder's .guild/: the places whose changes can change the
 * roster (a clone appearing, a .guild/wiki created in it, the manifest
 * rewritten).  It only says "look again": cmd_serve.c debounces, asks
 * cg_gateway_stale whether the sources really changed, and reloads.  It
 * must not read the workspace itself or reload anything; deeper changes
 * (pages) are the nodes' own watchers' business.
 */
#define _GNU_SOURCE
#include <sys/inotify.h>
#include <sys/stat.h>

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/cg_fs.h"
#include "conf/config.h"

#define ROOT_MASK                                              \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
	 IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* Watches dir and dir/.guild (when they are folders, never through a
 * symlink); a folder that is missing is not an error. */
static void
watch_repo(int fd, const char *dir)
{
	char *guild = cg_path_join(dir, ".guild");

	(void)inotify_add_watch(fd, dir, ROOT_MASK | IN_DONT_FOLLOW);
	if (guild != NULL)
		(void)inotify_add_watch(fd, guild, ROOT_MASK | IN_DONT_FOLLOW);
	free(guild);
}

/* A workspace root, its .guild and each immediate sub-folder's. */
static void
watch_root(int fd, const char *root)
{
	DIR *d = opendir(root);
	struct dirent *e;

	watch_repo(fd, root);
	while (d != NULL && (e = readdir(d)) != NULL) {
		char *sub;

		if (e->d_name[0] == '.' || e->d_type != DT_DIR)
			continue;
		sub = cg_path_join(root, e->d_name);
		if (sub != NULL)
			watch_repo(fd, sub);
		free(sub);
	}
	if (d != NULL)
		closedir(d);
}

void
cli_rootwatch_open(cli_rootwatch *w, const cg_config *c)
{
	w->c = c;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	for (size_t i = 0; w->fd >= 0 && i < c->nworkspaces; i++)
		watch_root(w->fd, c->workspaces[i].path);
}

int
cli_rootwatch_read(cli_rootwatch *w)
{
	char buf[8192]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	int n = 0;
	ssize_t len;

	while ((len = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const void *)p;

			n++;
			p += sizeof(*ev) + ev->len;
		}
	}
	/* A new folder may be a repository being cloned: watching again
	 * picks it up (an existing watch is kept as it is). */
	if (n > 0)
		for (size_t i = 0; i < w->c->nworkspaces; i++)
			watch_root(w->fd, w->c->workspaces[i].path);
	return n;
}

void
cli_rootwatch_close(cli_rootwatch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
