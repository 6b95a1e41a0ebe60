/*
 * fed_search.h - one query over every node of a roster, one merged answer
 * (SPEC 4.1).
 *
 * A search is three rounds over the nodes in scope: "stats" (local term
 * statistics, summed into global ones), "search" (each source scores with
 * the global statistics and returns its own top hits), "claims" (every
 * page sharing a claim key with a hit, for contradictions).  Nodes that do
 * not answer are reported, never waited on past the deadline.  A node that
 * fails a round (no reply, a bad reply, an error reply) is reported once,
 * with that reason, and not asked again in the later rounds of the same
 * query: a stopped node costs one deadline per query, not one per round.
 *
 * May be included by federation/ and the layers above it (gateway, cli).
 */
#ifndef CG_FED_SEARCH_H
#define CG_FED_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "federation/fed.h"
#include "proto/filters.h"

typedef struct cg_search_req {
	const char *text; /* free text, may be empty with a filter */
	cg_filters filters;
	const char *const *sources; /* scope: source names, or NULL = all */
	size_t nsources;
	int limit; /* 0 = default (20) */
	bool explain;
	bool sync; /* ask nodes to sync first (CLI mode) */
} cg_search_req;

/* Runs a search and returns the answer object of SPEC 4.1 (query,
 * filters, hits, conflicts, note, evidence, assumptions, followups,
 * changed_files, and related when a corpus is in scope).  CG_EINVAL for
 * invalid input (message says what is valid), CG_ENOPROV when the roster
 * has no source. */
int cg_fed_search(cg_fed *fed, const cg_search_req *req, json_t **out,
                  cg_err *err);

#endif
