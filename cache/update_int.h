/*
 * update_int.h - the git work of a fetch run: bring the corpora whose
 * remote commit moved into their caches, several at once.
 *
 * One update (struct cg_update) fetches a corpus repository's branch and
 * each git source's branch into the bare repositories under gitdir
 * (cache/git.h, itself a child with a deadline per fetch), materialises
 * the corpus files and each source's docs_root into the stage, checks
 * that the staged corpus loads, writes _cache_meta.json there and
 * publishes the stage over the cache folder in one renameat2
 * (RENAME_EXCHANGE; a plain rename the first time), then removes the old
 * tree.  A failure leaves the published cache untouched.
 *
 * cg_update_run runs each update in a worker process of its own, at most
 * `jobs` at once: libgit2's state and memory stay out of the parent, and
 * a worker is killed outright at the run's deadline.  A worker dies with
 * the parent (PR_SET_PDEATHSIG), and its git fetch child with it, so a
 * killed run leaves no process holding the lock; what a killed worker
 * leaves on disk (its stage, git lock files) is what a killed run leaves,
 * and the next run removes it.  The worker reports on a pipe; the parent
 * keeps the counts, messages and state files.
 *
 * Must not: probe, print, write the state file (cache/fetch.c does both),
 * run libgit2 in the parent.
 *
 * Private to cache/: only cache/fetch.c and cache/update.c include it.
 */
#ifndef CG_UPDATE_INT_H
#define CG_UPDATE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "cache/hiivmind.h"
#include "common/cg_err.h"

#define CG_UPDATE_NOTES 1024 /* -v notes of one update ("\n"-separated) */

/* One corpus to update: the paths are the caller's (borrowed). */
struct cg_update {
	const cg_hm_reg_corpus *c; /* the registry's entry */
	const char *dir;           /* published cache/<id> */
	const char *gitdir;        /* .corpus-gw/git/<id> */
	const char *stage;         /* .corpus-gw/stage-<id>-<pid> */
	const char *before;        /* the commit cached now, "" when none */
	/* The outcome, filled by cg_update_run: */
	int rc;     /* 0: published sha */
	cg_err err; /* why not, when rc != 0 */
	char sha[41];
	unsigned objects;            /* git objects received */
	uint64_t bytes;              /* git bytes received */
	char notes[CG_UPDATE_NOTES]; /* lines for -v: entries not written,
	                                sources without git documents */
};

typedef struct cg_update_opts {
	const char *git_base; /* git URLs are <git_base>/<owner>/<name>.git */
	int fetch_timeout_ms; /* per git fetch */
	int jobs;             /* updates at once (>= 1) */
	int64_t deadline_ms;  /* cg_mono_ms() clock; 0: none */
	/* Called in the parent as each update ends (may be NULL). */
	void (*done)(void *ud, struct cg_update *u);
	void *ud;
} cg_update_opts;

/*
 * Runs the n updates of v, in order, at most o->jobs at once, each in a
 * worker process, until all are done or the deadline passes: a worker
 * still running then is killed and its stage removed, and it and every
 * update not started fail with CG_ETIMEDOUT "run deadline reached ...".
 * (A worker killed after its publish counts as done: the published
 * _cache_meta.json names the new commit.)  Call from a process with no
 * other threads running.
 */
void cg_update_run(const cg_update_opts *o, struct cg_update **v, size_t n);

#endif
