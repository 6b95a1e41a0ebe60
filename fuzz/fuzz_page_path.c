/*
 * fuzz_page_path.c - libFuzzer target for cg_page_open(), the rule that
 * decides which page paths a node may read.  Any bytes are a path tried
 * against a small fixed tree (a wiki with pages, a folder, a symlink to a
 * file outside and a symlinked folder, and a file beside the wiki).  The
 * invariant: a path is opened only when it names a regular file whose
 * real location is inside the wiki; every other answer is one of the
 * documented codes.  It must not print; the tree is made once per process.
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cg_fs.h"
#include "node/pages.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tree {
	char top[64]; /* the temporary folder, removed at exit */
	char repo[128];
	char wiki[256];
	char real[PATH_MAX]; /* realpath of wiki, with a final "/" */
};

static void
put(const char *dir, const char *rel, const char *text)
{
	char *p = cg_path_join(dir, rel);
	FILE *f = p ? fopen(p, "w") : NULL;

	if (f == NULL)
		abort();
	fputs(text, f);
	fclose(f);
	free(p);
}

/* A symlink dir/name pointing at target. */
static void
link_in(const char *dir, const char *target, const char *name)
{
	char *p = cg_path_join(dir, name);

	if (p == NULL || symlink(target, p) != 0)
		abort();
	free(p);
}

static struct tree fixture;

static void
cleanup(void)
{
	(void)cg_rm_rf(fixture.top);
}

static const struct tree *
tree(void)
{
	static int made;
	char tmpl[] = "/tmp/cg-fuzz-path-XXXXXX";
	char *d;
	char *p;

	if (made)
		return &fixture;
	d = mkdtemp(tmpl);
	if (d == NULL)
		abort();
	(void)snprintf(fixture.top, sizeof(fixture.top), "%s", d);
	(void)atexit(cleanup);
	(void)snprintf(fixture.repo, sizeof(fixture.repo), "%s/repo", d);
	(void)snprintf(fixture.wiki, sizeof(fixture.wiki), "%s/.guild/wiki/sub",
	               fixture.repo);
	if (cg_mkdir_p(fixture.wiki, NULL) != 0)
		abort();
	(void)snprintf(fixture.wiki, sizeof(fixture.wiki), "%s/.guild/wiki",
	               fixture.repo);
	put(fixture.repo, "secret.md", "secret\n");
	put(d, "outside.md", "outside\n");
	put(fixture.wiki, "a.md", "# A\n");
	put(fixture.wiki, "sub/b.md", "# B\n");
	p = cg_path_join(d, "outside.md");
	if (p == NULL)
		abort();
	link_in(fixture.wiki, p, "link.md");
	link_in(fixture.wiki, d, "dir");
	link_in(fixture.wiki, "a.md", "same.md");
	free(p);
	p = cg_realpath(fixture.wiki);
	if (p == NULL)
		abort();
	(void)snprintf(fixture.real, sizeof(fixture.real), "%s/", p);
	free(p);
	made = 1;
	return &fixture;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct tree *t = tree();
	char *rel = malloc(size + 1);
	char proc[64];
	char where[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd = -1;
	int rc;

	if (rel == NULL)
		return 0;
	memcpy(rel, data, size);
	rel[size] = '\0';
	rc = cg_page_open(&fd, t->repo, t->wiki, rel, size, NULL);
	free(rel);
	if (rc != 0) {
		if (fd != -1 || (rc != CG_EDENIED && rc != CG_ENOTFOUND &&
		                 rc != CG_EINVAL && rc != CG_EIO))
			abort();
		return 0;
	}
	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, where, sizeof(where) - 1);
	if (n <= 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		abort();
	where[n] = '\0';
	if (strncmp(where, t->real, strlen(t->real)) != 0)
		abort();
	close(fd);
	return 0;
}
