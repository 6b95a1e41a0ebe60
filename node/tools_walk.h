/*
 * tools_walk.h - the node operations that walk a corpus: list, map, grep
 * and status (ops[] of node/node.c).  Each answers for the node's sources
 * in the request's scope and returns items that carry their "source" and
 * "path" (relative to the repository root), never a uri: the federation
 * adds workspace and uri, merges and cuts (federation/fed_walk.c).
 *
 * Arguments (all optional unless said):
 *   list   {prefix, filters, limit 1-500 (50), offset 0-100000 (0)}
 *          -> {items[], total, per_source{}}.  Items are sorted by
 *          "source/path" and the node returns the first offset+limit of
 *          them, so a merge of sorted node streams pages correctly.
 *   map    {prefix, filters, per_category 1-5000 (200)}
 *          -> {sources: [{source, pages, categories: [{category|null,
 *          pages, items: [{path, title}]}]}]}; categories by name (null,
 *          uncategorised, last), items by title then path.
 *   grep   {pattern (required), fixed, case_sensitive, max 1-10000 (200),
 *          prefix} -> {matches[] (first max, sorted by "source/path" then
 *          line), total, files[{source, path, matches}], files_searched,
 *          bytes_searched, windowed_lines, skipped[], skipped_total,
 *          truncated, unicode}.  Reads the page files (node/scan.c's list),
 *          not the index, so it works before the first index exists.
 *   status {} -> {sources: [{source, ready, generation, pages, sections,
 *          problems, last_sync, index_age_s, generation_age_s, db_bytes,
 *          errors[]}]}; never fails for one bad source: it reports it.
 *
 * Prefix: a string prefix of the page path, matched against the path
 * relative to the repository root (".guild/wiki/decisions/") and relative
 * to the wiki folder ("decisions/"); "" or absent = everything.  Which
 * source a user prefix names is the federation's business.
 *
 * Counts (total, per-category pages, per-file matches) come with items
 * that name their page, so a per-page access filter can later be pushed
 * into these operations (or applied to per-file counts) before counting.
 */
#ifndef CG_TOOLS_WALK_H
#define CG_TOOLS_WALK_H

#include <jansson.h>

#include "common/cg_err.h"
#include "node/node.h"
#include "proto/limits.h"

int cg_walk_list(cg_node *n, const json_t *args, json_t *res, cg_err *err);
int cg_walk_map(cg_node *n, const json_t *args, json_t *res, cg_err *err);
int cg_walk_grep(cg_node *n, const json_t *args, json_t *res, cg_err *err);
int cg_walk_status(cg_node *n, const json_t *args, json_t *res, cg_err *err);

#endif
