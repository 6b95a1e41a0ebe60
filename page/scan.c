/*
 * scan.c - the wiki walk.  Iterative (an explicit stack of folders), lstat
 * only, so a symlink loop or a deep tree cannot recurse without bound.  It
 * must not read file contents: that is the index's job, and only for files
 * whose size or mtime changed.
 */
#define _GNU_SOURCE
#include "page/scan.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_analyzer.h"
#include "common/cg_fs.h"
#include "common/cg_vec.h"
#include "page/page.h"

#define SCAN_MAX_ENTRIES 1000000
#define SCAN_MAX_DEPTH   32

struct pending {
	char *abs; /* absolute folder path */
	char *rel; /* relative to repo */
	const char *category;
	int depth;
};

int
cg_scan_excluded(const char *name)
{
	return strcmp(name, "index.md") == 0 || strcmp(name, "log.md") == 0 ||
	       fnmatch("lint-*.md", name, 0) == 0;
}

static int
ends_with_md(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && strcmp(name + n - 3, ".md") == 0;
}

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the copy is stored
 * in s->v, which cg_scan_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
push_entry(cg_scan *s, const char *rel, const char *category,
           const struct stat *st, enum cg_scan_kind kind)
{
	cg_scan_entry *e;

	if (s->n >= SCAN_MAX_ENTRIES)
		return CG_ETOOBIG;
	if (cg_vec_reserve((void **)&s->v, &s->cap, s->n, sizeof(*s->v)) != 0)
		return CG_ENOMEM;
	e = &s->v[s->n];
	e->rel = strdup(rel);
	if (e->rel == NULL)
		return CG_ENOMEM;
	e->category = category;
	e->size = (int64_t)st->st_size;
	e->mtime_ns =
	    (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
	e->kind = kind;
	e->overlay = NULL;
	e->overlay_hash = 0;
	e->virt = false;
	s->n++;
	return 0;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

static int
cmp_entry(const void *a, const void *b)
{
	const cg_scan_entry *x = a;
	const cg_scan_entry *y = b;

	return strcmp(x->rel, y->rel);
}

/* Pushes the folder name of dir onto the stack, unless hidden, an archive
 * or too deep. */
static int
push_dir(const struct pending *dir, const char *name, struct pending **stack,
         size_t *nstack, size_t *capstack)
{
	char *abs;
	char *rel;

	if (name[0] == '.' || name[0] == '_' || dir->depth + 1 > SCAN_MAX_DEPTH)
		return 0;
	if (cg_vec_reserve((void **)stack, capstack, *nstack,
	                   sizeof(**stack)) != 0)
		return CG_ENOMEM;
	abs = cg_path_join(dir->abs, name);
	rel = cg_path_join(dir->rel, name);
	if (abs == NULL || rel == NULL) {
		free(abs);
		free(rel);
		return CG_ENOMEM;
	}
	(*stack)[*nstack] = (struct pending){
	    abs, rel,
	    dir->depth == 0 ? cg_category_for_dir(name) : dir->category,
	    dir->depth + 1};
	(*nstack)++;
	return 0;
}

/* Handles one directory entry of dir (open as fd); may push a folder onto
 * the stack.  The entry's type from readdir spares a folder its lstat and
 * a file not named *.md any; a page file is lstat'ed relative to fd (no
 * walk of the whole path per file: 9k pages made it a fifth of a no-change
 * query). */
static int
visit(cg_scan *s, const struct pending *dir, int fd, const struct dirent *de,
      struct pending **stack, size_t *nstack, size_t *capstack)
{
	const char *name = de->d_name;
	struct stat st;
	char *rel;
	int rc;

	if (de->d_type == DT_DIR)
		return push_dir(dir, name, stack, nstack, capstack);
	if (de->d_type != DT_UNKNOWN &&
	    (!ends_with_md(name) || cg_scan_excluded(name)))
		return 0;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return 0; /* vanished between readdir and lstat */
	if (S_ISDIR(st.st_mode))
		return push_dir(dir, name, stack, nstack, capstack);
	if (!ends_with_md(name) || cg_scan_excluded(name))
		return 0;
	if (!S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode))
		return 0;
	rel = cg_path_join(dir->rel, name);
	if (rel == NULL)
		return CG_ENOMEM;
	rc = push_entry(s, rel, dir->category, &st,
	                S_ISLNK(st.st_mode) ? CG_SCAN_SYMLINK : CG_SCAN_FILE);
	free(rel);
	return rc;
}

static int
scan_dir(cg_scan *s, struct pending *dir, struct pending **stack,
         size_t *nstack, size_t *capstack)
{
	DIR *d = opendir(dir->abs);
	struct dirent *de;
	int rc = 0;

	if (d == NULL)
		return 0; /* unreadable folder: nothing to list */
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		rc = visit(s, dir, dirfd(d), de, stack, nstack, capstack);
	}
	closedir(d);
	return rc;
}

static char *
relative_to(const char *repo, const char *path)
{
	size_t n = strlen(repo);

	if (strncmp(path, repo, n) == 0 && path[n] == '/')
		return strdup(path + n + 1);
	return strdup(path);
}

int
cg_scan_wiki(cg_scan *out, const char *repo, const char *wiki, cg_err *err)
{
	struct pending *stack = NULL;
	size_t nstack = 0;
	size_t capstack = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!cg_is_dir(wiki))
		return 0;
	stack = malloc(sizeof(*stack));
	if (stack == NULL)
		return cg_err_set(err, CG_ENOMEM, "scan: out of memory");
	capstack = 1;
	stack[0] =
	    (struct pending){strdup(wiki), relative_to(repo, wiki), NULL, 0};
	nstack = 1;
	if (stack[0].abs == NULL || stack[0].rel == NULL)
		rc = CG_ENOMEM;
	while (rc == 0 && nstack > 0) {
		struct pending dir = stack[--nstack];

		rc = scan_dir(out, &dir, &stack, &nstack, &capstack);
		free(dir.abs);
		free(dir.rel);
	}
	while (nstack > 0) {
		nstack--;
		free(stack[nstack].abs);
		free(stack[nstack].rel);
	}
	free(stack);
	if (rc != 0) {
		cg_scan_fini(out);
		return cg_err_set(err, rc, "scan %s: %s", wiki,
		                  rc == CG_ETOOBIG ? "too many files"
		                                   : "out of memory");
	}
	cg_scan_sort(out);
	return 0;
}

void
cg_scan_sort(cg_scan *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_entry);
}

int
cg_scan_push(cg_scan *s, const char *rel, int64_t size, int64_t mtime_ns,
             enum cg_scan_kind kind)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_size = size;
	st.st_mtim.tv_sec = mtime_ns / 1000000000;
	st.st_mtim.tv_nsec = mtime_ns % 1000000000;
	return push_entry(s, rel, NULL, &st, kind);
}

void
cg_scan_fini(cg_scan *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].rel);
		json_decref(s->v[i].overlay);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}
