/*
 * access.h - the gateway's re-check of every answer against the caller's
 * policy (proto/acl.h), after the nodes filtered before their limits: a
 * hidden page must never leave the gateway, whatever a node sent.
 *
 * May be included by gateway/ and cli/.
 */
#ifndef CG_ACCESS_H
#define CG_ACCESS_H

#include <stddef.h>

#include <jansson.h>

#include "proto/acl.h"

/* Removes from an answer everything about hidden pages: any object in an
 * array whose "uri" (or "from", "target_uri", "winner") is hidden, and a
 * conflict whole when any of its pages is hidden; recomputes nothing else
 * (counts are computed by the nodes over visible pages).  Returns the
 * number of items removed (for the log, never for the caller). */
size_t cg_access_filter_answer(const cg_acl *acl, json_t *answer);

#endif
