/*
 * ops_page.c - the node side of `read` and `peek` (see ops.h): a page's
 * text, frontmatter and indexed facts, streamed within a cap; a batch of
 * pages' facts and outgoing links.  Opening goes through cg_page_open
 * (pages.h), the links through resolve.h; a listed llms-txt page that is
 * not cached yet is fetched for the read through cache/llms_page.h, within
 * the request's deadline.
 *
 * What it must not do: open a page any other way (the on-demand copy is
 * opened by cache/llms_page.h, below the corpus's state folder), read
 * more than its cap into memory, or return text that is not valid UTF-8.
 * Refusals are per item (pages.h).
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/corpus.h"
#include "cache/llms_page.h"
#include "common/cg_buf.h"
#include "common/cg_time.h"
#include "common/cg_utf8.h"
#include "conf/source.h"
#include "node/ops.h"
#include "node/pages.h"
#include "node/resolve.h"
#include "page/frontmatter.h"
#include "proto/limits.h"

/* Bytes of a file's head kept for its frontmatter during a range read. */
#define HEAD_MAX ((size_t)CG_FM_MAX_BYTES + 8192)
#define CHUNK    65536

/* args.lines: absent, or [A, B] with 1 <= A and (B == 0 or B >= A). */
static int
lines_args(const json_t *args, long long *a, long long *b, cg_err *err)
{
	const json_t *l = json_object_get(args, "lines");

	*a = 0;
	*b = 0;
	if (l == NULL || json_is_null(l))
		return 0;
	if (!json_is_array(l) || json_array_size(l) != 2 ||
	    !json_is_integer(json_array_get(l, 0)) ||
	    !json_is_integer(json_array_get(l, 1)))
		return cg_err_set(err, CG_EINVAL,
		                  "lines must be [first, last] (last 0 = to "
		                  "the end)");
	*a = json_integer_value(json_array_get(l, 0));
	*b = json_integer_value(json_array_get(l, 1));
	if (*a < 1 || *b < 0 || (*b != 0 && *b < *a))
		return cg_err_set(err, CG_EINVAL,
		                  "invalid line range %lld:%lld (valid: "
		                  "A:B with 1 <= A <= B)",
		                  *a, *b);
	return 0;
}

/* --- read --------------------------------------------------------------- */

/* Takes n bytes of the file; a non-zero return stops the read. */
typedef int (*feed_fn)(void *ctx, const char *p, size_t n);

/* Reads fd to its end, CHUNK bytes at a time, into feed; returns 0, the
 * first non-zero return of feed, or CG_EIO (err set). */
static int
read_all(int fd, const char *rel, feed_fn feed, void *ctx, cg_err *err)
{
	char chunk[CHUNK];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		int rc;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cg_err_set(err, CG_EIO, "'%.300s': %s", rel,
			                  cg_strerror(errno).s);
		if (n == 0)
			return 0;
		rc = feed(ctx, chunk, (size_t)n);
		if (rc != 0)
			return rc;
	}
}

static const char *
fm_status_name(enum cg_fm_status s)
{
	static const char *const names[] = {"none", "ok", "lenient", "broken"};

	return (unsigned)s < 4 ? names[s] : "broken";
}

/* Sets a sanitized string member; counts repairs into *fixed. */
static int
set_text(json_t *o, const char *key, const char *p, size_t n, size_t *fixed,
         cg_err *err)
{
	size_t len = 0;
	size_t k = 0;
	char *s = cg_utf8_sanitize(p, n, &len, &k);

	if (s == NULL)
		return cg_err_set(err, CG_ENOMEM, "read: out of memory");
	*fixed += k;
	json_object_set_new(o, key, json_stringn(s, len));
	free(s);
	return 0;
}

/* Frontmatter of text (the file or its head) into o. */
static int
put_frontmatter(json_t *o, const char *text, size_t len, size_t *body_off,
                int *body_line, size_t *fixed, cg_err *err)
{
	size_t yoff = 0;
	size_t ylen = 0;
	json_t *fm = NULL;
	cg_err ferr;
	enum cg_fm_status s = CG_FM_NONE;
	int rc = 0;

	*body_off = 0;
	*body_line = 1;
	cg_err_clear(&ferr);
	if (cg_fm_split(text, len, &yoff, &ylen, body_off, body_line) == 1) {
		s = cg_fm_parse(text + yoff, ylen, &fm, &ferr);
		if (fm == NULL)
			return cg_err_set(err, CG_ENOMEM,
			                  "read: out of memory");
		rc =
		    set_text(o, "frontmatter_raw", text, *body_off, fixed, err);
	}
	json_object_set_new(o, "frontmatter", fm ? fm : json_null());
	json_object_set_new(o, "frontmatter_status",
	                    json_string(fm_status_name(s)));
	if (s >= CG_FM_LENIENT && ferr.msg[0] != '\0')
		json_object_set_new(o, "frontmatter_error",
		                    json_string(ferr.msg));
	return rc;
}

/* Lines in text as page.c counts them: a last line without "\n" counts. */
static long long
count_lines(const char *p, size_t n)
{
	long long k = 0;

	for (size_t i = 0; i < n; i++)
		k += p[i] == '\n';
	return k + (n > 0 && p[n - 1] != '\n');
}

static int
feed_buf(void *ctx, const char *p, size_t n)
{
	return cg_buf_append(ctx, p, n) != 0 ? CG_ETOOBIG : 0;
}

/* Reads the whole file (at most CG_PAGE_MAX_BYTES). */
static int
read_whole(int fd, const char *rel, json_t *o, cg_err *err)
{
	struct stat st;
	cg_buf b;
	size_t body_off;
	int body_line;
	size_t fixed = 0;
	int rc;

	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > CG_PAGE_MAX_BYTES)
		return cg_err_set(err, CG_ETOOBIG,
		                  "'%.300s' is %lld bytes, over the %u MiB "
		                  "read limit; ask for a line range (read "
		                  "--lines A:B)",
		                  rel, (long long)st.st_size,
		                  CG_PAGE_MAX_BYTES >> 20);
	cg_buf_init(&b, CG_PAGE_MAX_BYTES);
	rc = read_all(fd, rel, feed_buf, &b, err);
	if (rc == CG_ETOOBIG)
		rc = cg_err_set(err, CG_ETOOBIG,
		                "'%.300s' grew over the %u MiB read "
		                "limit; ask for a line range",
		                rel, CG_PAGE_MAX_BYTES >> 20);
	if (rc == 0)
		rc = put_frontmatter(o, cg_buf_str(&b), b.len, &body_off,
		                     &body_line, &fixed, err);
	if (rc == 0)
		rc = set_text(o, "body", cg_buf_str(&b) + body_off,
		              b.len - body_off, &fixed, err);
	if (rc == 0) {
		json_object_set_new(o, "body_line", json_integer(body_line));
		json_object_set_new(o, "total_lines",
		                    json_integer(count_lines(b.data, b.len)));
		json_object_set_new(o, "size", json_integer((json_int_t)b.len));
		json_object_set_new(o, "utf8_fixed",
		                    json_integer((json_int_t)fixed));
	}
	cg_buf_fini(&b);
	return rc;
}

/* State of a streamed range read. */
struct range {
	long long first; /* first line wanted, 1-based */
	long long last;  /* last line wanted, 0 = to the end */
	long long line;  /* line the next byte belongs to */
	long long size;  /* bytes seen */
	cg_buf head;     /* the first HEAD_MAX bytes, for frontmatter */
	cg_buf text;     /* the lines of the range */
	bool over;       /* the range passed CG_PAGE_MAX_BYTES */
	char last_byte;  /* the last byte seen */
};

/* Takes n bytes of the file (a feed_fn: never stops the read). */
static int
range_feed(void *ctx, const char *p, size_t n)
{
	struct range *r = ctx;
	size_t room = HEAD_MAX - r->head.len;

	(void)cg_buf_append(&r->head, p, n < room ? n : room);
	r->size += (long long)n;
	if (n > 0)
		r->last_byte = p[n - 1];
	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t k = nl ? (size_t)(nl - p) + 1 : n;
		bool in =
		    r->line >= r->first && (r->last == 0 || r->line <= r->last);

		if (in && !r->over && cg_buf_append(&r->text, p, k) != 0)
			r->over = true;
		if (nl != NULL)
			r->line++;
		p += k;
		n -= k;
	}
	return 0;
}

static int
read_range(int fd, const char *rel, long long a, long long b, json_t *o,
           cg_err *err)
{
	struct range r = {a, b, 1, 0, {0}, {0}, false, 0};
	size_t body_off;
	int body_line;
	size_t fixed = 0;
	long long total;
	int rc;

	cg_buf_init(&r.head, HEAD_MAX);
	cg_buf_init(&r.text, CG_PAGE_MAX_BYTES);
	rc = read_all(fd, rel, range_feed, &r, err);
	if (rc == 0 && r.over)
		rc = cg_err_set(err, CG_ETOOBIG,
		                "lines %lld:%lld of '%.300s' are over the %u "
		                "MiB read limit; ask for fewer lines",
		                a, b, rel, CG_PAGE_MAX_BYTES >> 20);
	/* A last line without "\n" counts (as page.c counts them). */
	total = r.line - 1 + (r.size > 0 && r.last_byte != '\n');
	if (rc == 0)
		rc = put_frontmatter(o, cg_buf_str(&r.head), r.head.len,
		                     &body_off, &body_line, &fixed, err);
	if (rc == 0)
		rc = set_text(o, "text", cg_buf_str(&r.text), r.text.len,
		              &fixed, err);
	if (rc == 0)
		json_object_set_new(
		    o, "range",
		    json_pack("[I, I]", (json_int_t)a,
		              (json_int_t)(b == 0 || b > total ? total : b)));
	json_object_set_new(o, "total_lines", json_integer(total));
	if (rc == 0) {
		json_object_set_new(o, "size", json_integer(r.size));
		json_object_set_new(o, "utf8_fixed",
		                    json_integer((json_int_t)fixed));
	}
	cg_buf_fini(&r.head);
	cg_buf_fini(&r.text);
	return rc;
}

/* A page of a remote corpus's llms-txt source that is listed but not
 * cached (cache/llms_page.h): fetched within three quarters of what is
 * left of the request's deadline (the rest is for the answer), into *fd.
 * Anything else keeps the caller's error (ierr, a missing file). */
static int
open_on_demand(cg_node *n, cg_index *idx, const char *path, int *fd,
               json_t *res, cg_err *ierr)
{
	int64_t end = cg_node_deadline(n);
	char *root;
	cg_llms_page_info info;
	cg_err e;
	int rc;

	if (cg_index_kind(idx) != CG_SRC_CORPUS_REMOTE ||
	    cg_index_registrar(idx) == NULL)
		return ierr->code;
	if (end > 0)
		end -= (end - cg_mono_ms()) / 4;
	root = cg_corpus_cache_root(cg_index_registrar(idx));
	if (root == NULL)
		return cg_err_set(ierr, CG_ENOMEM, "out of memory");
	cg_err_clear(&e);
	rc = cg_llms_page_open(fd, root, cg_index_source(idx), path, end, &info,
	                       &e);
	free(root);
	if (!info.listed && rc != CG_ENOMEM)
		return ierr->code;
	if (info.listed)
		json_object_set_new(
		    res, "on_demand",
		    json_pack("{s:s, s:s}", "url", info.url, "how", info.how));
	if (info.note[0] != '\0')
		json_object_set_new(json_object_get(res, "on_demand"), "note",
		                    json_string(info.note));
	if (rc != 0) {
		cg_err_clear(ierr);
		return cg_err_set(ierr, rc, "%s", e.msg);
	}
	cg_err_clear(ierr);
	return 0;
}

int
cg_op_read(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	cg_index *idx;
	const char *path;
	size_t plen;
	long long a;
	long long b;
	int64_t id;
	cg_err ierr;
	int fd = -1;
	int rc;

	rc = cg_page_item(n, args, &idx, &path, &plen, err);
	if (rc == 0)
		rc = lines_args(args, &a, &b, err);
	if (rc != 0)
		return rc;
	json_object_set_new(res, "source", json_string(cg_index_source(idx)));
	json_object_set_new(res, "path", json_stringn(path, plen));
	cg_err_clear(&ierr);
	rc = cg_page_open(&fd, cg_index_repo(idx), cg_index_wiki(idx), path,
	                  plen, &ierr);
	if (rc == CG_ENOTFOUND && strlen(path) == plen)
		rc = open_on_demand(n, idx, path, &fd, res, &ierr);
	if (rc == 0)
		rc = a > 0 ? read_range(fd, path, a, b, res, &ierr)
		           : read_whole(fd, path, res, &ierr);
	if (fd >= 0)
		close(fd);
	if (rc == 0)
		rc = cg_page_facts(idx, path, res, &id, &ierr);
	return cg_page_item_fail(res, rc, &ierr, err);
}

/* --- peek --------------------------------------------------------------- */

/* One peek item of a source this node holds. */
static int
peek_one(cg_node *n, cg_index *idx, const char *path, size_t plen, json_t *page,
         cg_err *err)
{
	int64_t id = -1;
	int rc;

	rc = cg_page_visible(idx, path, err);
	if (rc == 0)
		rc = cg_page_lookup(idx, path, plen, page, &id, err);
	if (rc == 0) {
		json_t *links = json_array();

		json_object_set_new(page, "links", links);
		rc = cg_resolve_outgoing(n, idx, id, path, links, err);
	}
	return rc;
}

int
cg_op_peek(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	const json_t *items = json_object_get(args, "items");
	json_t *pages = json_array();
	size_t i;
	const json_t *it;
	int rc;

	json_object_set_new(res, "pages", pages);
	if (!json_is_array(items) || json_array_size(items) > CG_PEEK_MAX_ITEMS)
		return cg_err_set(err, CG_EINVAL,
		                  "peek: items must be an array of at most %d "
		                  "{source, path} (got %zu)",
		                  CG_PEEK_MAX_ITEMS, json_array_size(items));
	json_array_foreach(items, i, it) {
		const char *src =
		    json_string_value(json_object_get(it, "source"));
		const json_t *p = json_object_get(it, "path");
		cg_index *idx = cg_node_find(n, src);
		json_t *page;
		cg_err ierr;

		if (idx == NULL || !cg_node_in_scope(args, src))
			continue;
		if (!json_is_string(p))
			return cg_err_set(err, CG_EINVAL,
			                  "peek: item %zu has no path", i);
		page = json_pack("{s:I, s:s, s:s%}", "index", (json_int_t)i,
		                 "source", src, "path", json_string_value(p),
		                 json_string_length(p));
		json_array_append_new(pages, page);
		cg_err_clear(&ierr);
		rc = peek_one(n, idx, json_string_value(p),
		              json_string_length(p), page, &ierr);
		if (cg_page_item_fail(page, rc, &ierr, err) != 0)
			return CG_ENOMEM;
	}
	return 0;
}
