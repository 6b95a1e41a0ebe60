/*
 * fed_page.h - the federation side of the page tools: read, peek and
 * resolve over every node of a workspace, one JSON answer per tool (the
 * links tool is fed_links.h).
 *
 * Every answer carries "evidence" ({sources_asked, sources_answered,
 * nodes: [{node, sources, outcome}], degraded}) and "followups"
 * ({kind, uri, message}); every page item carries uri, source and path so
 * that an access filter can drop it, and counts are computed last, from
 * the arrays.
 *
 * Decisions a caller must know:
 * - A uri is "cg://<workspace>/<source>/<path>" or "<source>/<path>"; a
 *   uri naming another workspace is CG_EINVAL; an unknown source is
 *   CG_EINVAL listing the valid ones.  The node refuses paths outside the
 *   source's wiki (CG_EDENIED) and missing pages (CG_ENOTFOUND): read and
 *   links return that code; peek reports it per page and returns the
 *   first such code after building the whole answer (*out is set).
 * - Links of the form "a/name" that the linking page's node could not
 *   resolve locally are settled by fed_links.h, for peek as for links.
 * - resolve accepts "[[target#heading|text]]", "target#heading", a slug,
 *   title, alias, a path (below the wiki or from the repository root, with
 *   or without ".md"), "source/name" and a uri.  Matches are ordered:
 *   names qualified by a source first, then path, slug, title, alias, then
 *   shallower paths, then uri.
 * - Unresolved outgoing links become followups of kind "unresolved_link"
 *   (at most 50, then a count).
 *
 * May be included by federation/ and the layers above it (gateway, cli);
 * within federation/ never by fed_links.c or page_tools.c, which
 * fed_page.c uses.
 */
#ifndef CG_FED_PAGE_H
#define CG_FED_PAGE_H

#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "federation/fed.h"

/* Parses "A:B", "A:", ":B" or "A" (1-based, inclusive) into *a, *b
 * (*b = 0: to the end).  CG_EINVAL with the accepted forms. */
int cg_lines_parse(const char *s, long long *a, long long *b, cg_err *err);

/* read: the page (frontmatter and body, or the line range lines, may be
 * NULL) with its indexed facts. */
int cg_fed_read(cg_fed *fed, const char *uri, const char *lines, json_t **out,
                cg_err *err);

/* peek: title, tags, outline, outgoing links and first line of each uri,
 * in order ("pages"). */
int cg_fed_peek(cg_fed *fed, const char *const *uris, size_t n, json_t **out,
                cg_err *err);

/* resolve: the pages a name designates, best first ("matches"). */
int cg_fed_resolve(cg_fed *fed, const char *name, json_t **out, cg_err *err);

/*
 * The same tools with JSON arguments, for a table of tools (HTTP API,
 * MCP): read {uri, lines?}, peek {uris: [..] | uri}, resolve {name}.  A missing
 * or mistyped argument is CG_EINVAL.  peek returns 0 whenever it built an
 * answer: a page that failed is reported in it ("error"), not as the call's
 * error.
 */
int cg_fed_read_json(cg_fed *fed, const json_t *args, json_t **out,
                     cg_err *err);
int cg_fed_peek_json(cg_fed *fed, const json_t *args, json_t **out,
                     cg_err *err);
int cg_fed_resolve_json(cg_fed *fed, const json_t *args, json_t **out,
                        cg_err *err);

#endif
