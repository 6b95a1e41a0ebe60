/*
 * update.c - the git work of a fetch run (see update_int.h): per corpus,
 * fetch, materialise into the stage, check, publish; and the pool of
 * worker processes (cache/child_int.h) that runs several corpora at once
 * under the run's deadline.
 *
 * The worker does everything on disk for its corpus (bare repositories,
 * stage, _cache_meta.json, the publish) and sends back a fixed-size
 * reply: the outcome, the commit, the git counts and the -v notes.  The
 * parent only starts, watches, kills and reaps.  An llms-txt source's
 * cached pages are linked from the published tree into the stage
 * (cg_llms_carry); cache/fetch.c refreshes them after.  Must not: print, probe,
 * write the state file, run libgit2 in the parent (cg_git_* calls happen
 * in the worker only).
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/child_int.h"
#include "cache/corpus.h"
#include "cache/git.h"
#include "cache/llms_fetch.h"
#include "cache/update_int.h"
#include "common/cg_fs.h"
#include "common/cg_time.h"

#define POLL_MAX_MS 1000 /* the longest one wait for workers lasts */

/* What a worker sends back. */
struct reply {
	int rc;
	char msg[CG_ERR_MSG_MAX];
	char sha[41];
	unsigned objects;
	uint64_t bytes;
	char notes[CG_UPDATE_NOTES];
};

/* One update inside its worker. */
struct work {
	const cg_update_opts *o;
	const struct cg_update *u;
	struct reply *r;
};

/* --- the work of one corpus (in the worker) -------------------------- */

static void note(struct work *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends a -v line to the reply's notes (dropped when they are full). */
static void
note(struct work *w, const char *fmt, ...)
{
	char *n = w->r->notes;
	size_t used = strlen(n);
	va_list ap;
	int k;

	if (used + 2 >= sizeof(w->r->notes))
		return;
	va_start(ap, fmt);
	k = vsnprintf(n + used, sizeof(w->r->notes) - used - 1, fmt, ap);
	va_end(ap);
	if (k < 0 || used + (size_t)k + 1 >= sizeof(w->r->notes)) {
		n[used] = '\0';
		return;
	}
	n[used + (size_t)k] = '\n';
	n[used + (size_t)k + 1] = '\0';
}

/* "<git_base>/<owner>/<name>.git" */
static char *
git_url(const cg_update_opts *o, const char *owner_name)
{
	size_t n = strlen(o->git_base) + strlen(owner_name) + 8;
	char *s = malloc(n);

	if (s != NULL)
		(void)snprintf(s, n, "%s/%s.git", o->git_base, owner_name);
	return s;
}

/* gitdir/<name>.git (malloc'd). */
static char *
git_dir_of(const struct work *w, const char *name)
{
	char rel[320];

	(void)snprintf(rel, sizeof(rel), "%s.git", name);
	return cg_path_join(w->u->gitdir, rel);
}

/* Fetches url's branch into gitdir/<name>.git; sha gets the head. */
static int
fetch_one(struct work *w, const char *name, const char *owner_name,
          const char *branch, char sha[41], cg_err *err)
{
	char *dir = git_dir_of(w, name);
	char *url = git_url(w->o, owner_name);
	cg_git_stats gs;
	int rc;

	if (dir == NULL || url == NULL) {
		free(dir);
		free(url);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	memset(&gs, 0, sizeof(gs));
	rc = cg_mkdir_p(w->u->gitdir, err);
	if (rc == 0)
		rc = cg_git_fetch(dir, url, branch, w->o->fetch_timeout_ms, sha,
		                  &gs, err);
	if (rc == 0) {
		w->r->objects += gs.received_objects;
		w->r->bytes += gs.received_bytes;
	}
	free(dir);
	free(url);
	return rc;
}

/* Materialises gitdir/<name>.git at sha, below sub, into stage/dest. */
static int
place(struct work *w, const char *name, const char *sha, const char *sub,
      enum cg_git_depth depth, const char *dest, cg_err *err)
{
	char *gd = git_dir_of(w, name);
	char *to =
	    *dest ? cg_path_join(w->u->stage, dest) : strdup(w->u->stage);
	cg_git_mat_stats ms;
	int rc;

	if (gd == NULL || to == NULL) {
		free(gd);
		free(to);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	memset(&ms, 0, sizeof(ms));
	rc = cg_git_materialise(gd, sha, sub, depth, to, &ms, err);
	if (rc == 0 && ms.skipped > 0)
		note(w, "corpus %s: %u entries not written (%s)", w->u->c->id,
		     ms.skipped, ms.first_skip);
	free(gd);
	free(to);
	return rc;
}

/* "<path>/<docs_root>" inside the corpus repository (self sources). */
static char *
sub_join(const char *a, const char *b)
{
	size_t n = strlen(a ? a : "") + strlen(b ? b : "") + 2;
	char *s = malloc(n);

	if (s != NULL)
		(void)snprintf(s, n, "%s%s%s", a ? a : "",
		               a && *a && b && *b ? "/" : "", b ? b : "");
	return s;
}

/* One config.yaml source into stage/docs/<sid>. */
static int
place_source(struct work *w, const cg_hm_source *s, cg_err *err)
{
	char dest[512];
	char name[300];
	char owner_name[300];
	char head[41];
	const char *at = head;
	int rc;

	(void)snprintf(dest, sizeof(dest), "%s/%s", CG_CORPUS_DIR, s->id);
	if (s->type != NULL && strcmp(s->type, "self") == 0) {
		char *sub = sub_join(w->u->c->path, s->docs_root);

		rc = sub ? place(w, "corpus", w->r->sha, sub, CG_GIT_RECURSIVE,
		                 dest, err)
		         : cg_err_set(err, CG_ENOMEM, "out of memory");
		free(sub);
		return rc;
	}
	if (s->type != NULL && strcmp(s->type, "llms-txt") == 0)
		return cg_llms_carry(w->u->dir, w->u->stage, s->id, err);
	if (s->type == NULL || strcmp(s->type, "git") != 0 ||
	    s->repo_owner == NULL || s->repo_name == NULL) {
		note(w,
		     "corpus %s: source %s (%s) has no git documents to fetch",
		     w->u->c->id, s->id, s->type ? s->type : "no type");
		return 0;
	}
	(void)snprintf(name, sizeof(name), "src-%s", s->id);
	(void)snprintf(owner_name, sizeof(owner_name), "%s/%s", s->repo_owner,
	               s->repo_name);
	rc = fetch_one(w, name, owner_name, s->branch ? s->branch : "main",
	               head, err);
	if (rc != 0)
		return cg_err_set(err, rc, "source %s", s->id);
	if (s->last_commit_sha != NULL) {
		char *gd = git_dir_of(w, name);

		if (gd != NULL && cg_git_has_commit(gd, s->last_commit_sha))
			at = s->last_commit_sha;
		free(gd);
	}
	return place(w, name, at, s->docs_root, CG_GIT_RECURSIVE, dest, err);
}

/* The sources of the staged config.yaml. */
static int
place_sources(struct work *w, cg_err *err)
{
	cg_hm_config cfg;
	cg_err e;
	int rc;

	cg_err_clear(&e);
	if (cg_corpus_config_read(&cfg, w->u->stage, &e) != 0)
		return 0; /* entries only: the node reports it */
	rc = 0;
	for (size_t i = 0; rc == 0 && i < cfg.nsources; i++)
		rc = place_source(w, &cfg.sources[i], err);
	cg_hm_config_fini(&cfg);
	return rc;
}

/* Swaps the stage in for the published tree (or moves it there). */
static int
publish(const struct cg_update *u, cg_err *err)
{
	if (!cg_is_dir(u->dir)) {
		if (rename(u->stage, u->dir) != 0)
			return cg_err_set(err, CG_EIO, "publish %s: %s", u->dir,
			                  cg_strerror(errno).s);
		return 0;
	}
	if (renameat2(AT_FDCWD, u->stage, AT_FDCWD, u->dir, RENAME_EXCHANGE) !=
	    0)
		return cg_err_set(err, CG_EIO, "publish %s: %s", u->dir,
		                  cg_strerror(errno).s);
	(void)cg_rm_rf(u->stage); /* the old tree */
	return 0;
}

static void
fill_meta(const struct cg_update *u, const char *sha, cg_cache_meta *m)
{
	const cg_hm_reg_corpus *c = u->c;

	memset(m, 0, sizeof(*m));
	(void)snprintf(m->corpus_id, sizeof(m->corpus_id), "%s", c->id);
	(void)snprintf(m->source_repo, sizeof(m->source_repo), "%s", c->repo);
	(void)snprintf(m->source_ref, sizeof(m->source_ref), "%s", c->ref);
	cg_utc_stamp(m->cached_at, time(NULL));
	(void)snprintf(m->cached_commit_sha, sizeof(m->cached_commit_sha), "%s",
	               sha);
	m->ttl_days = (double)c->ttl_s / 86400.0;
}

/* The staged corpus must be one a node can index: a new commit whose
 * index does not parse is not published (the old cache keeps serving). */
static int
check_stage(const struct cg_update *u, const char *sha, cg_err *err)
{
	cg_corpus c;
	cg_err le;
	int rc;

	cg_err_clear(&le);
	rc = cg_corpus_load(&c, u->stage, true, &le);
	cg_corpus_fini(&c);
	if (rc != 0)
		return cg_err_set(err, rc, "commit %.7s is not published: %s",
		                  sha, le.msg);
	return 0;
}

/* Fetch, materialise into the stage, publish. */
static int
update_one(struct work *w, cg_err *err)
{
	const struct cg_update *u = w->u;
	cg_cache_meta m;
	int rc;

	(void)cg_rm_rf(u->stage);
	rc = fetch_one(w, "corpus", u->c->repo, u->c->ref, w->r->sha, err);
	if (rc == 0)
		rc = place(w, "corpus", w->r->sha, u->c->path, CG_GIT_TOP_FILES,
		           "", err);
	if (rc == 0)
		rc = place_sources(w, err);
	if (rc == 0)
		rc = check_stage(u, w->r->sha, err);
	if (rc != 0)
		return rc;
	fill_meta(u, w->r->sha, &m);
	rc = cg_cache_meta_write(&m, u->stage, err);
	if (rc == 0)
		rc = publish(u, err);
	return rc;
}

/* The worker's body (cache/child_int.h): the reply is its outcome. */
static void
work_main(void *arg, void *reply)
{
	struct work *w = arg;
	cg_err err;

	cg_err_clear(&err);
	w->r = reply;
	w->r->rc = update_one(w, &err);
	memcpy(w->r->msg, err.msg, sizeof(w->r->msg));
}

/* --- the pool (in the parent) ------------------------------------------ */

/* A worker slot. */
struct slot {
	cg_child c;
	struct cg_update *u; /* NULL when free */
	struct reply r;
};

static void
ended(const cg_update_opts *o, struct cg_update *u)
{
	if (u->rc != 0)
		(void)snprintf(u->sha, sizeof(u->sha), "%s", "");
	if (o->done != NULL)
		o->done(o->ud, u);
}

/* Copies a reaped worker's reply into its update. */
static void
collect(const cg_update_opts *o, struct slot *s)
{
	struct cg_update *u = s->u;

	if (!cg_child_replied(&s->c)) {
		u->rc = cg_err_set(&u->err, CG_ERR,
		                   "the update of corpus %s died (wait status "
		                   "%d)",
		                   u->c->id, s->c.status);
		(void)cg_rm_rf(u->stage);
	} else {
		u->rc = s->r.rc;
		if (u->rc != 0)
			(void)cg_err_set(&u->err, u->rc, "%s", s->r.msg);
		memcpy(u->sha, s->r.sha, sizeof(u->sha));
		u->sha[40] = '\0';
		u->objects = s->r.objects;
		u->bytes = s->r.bytes;
		memcpy(u->notes, s->r.notes, sizeof(u->notes));
		u->notes[sizeof(u->notes) - 1] = '\0';
	}
	s->u = NULL;
	ended(o, u);
}

/* The run's deadline took u: killed in flight (started) or never begun.
 * A worker killed after its publish did its work: the published meta
 * names another commit than before. */
static void
cut_off(const cg_update_opts *o, struct cg_update *u, bool started)
{
	cg_cache_meta m;
	cg_err e;

	cg_err_clear(&e);
	if (started)
		(void)cg_rm_rf(u->stage);
	if (started && cg_cache_meta_read(&m, u->dir, &e) == 0 &&
	    strcmp(m.cached_commit_sha, u->before) != 0) {
		u->rc = 0;
		(void)snprintf(u->sha, sizeof(u->sha), "%s",
		               m.cached_commit_sha);
	} else {
		u->rc =
		    cg_err_set(&u->err, CG_ETIMEDOUT, "run deadline reached %s",
		               started ? "during its git work (fetch, "
		                         "materialise, publish)"
		                       : "before its git work began");
	}
	ended(o, u);
}

static int
start(const cg_update_opts *o, struct slot *s, struct cg_update *u,
      struct work *w)
{
	w->o = o;
	w->u = u;
	w->r = NULL;
	s->u = u;
	memset(&s->r, 0, sizeof(s->r));
	u->rc =
	    cg_child_start(&s->c, work_main, w, &s->r, sizeof(s->r), &u->err);
	if (u->rc != 0) {
		s->u = NULL;
		ended(o, u);
	}
	return u->rc;
}

/* The workers of one cg_update_run. */
struct pool {
	const cg_update_opts *o;
	size_t n;           /* slots */
	struct slot *slots; /* n */
	struct work *works; /* n: what each slot's worker runs */
	struct pollfd *pfd; /* n */
};

/* Fills the free slots from v[*next..n) unless the deadline passed;
 * returns the slots busy. */
static size_t
fill(struct pool *p, struct cg_update **v, size_t n, size_t *next, bool over)
{
	size_t busy = 0;

	for (size_t i = 0; i < p->n; i++) {
		/* A worker that cannot start ends its update at once. */
		while (p->slots[i].u == NULL && *next < n && !over)
			(void)start(p->o, &p->slots[i], v[(*next)++],
			            &p->works[i]);
		busy += p->slots[i].u != NULL;
	}
	return busy;
}

/* Waits (poll) until a worker has something to say or the deadline's
 * tick; then collects every worker that ended. */
static void
watch(struct pool *p)
{
	int64_t wait = POLL_MAX_MS;
	nfds_t k = 0;

	if (p->o->deadline_ms > 0 && p->o->deadline_ms - cg_mono_ms() < wait)
		wait = p->o->deadline_ms - cg_mono_ms();
	for (size_t i = 0; i < p->n; i++)
		if (p->slots[i].u != NULL && p->slots[i].c.fd >= 0) {
			p->pfd[k].fd = p->slots[i].c.fd;
			p->pfd[k].events = POLLIN;
			k++;
		}
	if (wait > 0)
		(void)poll(p->pfd, k, (int)wait);
	for (size_t i = 0; i < p->n; i++)
		if (p->slots[i].u != NULL && cg_child_poll(&p->slots[i].c))
			collect(p->o, &p->slots[i]);
}

void
cg_update_run(const cg_update_opts *o, struct cg_update **v, size_t n)
{
	struct pool p = {o, o->jobs < 1 ? 1 : (size_t)o->jobs, NULL, NULL,
	                 NULL};
	size_t next = 0;

	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++)
		cg_err_clear(&v[i]->err);
	p.n = p.n < n ? p.n : n;
	p.slots = calloc(p.n, sizeof(*p.slots));
	p.works = calloc(p.n, sizeof(*p.works));
	p.pfd = calloc(p.n, sizeof(*p.pfd));
	if (p.slots == NULL || p.works == NULL || p.pfd == NULL) {
		for (; next < n; next++) {
			v[next]->rc = cg_err_set(&v[next]->err, CG_ENOMEM,
			                         "out of memory");
			ended(o, v[next]);
		}
	}
	for (;;) {
		bool over =
		    o->deadline_ms > 0 && cg_mono_ms() >= o->deadline_ms;

		if (p.slots == NULL || fill(&p, v, n, &next, over) == 0 || over)
			break;
		watch(&p);
	}
	/* Past the deadline: what runs is killed, what waits never starts. */
	for (size_t i = 0; p.slots != NULL && i < p.n; i++)
		if (p.slots[i].u != NULL) {
			cg_child_kill(&p.slots[i].c);
			cut_off(o, p.slots[i].u, true);
		}
	for (; next < n; next++)
		cut_off(o, v[next], false);
	free(p.slots);
	free(p.works);
	free(p.pfd);
}
