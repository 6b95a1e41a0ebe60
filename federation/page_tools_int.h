/*
 * page_tools_int.h - what the page tools share: fed_page.c (read, peek,
 * resolve) and fed_links.c (links, backlinks, the links that cross
 * nodes).  page_tools.c implements it: the receipt of their rounds
 * (evidence), tagging a page item with its uri, the call about one page,
 * the counts of an answer, the order of name matches, string arguments.
 *
 * Private to federation/: only fed_page.c, fed_links.c and page_tools.c
 * include it; nothing else may.  It must not call a tool (fed_page.h,
 * fed_links.h): the tools call it.
 */
#ifndef CG_PAGE_TOOLS_INT_H
#define CG_PAGE_TOOLS_INT_H

#include <stdbool.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "federation/fed.h"
#include "federation/uri.h"

/* What the rounds of one tool asked and heard, for the receipt. */
struct cg_pt_ev {
	json_t *nodes;    /* node name -> {sources: {}, outcome} */
	json_t *asked;    /* "ws/source" -> true */
	json_t *answered; /* "ws/source" -> true */
};

void cg_pt_ev_init(struct cg_pt_ev *e);
void cg_pt_ev_fini(struct cg_pt_ev *e);
/* Adds the outcome of one cg_fed_call answer (NULL adds nothing). */
void cg_pt_ev_add(struct cg_pt_ev *e, const json_t *call);
/* {sources_asked, sources_answered, nodes: [{node, sources, outcome}],
 * degraded}: a new object. */
json_t *cg_pt_ev_json(const struct cg_pt_ev *e);

/* Sets err from an item's {"error": {code, message}} and returns its
 * code; 0 when the item has no error. */
int cg_pt_item_failed(const json_t *item, cg_err *err);

/* Sets o.workspace and o.uri from ws, o.source and o.path (nothing when
 * source or path is not a string). */
void cg_pt_tag(const char *ws, json_t *o);

/* Parses a page uri into u; *scope gets the scope name that selects its
 * node (malloc'd): "workspace/source" when the uri names a workspace,
 * else "source".  An unknown one is reported by cg_fed_call. */
int cg_pt_page_uri(const char *uri, cg_uri *u, char **scope, cg_err *err);

/* Sends op {source, path} (plus the members of extra, may be NULL) to the
 * node of uri; *call gets the answer (new reference) and *ent the node's
 * entry in it (borrowed).  A page the node refused or did not find is
 * its code (not found, denied, too big); a node that did not answer is
 * CG_EUNAVAIL. */
int cg_pt_page_call(cg_fed *f, const char *op, const char *uri, json_t *extra,
                    json_t **call, const json_t **ent, cg_err *err);

/* Recomputes an answer's "counts" from its arrays (outgoing, resolved,
 * unresolved, backlinks, matches): computed last, so they match what
 * the answer lists. */
void cg_pt_counts(json_t *ans);

/* The order of name matches: qualified by a source first ("order"),
 * then rank (path, slug, title, alias), then shallower paths, then uri.
 * cg_pt_cmp_match_q is the same for qsort over json_t *. */
int cg_pt_cmp_match(const json_t *a, const json_t *b);
int cg_pt_cmp_match_q(const void *pa, const void *pb);

/* Sorts a JSON array in place with a qsort comparator over json_t *. */
void cg_pt_sort(json_t *arr, int (*cmp)(const void *, const void *));

/* args[key] as a string into *v: NULL when absent and not need, else
 * CG_EINVAL when absent or not a string. */
int cg_pt_arg_str(const json_t *args, const char *key, bool need,
                  const char **v, cg_err *err);

#endif
