/*
 * source_refs.h - resolves a page's source_refs against the repository's raw
 * sources (.guild/raw/sources/<slug>/metadata.json, SPEC 3.1).
 *
 * A ref that looks like a slug is looked up; a missing or unreadable
 * metadata file gives raw_path_missing: true and a followup.  A ref that
 * is a repository path is reported as a path (with whether it exists).
 * Reads are capped and never follow symlinks; slugs that could escape the
 * raw folder ("..", "/") are treated as paths, never joined.
 *
 * May be included by page/ and every layer above it (proto, index, node,
 * federation, gateway, cli).
 */
#ifndef CG_RAW_H
#define CG_RAW_H

#include <jansson.h>

/* Returns a new array of resolved refs for refs (an array of strings).
 * Followups ({kind, path, message}) are appended to followups when it is
 * not NULL; page is the page's path, used in their messages. */
json_t *cg_raw_resolve(const char *repo, const char *page, const json_t *refs,
                       json_t *followups);

#endif
