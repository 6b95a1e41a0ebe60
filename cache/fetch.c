/*
 * fetch.c - the refresh of one repository's remote corpora (see fetch.h
 * for the rules): lock, clean up, then per corpus TTL check, probe, and
 * fetch-materialise-publish.
 *
 * Must not: index (a node notices the publish and re-indexes), parse
 * corpus files beyond config.yaml's sources, print anything but the
 * problem lines and -v lines to opts->out.
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE */
#include "cache/fetch.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache/corpus.h"
#include "cache/git.h"
#include "cache/hiivmind.h"
#include "cache/probe.h"
#include "common/cg_fs.h"
#include "common/cg_time.h"

/* One repository's run. */
struct run {
	const cg_fetch_opts *o;
	cg_fetch_report *rep;
	const char *repo;
	char *root;  /* cache root */
	char *state; /* <root>/.corpus-gw */
	int lock_fd;
	size_t done, total; /* progress */
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
	char sha[41];   /* the commit being published */
	char etag[256]; /* of the probe that found it */
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
		fputs("\r\033[K", r->o->out);
	va_start(ap, fmt);
	(void)vfprintf(r->o->out, fmt, ap);
	va_end(ap);
	fputc('\n', r->o->out);
	fflush(r->o->out);
}

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
	fprintf(r->o->out, "\r\033[K[%s] %zu/%zu %s: %s", bar, r->done + 1,
	        r->total, id, what);
	fflush(r->o->out);
}

/* --- lock and leftovers ---------------------------------------------- */

static int
take_lock(struct run *r, cg_err *err)
{
	char *path = cg_path_join(r->state, "lock");
	int64_t t0;
	int fd;

	if (path == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		cg_err_set(err, CG_EIO, "%s: %s", path, strerror(errno));
		free(path);
		return CG_EIO;
	}
	t0 = cg_mono_ms();
	while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK ||
		    cg_mono_ms() - t0 >= r->o->lock_wait_ms) {
			close(fd);
			cg_err_set(err, CG_EUNAVAIL,
			           "another corpus-gw fetch holds %s; gave "
			           "up after %d ms",
			           path, r->o->lock_wait_ms);
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
	j->have = cg_cache_meta_read(&j->meta, j->dir, &me) == 0;
	cg_corpus_state_read(&j->st, j->state_path);
	clean_dir(j->dir, is_tmp);
	return 0;
}

/* "<git_base>/<owner>/<name>.git" */
static char *
git_url(const cg_fetch_opts *o, const char *owner_name)
{
	size_t n = strlen(o->git_base) + strlen(owner_name) + 8;
	char *s = malloc(n);

	if (s != NULL)
		(void)snprintf(s, n, "%s/%s.git", o->git_base, owner_name);
	return s;
}

/* gitdir/<name>.git (malloc'd). */
static char *
git_dir_of(struct job *j, const char *name)
{
	char rel[320];

	(void)snprintf(rel, sizeof(rel), "%s.git", name);
	return cg_path_join(j->gitdir, rel);
}

/* Fetches url's branch into gitdir/<name>.git; sha gets the head. */
static int
fetch_one(struct job *j, const char *name, const char *owner_name,
          const char *branch, char sha[41], cg_err *err)
{
	char *dir = git_dir_of(j, name);
	char *url = git_url(j->r->o, owner_name);
	cg_git_stats gs;
	int rc;

	if (dir == NULL || url == NULL) {
		free(dir);
		free(url);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	memset(&gs, 0, sizeof(gs));
	rc = cg_mkdir_p(j->gitdir, err);
	if (rc == 0)
		rc = cg_git_fetch(dir, url, branch, j->r->o->fetch_timeout_ms,
		                  sha, &gs, err);
	if (rc == 0) {
		j->r->rep->git_objects += gs.received_objects;
		j->r->rep->git_bytes += gs.received_bytes;
	}
	free(dir);
	free(url);
	return rc;
}

/* Materialises gitdir/<name>.git at sha, below sub, into stage/dest. */
static int
place(struct job *j, const char *name, const char *sha, const char *sub,
      enum cg_git_depth depth, const char *dest, cg_err *err)
{
	char *gd = git_dir_of(j, name);
	char *to = *dest ? cg_path_join(j->stage, dest) : strdup(j->stage);
	cg_git_mat_stats ms;
	int rc;

	if (gd == NULL || to == NULL) {
		free(gd);
		free(to);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	memset(&ms, 0, sizeof(ms));
	rc = cg_git_materialise(gd, sha, sub, depth, to, &ms, err);
	if (rc == 0 && ms.skipped > 0 && j->r->o->verbose)
		say(j->r, "corpus %s: %u entries not written (%s)", j->c->id,
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
place_source(struct job *j, const cg_hm_source *s, cg_err *err)
{
	char dest[512];
	char name[300];
	char owner_name[300];
	char head[41];
	const char *at = head;
	int rc;

	(void)snprintf(dest, sizeof(dest), "%s/%s", CG_CORPUS_DIR, s->id);
	if (s->type != NULL && strcmp(s->type, "self") == 0) {
		char *sub = sub_join(j->c->path, s->docs_root);

		rc = sub ? place(j, "corpus", j->sha, sub, CG_GIT_RECURSIVE,
		                 dest, err)
		         : cg_err_set(err, CG_ENOMEM, "out of memory");
		free(sub);
		return rc;
	}
	if (s->type == NULL || strcmp(s->type, "git") != 0 ||
	    s->repo_owner == NULL || s->repo_name == NULL) {
		if (j->r->o->verbose)
			say(j->r,
			    "corpus %s: source %s (%s) has no git "
			    "documents to fetch",
			    j->c->id, s->id, s->type ? s->type : "no type");
		return 0;
	}
	(void)snprintf(name, sizeof(name), "src-%s", s->id);
	(void)snprintf(owner_name, sizeof(owner_name), "%s/%s", s->repo_owner,
	               s->repo_name);
	rc = fetch_one(j, name, owner_name, s->branch ? s->branch : "main",
	               head, err);
	if (rc != 0)
		return cg_err_set(err, rc, "source %s", s->id);
	if (s->last_commit_sha != NULL) {
		char *gd = git_dir_of(j, name);

		if (gd != NULL && cg_git_has_commit(gd, s->last_commit_sha))
			at = s->last_commit_sha;
		free(gd);
	}
	return place(j, name, at, s->docs_root, CG_GIT_RECURSIVE, dest, err);
}

/* The sources of the staged config.yaml. */
static int
place_sources(struct job *j, cg_err *err)
{
	char *path = cg_path_join(j->stage, "config.yaml");
	char *text = NULL;
	size_t len = 0;
	cg_hm_config cfg;
	cg_err e;
	int rc;

	cg_err_clear(&e);
	if (path == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	rc = cg_file_read(path, CG_HM_MAX_BYTES, &text, &len, &e);
	free(path);
	if (rc != 0)
		return 0; /* entries only: the node reports it */
	rc = cg_hm_config_parse(&cfg, text, len, &e);
	free(text);
	if (rc != 0)
		return 0;
	for (size_t i = 0; rc == 0 && i < cfg.nsources; i++)
		rc = place_source(j, &cfg.sources[i], err);
	cg_hm_config_fini(&cfg);
	return rc;
}

/* Swaps the stage in for the published tree (or moves it there). */
static int
publish(struct job *j, cg_err *err)
{
	if (!cg_is_dir(j->dir)) {
		if (rename(j->stage, j->dir) != 0)
			return cg_err_set(err, CG_EIO, "publish %s: %s", j->dir,
			                  strerror(errno));
		return 0;
	}
	if (renameat2(AT_FDCWD, j->stage, AT_FDCWD, j->dir, RENAME_EXCHANGE) !=
	    0)
		return cg_err_set(err, CG_EIO, "publish %s: %s", j->dir,
		                  strerror(errno));
	(void)cg_rm_rf(j->stage); /* the old tree */
	return 0;
}

static void
fill_meta(struct job *j, cg_cache_meta *m)
{
	memset(m, 0, sizeof(*m));
	(void)snprintf(m->corpus_id, sizeof(m->corpus_id), "%s", j->c->id);
	(void)snprintf(m->source_repo, sizeof(m->source_repo), "%s",
	               j->c->repo);
	(void)snprintf(m->source_ref, sizeof(m->source_ref), "%s", j->c->ref);
	cg_utc_stamp(m->cached_at, time(NULL));
	(void)snprintf(m->cached_commit_sha, sizeof(m->cached_commit_sha), "%s",
	               j->sha);
	m->ttl_days = (double)j->c->ttl_s / 86400.0;
}

/* The staged corpus must be one a node can index: a new commit whose
 * index does not parse is not published (the old cache keeps serving). */
static int
check_stage(struct job *j, cg_err *err)
{
	cg_corpus c;
	cg_err le;
	int rc;

	cg_err_clear(&le);
	rc = cg_corpus_load(&c, j->stage, true, &le);
	cg_corpus_fini(&c);
	if (rc != 0)
		return cg_err_set(err, rc, "commit %.7s is not published: %s",
		                  j->sha, le.msg);
	return 0;
}

/* Fetch, materialise into the stage, publish. */
static int
update(struct job *j, cg_err *err)
{
	char head[41];
	cg_cache_meta m;
	int rc;

	(void)cg_rm_rf(j->stage);
	progress(j->r, j->c->id, "fetching");
	rc = fetch_one(j, "corpus", j->c->repo, j->c->ref, head, err);
	if (rc != 0)
		return rc;
	memcpy(j->sha, head, sizeof(j->sha));
	rc = place(j, "corpus", j->sha, j->c->path, CG_GIT_TOP_FILES, "", err);
	if (rc == 0)
		rc = place_sources(j, err);
	if (rc == 0)
		rc = check_stage(j, err);
	if (rc != 0)
		return rc;
	fill_meta(j, &m);
	rc = cg_cache_meta_write(&m, j->stage, err);
	if (rc == 0)
		rc = publish(j, err);
	return rc;
}

static void
record_error(struct job *j, const cg_err *e)
{
	cg_err we;

	(void)snprintf(j->st.last_error, sizeof(j->st.last_error), "%s",
	               e->msg[0] ? e->msg : cg_code_name(e->code));
	cg_utc_stamp(j->st.last_error_at, time(NULL));
	cg_err_clear(&we);
	(void)cg_corpus_state_write(&j->st, j->state_path, &we);
	j->r->rep->failed++;
	say(j->r, "corpus %s: %s; %s", j->c->id, j->st.last_error,
	    j->have ? "the old cache keeps serving, marked stale"
	            : "nothing cached yet");
}

/* Only cached_at moves (and the state says the probe answered). */
static int
touch(struct job *j, cg_err *err)
{
	int rc;

	cg_utc_stamp(j->meta.cached_at, time(NULL));
	rc = cg_cache_meta_write(&j->meta, j->dir, err);
	if (rc != 0)
		return rc;
	(void)snprintf(j->st.remote_sha, sizeof(j->st.remote_sha), "%s",
	               j->meta.cached_commit_sha);
	j->st.last_error[0] = j->st.last_error_at[0] = '\0';
	j->r->rep->unchanged++;
	if (j->r->o->verbose)
		say(j->r, "corpus %s: unchanged at %.7s", j->c->id,
		    j->meta.cached_commit_sha);
	return cg_corpus_state_write(&j->st, j->state_path, err);
}

static int
probe(struct job *j, cg_probe_res *res, cg_err *err)
{
	cg_probe_req rq = {
	    j->r->o->api_base, j->c->repo,
	    j->c->ref,         j->have && j->st.etag[0] ? j->st.etag : NULL,
	    j->r->o->token,    j->r->o->probe_timeout_ms};
	int rc;

	progress(j->r, j->c->id, "asking for the current commit");
	memset(res, 0, sizeof(*res));
	rc = cg_probe_commit(&rq, res, err);
	j->r->rep->http_requests++;
	j->r->rep->http_bytes += res->bytes;
	if (rc != 0)
		return rc;
	cg_utc_stamp(j->st.checked_at, time(NULL));
	if (res->status == CG_PROBE_NEW)
		(void)snprintf(j->st.remote_sha, sizeof(j->st.remote_sha), "%s",
		               res->sha);
	return 0;
}

static bool
within_ttl(const struct job *j)
{
	long age = cg_cache_meta_age(&j->meta, time(NULL));

	return age >= 0 && age < j->c->ttl_s;
}

static int
refresh_corpus(struct job *j, cg_err *err)
{
	cg_probe_res res;
	int rc;

	if (!j->r->o->refresh && j->have && within_ttl(j)) {
		j->r->rep->fresh++;
		return 0;
	}
	rc = probe(j, &res, err);
	if (rc == 0 && j->have &&
	    (res.status == CG_PROBE_SAME ||
	     strcmp(res.sha, j->meta.cached_commit_sha) == 0)) {
		if (res.etag[0])
			(void)snprintf(j->st.etag, sizeof(j->st.etag), "%s",
			               res.etag);
		return touch(j, err);
	}
	if (rc == 0 && res.status == CG_PROBE_SAME)
		return cg_err_set(err, CG_EPROTO,
		                  "304 Not Modified without a cache");
	if (rc == 0)
		rc = update(j, err);
	if (rc != 0)
		return rc;
	(void)snprintf(j->st.etag, sizeof(j->st.etag), "%s", res.etag);
	(void)snprintf(j->st.remote_sha, sizeof(j->st.remote_sha), "%s",
	               j->sha);
	j->st.last_error[0] = j->st.last_error_at[0] = '\0';
	j->r->rep->updated++;
	if (j->r->o->verbose)
		say(j->r, "corpus %s: updated to %.7s", j->c->id, j->sha);
	return cg_corpus_state_write(&j->st, j->state_path, err);
}

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

static void
run_corpus(struct run *r, const cg_hm_reg_corpus *c)
{
	struct job j;
	cg_err e;

	cg_err_clear(&e);
	r->rep->corpora++;
	if (job_init(&j, r, c, &e) != 0) {
		r->rep->failed++;
		say(r, "corpus %s: %s", c->id, e.msg);
	} else if (refresh_corpus(&j, &e) != 0) {
		record_error(&j, &e);
	}
	job_fini(&j);
}

static void
run_all(struct run *r, const cg_hm_registry *reg)
{
	for (size_t i = 0; i < reg->n; i++) {
		const cg_hm_reg_corpus *c = &reg->v[i];

		if (c->type != CG_HM_GITHUB || !wanted(r, c->id))
			continue;
		run_corpus(r, c);
		r->done++;
	}
	if (r->o->progress && r->total > 0) {
		fputs("\r\033[K", r->o->out);
		fflush(r->o->out);
	}
}

int
cg_fetch_repo(const cg_fetch_opts *o, const char *repo, cg_fetch_report *rep,
              cg_err *err)
{
	struct run r = {o, rep, repo, NULL, NULL, -1, 0, 0};
	cg_hm_registry reg;
	int rc = cg_corpus_registry_load(&reg, repo, err);

	if (rc != 0)
		return rc;
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
		run_all(&r, &reg);
	}
	if (r.lock_fd >= 0)
		close(r.lock_fd);
	free(r.root);
	free(r.state);
	cg_hm_registry_fini(&reg);
	return rc;
}
