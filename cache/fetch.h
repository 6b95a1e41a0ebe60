/*
 * fetch.h - `corpus-gw fetch`: keeps the remote corpora of a repository's
 * registry fresh in its cache (SPEC 5).
 *
 * A run over one repository's github corpora (in registry order, or only
 * those named) goes in three steps:
 *   1. within its TTL (cached_at + ttl) and without `refresh`: nothing;
 *   2. the others' freshness probes (cache/probe.h) all go out at once on
 *      one batch of cache/httpc.h: connections to the API host are reused
 *      (HTTP/1.1 keep-alive, or the streams of one HTTP/2 connection), at
 *      most 6 at once; 304, or the commit already cached: the probe is
 *      recorded in the advisory state (when nothing else in it changed,
 *      only its mtime: no write, rename or fsync), and _cache_meta.json's
 *      cached_at moves only once it is half the TTL old (cache/fetch.c
 *      touch says why); an mtime is set as its answer arrives, and a
 *      few threads, started for the first write, do what writes there
 *      are as the answers come in (a no-change run starts none);
 *   3. the corpora whose commit moved get their git work (cache/update_int.h),
 *      up to `jobs` at once, each in a worker process: the corpus
 *      repository and each git source are fetched (cache/git.h: one branch,
 *      no tags, only missing objects, in a child with a deadline) into bare
 *      repositories kept under .corpus-gw/git; the corpus files and each
 *      source's docs_root are materialised into .corpus-gw/stage-<id>-<pid>,
 *      _cache_meta.json is written there, and the stage replaces cache/<id>
 *      in one renameat2(RENAME_EXCHANGE) (a plain rename the first time);
 *      the old tree is then removed;
 *   4. every corpus asked (unchanged or updated) has its llms-txt sources
 *      refreshed (cache/llms_fetch.h: manifests and pages by conditional
 *      GETs, a publish only when something changed); a source whose
 *      manifest cannot be had fails the corpus the same way (state file,
 *      stale note, one line), its cached pages still serving.
 * Any failure: the published cache is untouched and keeps serving; the
 * state file records the error, so answers carry the stale note; one line
 * on opts->out.  A source is fetched at config.yaml's last_commit_sha when
 * that commit is in its branch's history (the index describes that
 * commit), else at the branch head.
 *
 * Deadlines: each probe has its own (probe_timeout_ms, counted from when it
 * is queued) and each git fetch its own (fetch_timeout_ms); the whole run
 * has deadline_ms, shared by every cg_fetch_repo given the same opts.  At
 * the run's deadline what is still running is cut off (probes abandoned,
 * git workers killed and their stages removed) and what has not started
 * does not start: each such corpus is a failed one whose state records
 * "run deadline reached ...".  The lock wait counts against it too.
 *
 * One fetch per cache root at a time (flock on .corpus-gw/lock; a second
 * run waits up to lock_wait_ms, then gives up saying so).  With the lock
 * held, the leftovers of a killed run (stage folders, temporary files, git
 * lock files) are removed first.
 *
 * May be included by cache/ and every layer above it (conf, page, proto,
 * index, node, federation, gateway, cli); today cli/ (the fetch command) uses
 * it.
 */
#ifndef CG_FETCH_H
#define CG_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/cg_err.h"

/*
 * The run's deadline by default: 30 minutes.  `corpus-gw fetch` is meant
 * for an hourly cron job, so a run must end well inside its hour and leave
 * the next run its lock (that one waits 30 s, then gives up): half the
 * slot.  It still leaves room: a run of 50 unchanged corpora takes well
 * under a second, a hung API costs one probe timeout (15 s) for all of
 * them, and each git fetch is bounded by fetch_timeout_ms (300 s), so only
 * many first clones or updates of big repositories come near it; what it
 * cuts off keeps its old cache and is taken up again by the next run (the
 * git objects already fetched stay in the bare repositories).
 */
#define CG_FETCH_DEADLINE_S 1800
#define CG_FETCH_JOBS       4 /* corpora whose git work runs at once */

typedef struct cg_fetch_opts {
	const char *api_base; /* freshness API, no trailing '/' */
	const char *git_base; /* git URLs are <git_base>/<owner>/<name>.git */
	const char *token;    /* bearer token for the API, or NULL */
	bool refresh;         /* ignore the TTL */
	const char *const *only; /* corpus ids to handle (NULL: all) */
	size_t nonly;
	bool verbose;  /* a line per corpus, and a summary */
	bool progress; /* a progress line (stderr is a terminal): a bar, i/n,
	                  the corpus and what it is doing */
	int probe_timeout_ms;
	int fetch_timeout_ms; /* per git fetch */
	int lock_wait_ms;
	int64_t deadline_ms; /* the whole run's, on cg_mono_ms()'s clock */
	int jobs;            /* git work of this many corpora at once */
	FILE *out;           /* problems (and -v lines) go here: stderr */
} cg_fetch_opts;

typedef struct cg_fetch_report {
	int corpora;   /* github corpora considered */
	int fresh;     /* within the TTL: not asked */
	int unchanged; /* asked: no new commit */
	int updated;   /* published a new commit */
	int failed;    /* the old cache (if any) keeps serving */
	int http_requests;
	int http_connections; /* opened (the rest of the requests reused one) */
	uint64_t http_bytes;
	unsigned git_objects;
	uint64_t git_bytes;
	bool *matched; /* per opts.only: the id was found */
} cg_fetch_report;

/* Defaults: api https://api.github.com, git https://github.com, timeouts
 * 15 s probe / 300 s fetch, lock wait 30 s, the run's deadline
 * CG_FETCH_DEADLINE_S from now, CG_FETCH_JOBS, out stderr; then the
 * CORPUS_GW_API_BASE, CORPUS_GW_GIT_BASE and GITHUB_TOKEN environment. */
void cg_fetch_opts_init(cg_fetch_opts *o);

/*
 * Refreshes the corpora registered by repository repo.  Per-corpus
 * problems are printed (one line each) and counted in rep->failed; the
 * return is 0 then.  Call from a process with no other threads running
 * (the git work forks).  A registry that does not parse is CG_EPARSE; a lock
 * held by another run past lock_wait_ms is CG_EUNAVAIL.
 */
int cg_fetch_repo(const cg_fetch_opts *o, const char *repo,
                  cg_fetch_report *rep, cg_err *err);

#endif
