/*
 * fetch.h - `corpus-gw fetch`: keeps the remote corpora of a repository's
 * registry fresh in its cache (SPEC 5).
 *
 * For each github corpus (in registry order, or only those named):
 *   - within its TTL (cached_at + ttl) and without `refresh`: nothing;
 *   - else one conditional request (cache/probe.h) for the ref's commit;
 *     304, or the commit already cached: only cached_at moves;
 *   - a new commit: the corpus repository and each git source are fetched
 *     (cache/git.h: one branch, no tags, only missing objects, in a child
 *     with a deadline) into bare repositories kept under .corpus-gw/git;
 *     the corpus files and each source's docs_root are materialised into
 *     .corpus-gw/stage-<id>-<pid>, _cache_meta.json is written there, and
 *     the stage replaces cache/<id> in one renameat2(RENAME_EXCHANGE) (a
 *     plain rename the first time); the old tree is then removed.
 *   - any failure: the published cache is untouched and keeps serving; the
 *     state file records the error, so answers carry the stale note.
 * A source is fetched at config.yaml's last_commit_sha when that commit is
 * in its branch's history (the index describes that commit), else at the
 * branch head.
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
	FILE *out; /* problems (and -v lines) go here: stderr */
} cg_fetch_opts;

typedef struct cg_fetch_report {
	int corpora;   /* github corpora considered */
	int fresh;     /* within the TTL: not asked */
	int unchanged; /* asked: no new commit */
	int updated;   /* published a new commit */
	int failed;    /* the old cache (if any) keeps serving */
	int http_requests;
	uint64_t http_bytes;
	unsigned git_objects;
	uint64_t git_bytes;
	bool *matched; /* per opts.only: the id was found */
} cg_fetch_report;

/* Defaults: api https://api.github.com, git https://github.com, timeouts
 * 15 s probe / 300 s fetch, lock wait 30 s, out stderr; then the
 * CORPUS_GW_API_BASE, CORPUS_GW_GIT_BASE and GITHUB_TOKEN environment. */
void cg_fetch_opts_init(cg_fetch_opts *o);

/*
 * Refreshes the corpora registered by repository repo.  Per-corpus
 * problems are printed (one line each) and counted in rep->failed; the
 * return is 0 then.  A registry that does not parse is CG_EPARSE; a lock
 * held by another run past lock_wait_ms is CG_EUNAVAIL.
 */
int cg_fetch_repo(const cg_fetch_opts *o, const char *repo,
                  cg_fetch_report *rep, cg_err *err);

#endif
