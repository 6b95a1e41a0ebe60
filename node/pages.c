/*
 * pages.c - one page of a node's source (see pages.h): cg_page_open(), the
 * only place that decides whether a page path may be opened, the item
 * arguments of the page operations and the page's indexed facts.
 *
 * What it must not do: follow a symlink, accept a path that leaves the
 * source's wiki folder, or tell a hidden page from a missing one.
 */
#define _GNU_SOURCE
#include "node/pages.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/cg_fs.h"
#include "page/frontmatter.h"
#include "proto/acl.h"

/* --- the path rule ---------------------------------------------------- */

static int
refuse(cg_err *err, const char *rel, const char *why)
{
	return cg_err_set(err, CG_EDENIED, "refused: %s ('%.300s')", why, rel);
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
		                  cg_strerror(e).s);
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

/* --- items ------------------------------------------------------------ */

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
	return cg_page_visible(*idx, *path, err);
}

int
cg_page_visible(cg_index *idx, const char *path, cg_err *err)
{
	/* A page the caller may not see is missing, in the same words. */
	if (!cg_acl_allows(cg_index_acl(idx), cg_index_source(idx), path))
		return cg_err_set(err, CG_ENOTFOUND, "no such page '%.300s'",
		                  path);
	return 0;
}

int
cg_page_item_fail(json_t *item, int rc, const cg_err *ierr, cg_err *err)
{
	if (rc == 0)
		return 0;
	if (rc == CG_ENOMEM || ierr->code == CG_ENOMEM)
		return cg_err_set(err, CG_ENOMEM, "%s", ierr->msg);
	json_object_set_new(
	    item, "error",
	    json_pack("{s:s, s:s}", "code", cg_code_name(ierr->code), "message",
	              ierr->msg[0] ? ierr->msg : cg_code_name(ierr->code)));
	return 0;
}

/* --- index facts ------------------------------------------------------ */

static const char *const facts_sql =
    "SELECT id, title, category, owner, confidence, updated_at, created_at,"
    " expires_at, tags, aliases, headings, first_line, nlines, fm_status,"
    " fm_error FROM pages WHERE path = ?1";

int
cg_page_facts(cg_index *idx, const char *path, json_t *page, int64_t *id,
              cg_err *err)
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
		json_object_set_new(page, "title", cg_index_col_text(st, 1));
		json_object_set_new(page, "category", cg_index_col_text(st, 2));
		json_object_set_new(page, "owner", cg_index_col_text(st, 3));
		json_object_set_new(page, "confidence",
		                    cg_index_col_text(st, 4));
		json_object_set_new(page, "updated_at",
		                    cg_index_col_text(st, 5));
		json_object_set_new(page, "created_at",
		                    cg_index_col_text(st, 6));
		json_object_set_new(page, "expires_at",
		                    cg_index_col_text(st, 7));
		json_object_set_new(page, "tags", cg_index_col_json(st, 8));
		json_object_set_new(page, "aliases", cg_index_col_json(st, 9));
		json_object_set_new(page, "headings",
		                    cg_index_col_json(st, 10));
		json_object_set_new(page, "first_line",
		                    cg_index_col_text(st, 11));
		json_object_set_new(page, "nlines",
		                    json_integer(sqlite3_column_int(st, 12)));
		if (sqlite3_column_int(st, 13) >= CG_FM_LENIENT)
			json_object_set_new(page, "frontmatter_error",
			                    cg_index_col_text(st, 14));
		rc = SQLITE_DONE;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return cg_index_query_fail(idx, rc, "page facts", err);
	json_object_set_new(page, "indexed", json_boolean(*id >= 0));
	return 0;
}

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
		rc = cg_page_facts(idx, path, page, id, err);
	if (rc == 0 && *id < 0)
		rc = cg_err_set(err, CG_ENOTFOUND,
		                "'%.300s' is not an indexed page (wiki "
		                "bookkeeping, or not indexed yet)",
		                path);
	return rc;
}
