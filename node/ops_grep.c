/*
 * ops_grep.c - the node side of grep (see ops.h): a plain or regular
 * expression search of the page files themselves (page/grep.h), over
 * page/scan.h's listing of each source in scope, sorted as the federation
 * merges and stopped at the request's deadline.  Files are opened through
 * cg_open_beneath (common/cg_fs.h), component by component with
 * O_NOFOLLOW from the repository root, so a folder or file swapped for a
 * symlink since the scan is skipped, never followed, in the wiki or above
 * it.
 *
 * What it must not do: follow a symlink, read a whole large file into
 * memory (page/grep.h streams), read the index (grep works before the
 * first one exists), or show a line of a page the caller may not see.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cg_args.h"
#include "common/cg_fs.h"
#include "common/cg_json.h"
#include "common/cg_utf8.h"
#include "node/ops.h"
#include "node/prefix.h"
#include "page/corpus_scan.h"
#include "page/grep.h"
#include "page/scan.h"
#include "proto/acl.h"
#include "proto/limits.h"

#define GREP_SKIPPED_MAX 100

struct grep_run {
	cg_grep *g;
	int max;            /* matches to keep */
	json_t *matches;    /* kept, in sort order */
	json_t *files;      /* {source, path, matches} per matching file */
	json_t *skipped;    /* {source, path, reason}, first GREP_SKIPPED_MAX */
	int64_t nskipped;   /* all skipped files */
	int64_t total;      /* matching lines */
	int64_t nfiles;     /* files searched */
	int64_t bytes;      /* bytes searched */
	int64_t windowed;   /* lines examined in windows */
	const char *source; /* current file */
	const char *path;
	int root;            /* the current source's repository, or -1 */
	int root_errno;      /* why it could not be opened */
	const cg_node *node; /* for its request deadline */
	int expired;         /* stopped at the deadline: partial */
};

static int
on_hit(void *ctx, const cg_grep_hit *h)
{
	struct grep_run *r = ctx;
	json_t *m;

	if (h->text == NULL)
		return 0;
	m = json_pack("{s:o, s:o, s:I, s:I, s:s}", "source",
	              cg_json_text(r->source), "path", cg_json_text(r->path),
	              "line", (json_int_t)h->line, "column", (json_int_t)h->col,
	              "text", h->text);
	if (m == NULL)
		return CG_ENOMEM;
	if (h->clipped)
		json_object_set_new(m, "clipped", json_true());
	json_array_append_new(r->matches, m);
	return 0;
}

static void
skip_file(struct grep_run *r, const char *path, const char *reason)
{
	if (r->nskipped++ < GREP_SKIPPED_MAX)
		json_array_append_new(r->skipped,
		                      json_pack("{s:o, s:o, s:s}", "source",
		                                cg_json_text(r->source), "path",
		                                cg_json_text(path), "reason",
		                                reason));
}

/* Streams one open file; drops its matches when it turns out binary. */
static int
grep_fd(struct grep_run *r, int fd, cg_err *err)
{
	size_t before = json_array_size(r->matches);
	int64_t room = r->max - (int64_t)before;
	cg_grep_file st;
	int rc = cg_grep_fd(r->g, fd, room > 0 ? room : 0, on_hit, r, &st, err);

	if (rc != 0)
		return rc < 0 ? cg_err_set(err, rc, "grep %s: out of memory",
		                           r->path)
		              : rc;
	if (st.binary) {
		while (json_array_size(r->matches) > before)
			json_array_remove(r->matches,
			                  json_array_size(r->matches) - 1);
		skip_file(r, r->path, "binary (NUL byte)");
		return 0;
	}
	r->nfiles++;
	r->bytes += st.bytes;
	r->windowed += st.windowed;
	r->total += st.matches;
	if (st.matches > 0)
		json_array_append_new(r->files,
		                      json_pack("{s:o, s:s, s:I}", "source",
		                                cg_json_text(r->source), "path",
		                                r->path, "matches",
		                                (json_int_t)st.matches));
	return 0;
}

/* Why a file could not be opened, as a skipped[] reason (in *text when it
 * is errno's). */
static const char *
open_reason(int rc, int e, cg_errno_text *text)
{
	if (rc == CG_EDENIED)
		return "symlink (not followed)";
	if (rc == CG_EINVAL)
		return "not a regular file";
	*text = cg_strerror(e);
	return text->s;
}

static int
grep_entry(struct grep_run *r, const cg_scan_entry *e, cg_err *err)
{
	int fd = -1;
	int rc;

	if (e->kind == CG_SCAN_SYMLINK) {
		skip_file(r, e->rel, "symlink (not followed)");
		return 0;
	}
	if (!cg_utf8_valid(e->rel, strlen(e->rel))) {
		skip_file(r, e->rel, "file name is not valid UTF-8");
		return 0;
	}
	/* The scan saw a regular file; a folder or file swapped for a
	 * symlink since is refused, not followed. */
	rc = r->root < 0
	         ? CG_EIO
	         : cg_open_beneath(&fd, r->root, e->rel, strlen(e->rel), NULL);
	if (rc != 0) {
		cg_errno_text text;

		skip_file(r, e->rel,
		          open_reason(rc, r->root < 0 ? r->root_errno : errno,
		                      &text));
		return 0;
	}
	r->path = e->rel;
	rc = grep_fd(r, fd, err);
	close(fd);
	return rc;
}

static int
grep_source(struct grep_run *r, cg_index *idx, const char *prefix, cg_err *err)
{
	cg_prefix pre;
	cg_scan sc;
	int rc = cg_prefix_init(&pre, prefix, idx, err);

	if (rc != 0)
		return rc;
	rc = cg_corpus_scan_source(&sc, cg_index_repo(idx), cg_index_wiki(idx),
	                           (enum cg_source_kind)cg_index_kind(idx),
	                           NULL, err);
	r->source = cg_index_source(idx);
	r->root = open(cg_index_repo(idx), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r->root_errno = errno;
	for (size_t i = 0; rc == 0 && i < sc.n && !r->expired; i++) {
		if (cg_node_expired(r->node)) {
			r->expired = 1;
			break;
		}
		if (!sc.v[i].virt && cg_prefix_has(&pre, sc.v[i].rel) &&
		    cg_acl_allows(cg_index_acl(idx), r->source, sc.v[i].rel))
			rc = grep_entry(r, &sc.v[i], err);
	}
	if (r->root >= 0)
		close(r->root);
	cg_scan_fini(&sc);
	cg_prefix_fini(&pre);
	return rc;
}

static int
grep_args(const json_t *args, cg_grep_opts *o, int *max, const char **pre,
          cg_err *err)
{
	int rc;

	memset(o, 0, sizeof(*o));
	rc = cg_args_str(args, "pattern", &o->pattern, err);
	if (rc == 0 && o->pattern == NULL)
		rc = cg_err_set(err, CG_EINVAL, "grep: pattern is required");
	if (rc == 0)
		rc = cg_args_bool(args, "fixed", &o->fixed, err);
	if (rc == 0)
		rc = cg_args_bool(args, "case_sensitive", &o->case_sensitive,
		                  err);
	if (rc == 0)
		rc = cg_args_int(args, "max", CG_GREP_DEFAULT_MAX, 1,
		                 CG_GREP_MAX_MAX, max, err);
	if (rc == 0)
		rc = cg_args_str(args, "prefix", pre, err);
	return rc;
}

static void
grep_result(const struct grep_run *r, json_t *res)
{
	json_object_set(res, "matches", r->matches);
	json_object_set_new(res, "total", json_integer(r->total));
	json_object_set(res, "files", r->files);
	json_object_set_new(res, "files_searched", json_integer(r->nfiles));
	json_object_set_new(res, "bytes_searched", json_integer(r->bytes));
	json_object_set_new(res, "windowed_lines", json_integer(r->windowed));
	json_object_set(res, "skipped", r->skipped);
	json_object_set_new(res, "skipped_total", json_integer(r->nskipped));
	json_object_set_new(
	    res, "truncated",
	    json_boolean(r->expired ||
	                 r->total > (int64_t)json_array_size(r->matches)));
	if (r->expired)
		json_object_set_new(res, "deadline_exceeded", json_true());
	json_object_set_new(res, "unicode",
	                    json_boolean(cg_grep_unicode(r->g)));
}

int
cg_op_grep(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	struct grep_run r;
	cg_grep_opts o;
	const char *prefix = NULL;
	size_t *order = NULL;
	size_t k = 0;
	int rc;

	memset(&r, 0, sizeof(r));
	r.node = n;
	rc = grep_args(args, &o, &r.max, &prefix, err);
	if (rc == 0)
		rc = cg_grep_new(&r.g, &o, err);
	if (rc != 0)
		return rc;
	r.matches = json_array();
	r.files = json_array();
	r.skipped = json_array();
	order = calloc(cg_node_nsources(n) + 1, sizeof(*order));
	if (order == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	else
		k = cg_node_scope_order(n, args, order);
	for (size_t i = 0; rc == 0 && i < k; i++)
		rc = grep_source(&r, cg_node_index(n, order[i]), prefix, err);
	if (rc == 0)
		grep_result(&r, res);
	free(order);
	json_decref(r.matches);
	json_decref(r.files);
	json_decref(r.skipped);
	cg_grep_free(r.g);
	return rc;
}
