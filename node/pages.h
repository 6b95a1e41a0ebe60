/*
 * pages.h - finding and opening one page of a node's source: the one
 * function that decides whether a page path may be opened, the item
 * {source, path} the page operations take, and the page's indexed facts.
 * The page operations (ops_page.c, ops_links.c) and the link rules
 * (resolve.c) build on it.
 *
 * The node knows neither the workspace name nor the other nodes: every
 * item carries "source" and "path" (relative to the repository root) and
 * the federation (federation/fed_page.c) adds uris, merges nodes and
 * resolves links that name a source this node does not hold.
 *
 * Decisions a caller must know:
 * - Reading (cg_page_open) is allowed only for a regular file inside the
 *   source's wiki folder.  Refused with CG_EDENIED: an absolute path, a
 *   backslash, an embedded NUL, an empty, "." or ".." component, a path
 *   outside the wiki folder, and a symlink anywhere below the wiki folder
 *   (every component is opened with O_NOFOLLOW through openat, by
 *   common/cg_fs.h's cg_open_beneath, so a symlinked file or folder is
 *   never followed, even to a target inside the wiki).  A missing file is
 *   CG_ENOTFOUND.  All refusals come from this one function so that
 *   access control can later make "forbidden" and "not found" look alike.
 * - A page the caller's access policy hides is "no such page", in the
 *   same words as a missing one (cg_page_item).
 * - Per-item failures (a refused or missing page) are returned inside the
 *   result as {"source", "path", "error": {"code", "message"}}, not as an
 *   error reply, so that they survive a batch (peek) and the federation
 *   keeps the code (an error reply's code is lost in cg_fed_call).  Only
 *   running out of memory fails the whole request (cg_page_item_fail).
 *
 * May be included by node/ and by the tests and fuzz targets of cg_page_open
 * (fuzz/fuzz_page_path.c); the layers above read pages through the node
 * protocol.
 */
#ifndef CG_PAGES_H
#define CG_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "index/index.h"
#include "node/node.h"

/* Longest page path accepted, in bytes. */
#define CG_PAGE_PATH_MAX 4096

/*
 * Opens rel (relative to repo, len bytes: a NUL inside is refused) for
 * reading, read-only, into *fd.  wiki is the source's wiki folder
 * (absolute, inside repo, or repo itself for a corpus).  See the decisions
 * above.  CG_EDENIED for a refusal (message "refused: ..."), CG_ENOTFOUND,
 * CG_EINVAL for a folder or special file, CG_EIO.
 */
int cg_page_open(int *fd, const char *repo, const char *wiki, const char *rel,
                 size_t len, cg_err *err);

/* The index of item.source (a source this node serves) and item.path
 * (borrowed, with its length: a NUL inside is refused by cg_page_open).
 * CG_EINVAL when either is missing or the source is not served here;
 * CG_ENOTFOUND when the caller may not see the page. */
int cg_page_item(cg_node *n, const json_t *item, cg_index **idx,
                 const char **path, size_t *plen, cg_err *err);

/* 0 when the caller's access policy shows path of idx; else CG_ENOTFOUND
 * "no such page", the words of a missing page. */
int cg_page_visible(cg_index *idx, const char *path, cg_err *err);

/* Records the failure rc (with its message in ierr) of one item: out of
 * memory fails the request (returned, with err set); anything else
 * becomes item.error {code, message} and 0 is returned.  rc 0 does
 * nothing. */
int cg_page_item_fail(json_t *item, int rc, const cg_err *ierr, cg_err *err);

/* Adds the indexed facts of path (title, category, owner, confidence,
 * dates, tags, aliases, headings, first_line, nlines, frontmatter_error,
 * indexed) to page; *id gets the page's row id, or -1 when the page is
 * not indexed (or the index does not exist yet). */
int cg_page_facts(cg_index *idx, const char *path, json_t *page, int64_t *id,
                  cg_err *err);

/* Checks path with cg_page_open, then adds its facts (cg_page_facts) to
 * page.  CG_EUNAVAIL before the first index, CG_ENOTFOUND when the file
 * exists but is not an indexed page. */
int cg_page_lookup(cg_index *idx, const char *path, size_t plen, json_t *page,
                   int64_t *id, cg_err *err);

#endif
