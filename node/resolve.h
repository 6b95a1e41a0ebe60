/*
 * resolve.h - link resolution on a node: which page a wikilink or a
 * Markdown link of a page designates, the outgoing links of a page, and
 * the names under which a page can be linked to.  This is the one
 * implementation of the rules below, so a link that `links` resolves is
 * the link `backlinks` counts and the name `resolve` finds (ops_links.c,
 * ops_page.c's peek).
 *
 * The rules:
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
 * - A name never finds a page hidden from the caller (its access
 *   policy), so a wikilink to one is unresolved.
 * - backlinks: every link of the node's sources (in scope) that resolves
 *   to the target page by the rules above; for a page of another node's
 *   source only the "source/name" form can, and it counts when name is
 *   one of the target's "names" (cg_resolve_target).
 *
 * Everything comes from the index (the pages and links tables); no page
 * file is read.
 *
 * May be included by node/ only; the layers above resolve through the
 * node protocol.
 */
#ifndef CG_RESOLVE_H
#define CG_RESOLVE_H

#include <stdint.h>

#include <jansson.h>
#include <sqlite3.h>

#include "common/cg_err.h"
#include "index/index.h"
#include "node/node.h"

/* The key a name is compared by: ASCII-lowercased (as SQLite's lower()),
 * a trailing ".md" (any case) dropped; malloc'd, NULL when out of
 * memory. */
char *cg_resolve_key(const char *name);

/* Appends to out the pages of idx that name designates by rules (1)-(4),
 * best first, at most limit: {source, path, title, category, match,
 * rank}.  from_dir ("a/b/" or NULL) is the linking page's folder. */
int cg_resolve_find(cg_index *idx, const char *name, const char *from_dir,
                    int limit, json_t *out, cg_err *err);

/* A new link object {kind, target, anchor, text, line, resolved, ...}
 * from the links row at column c of st (kind, target, anchor, text,
 * line), resolved from the page from of source t; NULL with err set on
 * failure. */
json_t *cg_resolve_link(cg_node *n, cg_index *t, sqlite3_stmt *st, int c,
                        const char *from, cg_err *err);

/* Appends the outgoing links of page_id (at page_path in idx) to out,
 * each resolved. */
int cg_resolve_outgoing(cg_node *n, cg_index *idx, int64_t page_id,
                        const char *page_path, json_t *out, cg_err *err);

/* The target description backlinks need, as a new object in *out:
 * {source, path, slug, title, aliases, names}, names being every key
 * (cg_resolve_key) that resolves to this page in its source: its slug,
 * title, aliases, and the suffixes of its path below the wiki.  page holds
 * the page's facts (cg_page_lookup). */
int cg_resolve_target(cg_index *idx, const char *path, const json_t *page,
                      json_t **out, cg_err *err);

#endif
