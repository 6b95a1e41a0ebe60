/*
 * fetch.c - the refresh of one repository's remote corpora (see fetch.h
 * for the rules): lock, clean up, then the TTL check, every probe at once
 * (cache/probe.h on one cache/httpc.h batch) with the records of the
 * corpora each answer settles (unchanged, or failed) done meanwhile: an
 * unchanged corpus usually costs one utimensat, made as its answer
 * arrives; a failure, or a cached_at past half its TTL, is a write, done
 * by a few threads started for the first such; and then the git
 * work of the corpora that moved (cache/update_int.h: worker processes),
 * and last the llms-txt sources of every corpus asked (cache/llms_fetch.h, in
 * this process, one corpus after another).
 *
 * Threads and processes: the writer threads are joined before the first
 * worker is forked, so no fork happens while another thread runs.  Every
 * line, count and progress update is made by the calling thread.
 *
 * Must not: index (a node notices the publish and re-indexes), parse
 * corpus files beyond config.yaml's sources (cache/update.c), print
 * anything but the problem lines and -v lines to opts->out.
 */
#define _DEFAULT_SOURCE /* usleep */
#include "cache/fetch.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache/corpus.h"
#include "cache/hiivmind.h"
#include "cache/httpc.h"
#include "cache/llms_fetch.h"
#include "cache/probe.h"
#include "cache/update_int.h"
#include "common/cg_fs.h"
#include "common/cg_time.h"

#define WRITERS 8 /* threads recording settled corpora at once */

/* Where a corpus's refresh stands. */
enum step {
	S_FRESH = 1, /* within its TTL: not asked */
	S_ASK,       /* its probe is in the batch */
	S_SAME,      /* the remote did not move: only cached_at moves */
	S_MOVED,     /* a new commit: git work */
	S_UPDATED,   /* published */
	S_FAILED,    /* err says why; the old cache keeps serving */
	S_BROKEN,    /* no paths even (out of memory): said, nothing more */
};

/* One repository's run. */
struct run {
	const cg_fetch_opts *o;
	cg_fetch_report *rep;
	const char *repo;
	char *root;  /* cache root */
	char *state; /* <root>/.corpus-gw */
	int lock_fd;
	size_t done, total; /* progress: corpora settled, corpora wanted */
	struct job *jobs;   /* one per wanted github corpus, registry order */
	size_t njobs;
	struct job **asked; /* by probe id */
};

/* One corpus's work. */
struct job {
	struct run *r;
	const cg_hm_reg_corpus *c;
	char *dir; /* published cache/<id> */
	char *state_path;
	char *gitdir; /* .corpus-gw/git/<id> */
	char *stage;
	cg_cache_meta meta;
	bool have; /* a published cache exists */
	cg_corpus_state st;
	cg_corpus_state st0; /* st as read, before this run changed it */
	enum step step;
	cg_err err;      /* S_FAILED: why */
	cg_probe_req rq; /* S_ASK and later */
	cg_probe_res res;
	struct cg_update up; /* S_MOVED: the git work and its outcome */
};

void
cg_fetch_opts_init(cg_fetch_opts *o)
{
	const char *e;

	memset(o, 0, sizeof(*o));
	o->api_base = "https://api.github.com";
	o->git_base = "https://github.com";
	o->probe_timeout_ms = 15000;
	o->fetch_timeout_ms = 300000;
	o->lock_wait_ms = 30000;
	o->deadline_ms = cg_mono_ms() + (int64_t)CG_FETCH_DEADLINE_S * 1000;
	o->jobs = CG_FETCH_JOBS;
	o->out = stderr;
	if ((e = getenv("CORPUS_GW_API_BASE")) != NULL && *e)
		o->api_base = e;
	if ((e = getenv("CORPUS_GW_GIT_BASE")) != NULL && *e)
		o->git_base = e;
	if ((e = getenv("GITHUB_TOKEN")) != NULL && *e)
		o->token = e;
}

/* --- output ----------------------------------------------------------- */

static void say(struct run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One line on opts->out (clearing a progress line first). */
static void
say(struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->o->progress)
		(void)fputs("\r\033[K", r->o->out);
	va_start(ap, fmt);
	(void)vfprintf(r->o->out, fmt, ap);
	va_end(ap);
	(void)fputc('\n', r->o->out);
	(void)fflush(r->o->out);
}

/* "[####......] i/n id: what", i the corpora settled so far. */
static void
progress(struct run *r, const char *id, const char *what)
{
	char bar[21];
	size_t fill;

	if (!r->o->progress)
		return;
	fill = r->total ? r->done * 20 / r->total : 0;
	for (size_t i = 0; i < 20; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[20] = '\0';
	(void)fprintf(r->o->out, "\r\033[K[%s] %zu/%zu %s: %s", bar, r->done,
	              r->total, id, what);
	(void)fflush(r->o->out);
}

/* --- lock and leftovers ---------------------------------------------- */

static int
take_lock(struct run *r, cg_err *err)
{
	char *path = cg_path_join(r->state, "lock");
	int64_t wait = r->o->lock_wait_ms;
	int64_t t0;
	int fd;

	if (path == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		cg_err_set(err, CG_EIO, "%s: %s", path, cg_strerror(errno).s);
		free(path);
		return CG_EIO;
	}
	t0 = cg_mono_ms();
	/* The wait counts against the run's deadline. */
	if (r->o->deadline_ms > 0 && r->o->deadline_ms - t0 < wait)
		wait = r->o->deadline_ms - t0 > 0 ? r->o->deadline_ms - t0 : 0;
	while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK || cg_mono_ms() - t0 >= wait) {
			close(fd);
			cg_err_set(err, CG_EUNAVAIL,
			           "another corpus-gw fetch holds %s; gave "
			           "up after %lld ms",
			           path, (long long)wait);
			free(path);
			return CG_EUNAVAIL;
		}
		usleep(50 * 1000);
	}
	free(path);
	r->lock_fd = fd;
	return 0;
}

/* True for names a killed run leaves: stage folders, temporary files. */
static bool
is_leftover(const char *name)
{
	return strncmp(name, "stage-", 6) == 0 || strstr(name, ".tmp.") != NULL;
}

/* Removes the leftovers of killed runs in dir (the lock is held). */
static void
clean_dir(const char *dir, bool (*pred)(const char *))
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d != NULL && (de = readdir(d)) != NULL) {
		char *p;

		if (!pred(de->d_name))
			continue;
		p = cg_path_join(dir, de->d_name);
		if (p != NULL)
			(void)cg_rm_rf(p);
		free(p);
	}
	if (d != NULL)
		closedir(d);
}

static bool
is_tmp(const char *name)
{
	return strstr(name, ".tmp.") != NULL;
}

/* --- one corpus ------------------------------------------------------- */

static void
job_fini(struct job *j)
{
	if (j->stage != NULL)
		(void)cg_rm_rf(j->stage);
	free(j->dir);
	free(j->state_path);
	free(j->gitdir);
	free(j->stage);
}

static int
job_init(struct job *j, struct run *r, const cg_hm_reg_corpus *c, cg_err *err)
{
	char name[300];
	cg_err me;

	memset(j, 0, sizeof(*j));
	j->r = r;
	j->c = c;
	j->dir = cg_corpus_cache_dir(r->root, c->id);
	j->state_path = cg_corpus_state_path(r->root, c->id);
	(void)snprintf(name, sizeof(name), "git/%s", c->id);
	j->gitdir = cg_path_join(r->state, name);
	(void)snprintf(name, sizeof(name), "stage-%s-%ld", c->id,
	               (long)getpid());
	j->stage = cg_path_join(r->state, name);
	if (!j->dir || !j->state_path || !j->gitdir || !j->stage)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	cg_err_clear(&me);
	cg_err_clear(&j->err);
	j->have = cg_cache_meta_read(&j->meta, j->dir, &me) == 0;
	cg_corpus_state_read(&j->st, j->state_path);
	j->st0 = j->st;
	clean_dir(j->dir, is_tmp);
	return 0;
}

static bool
within_ttl(const struct job *j)
{
	long age = cg_cache_meta_age(&j->meta, time(NULL));

	return age >= 0 && age < j->c->ttl_s;
}

/* Marks j failed with why (the first failure wins). */
static void
fail(struct job *j, const cg_err *why)
{
	j->step = S_FAILED;
	(void)cg_err_set(&j->err, why->code ? why->code : CG_ERR, "%s",
	                 why->msg[0] ? why->msg : cg_code_name(why->code));
}

/* --- the writes of corpora settled by their probe ------------------------ */

/*
 * The remote did not move: the probe is recorded, nothing is published.
 * The published cached_at (SPEC 3.3's, which other tools read with the
 * TTL) moves, durably, only once it is half the TTL old: a probe the TTL
 * asked for (cached_at past the TTL) always moves it, as before; a
 * --refresh soon after a publish or a move leaves it, so other tools
 * still see it well within its TTL.  The probe itself goes to the
 * advisory state: when only checked_at changes (the common case: a 304),
 * an mtime (cg_corpus_state_touch), so a no-change refresh makes no
 * write, rename or fsync under the cache.
 */
/* True when the published cached_at is due to move (see touch). */
static bool
meta_due(const struct job *j, time_t now)
{
	long age = cg_cache_meta_age(&j->meta, now);

	return age < 0 || age >= j->c->ttl_s / 2;
}

/* The state as an unchanged probe leaves it (idempotent). */
static void
seen_same(struct job *j)
{
	(void)snprintf(j->st.remote_sha, sizeof(j->st.remote_sha), "%s",
	               j->meta.cached_commit_sha);
	j->st.last_error[0] = j->st.last_error_at[0] = '\0';
}

static int
touch(struct job *j, cg_err *err)
{
	time_t now = time(NULL);
	int rc;

	if (meta_due(j, now)) {
		cg_utc_stamp(j->meta.cached_at, now);
		rc = cg_cache_meta_write(&j->meta, j->dir, err);
		if (rc != 0)
			return rc;
	}
	seen_same(j);
	if (cg_corpus_state_same(&j->st, &j->st0) &&
	    cg_corpus_state_touch(j->state_path, now, NULL) == 0)
		return 0;
	return cg_corpus_state_write(&j->st, j->state_path, err);
}

/*
 * touch's common case done on the calling thread: true when the record of
 * unchanged j is the state file's mtime alone (cached_at young, nothing
 * else new) and the utimensat succeeded; false leaves j to a writer, whose
 * touch does the rest (seen_same is idempotent).  One utimensat costs less
 * than handing j to a thread, and a no-change run then starts none.
 */
static bool
touch_mtime(struct job *j)
{
	time_t now = time(NULL);

	if (j->step != S_SAME || meta_due(j, now))
		return false;
	seen_same(j);
	return cg_corpus_state_same(&j->st, &j->st0) &&
	       cg_corpus_state_touch(j->state_path, now, NULL) == 0;
}

/* The state records j's error (the old cache keeps serving). */
static void
record(struct job *j)
{
	cg_err we;

	(void)snprintf(j->st.last_error, sizeof(j->st.last_error), "%s",
	               j->err.msg);
	cg_utc_stamp(j->st.last_error_at, time(NULL));
	cg_err_clear(&we);
	(void)cg_corpus_state_write(&j->st, j->state_path, &we);
}

/* The writes of one settled corpus: touch, or record its failure (also
 * a failed touch's).  Runs on a writer thread: j only. */
static void
settle(struct job *j)
{
	cg_err e;

	cg_err_clear(&e);
	if (j->step == S_SAME && touch(j, &e) != 0)
		fail(j, &e);
	if (j->step == S_FAILED)
		record(j);
}

/*
 * The writer threads and their queue.  The probes' callback pushes each
 * corpus whose answer settles it with a write (touch_mtime did not), so
 * the writes (small, each waiting for its fsync) overlap the answers
 * still to come and each other.  The threads start with the first push:
 * a run with nothing to write starts none.  Once pushed, a job belongs to
 * the writers until writers_finish returns.
 */
struct writers {
	pthread_mutex_t mu; /* guards v, n, next, closed */
	pthread_cond_t cv;  /* a push, or the close */
	struct job **v;     /* pushed, in order */
	size_t n;           /* pushed */
	size_t next;        /* taken */
	bool closed;        /* nothing more will be pushed */
	size_t cap;         /* jobs that may be pushed */
	pthread_t t[WRITERS];
	size_t nt; /* threads started (by the first push) */
};

static void *
writer(void *arg)
{
	struct writers *w = arg;

	for (;;) {
		struct job *j = NULL;

		pthread_mutex_lock(&w->mu);
		while (w->next == w->n && !w->closed)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->next < w->n)
			j = w->v[w->next++];
		pthread_mutex_unlock(&w->mu);
		if (j == NULL)
			return NULL;
		settle(j);
	}
}

/* The queue for at most cap jobs; no thread yet. */
static int
writers_init(struct writers *w, size_t cap, cg_err *err)
{
	memset(w, 0, sizeof(*w));
	w->v = calloc(cap + 1, sizeof(struct job *));
	if (w->v == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	w->cap = cap;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	return 0;
}

/* Called by the calling thread only.  The first push starts up to
 * WRITERS threads (none when at most one job can come: the caller writes
 * it at the finish; none either when pthread_create fails, likewise). */
static void
writers_push(struct writers *w, struct job *j)
{
	bool first = w->n == 0;

	pthread_mutex_lock(&w->mu);
	w->v[w->n++] = j;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	while (first && w->cap > 1 && w->nt < WRITERS && w->nt < w->cap &&
	       pthread_create(&w->t[w->nt], NULL, writer, w) == 0)
		w->nt++;
}

/* Closes the queue, helps drain it and joins the threads. */
static void
writers_finish(struct writers *w)
{
	pthread_mutex_lock(&w->mu);
	w->closed = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	(void)writer(w);
	for (size_t i = 0; i < w->nt; i++)
		pthread_join(w->t[i], NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w->v);
}

/* --- step 2: every probe at once ---------------------------------------- */

/* What one run's probes share with the batch's callback. */
struct asking {
	struct run *r;
	cg_httpc *h;
	struct writers w;
};

/* Queues j's probe in the batch. */
static void
ask(struct asking *a, struct job *j, size_t *n)
{
	const cg_fetch_opts *o = a->r->o;
	size_t id = 0;
	cg_err e;

	cg_err_clear(&e);
	j->rq.api_base = o->api_base;
	j->rq.repo = j->c->repo;
	j->rq.ref = j->c->ref;
	j->rq.etag = j->have && j->st.etag[0] ? j->st.etag : NULL;
	j->rq.token = o->token;
	j->rq.timeout_ms = o->probe_timeout_ms;
	if (cg_probe_add(a->h, &j->rq, &id, &e) != 0) {
		fail(j, &e);
		writers_push(&a->w, j);
		return;
	}
	j->step = S_ASK;
	a->r->asked[id] = j;
	(*n)++;
}

/* What j's probe said: the step it leads to. */
static void
judge(struct job *j, const cg_httpc *h, size_t id)
{
	const cg_httpc_res *hr = cg_httpc_res_of(h, id);
	cg_err e;
	int rc;

	cg_err_clear(&e);
	rc = cg_probe_take(h, id, &j->rq, &j->res, &e);
	j->r->rep->http_requests++;
	j->r->rep->http_bytes += j->res.bytes;
	j->r->rep->http_connections += hr ? hr->connections : 0;
	if (rc != 0) {
		fail(j, &e);
		return;
	}
	cg_utc_stamp(j->st.checked_at, time(NULL));
	if (j->res.status == CG_PROBE_NEW)
		(void)snprintf(j->st.remote_sha, sizeof(j->st.remote_sha), "%s",
		               j->res.sha);
	if (j->have && (j->res.status == CG_PROBE_SAME ||
	                strcmp(j->res.sha, j->meta.cached_commit_sha) == 0)) {
		if (j->res.etag[0])
			(void)snprintf(j->st.etag, sizeof(j->st.etag), "%s",
			               j->res.etag);
		j->step = S_SAME;
	} else if (j->res.status == CG_PROBE_SAME) {
		(void)cg_err_set(&e, CG_EPROTO,
		                 "304 Not Modified without a cache");
		fail(j, &e);
	} else {
		j->step = S_MOVED;
	}
}

/* As each probe ends (cg_httpc_run's done callback): judged, shown, and
 * handed to the writers when that settles it. */
static void
answered(void *ud, size_t id, const cg_httpc_res *res)
{
	struct asking *a = ud;
	struct job *j = a->r->asked[id];

	(void)res;
	judge(j, a->h, id);
	a->r->done += j->step != S_MOVED;
	progress(a->r, j->c->id,
	         j->step == S_SAME    ? "unchanged"
	         : j->step == S_MOVED ? "moved"
	                              : "failed");
	if (j->step != S_MOVED && !touch_mtime(j))
		writers_push(&a->w, j);
}

/* The line of a failed corpus. */
static void
say_failed(struct job *j)
{
	j->r->rep->failed++;
	say(j->r, "corpus %s: %s; %s", j->c->id, j->err.msg,
	    j->have ? "the old cache keeps serving, marked stale"
	            : "nothing cached yet");
}

/* Every due probe at once; the corpora they settle written meanwhile;
 * then their lines, in registry order. */
static int
probe_all(struct run *r, cg_err *err)
{
	struct asking a;
	cg_httpc_opts ho;
	size_t n = 0;
	int rc;

	memset(&a, 0, sizeof(a));
	a.r = r;
	r->asked = calloc(r->njobs + 1, sizeof(struct job *));
	if (r->asked == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	cg_httpc_opts_init(&ho);
	ho.deadline_ms = r->o->deadline_ms;
	rc = cg_httpc_new(&a.h, &ho, err);
	if (rc == 0)
		rc = writers_init(&a.w, r->njobs, err);
	if (rc != 0) {
		cg_httpc_free(a.h);
		return rc;
	}
	for (size_t i = 0; i < r->njobs; i++)
		if (r->jobs[i].step == 0)
			ask(&a, &r->jobs[i], &n);
	if (n > 0) {
		progress(r, r->asked[0]->c->id, "asking");
		(void)cg_httpc_run(a.h, answered, &a);
	}
	writers_finish(&a.w);
	cg_httpc_free(a.h);
	for (size_t i = 0; i < r->njobs; i++) {
		struct job *j = &r->jobs[i];

		if (j->step == S_FAILED) {
			say_failed(j);
		} else if (j->step == S_SAME) {
			r->rep->unchanged++;
			if (r->o->verbose)
				say(r, "corpus %s: unchanged at %.7s", j->c->id,
				    j->meta.cached_commit_sha);
		}
	}
	return 0;
}

/* --- step 3: the git work of the corpora that moved --------------------- */

/* The outcome of one update (cg_update_run's done callback). */
static void
updated(void *ud, struct cg_update *u)
{
	/* u is the up member of its job. */
	struct job *j = (struct job *)((char *)u - offsetof(struct job, up));
	struct run *r = ud;
	cg_err e;

	r->rep->git_objects += u->objects;
	r->rep->git_bytes += u->bytes;
	if (r->o->verbose && u->notes[0] != '\0')
		say(r, "%.*s", (int)strlen(u->notes) - 1, u->notes);
	cg_err_clear(&e);
	if (u->rc != 0) {
		fail(j, &u->err);
	} else {
		(void)snprintf(j->st.etag, sizeof(j->st.etag), "%s",
		               j->res.etag);
		(void)snprintf(j->st.remote_sha, sizeof(j->st.remote_sha), "%s",
		               u->sha);
		j->st.last_error[0] = j->st.last_error_at[0] = '\0';
		if (cg_corpus_state_write(&j->st, j->state_path, &e) != 0)
			fail(j, &e);
	}
	r->done++;
	if (j->step == S_FAILED) {
		record(j);
		say_failed(j);
		return;
	}
	j->step = S_UPDATED;
	r->rep->updated++;
	progress(r, j->c->id, "updated");
	if (r->o->verbose)
		say(r, "corpus %s: updated to %.7s", j->c->id, u->sha);
}

static int
update_all(struct run *r, cg_err *err)
{
	struct cg_update **v = calloc(r->njobs + 1, sizeof(struct cg_update *));
	cg_update_opts uo;
	size_t n = 0;

	if (v == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	for (size_t i = 0; i < r->njobs; i++) {
		struct job *j = &r->jobs[i];

		if (j->step != S_MOVED)
			continue;
		j->up.c = j->c;
		j->up.dir = j->dir;
		j->up.gitdir = j->gitdir;
		j->up.stage = j->stage;
		j->up.before = j->have ? j->meta.cached_commit_sha : "";
		v[n++] = &j->up;
	}
	memset(&uo, 0, sizeof(uo));
	uo.git_base = r->o->git_base;
	uo.fetch_timeout_ms = r->o->fetch_timeout_ms;
	uo.jobs = r->o->jobs;
	uo.deadline_ms = r->o->deadline_ms;
	uo.done = updated;
	uo.ud = r;
	if (n > 0)
		progress(r, v[0]->c->id, "fetching");
	cg_update_run(&uo, v, n);
	free(v);
	return 0;
}

/* --- step 4: the llms-txt sources of the corpora asked ------------------ */

static void
llms_line(void *ud, const char *text)
{
	say(ud, "%s", text);
}

/* One corpus's llms-txt sources (cache/llms_fetch.h); a source that
 * failed is recorded as the corpus's last error (the stale note). */
static void
llms_one(struct run *r, struct job *j)
{
	char *status = cg_llms_status_path(r->root, j->c->id);
	cg_llms_report lr;
	cg_llms_opts lo;
	cg_err e;

	cg_llms_opts_init(&lo);
	lo.timeout_ms = r->o->probe_timeout_ms * 2;
	lo.deadline_ms = r->o->deadline_ms;
	lo.corpus_id = j->c->id;
	lo.status_path = status;
	lo.line = llms_line;
	lo.ud = r;
	cg_err_clear(&e);
	if (cg_llms_refresh(j->dir, j->stage, &lo, &lr, &e) != 0) {
		/* Counted once: failed, no longer unchanged or updated. */
		if (j->step == S_SAME)
			r->rep->unchanged--;
		else
			r->rep->updated--;
		fail(j, &e);
		record(j);
		r->rep->failed++;
	}
	r->rep->http_requests += lr.requests;
	r->rep->http_connections += lr.connections;
	r->rep->http_bytes += lr.bytes;
	if (r->o->verbose && lr.sources > 0)
		say(r,
		    "corpus %s: llms-txt: %d sources, %d links, %d pages "
		    "wanted: %d fetched, %d unchanged, %d removed, %d failed%s",
		    j->c->id, lr.sources, lr.listed, lr.wanted, lr.fetched,
		    lr.kept, lr.removed, lr.bad,
		    lr.published ? "; published" : "");
	free(status);
}

static void
llms_all(struct run *r)
{
	for (size_t i = 0; i < r->njobs; i++) {
		struct job *j = &r->jobs[i];

		if ((j->step == S_SAME || j->step == S_UPDATED) &&
		    cg_is_dir(j->dir) &&
		    (r->o->deadline_ms == 0 ||
		     cg_mono_ms() < r->o->deadline_ms))
			llms_one(r, j);
	}
}

/* --- the run ------------------------------------------------------------ */

static bool
wanted(struct run *r, const char *id)
{
	if (r->o->only == NULL)
		return true;
	for (size_t i = 0; i < r->o->nonly; i++)
		if (strcmp(r->o->only[i], id) == 0) {
			if (r->rep->matched != NULL)
				r->rep->matched[i] = true;
			return true;
		}
	return false;
}

/* The jobs of the wanted github corpora; the TTL step. */
static int
plan(struct run *r, const cg_hm_registry *reg, cg_err *err)
{
	r->jobs = calloc(r->total + 1, sizeof(*r->jobs));
	if (r->jobs == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	for (size_t i = 0; i < reg->n; i++) {
		const cg_hm_reg_corpus *c = &reg->v[i];
		struct job *j = &r->jobs[r->njobs];
		cg_err e;

		if (c->type != CG_HM_GITHUB || !wanted(r, c->id))
			continue;
		r->njobs++;
		r->rep->corpora++;
		cg_err_clear(&e);
		if (job_init(j, r, c, &e) != 0) {
			/* Not even its paths: no state to write. */
			r->rep->failed++;
			say(r, "corpus %s: %s", c->id, e.msg);
			j->step = S_BROKEN;
			r->done++;
		} else if (!r->o->refresh && j->have && within_ttl(j)) {
			j->step = S_FRESH;
			r->rep->fresh++;
			r->done++;
		}
	}
	return 0;
}

static int
run_all(struct run *r, const cg_hm_registry *reg, cg_err *err)
{
	int rc = plan(r, reg, err);

	if (rc == 0)
		rc = probe_all(r, err);
	if (rc == 0)
		rc = update_all(r, err);
	if (rc == 0)
		llms_all(r);
	if (r->o->progress && r->total > 0) {
		(void)fputs("\r\033[K", r->o->out);
		(void)fflush(r->o->out);
	}
	return rc;
}

int
cg_fetch_repo(const cg_fetch_opts *o, const char *repo, cg_fetch_report *rep,
              cg_err *err)
{
	struct run r;
	cg_hm_registry reg;
	int rc = cg_corpus_registry_load(&reg, repo, err);

	if (rc != 0)
		return rc;
	memset(&r, 0, sizeof(r));
	r.o = o;
	r.rep = rep;
	r.repo = repo;
	r.lock_fd = -1;
	for (size_t i = 0; reg.warnings[i] != NULL; i++)
		say(&r, "registry %s: %s", repo, reg.warnings[i]);
	r.root = cg_corpus_cache_root(repo);
	r.state = r.root ? cg_path_join(r.root, CG_CORPUS_STATE) : NULL;
	if (r.state == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	for (size_t i = 0; i < reg.n; i++)
		if (reg.v[i].type == CG_HM_GITHUB && wanted(&r, reg.v[i].id))
			r.total++;
	/* Local corpora only: nothing to fetch, no cache folder made. */
	if (rc == 0 && r.total > 0)
		rc = cg_mkdir_p(r.state, err);
	if (rc == 0 && r.total > 0)
		rc = take_lock(&r, err);
	if (rc == 0 && r.total > 0) {
		clean_dir(r.state, is_leftover);
		rc = run_all(&r, &reg, err);
	}
	for (size_t i = 0; i < r.njobs; i++)
		job_fini(&r.jobs[i]);
	free(r.jobs);
	free(r.asked);
	if (r.lock_fd >= 0)
		close(r.lock_fd);
	free(r.root);
	free(r.state);
	cg_hm_registry_fini(&reg);
	return rc;
}
