/*
 * map_plan.h - the map's budget planner: which sources, categories and
 * page titles of a tree fit in a budget of characters, and the text and
 * JSON of what fits.
 *
 * The text is cut to budget characters (code points, not bytes): sources
 * first, in the order given, then categories round-robin over the sources
 * shown, then page titles round-robin over the categories shown, again
 * while anything fits (a title replacing its "… 1 more page" line can
 * make room for a category).  Whatever does not fit is counted in "… N
 * more" lines, which the budget includes, and in the *_omitted counts.
 * The JSON holds exactly what the text shows, plus the counts.
 *
 * Pure: no I/O, no federation, no node; it must not drop a count (every
 * page is shown or counted).  May be included by federation/ and the
 * layers above it (gateway, cli).
 */
#ifndef CG_MAP_PLAN_H
#define CG_MAP_PLAN_H

#include <jansson.h>

#define CG_MAP_DEFAULT_BUDGET 4000
#define CG_MAP_MIN_BUDGET     100
#define CG_MAP_MAX_BUDGET     1000000

/*
 * sources (borrowed): [{source, workspace, pages, categories:[{category
 * (null: uncategorised), pages, items:[{path, title}] (maybe fewer than
 * pages)}]}]; sources without pages are left out.  budget is in
 * [CG_MAP_MIN_BUDGET, CG_MAP_MAX_BUDGET].  Returns a new object
 *   {chars, text, pages_total, pages_omitted, sources[{source, workspace,
 *    uri, pages, categories[{category, pages, titles[{title, uri, source,
 *    path}], pages_omitted}], categories_omitted,
 *    pages_in_omitted_categories}], sources_omitted,
 *    pages_in_omitted_sources}
 * with chars <= budget, or NULL when memory ran out.
 */
json_t *cg_map_plan(const json_t *sources, int budget);

#endif
