/*
 * watch.h - the node service's file watcher: which folders it watches
 * (every folder of every wiki, recursively, skipping those the scan skips;
 * for a remote corpus also the parents that see a fetch publish), which
 * inotify events count as a change (a folder, or a .md or .yaml file:
 * editor swap files and the like do not), and when the folders must be
 * walked again (a folder appeared, or events were lost).
 *
 * The watcher only says that something changed; the sync thread
 * (server.c) debounces and syncs, and its periodic reconcile catches what
 * the watcher cannot see (past the watch limit, or deeper than
 * CG_WATCH_MAX_DEPTH).  It is used by that one thread.
 *
 * May be included by node/ only (server.c).  Must not: sync, sleep, or
 * print (warnings go to the caller's callback).
 */
#ifndef CG_WATCH_H
#define CG_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "conf/source.h"

/* Folder depth the watcher descends below a wiki. */
#define CG_WATCH_MAX_DEPTH 64

/* A warning for the log: msg is "what happened key=value ...". */
typedef void (*cg_watch_warn_fn)(void *ctx, const char *msg);

typedef struct cg_watch {
	int fd;      /* inotify descriptor to poll, -1 when not watching */
	bool rescan; /* a folder appeared or events were lost: walk again */
	bool full;   /* the watch limit was hit (warned once) */
	const cg_source *sources; /* borrowed */
	size_t nsources;
	cg_watch_warn_fn warn; /* may be NULL */
	void *warn_ctx;
} cg_watch;

/* Prepares w for sources (borrowed, they must outlive w); it watches
 * nothing until cg_watch_start. */
void cg_watch_init(cg_watch *w, const cg_source *sources, size_t nsources,
                   cg_watch_warn_fn warn, void *warn_ctx);

/* Starts watching every folder; without inotify it warns and w->fd stays
 * -1 (changes are then seen by the reconcile only). */
void cg_watch_start(cg_watch *w);

/* Walks the folders again and watches the new ones (adding an existing
 * watch is harmless); clears w->rescan. */
void cg_watch_rescan(cg_watch *w);

/* Reads the pending events; returns how many count as a change. */
int cg_watch_read(cg_watch *w);

/* Stops watching; w may be started again. */
void cg_watch_fini(cg_watch *w);

#endif
