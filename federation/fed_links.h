/*
 * fed_links.h - the links tool over every node of a workspace: a page's
 * outgoing links (resolved or not) and its backlinks from every source,
 * and the settlement of the links that cross nodes, which peek
 * (fed_page.h) uses too.
 *
 * Links of the form "a/name" that the linking page's node could not
 * resolve locally are resolved here: in source a when the workspace has
 * one (best match by path, slug, title, alias), else unresolved.
 * Unresolved outgoing links become followups of kind "unresolved_link"
 * (at most 50, then a count).  The answer carries "evidence" and
 * "followups" like the other page tools, and "counts" computed last from
 * its arrays.
 *
 * May be included by federation/ and the layers above it (gateway, cli);
 * within federation/ by fed_page.c, never by page_tools.c (which both
 * use).
 */
#ifndef CG_FED_LINKS_H
#define CG_FED_LINKS_H

#include <jansson.h>

#include "common/cg_err.h"
#include "federation/fed.h"

/* links: outgoing links (resolved or not) and backlinks from every source
 * of the workspace.  A missing page is CG_ENOTFOUND, one outside the
 * source's wiki CG_EDENIED. */
int cg_fed_links(cg_fed *fed, const char *uri, json_t **out, cg_err *err);

/* The same with JSON arguments {uri}; a missing or mistyped uri is
 * CG_EINVAL. */
int cg_fed_links_json(cg_fed *fed, const json_t *args, json_t **out,
                      cg_err *err);

/* Tags the resolved links of every array in lists (NULL-ended; wss[l] is
 * the workspace of list l's page) and resolves their "remote" links in
 * one resolve round over every node; *call gets that round's answer for
 * the caller's receipt (new reference; NULL when no link needed it). */
int cg_fed_links_settle(cg_fed *fed, json_t *const *lists,
                        const char *const *wss, json_t **call, cg_err *err);

/* Appends to fu a followup per unresolved link of links (the page uri's),
 * at most 50, then one saying more were not listed. */
void cg_fed_links_followups(const json_t *links, const char *uri, json_t *fu);

#endif
