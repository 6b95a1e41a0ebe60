/*
 * conflict.h - the contradiction rule of SPEC 4.2 on a set of pages.
 *
 * Pages sharing a claim key whose bodies differ form a conflict; an
 * implicit key (category + title) pairs pages of two sources only when
 * they are copies of one page (conflict.c says how).  The
 * winner: a page that names another in `supersedes` wins outright;
 * otherwise the newer updated_at wins unless the older has confidence
 * high and the newer does not.  Equal dates fall to the higher confidence,
 * then to the uri (so the answer is stable).  Every page is listed; none
 * is dropped.
 *
 * Pure: no I/O, works on the JSON the nodes returned.  May be included by
 * federation/ and the layers above it (gateway, cli).
 */
#ifndef CG_CONFLICT_H
#define CG_CONFLICT_H

#include <jansson.h>

/*
 * pages: array of {uri, source, path, title, category, updated_at,
 * confidence, supersedes[], body_hash, claim_key, sketch? (implicit
 * keys)}.  Returns a new array of conflicts:
 * {claim_key, title, pages:[{uri, updated_at, confidence}], winner,
 * resolution}.
 */
json_t *cg_conflicts_find(const json_t *pages);

#endif
