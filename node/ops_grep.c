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
 * Memory is bounded by what it keeps: at most `max` matches and
 * CG_GREP_KEEP_BYTES of match and context text (proto/limits.h); past
 * either, matches are counted only.  Time is bounded by the request's
 * deadline, checked between files and, through cg_grep_opts.deadline_ms,
 * between 64 KiB chunks of one file; each line's match by PCRE2's limits
 * (page/grep.h), whose error fails the op with the file named.
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
	size_t kept;         /* bytes of text kept (CG_GREP_KEEP_BYTES) */
	bool limited;        /* a match was not kept for the bytes cap */
	json_t *before;      /* context lines waiting for their match */
	json_t *last;        /* the last match kept (borrowed), for after */
};

/* A context line {line, text, clipped?}; NULL on no memory. */
static json_t *
context_json(const cg_grep_hit *h)
{
	json_t *c = json_pack("{s:I, s:s}", "line", (json_int_t)h->line, "text",
	                      h->text);

	if (c != NULL && h->clipped)
		json_object_set_new(c, "clipped", json_true());
	return c;
}

/* Context lines: before ones wait for their match, after ones join the
 * last match kept; neither once the bytes cap was reached. */
static int
on_context(struct grep_run *r, const cg_grep_hit *h)
{
	size_t n = strlen(h->text);
	json_t *c;

	if (r->limited || r->kept + n > CG_GREP_KEEP_BYTES)
		return 0;
	if (h->kind == CG_GREP_AFTER && r->last == NULL)
		return 0;
	c = context_json(h);
	if (c == NULL)
		return CG_ENOMEM;
	r->kept += n;
	if (h->kind == CG_GREP_BEFORE)
		return json_array_append_new(r->before, c) == 0 ? 0 : CG_ENOMEM;
	if (json_object_get(r->last, "after") == NULL)
		json_object_set_new(r->last, "after", json_array());
	return json_array_append_new(json_object_get(r->last, "after"), c) == 0
	           ? 0
	           : CG_ENOMEM;
}

static int
on_hit(void *ctx, const cg_grep_hit *h)
{
	struct grep_run *r = ctx;
	json_t *m;

	if (h->kind != CG_GREP_MATCH)
		return on_context(r, h);
	if (h->text == NULL)
		return 0;
	if (r->limited || r->kept + strlen(h->text) > CG_GREP_KEEP_BYTES) {
		r->limited = true; /* counted (st.matches), not kept */
		json_array_clear(r->before);
		return 0;
	}
	r->kept += strlen(h->text);
	m = json_pack("{s:o, s:o, s:I, s:I, s:s}", "source",
	              cg_json_text(r->source), "path", cg_json_text(r->path),
	              "line", (json_int_t)h->line, "column", (json_int_t)h->col,
	              "text", h->text);
	if (m == NULL)
		return CG_ENOMEM;
	if (h->clipped)
		json_object_set_new(m, "clipped", json_true());
	if (json_array_size(r->before) > 0) {
		json_object_set(m, "before", r->before);
		json_decref(r->before);
		r->before = json_array();
	}
	json_array_append_new(r->matches, m);
	r->last = m;
	return r->before != NULL ? 0 : CG_ENOMEM;
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
	cg_err ferr;
	int rc;

	cg_err_clear(&ferr);
	json_array_clear(r->before);
	r->last = NULL;
	rc = cg_grep_fd(r->g, fd, room > 0 ? room : 0, on_hit, r, &st, &ferr);
	if (rc == CG_ETIMEDOUT) { /* what was read counts: partial */
		r->expired = 1;
		st.binary = false;
	} else if (rc != 0) {
		return cg_err_set(err, rc < 0 ? rc : CG_ERR, "grep %s/%s: %s",
		                  r->source, r->path,
		                  ferr.msg[0] ? ferr.msg : "out of memory");
	}
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
	if (rc == 0)
		rc = cg_args_int(args, "before", 0, 0, CG_GREP_CONTEXT_LINES,
		                 &o->before, err);
	if (rc == 0)
		rc = cg_args_int(args, "after", 0, 0, CG_GREP_CONTEXT_LINES,
		                 &o->after, err);
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
	    json_boolean(r->expired || r->limited ||
	                 r->total > (int64_t)json_array_size(r->matches)));
	if (r->limited)
		json_object_set_new(res, "bytes_limited", json_true());
	if (r->expired)
		json_object_set_new(res, "deadline_exceeded", json_true());
	json_object_set_new(res, "unicode",
	                    json_boolean(cg_grep_unicode(r->g)));
	json_object_set_new(res, "jit", json_boolean(cg_grep_jit(r->g)));
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
	o.deadline_ms = cg_node_deadline(n);
	if (rc == 0)
		rc = cg_grep_new(&r.g, &o, err);
	if (rc != 0)
		return rc;
	r.matches = json_array();
	r.files = json_array();
	r.skipped = json_array();
	r.before = json_array();
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
	json_decref(r.before);
	cg_grep_free(r.g);
	return rc;
}
