/*
 * tools_page.c - the node side of `read` and `peek`, and cg_page_open(),
 * the only place that decides whether a page path may be opened.
 *
 * What it must not do: follow a symlink, accept a path that leaves the
 * source's wiki folder, read more than its cap into memory, or return
 * text that is not valid UTF-8.  Refusals are per item (see tools_page.h)
 * and all come from cg_page_open().
 */
#define _GNU_SOURCE
#include "node/tools_page.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cg_buf.h"
#include "common/cg_fs.h"
#include "common/cg_utf8.h"
#include "page/frontmatter.h"
#include "proto/acl.h"

/* Bytes of a file's head kept for its frontmatter during a range read. */
#define HEAD_MAX ((size_t)CG_FM_MAX_BYTES + 8192)
#define CHUNK    65536

/* --- the path rule ---------------------------------------------------- */

static int
refuse(cg_err *err, const char *rel, const char *why)
{
	return cg_err_set(err, CG_EDENIED, "refused: %s ('%.300s')", why, rel);
}

const char *
cg_page_wiki_rel(const cg_index *idx)
{
	const char *repo = cg_index_repo(idx);
	const char *wiki = cg_index_wiki(idx);
	size_t n = strlen(repo);

	while (n > 1 && repo[n - 1] == '/')
		n--;
	if (strncmp(wiki, repo, n) != 0 || wiki[n] != '/' || wiki[n + 1] == 0)
		return NULL;
	return wiki + n + 1;
}

/* Checks the text of rel alone: no NUL, not absolute, no backslash, no
 * empty, "." or ".." component. */
static int
check_lexical(const char *rel, size_t len, cg_err *err)
{
	const char *p = rel;

	if (len != strlen(rel))
		return refuse(err, rel, "the path contains a NUL byte");
	if (len == 0)
		return refuse(err, rel, "empty path");
	if (len > CG_PAGE_PATH_MAX)
		return refuse(err, "(too long)", "path over 4096 bytes");
	if (rel[0] == '/')
		return refuse(err, rel,
		              "absolute path (page paths are relative to the "
		              "source's repository root)");
	if (strchr(rel, '\\') != NULL)
		return refuse(err, rel, "backslash in the path");
	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if (n == 0)
			return refuse(err, rel, "empty path component");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return refuse(err, rel,
			              "path escapes the source root ('..' "
			              "component)");
		if (n == 1 && p[0] == '.')
			return refuse(err, rel, "'.' path component");
		p += n;
		if (*p == '/' && p[1] == '\0')
			return refuse(err, rel, "empty path component");
		if (*p == '/')
			p++;
	}
	return 0;
}

/* Opens the regular file sub below the folder root through
 * cg_open_beneath, wording its failures as page errors (rel is the path
 * as the caller named it). */
static int
open_below(int *fd, const char *root, const char *sub, const char *rel,
           cg_err *err)
{
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;
	int e;

	if (dfd < 0)
		return cg_err_set(err, CG_ENOTFOUND,
		                  "the source's folder is missing (a corpus "
		                  "not fetched yet, or a wiki removed)");
	rc = cg_open_beneath(fd, dfd, sub, strlen(sub), NULL);
	e = errno;
	close(dfd);
	switch (rc) {
	case 0:
		return 0;
	case CG_EDENIED:
		return refuse(err, rel,
		              "a symlink on the path is not followed");
	case CG_ENOTFOUND:
		return cg_err_set(err, CG_ENOTFOUND, "no such page '%.300s'",
		                  rel);
	case CG_ETOOBIG:
		return cg_err_set(err, CG_EINVAL,
		                  "path component too long '%.300s'", rel);
	case CG_EINVAL: /* the lexical check leaves only this cause */
		return cg_err_set(err, CG_EINVAL,
		                  "'%.300s' is not a regular file", rel);
	default:
		return cg_err_set(err, CG_EIO, "'%.300s': %s", rel,
		                  strerror(e));
	}
}

int
cg_page_open(int *fd, const char *repo, const char *wiki, const char *rel,
             size_t len, cg_err *err)
{
	size_t rn = strlen(repo);
	size_t wn;
	const char *wrel;
	int rc;

	*fd = -1;
	rc = check_lexical(rel, len, err);
	if (rc != 0)
		return rc;
	while (rn > 1 && repo[rn - 1] == '/')
		rn--;
	/* A corpus: its folder is both the repository and the root. */
	if (strncmp(wiki, repo, rn) == 0 && wiki[rn] == '\0')
		return open_below(fd, repo, rel, rel, err);
	if (strncmp(wiki, repo, rn) != 0 || wiki[rn] != '/')
		return refuse(err, rel,
		              "the source's wiki is not inside "
		              "its repository");
	wrel = wiki + rn + 1;
	wn = strlen(wrel);
	while (wn > 0 && wrel[wn - 1] == '/')
		wn--;
	if (wn == 0 || strncmp(rel, wrel, wn) != 0 || rel[wn] != '/')
		return refuse(err, rel,
		              "path escapes the source root (pages live "
		              "under the source's wiki folder)");
	return open_below(fd, wiki, rel + wn + 1, rel, err);
}

void
cg_item_error(json_t *item, const cg_err *err)
{
	json_object_set_new(
	    item, "error",
	    json_pack("{s:s, s:s}", "code", cg_code_name(err->code), "message",
	              err->msg[0] ? err->msg : cg_code_name(err->code)));
}

/* --- arguments ---------------------------------------------------------- */

int
cg_page_item(cg_node *n, const json_t *item, cg_index **idx, const char **path,
             size_t *plen, cg_err *err)
{
	const json_t *s = json_object_get(item, "source");
	const json_t *p = json_object_get(item, "path");

	if (!json_is_string(s) || !json_is_string(p))
		return cg_err_set(err, CG_EINVAL,
		                  "source and path must be strings");
	*idx = cg_node_find(n, json_string_value(s));
	if (*idx == NULL)
		return cg_err_set(err, CG_EINVAL,
		                  "source '%.200s' is not served by node %s",
		                  json_string_value(s), cg_node_name(n));
	*path = json_string_value(p);
	*plen = json_string_length(p);
	/* A page the caller may not see is missing, in the same words. */
	if (!cg_acl_allows(cg_index_acl(*idx), json_string_value(s), *path))
		return cg_err_set(err, CG_ENOTFOUND, "no such page '%.300s'",
		                  *path);
	return 0;
}

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

/* --- index facts ------------------------------------------------------ */

static const char *const facts_sql =
    "SELECT id, title, category, owner, confidence, updated_at, created_at,"
    " expires_at, tags, aliases, headings, first_line, nlines, fm_status,"
    " fm_error FROM pages WHERE path = ?1";

/* Adds the indexed facts of path to o; *id gets the page id, or -1 when
 * the page is not indexed (the index may not exist yet). */
static int
page_facts(cg_index *idx, const char *path, json_t *o, int64_t *id, cg_err *err)
{
	sqlite3 *db = cg_index_db(idx);
	sqlite3_stmt *st = NULL;
	int rc;

	*id = -1;
	if (db == NULL)
		return 0;
	rc = sqlite3_prepare_v2(db, facts_sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		json_object_set_new(o, "title", cg_index_col_text(st, 1));
		json_object_set_new(o, "category", cg_index_col_text(st, 2));
		json_object_set_new(o, "owner", cg_index_col_text(st, 3));
		json_object_set_new(o, "confidence", cg_index_col_text(st, 4));
		json_object_set_new(o, "updated_at", cg_index_col_text(st, 5));
		json_object_set_new(o, "created_at", cg_index_col_text(st, 6));
		json_object_set_new(o, "expires_at", cg_index_col_text(st, 7));
		json_object_set_new(o, "tags", cg_index_col_json(st, 8));
		json_object_set_new(o, "aliases", cg_index_col_json(st, 9));
		json_object_set_new(o, "headings", cg_index_col_json(st, 10));
		json_object_set_new(o, "first_line", cg_index_col_text(st, 11));
		json_object_set_new(o, "nlines",
		                    json_integer(sqlite3_column_int(st, 12)));
		if (sqlite3_column_int(st, 13) >= CG_FM_LENIENT)
			json_object_set_new(o, "frontmatter_error",
			                    cg_index_col_text(st, 14));
		rc = SQLITE_DONE;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cg_index_query_fail(idx, rc, "page facts", err);
	json_object_set_new(o, "indexed", json_boolean(*id >= 0));
	return 0;
}

/* --- read --------------------------------------------------------------- */

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

/* Reads the whole file (at most CG_PAGE_MAX_BYTES). */
static int
read_whole(int fd, const char *rel, json_t *o, cg_err *err)
{
	struct stat st;
	cg_buf b;
	char chunk[CHUNK];
	size_t body_off;
	int body_line;
	size_t fixed = 0;
	int rc = 0;

	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > CG_PAGE_MAX_BYTES)
		return cg_err_set(err, CG_ETOOBIG,
		                  "'%.300s' is %lld bytes, over the %u MiB "
		                  "read limit; ask for a line range (read "
		                  "--lines A:B)",
		                  rel, (long long)st.st_size,
		                  CG_PAGE_MAX_BYTES >> 20);
	cg_buf_init(&b, CG_PAGE_MAX_BYTES);
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				rc = cg_err_set(err, CG_EIO, "'%.300s': %s",
				                rel, strerror(errno));
			break;
		}
		if (cg_buf_append(&b, chunk, (size_t)n) != 0) {
			rc = cg_err_set(err, CG_ETOOBIG,
			                "'%.300s' grew over the %u MiB read "
			                "limit; ask for a line range",
			                rel, CG_PAGE_MAX_BYTES >> 20);
			break;
		}
	}
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

/* Takes n bytes of the file. */
static void
range_feed(struct range *r, const char *p, size_t n)
{
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
}

static int
read_range(int fd, const char *rel, long long a, long long b, json_t *o,
           cg_err *err)
{
	struct range r = {a, b, 1, 0, {0}, {0}, false, 0};
	char chunk[CHUNK];
	size_t body_off;
	int body_line;
	size_t fixed = 0;
	long long total;
	int rc = 0;

	cg_buf_init(&r.head, HEAD_MAX);
	cg_buf_init(&r.text, CG_PAGE_MAX_BYTES);
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				rc = cg_err_set(err, CG_EIO, "'%.300s': %s",
				                rel, strerror(errno));
			break;
		}
		range_feed(&r, chunk, (size_t)n);
	}
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

int
cg_tool_read(cg_node *n, const json_t *args, json_t *res, cg_err *err)
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
	if (rc == 0)
		rc = a > 0 ? read_range(fd, path, a, b, res, &ierr)
		           : read_whole(fd, path, res, &ierr);
	if (fd >= 0)
		close(fd);
	if (rc == 0)
		rc = page_facts(idx, path, res, &id, &ierr);
	if (rc == CG_ENOMEM)
		return cg_err_set(err, CG_ENOMEM, "%s", ierr.msg);
	if (rc != 0)
		cg_item_error(res, &ierr);
	return 0;
}

/* --- peek --------------------------------------------------------------- */

int
cg_page_lookup(cg_index *idx, const char *path, size_t plen, json_t *page,
               int64_t *id, cg_err *err)
{
	int fd = -1;
	int rc;

	*id = -1;
	rc = cg_page_open(&fd, cg_index_repo(idx), cg_index_wiki(idx), path,
	                  plen, err);
	if (fd >= 0)
		close(fd);
	if (rc == 0)
		rc = cg_node_ready(idx, err);
	if (rc == 0)
		rc = page_facts(idx, path, page, id, err);
	if (rc == 0 && *id < 0)
		rc = cg_err_set(err, CG_ENOTFOUND,
		                "'%.300s' is not an indexed page (wiki "
		                "bookkeeping, or not indexed yet)",
		                path);
	return rc;
}

/* One peek item of a source this node holds. */
static int
peek_one(cg_node *n, cg_index *idx, const char *path, size_t plen, json_t *page,
         cg_err *err)
{
	int64_t id = -1;
	int rc;

	/* A page the caller may not see is missing, in the same words. */
	if (!cg_acl_allows(cg_index_acl(idx), cg_index_source(idx), path))
		return cg_err_set(err, CG_ENOTFOUND, "no such page '%.300s'",
		                  path);
	rc = cg_page_lookup(idx, path, plen, page, &id, err);
	if (rc == 0) {
		json_t *links = json_array();

		json_object_set_new(page, "links", links);
		rc = cg_links_outgoing(n, idx, id, path, links, err);
	}
	return rc;
}

int
cg_tool_peek(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	const json_t *items = json_object_get(args, "items");
	json_t *pages = json_array();
	size_t i;
	const json_t *it;

	json_object_set_new(res, "pages", pages);
	if (!json_is_array(items))
		return cg_err_set(err, CG_EINVAL,
		                  "peek: items must be an array of {source, "
		                  "path}");
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
		if (peek_one(n, idx, json_string_value(p),
		             json_string_length(p), page, &ierr) != 0) {
			if (ierr.code == CG_ENOMEM)
				return cg_err_set(err, CG_ENOMEM, "%s",
				                  ierr.msg);
			cg_item_error(page, &ierr);
		}
	}
	return 0;
}
