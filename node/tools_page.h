/*
 * tools_page.h - the page tools of a node: read, peek, links, backlinks
 * and resolve (the node operations of the same names), and the one
 * function that decides whether a page path may be opened.
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
 *   (every component is opened with O_NOFOLLOW through openat, so a
 *   symlinked file or folder is never followed, even to a target inside
 *   the wiki).  A missing file is CG_ENOTFOUND.  All refusals come from
 *   this one function so that access control can later make "forbidden"
 *   and "not found" look alike.
 * - Per-item failures (a refused or missing page) are returned inside the
 *   result as {"source", "path", "error": {"code", "message"}}, not as an
 *   error reply, so that they survive a batch (peek) and the federation
 *   keeps the code (an error reply's code is lost in cg_fed_call).
 *   Malformed arguments are error replies (invalid_input).
 * - read: at most CG_PAGE_MAX_BYTES without a line range (CG_ETOOBIG
 *   suggests one); a line range streams the file and keeps only the range
 *   (itself capped at CG_PAGE_MAX_BYTES).  Lines are file lines, 1-based,
 *   frontmatter counted (as search hits' line_range).  Invalid UTF-8 is
 *   replaced with U+FFFD, NUL bytes dropped (counted in utf8_fixed).
 * - Wikilink resolution, in the linking page's source T: (1) a target
 *   with "/" as a path below the wiki ("decisions/x" matches
 *   .../decisions/x.md), (2) slug, (3) title, (4) alias; all ASCII
 *   case-insensitive, a trailing ".md" ignored for slugs; ties go to the
 *   page in the linking page's folder, then the shallowest path, then
 *   the path order.  (5) When nothing in T matched and the target is
 *   "a/rest" where a names a source, rest is resolved in source a by
 *   (1)-(4) (no folder preference).  A bare name never leaves its source.
 *   When a is not a source of this node the link is returned with
 *   "remote": {"source", "name"} for the federation to resolve.
 * - Markdown links: the destination is percent-decoded and normalised
 *   against the linking page's folder; it resolves when that path (or it
 *   plus ".md") is a page of the same source.  A destination leaving the
 *   repository or naming a file that is not a page is unresolved.
 * - backlinks: every link of the node's sources (in scope) that resolves
 *   to the target page by the rules above; for a page of another node's
 *   source only the "source/name" form can, and it counts when name is
 *   one of the target's "names" (the names that resolve to it in its own
 *   source, computed by the links operation).
 */
#ifndef CG_TOOLS_PAGE_H
#define CG_TOOLS_PAGE_H

#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "index/index.h"
#include "node/node.h"

/* Longest page path accepted, in bytes. */
#define CG_PAGE_PATH_MAX 4096

/*
 * Opens rel (relative to repo, len bytes: a NUL inside is refused) for
 * reading, read-only, into *fd.  wiki is the source's wiki folder
 * (absolute, inside repo).  See the decisions above.  CG_EDENIED for a
 * refusal (message "refused: ..."), CG_ENOTFOUND, CG_EINVAL for a folder
 * or special file, CG_EIO.
 */
int cg_page_open(int *fd, const char *repo, const char *wiki, const char *rel,
                 size_t len, cg_err *err);

/* The wiki folder relative to the repository root (".guild/wiki"),
 * borrowed from the index; NULL when the wiki is not inside the repo. */
const char *cg_page_wiki_rel(const cg_index *idx);

/*
 * Node operations (entries of ops[] in node.c):
 *   read      {source, path, lines?: [A, B]}  B = 0: to the end
 *   peek      {items: [{source, path}]}       -> {pages: [{index, ...}]}
 *   links     {source, path}   -> {page, outgoing[], target}
 *   backlinks {target: {source, path, slug, title, aliases, names}}
 *             -> {backlinks[]}
 *   resolve   {names: [{name, source?}]}  -> {results: [{matches[]}]}
 * Result shapes are in ARCHITECTURE.md ("Page tools").
 */
int cg_tool_read(cg_node *n, const json_t *args, json_t *res, cg_err *err);
int cg_tool_peek(cg_node *n, const json_t *args, json_t *res, cg_err *err);
int cg_tool_links(cg_node *n, const json_t *args, json_t *res, cg_err *err);
int cg_tool_backlinks(cg_node *n, const json_t *args, json_t *res, cg_err *err);
int cg_tool_resolve(cg_node *n, const json_t *args, json_t *res, cg_err *err);

/* --- shared by tools_page.c and tools_links.c ----------------------- */

/* Appends the outgoing links of page_id (in idx) to out, each resolved
 * (see above). */
int cg_links_outgoing(cg_node *n, cg_index *idx, int64_t page_id,
                      const char *page_path, json_t *out, cg_err *err);

/* Sets an item's error: {"code", "message"} from err. */
void cg_item_error(json_t *item, const cg_err *err);

/* The index of item.source (a source this node serves) and item.path
 * (borrowed, with its length: a NUL inside is refused by cg_page_open).
 * CG_EINVAL when either is missing or the source is not served here. */
int cg_page_item(cg_node *n, const json_t *item, cg_index **idx,
                 const char **path, size_t *plen, cg_err *err);

/* Checks path with cg_page_open, then adds the page's indexed facts
 * (title, category, owner, confidence, dates, tags, aliases, headings,
 * first_line, nlines, indexed) to page and its row id to *id.
 * CG_ENOTFOUND when the file exists but is not an indexed page. */
int cg_page_lookup(cg_index *idx, const char *path, size_t plen, json_t *page,
                   int64_t *id, cg_err *err);

#endif
