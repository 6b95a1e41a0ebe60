/*
 * test_git.c - unit tests of cache/git.c against real repositories that
 * the tests build with libgit2 itself (bare, in a mkdtemp folder under
 * TMPDIR) and fetch over file:// URLs: first and incremental fetches and
 * their object counts, materialising a folder or its top files, a hostile
 * tree (symlink, submodule, "..", ".git", a name with '\\', a 300-byte
 * name), unreachable URLs, a server that never answers (timeout, no
 * zombie), a killed fetch's stale locks, damaged gitdirs and the caps.
 *
 * Only loopback and the temporary folder are used; everything made is
 * removed at the end.
 */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <git2.h>

#include "cache/git.h"
#include "common/cg_fs.h"

#define TIMEOUT 20000 /* ms, for fetches that must succeed */

/* The group's temporary folder and a counter for unique names in it. */
struct fx {
	char top[PATH_MAX];
	int seq;
	int clock; /* commit times, so that every commit differs */
};

/* A repository entry: name, mode and object. */
struct ent {
	const char *name;
	git_filemode_t mode;
	git_oid id;
};

/* ---- building repositories -------------------------------------------- */

/* A fresh path top/<tag>-<n> (not created). */
static char *
fresh(struct fx *f, const char *tag)
{
	char name[64];

	(void)snprintf(name, sizeof(name), "%s-%d", tag, f->seq++);
	return cg_path_join(f->top, name);
}

static git_repository *
src_new(const char *dir)
{
	git_repository *r = NULL;

	assert_int_equal(git_repository_init(&r, dir, 1), 0);
	return r;
}

static git_oid
blob_of(git_repository *r, const char *text)
{
	git_oid id;

	assert_int_equal(
	    git_blob_create_from_buffer(&id, r, text, strlen(text)), 0);
	return id;
}

/* A tree made with the tree builder (which refuses unsafe names). */
static git_oid
tree_of(git_repository *r, const struct ent *e, size_t n)
{
	git_treebuilder *tb = NULL;
	git_oid id;

	assert_int_equal(git_treebuilder_new(&tb, r, NULL), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(git_treebuilder_insert(NULL, tb, e[i].name,
		                                        &e[i].id, e[i].mode),
		                 0);
	assert_int_equal(git_treebuilder_write(&id, tb), 0);
	git_treebuilder_free(tb);
	return id;
}

/* A tree object written raw, entries as given (already in git order). */
static git_oid
tree_raw(git_repository *r, const struct ent *e, size_t n)
{
	char buf[8192];
	size_t len = 0;
	git_odb *odb = NULL;
	git_oid id;

	for (size_t i = 0; i < n; i++) {
		int k = snprintf(buf + len, sizeof(buf) - len, "%o %s",
		                 (unsigned)e[i].mode, e[i].name);

		assert_true(k > 0 && len + (size_t)k + 21 < sizeof(buf));
		len += (size_t)k + 1; /* keeps the NUL */
		memcpy(buf + len, e[i].id.id, 20);
		len += 20;
	}
	assert_int_equal(git_repository_odb(&odb, r), 0);
	assert_int_equal(git_odb_write(&id, odb, buf, len, GIT_OBJECT_TREE), 0);
	git_odb_free(odb);
	return id;
}

/* A commit of tree on refs/heads/main (its parent is the old head). */
static git_oid
commit_on(struct fx *f, git_repository *r, const git_oid *tree_id)
{
	git_signature *sig = NULL;
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	const git_commit *parents[1];
	git_oid head;
	git_oid id;
	size_t np = 0;

	assert_int_equal(git_signature_new(&sig, "T", "t@example.org",
	                                   1700000000 + f->clock++, 0),
	                 0);
	assert_int_equal(git_tree_lookup(&tree, r, tree_id), 0);
	if (git_reference_name_to_id(&head, r, "refs/heads/main") == 0) {
		assert_int_equal(git_commit_lookup(&parent, r, &head), 0);
		parents[np++] = parent;
	}
	assert_int_equal(git_commit_create(&id, r, "refs/heads/main", sig, sig,
	                                   NULL, "c", tree, np, parents),
	                 0);
	git_commit_free(parent);
	git_tree_free(tree);
	git_signature_free(sig);
	return id;
}

/* The standard wiki: README.md, config.yaml, docs/a.md, docs/sub/b.md. */
static git_oid
std_tree(git_repository *r, const char *a_text)
{
	struct ent sub[] = {{"b.md", GIT_FILEMODE_BLOB, blob_of(r, "# B\n")}};
	struct ent docs[] = {
	    {"a.md", GIT_FILEMODE_BLOB, blob_of(r, a_text)},
	    {"sub", GIT_FILEMODE_TREE, tree_of(r, sub, 1)},
	};
	struct ent root[] = {
	    {"README.md", GIT_FILEMODE_BLOB, blob_of(r, "readme\n")},
	    {"config.yaml", GIT_FILEMODE_BLOB, blob_of(r, "name: w\n")},
	    {"docs", GIT_FILEMODE_TREE, tree_of(r, docs, 2)},
	};

	return tree_of(r, root, 3);
}

static char *
url_of(const char *path)
{
	size_t n = strlen(path) + 8;
	char *u = malloc(n);

	assert_non_null(u);
	(void)snprintf(u, n, "file://%s", path);
	return u;
}

static void
oid_hex(const git_oid *id, char out[41])
{
	git_oid_tostr(out, 41, id);
}

/* ---- looking at results ----------------------------------------------- */

static void
assert_file(const char *dir, const char *rel, const char *want)
{
	char *p = cg_path_join(dir, rel);
	char *got = NULL;
	size_t len = 0;

	assert_int_equal(cg_file_read(p, 1 << 20, &got, &len, NULL), 0);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(got, want, len);
	free(got);
	free(p);
}

/* What a folder tree holds, counted with lstat (links never followed). */
struct walk {
	int files;
	int dirs;
	int links;
	int other;
	size_t n;
	char paths[16][128]; /* the files' paths below the top */
	char names[1024];    /* the same sorted, "a.md,sub/b.md," */
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void
walk_dir(const char *dir, const char *rel, struct walk *w)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		char r[512];
		char *p;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		p = cg_path_join(dir, de->d_name);
		assert_int_equal(lstat(p, &st), 0);
		(void)snprintf(r, sizeof(r), "%s%s%s", rel, *rel ? "/" : "",
		               de->d_name);
		if (S_ISDIR(st.st_mode)) {
			w->dirs++;
			walk_dir(p, r, w);
		} else {
			w->files += S_ISREG(st.st_mode);
			w->links += S_ISLNK(st.st_mode);
			w->other +=
			    !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode);
			assert_true(w->n < 16);
			(void)snprintf(w->paths[w->n++], sizeof(w->paths[0]),
			               "%.127s", r);
		}
		free(p);
	}
	closedir(d);
}

static void
walk(const char *dir, struct walk *w)
{
	size_t len = 0;

	memset(w, 0, sizeof(*w));
	walk_dir(dir, "", w);
	qsort(w->paths, w->n, sizeof(w->paths[0]), by_name);
	for (size_t i = 0; i < w->n; i++) {
		int k = snprintf(w->names + len, sizeof(w->names) - len, "%s,",
		                 w->paths[i]);

		assert_true(k > 0 && len + (size_t)k < sizeof(w->names));
		len += (size_t)k;
	}
}

static bool
exists(const char *dir, const char *rel)
{
	char *p = cg_path_join(dir, rel);
	struct stat st;
	bool ok = lstat(p, &st) == 0;

	free(p);
	return ok;
}

static void
touch(const char *dir, const char *rel)
{
	char *p = cg_path_join(dir, rel);
	FILE *fp = fopen(p, "w");

	assert_non_null(fp);
	fputs("junk\n", fp);
	fclose(fp);
	free(p);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool
no_children(void)
{
	return waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD;
}

/* A source repository with the standard wiki; *head gets its commit. */
static git_repository *
std_repo(struct fx *f, char **path, char **url, git_oid *head)
{
	git_repository *r;
	git_oid tree;

	*path = fresh(f, "src");
	r = src_new(*path);
	tree = std_tree(r, "# A\n");
	*head = commit_on(f, r, &tree);
	*url = url_of(*path);
	return r;
}

static void
fetch_ok(const char *gitdir, const char *url, const git_oid *want,
         cg_git_stats *st)
{
	char sha[41];
	char hex[41];
	cg_err err;

	cg_err_clear(&err);
	if (cg_git_fetch(gitdir, url, "main", TIMEOUT, sha, st, &err) != 0)
		fail_msg("fetch of %s: %s", url, err.msg);
	assert_string_equal(err.msg, "");
	oid_hex(want, hex);
	assert_string_equal(sha, hex);
	assert_true(cg_git_has_commit(gitdir, sha));
}

/* ---- tests ------------------------------------------------------------ */

static void
test_first_fetch_and_materialise(void **state)
{
	struct fx *f = *state;
	char *src, *url, *gitdir = fresh(f, "git"), *out = fresh(f, "out");
	char *dest, sha[41];
	cg_git_stats st;
	cg_git_mat_stats ms;
	struct walk w;
	git_oid head;
	git_repository *r = std_repo(f, &src, &url, &head);
	cg_err err;

	fetch_ok(gitdir, url, &head, &st);
	/* commit + 3 trees + 4 blobs */
	assert_int_equal(st.total_objects, 8);
	assert_int_equal(st.received_objects, 8);
	assert_int_equal(st.up_to_date, 0);
	assert_true(st.received_bytes > 0);
	oid_hex(&head, sha);

	dest = cg_path_join(out, "docs");
	cg_err_clear(&err);
	assert_int_equal(cg_git_materialise(gitdir, sha, "docs",
	                                    CG_GIT_RECURSIVE, dest, &ms, &err),
	                 0);
	assert_int_equal(ms.files, 2);
	assert_int_equal(ms.bytes, 4 + 4);
	assert_int_equal(ms.skipped, 0);
	assert_string_equal(ms.first_skip, "");
	assert_file(dest, "a.md", "# A\n");
	assert_file(dest, "sub/b.md", "# B\n");
	walk(dest, &w);
	assert_int_equal(w.files, 2);
	assert_int_equal(w.dirs, 1);
	free(dest);

	dest = cg_path_join(out, "top");
	assert_int_equal(cg_git_materialise(gitdir, sha, "", CG_GIT_TOP_FILES,
	                                    dest, &ms, &err),
	                 0);
	assert_int_equal(ms.files, 2);
	assert_int_equal(ms.skipped, 0);
	assert_file(dest, "README.md", "readme\n");
	assert_file(dest, "config.yaml", "name: w\n");
	walk(dest, &w);
	assert_int_equal(w.files, 2);
	assert_int_equal(w.dirs, 0);
	free(dest);

	/* NULL subdir is the root; a trailing '/' is accepted. */
	dest = cg_path_join(out, "all");
	assert_int_equal(cg_git_materialise(gitdir, sha, NULL, CG_GIT_RECURSIVE,
	                                    dest, &ms, &err),
	                 0);
	assert_int_equal(ms.files, 4);
	assert_file(dest, "docs/sub/b.md", "# B\n");
	free(dest);
	dest = cg_path_join(out, "sub");
	assert_int_equal(cg_git_materialise(gitdir, sha, "docs/sub/",
	                                    CG_GIT_TOP_FILES, dest, &ms, &err),
	                 0);
	assert_int_equal(ms.files, 1);
	assert_file(dest, "b.md", "# B\n");
	free(dest);

	git_repository_free(r);
	free(src);
	free(url);
	free(gitdir);
	free(out);
}

static void
test_incremental_fetch(void **state)
{
	struct fx *f = *state;
	char *src, *url, *gitdir = fresh(f, "git");
	cg_git_stats first, st;
	git_oid head, tree;
	git_repository *r = std_repo(f, &src, &url, &head);

	fetch_ok(gitdir, url, &head, &first);
	assert_int_equal(first.received_objects, 8);

	/* Nothing changed: nothing moves. */
	memset(&st, 0xff, sizeof(st));
	fetch_ok(gitdir, url, &head, &st);
	assert_int_equal(st.received_objects, 0);
	assert_int_equal(st.total_objects, 0);
	assert_int_equal(st.up_to_date, 1);

	/* docs/a.md changed: commit + root tree + docs tree + the blob. */
	tree = std_tree(r, "# A, second version\n");
	head = commit_on(f, r, &tree);
	fetch_ok(gitdir, url, &head, &st);
	assert_int_equal(st.received_objects, 4);
	assert_int_equal(st.total_objects, 4);
	assert_int_equal(st.up_to_date, 0);
	assert_true(st.received_objects * 2 <= first.total_objects);

	git_repository_free(r);
	free(src);
	free(url);
	free(gitdir);
}

/*
 * docs holds "..", ".git", a 300-byte name, "a\\b", a symlink, a good
 * file twice, a submodule and an executable; the root holds "..", ".git",
 * README.md and docs.  Written raw: the tree builder refuses these names.
 */
static git_oid
hostile_tree(git_repository *r, char *longname)
{
	struct ent pwn[] = {{"pwned.md", GIT_FILEMODE_BLOB, blob_of(r, "x\n")}};
	struct ent dotgit[] = {
	    {"config", GIT_FILEMODE_BLOB, blob_of(r, "[core]\n")}};
	git_oid up = tree_of(r, pwn, 1);
	git_oid git = tree_of(r, dotgit, 1);
	git_oid mod;
	struct ent docs[9];
	struct ent root[4];

	memset(longname, 'L', 300);
	longname[300] = '\0';
	assert_int_equal(
	    git_oid_fromstr(&mod, "1234567890123456789012345678901234567890"),
	    0);
	docs[0] = (struct ent){"..", GIT_FILEMODE_TREE, up};
	docs[1] = (struct ent){".git", GIT_FILEMODE_TREE, git};
	docs[2] = (struct ent){longname, GIT_FILEMODE_BLOB, blob_of(r, "l\n")};
	docs[3] = (struct ent){"a\\b", GIT_FILEMODE_BLOB, blob_of(r, "b\n")};
	docs[4] = (struct ent){"evil.md", GIT_FILEMODE_LINK,
	                       blob_of(r, "/etc/passwd")};
	docs[5] =
	    (struct ent){"good.md", GIT_FILEMODE_BLOB, blob_of(r, "good\n")};
	docs[6] =
	    (struct ent){"good.md", GIT_FILEMODE_BLOB, blob_of(r, "second\n")};
	docs[7] = (struct ent){"mod", GIT_FILEMODE_COMMIT, mod};
	docs[8] = (struct ent){"run.sh", GIT_FILEMODE_BLOB_EXECUTABLE,
	                       blob_of(r, "#!/bin/sh\n")};
	root[0] = (struct ent){"..", GIT_FILEMODE_TREE, up};
	root[1] = (struct ent){".git", GIT_FILEMODE_TREE, git};
	root[2] = (struct ent){"README.md", GIT_FILEMODE_BLOB,
	                       blob_of(r, "readme\n")};
	root[3] = (struct ent){"docs", GIT_FILEMODE_TREE, tree_raw(r, docs, 9)};
	return tree_raw(r, root, 4);
}

/* Materialises subdir of sha into out/dest; checks nothing escaped. */
static void
hostile_check(const char *gitdir, const char *sha, const char *out,
              const char *subdir, enum cg_git_depth depth, const char *names,
              unsigned skipped, const char *first_skip)
{
	char *dest = cg_path_join(out, "dest");
	cg_git_mat_stats ms;
	struct walk w;
	struct walk around;
	struct stat st;
	cg_err err;

	assert_int_equal(cg_mkdir_p(out, NULL), 0);
	cg_err_clear(&err);
	assert_int_equal(
	    cg_git_materialise(gitdir, sha, subdir, depth, dest, &ms, &err), 0);
	assert_int_equal(ms.skipped, skipped);
	assert_string_equal(ms.first_skip, first_skip);
	walk(dest, &w);
	assert_int_equal(w.links, 0);
	assert_int_equal(w.other, 0);
	assert_int_equal((unsigned)w.files, ms.files);
	assert_string_equal(w.names, names);
	if (exists(dest, "good.md"))
		assert_file(dest, "good.md", "good\n");
	/* dest/.. holds dest alone: nothing was written beside it. */
	walk(out, &around);
	assert_int_equal(around.files, w.files);
	assert_int_equal(around.dirs, w.dirs + 1);
	if (exists(dest, "run.sh")) {
		char *p = cg_path_join(dest, "run.sh");

		assert_int_equal(lstat(p, &st), 0);
		assert_int_equal(st.st_mode & 0111, 0);
		free(p);
	}
	(void)cg_rm_rf(out);
	free(dest);
}

static void
test_hostile_tree(void **state)
{
	struct fx *f = *state;
	char *src = fresh(f, "src"), *gitdir = fresh(f, "git");
	char *out = fresh(f, "out"), *url = url_of(src);
	char longname[301];
	git_repository *r = src_new(src);
	git_oid tree = hostile_tree(r, longname);
	git_oid head = commit_on(f, r, &tree);
	char sha[41];

	/* libgit2's file:// fetch carries the raw trees unchanged. */
	fetch_ok(gitdir, url, &head, NULL);
	oid_hex(&head, sha);
	hostile_check(gitdir, sha, out, "docs", CG_GIT_RECURSIVE,
	              "good.md,run.sh,", 7, "docs/..: unsafe name");
	hostile_check(gitdir, sha, out, "", CG_GIT_RECURSIVE,
	              "README.md,docs/good.md,docs/run.sh,", 9,
	              "..: unsafe name");
	hostile_check(gitdir, sha, out, "", CG_GIT_TOP_FILES, "README.md,", 2,
	              "..: unsafe name");
	/* The same straight from the source's object database. */
	hostile_check(src, sha, out, "docs", CG_GIT_RECURSIVE,
	              "good.md,run.sh,", 7, "docs/..: unsafe name");
	assert_false(exists(f->top, "pwned.md"));

	git_repository_free(r);
	free(src);
	free(gitdir);
	free(out);
	free(url);
}

static void
test_hostile_skip_reasons(void **state)
{
	struct fx *f = *state;
	char *src = fresh(f, "src"), *out = fresh(f, "out");
	git_repository *r = src_new(src);
	git_oid mod;
	git_oid head, tree;
	char sha[41];

	assert_int_equal(
	    git_oid_fromstr(&mod, "1234567890123456789012345678901234567890"),
	    0);
	{
		struct ent docs[] = {
		    {"evil.md", GIT_FILEMODE_LINK, blob_of(r, "/etc/passwd")},
		    {"mod", GIT_FILEMODE_COMMIT, mod},
		};
		struct ent mods[] = {{"mod", GIT_FILEMODE_COMMIT, mod}};
		struct ent root[] = {
		    {"docs", GIT_FILEMODE_TREE, tree_of(r, docs, 2)},
		    {"m", GIT_FILEMODE_TREE, tree_of(r, mods, 1)},
		};

		tree = tree_of(r, root, 2);
	}
	head = commit_on(f, r, &tree);
	oid_hex(&head, sha);
	hostile_check(src, sha, out, "docs", CG_GIT_RECURSIVE, "", 2,
	              "docs/evil.md: symlink not written");
	hostile_check(src, sha, out, "m", CG_GIT_TOP_FILES, "", 1,
	              "m/mod: submodule not written");
	git_repository_free(r);
	free(src);
	free(out);
}

static void
test_unreachable(void **state)
{
	struct fx *f = *state;
	char *gitdir = fresh(f, "git"), *src, *url, sha[41];
	git_oid head;
	git_repository *r = std_repo(f, &src, &url, &head);
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_git_fetch(gitdir, "file:///nonexistent-cg-git",
	                              "main", TIMEOUT, sha, NULL, &err),
	                 CG_EUNAVAIL);
	assert_int_equal(err.code, CG_EUNAVAIL);
	assert_string_equal(sha, "");
	assert_non_null(
	    strstr(err.msg, "fetch of file:///nonexistent-cg-git: "));
	assert_null(strchr(err.msg, '\n'));

	cg_err_clear(&err);
	assert_int_equal(
	    cg_git_fetch(gitdir, url, "nope", TIMEOUT, sha, NULL, &err),
	    CG_EUNAVAIL);
	assert_non_null(strstr(err.msg, "no branch 'nope'"));
	assert_true(no_children());
	git_repository_free(r);
	free(src);
	free(url);
	free(gitdir);
}

/* A loopback listener that completes handshakes and never answers. */
static int
silent_listener(int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(s >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s, 16), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return s;
}

static void
test_timeout(void **state)
{
	struct fx *f = *state;
	char *gitdir = fresh(f, "git");
	char url[128], want[192], sha[41];
	int port;
	int s = silent_listener(&port);
	double t0;
	double took;
	cg_err err;

	(void)snprintf(url, sizeof(url), "http://127.0.0.1:%d/x.git", port);
	cg_err_clear(&err);
	t0 = now_s();
	assert_int_equal(
	    cg_git_fetch(gitdir, url, "main", 700, sha, NULL, &err),
	    CG_ETIMEDOUT);
	took = now_s() - t0;
	assert_true(took >= 0.65 && took < 2.0);
	(void)snprintf(want, sizeof(want), "fetch of %s timed out after 700 ms",
	               url);
	assert_string_equal(err.msg, want);
	assert_true(no_children());

	/* The URL's userinfo is never shown. */
	(void)snprintf(url, sizeof(url),
	               "http://alice:s3cret@127.0.0.1:%d/x.git", port);
	cg_err_clear(&err);
	assert_int_equal(
	    cg_git_fetch(gitdir, url, "main", 300, sha, NULL, &err),
	    CG_ETIMEDOUT);
	(void)snprintf(want, sizeof(want),
	               "fetch of http://127.0.0.1:%d/x.git timed out after "
	               "300 ms",
	               port);
	assert_string_equal(err.msg, want);
	assert_true(no_children());
	close(s);
	free(gitdir);
}

static void
test_refused_hides_userinfo(void **state)
{
	struct fx *f = *state;
	char *gitdir = fresh(f, "git");
	char url[128], sha[41];
	int port;
	int s = silent_listener(&port);
	cg_err err;

	close(s); /* now nothing listens there */
	(void)snprintf(url, sizeof(url),
	               "http://alice:s3cret@127.0.0.1:%d/x.git", port);
	cg_err_clear(&err);
	assert_int_equal(
	    cg_git_fetch(gitdir, url, "main", TIMEOUT, sha, NULL, &err),
	    CG_EUNAVAIL);
	assert_null(strstr(err.msg, "s3cret"));
	assert_null(strstr(err.msg, "alice"));
	assert_non_null(strstr(err.msg, "fetch of http://127.0.0.1:"));
	assert_true(no_children());
	free(gitdir);
}

static void
test_stale_locks(void **state)
{
	struct fx *f = *state;
	char *gitdir = fresh(f, "git"), *src, *url;
	static const char *const stale[] = {
	    "refs/remotes/origin/main.lock",
	    "objects/pack/pack_git2_AbC123",
	    "objects/pack/tmp_pack_XyZ",
	    "objects/pack/pack-0123.idx.lock",
	    "objects/tmp_object_git2_q1w2e3",
	    "packed-refs.lock",
	    "config.lock",
	    "index.lock",
	    "_git2_Zx9Yw8",
	};
	git_oid head, tree;
	git_repository *r = std_repo(f, &src, &url, &head);

	fetch_ok(gitdir, url, &head, NULL);
	for (size_t i = 0; i < sizeof(stale) / sizeof(stale[0]); i++)
		touch(gitdir, stale[i]);
	tree = std_tree(r, "# A, changed\n");
	head = commit_on(f, r, &tree);
	fetch_ok(gitdir, url, &head, NULL);
	for (size_t i = 0; i < sizeof(stale) / sizeof(stale[0]); i++)
		assert_false(exists(gitdir, stale[i]));
	assert_true(exists(gitdir, "refs/remotes/origin/main"));
	git_repository_free(r);
	free(src);
	free(url);
	free(gitdir);
}

static void
test_damaged_gitdir(void **state)
{
	struct fx *f = *state;
	char *gitdir = fresh(f, "git"), *src, *url, sha[41];
	git_oid head;
	git_repository *r = std_repo(f, &src, &url, &head);
	cg_err err;

	/* A git directory whose HEAD is garbage and objects is a file. */
	assert_int_equal(cg_mkdir_p(gitdir, NULL), 0);
	touch(gitdir, "HEAD");
	touch(gitdir, "objects");
	fetch_ok(gitdir, url, &head, NULL);
	assert_true(cg_is_dir(gitdir));
	free(gitdir);

	/* A folder that is not a git directory is never removed. */
	gitdir = fresh(f, "notgit");
	assert_int_equal(cg_mkdir_p(gitdir, NULL), 0);
	touch(gitdir, "precious.txt");
	cg_err_clear(&err);
	assert_int_equal(
	    cg_git_fetch(gitdir, url, "main", TIMEOUT, sha, NULL, &err),
	    CG_EINVAL);
	assert_non_null(strstr(err.msg, "refusing to replace"));
	assert_true(exists(gitdir, "precious.txt"));
	free(gitdir);

	/* A plain file is refused too. */
	gitdir = fresh(f, "file");
	touch(f->top, strrchr(gitdir, '/') + 1);
	cg_err_clear(&err);
	assert_int_equal(
	    cg_git_fetch(gitdir, url, "main", TIMEOUT, sha, NULL, &err),
	    CG_EINVAL);
	git_repository_free(r);
	free(src);
	free(url);
	free(gitdir);
}

static void
test_bad_arguments(void **state)
{
	struct fx *f = *state;
	char *gitdir = fresh(f, "git"), sha[41];
	static const char *const bad[] = {
	    "",   "../x", "a..b", "-x",     "/x",   "a b", "a/",
	    ".x", "a//b", "a/.b", "x.lock", "a\\b", "a:b", "a~1",
	};
	cg_err err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cg_err_clear(&err);
		assert_int_equal(cg_git_fetch(gitdir, "file:///x", bad[i],
		                              TIMEOUT, sha, NULL, &err),
		                 CG_EINVAL);
	}
	assert_int_equal(
	    cg_git_fetch(gitdir, "file:///x", NULL, TIMEOUT, sha, NULL, NULL),
	    CG_EINVAL);
	assert_int_equal(
	    cg_git_fetch(gitdir, "file:///x", "main", 0, sha, NULL, NULL),
	    CG_EINVAL);
	assert_int_equal(cg_git_fetch(gitdir, "", "main", 100, sha, NULL, NULL),
	                 CG_EINVAL);
	/* Nothing was created and no child was started. */
	assert_false(exists(f->top, strrchr(gitdir, '/') + 1));
	assert_true(no_children());
	free(gitdir);
}

static void
test_materialise_errors(void **state)
{
	struct fx *f = *state;
	char *src, *url, *out = fresh(f, "out"), *dest, sha[41];
	git_oid head;
	git_repository *r = std_repo(f, &src, &url, &head);
	static const char *const unsafe[] = {"../x",      "/docs", "docs/../..",
	                                     "docs//sub", ".git",  "a\\b"};
	cg_git_mat_stats ms;
	cg_err err;

	oid_hex(&head, sha);
	dest = cg_path_join(out, "d");
	assert_int_equal(cg_mkdir_p(dest, NULL), 0);
	cg_err_clear(&err);
	assert_int_equal(cg_git_materialise(src, sha, "docs", CG_GIT_RECURSIVE,
	                                    dest, &ms, &err),
	                 CG_EINVAL);
	assert_non_null(strstr(err.msg, "already exists"));
	assert_false(exists(dest, "a.md"));
	free(dest);

	dest = cg_path_join(out, "e");
	for (size_t i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++)
		assert_int_equal(cg_git_materialise(src, sha, unsafe[i],
		                                    CG_GIT_RECURSIVE, dest, &ms,
		                                    NULL),
		                 CG_EINVAL);
	assert_int_equal(cg_git_materialise(src, sha, "nope", CG_GIT_RECURSIVE,
	                                    dest, &ms, NULL),
	                 CG_ENOTFOUND);
	assert_int_equal(cg_git_materialise(src, sha, "README.md",
	                                    CG_GIT_RECURSIVE, dest, &ms, NULL),
	                 CG_ENOTFOUND);
	assert_int_equal(cg_git_materialise(src, sha, "docs/nope",
	                                    CG_GIT_RECURSIVE, dest, &ms, NULL),
	                 CG_ENOTFOUND);
	assert_int_equal(
	    cg_git_materialise(src, "0123456789abcdef0123456789abcdef01234567",
	                       "", CG_GIT_RECURSIVE, dest, &ms, NULL),
	    CG_ENOTFOUND);
	assert_int_equal(cg_git_materialise(src, "zz", "", CG_GIT_RECURSIVE,
	                                    dest, &ms, NULL),
	                 CG_EINVAL);
	assert_int_equal(
	    cg_git_materialise(out, sha, "", CG_GIT_RECURSIVE, dest, &ms, NULL),
	    CG_ENOTFOUND);
	/* None of these made dest. */
	assert_false(exists(out, "e"));
	free(dest);
	git_repository_free(r);
	free(src);
	free(url);
	free(out);
}

static void
test_caps(void **state)
{
	struct fx *f = *state;
	char *src, *url, *out = fresh(f, "out"), *dest, sha[41];
	git_oid head;
	git_repository *r = std_repo(f, &src, &url, &head);
	cg_git_mat_stats ms;
	cg_err err;

	oid_hex(&head, sha);
	/* 4 files + 2 folders: 5 is too few, 6 is enough. */
	dest = cg_path_join(out, "a");
	cg_err_clear(&err);
	assert_int_equal(cg_git_materialise_capped(src, sha, "",
	                                           CG_GIT_RECURSIVE, dest, 5,
	                                           1000, &ms, &err),
	                 CG_ETOOBIG);
	assert_non_null(strstr(err.msg, "over 5 files"));
	free(dest);
	dest = cg_path_join(out, "b");
	assert_int_equal(cg_git_materialise_capped(src, sha, "",
	                                           CG_GIT_RECURSIVE, dest, 6,
	                                           1000, &ms, NULL),
	                 0);
	assert_int_equal(ms.bytes, 7 + 8 + 4 + 4);
	free(dest);
	/* 23 bytes in all: 22 is too few. */
	dest = cg_path_join(out, "c");
	assert_int_equal(cg_git_materialise_capped(src, sha, "",
	                                           CG_GIT_RECURSIVE, dest, 100,
	                                           22, &ms, NULL),
	                 CG_ETOOBIG);
	free(dest);
	git_repository_free(r);
	free(src);
	free(url);
	free(out);
}

static void
test_deep_tree_skipped(void **state)
{
	struct fx *f = *state;
	char *src = fresh(f, "src"), *out = fresh(f, "out"), *dest, sha[41];
	git_repository *r = src_new(src);
	struct ent e = {"leaf.md", GIT_FILEMODE_BLOB, blob_of(r, "leaf\n")};
	git_oid tree = tree_of(r, &e, 1);
	git_oid head;
	cg_git_mat_stats ms;

	/* CG_GIT_MAX_DEPTH + 1 nested folders "d" above leaf.md. */
	for (int i = 0; i <= CG_GIT_MAX_DEPTH; i++) {
		struct ent d = {"d", GIT_FILEMODE_TREE, tree};

		tree = tree_of(r, &d, 1);
	}
	head = commit_on(f, r, &tree);
	oid_hex(&head, sha);
	dest = cg_path_join(out, "x");
	assert_int_equal(
	    cg_git_materialise(src, sha, "", CG_GIT_RECURSIVE, dest, &ms, NULL),
	    0);
	assert_int_equal(ms.files, 0);
	assert_int_equal(ms.skipped, 1);
	assert_non_null(strstr(ms.first_skip, "/d: too deep"));
	free(dest);
	git_repository_free(r);
	free(src);
	free(out);
}

static void
test_has_commit(void **state)
{
	struct fx *f = *state;
	char *src, *url, sha[41];
	git_oid head;
	git_repository *r = std_repo(f, &src, &url, &head);

	oid_hex(&head, sha);
	assert_int_equal(cg_git_has_commit(src, sha), 1);
	assert_int_equal(
	    cg_git_has_commit(src, "0123456789abcdef0123456789abcdef01234567"),
	    0);
	assert_int_equal(cg_git_has_commit(src, "0123"), 0);
	assert_int_equal(cg_git_has_commit(src, NULL), 0);
	assert_int_equal(cg_git_has_commit(f->top, sha), 0);
	/* A tree is not a commit. */
	{
		git_commit *c = NULL;
		char tree[41];

		assert_int_equal(git_commit_lookup(&c, r, &head), 0);
		oid_hex(git_commit_tree_id(c), tree);
		assert_int_equal(cg_git_has_commit(src, tree), 0);
		git_commit_free(c);
	}
	git_repository_free(r);
	free(src);
	free(url);
}

static void
test_name_safe(void **state)
{
	static const char *const ok[] = {"a",  "a.md", "...", ".gitx",
	                                 "-x", "é.md", " "};
	static const char *const no[] = {"",     ".",   "..",   ".git",
	                                 ".GIT", "a/b", "a\\b", "/"};
	char big[257];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_true(cg_git_name_safe(ok[i], strlen(ok[i])));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(cg_git_name_safe(no[i], strlen(no[i])));
	assert_false(cg_git_name_safe("a\0b", 3));
	assert_false(cg_git_name_safe(NULL, 0));
	memset(big, 'x', sizeof(big));
	assert_true(cg_git_name_safe(big, 255));
	assert_false(cg_git_name_safe(big, 256));
	assert_true(cg_git_branch_safe("main"));
	assert_true(cg_git_branch_safe("release/v1.2_x-y"));
	assert_false(cg_git_branch_safe("a/../b"));
}

/* ---- fixture ---------------------------------------------------------- */

static int
group_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");
	char *real;

	if (f == NULL)
		return -1;
	if (tmp == NULL || *tmp != '/')
		tmp = "/tmp";
	(void)snprintf(f->top, sizeof(f->top), "%s/cg-test-git-XXXXXX", tmp);
	if (mkdtemp(f->top) == NULL)
		return -1;
	/* file:// URLs and the "dest/.." checks want the real path. */
	real = cg_realpath(f->top);
	if (real == NULL)
		return -1;
	(void)snprintf(f->top, sizeof(f->top), "%s", real);
	free(real);
	git_libgit2_init();
	*state = f;
	return 0;
}

static int
group_teardown(void **state)
{
	struct fx *f = *state;

	git_libgit2_shutdown();
	(void)cg_rm_rf(f->top);
	free(f);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_fetch_and_materialise),
	    cmocka_unit_test(test_incremental_fetch),
	    cmocka_unit_test(test_hostile_tree),
	    cmocka_unit_test(test_hostile_skip_reasons),
	    cmocka_unit_test(test_unreachable),
	    cmocka_unit_test(test_timeout),
	    cmocka_unit_test(test_refused_hides_userinfo),
	    cmocka_unit_test(test_stale_locks),
	    cmocka_unit_test(test_damaged_gitdir),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_materialise_errors),
	    cmocka_unit_test(test_caps),
	    cmocka_unit_test(test_deep_tree_skipped),
	    cmocka_unit_test(test_has_commit),
	    cmocka_unit_test(test_name_safe),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
