/*
 * frontmatter.h - YAML frontmatter of a markdown page, read with the bounded
 * YAML reader (common/cg_yaml.h) into a jansson object.
 *
 * Hostile YAML is bounded: aliases are copies within CG_YAML_MAX_ALIAS_NODES
 * copied nodes (an alias bomb is refused), nesting deeper than
 * CG_YAML_MAX_DEPTH and more than CG_FM_MAX_NODES nodes fail fast, and
 * frontmatter over CG_FM_MAX_BYTES is not parsed.  When strict YAML fails
 * (upstream files contain `description: a: b` and similar), a lenient line
 * reader recovers the top-level `key: value` pairs and simple
 * `- item` lists so that a page a human would call valid still indexes; the
 * result says which path was taken.
 *
 * Decisions a caller must know:
 * - An opening `---` with no closing line is not frontmatter: the whole text
 *   is body (a page that starts with a markdown rule stays readable).
 * - Only the first YAML document is read; anchors and tags are ignored (a
 *   tagged scalar is a string); duplicate keys: the last one wins.
 * - Booleans are only true/false/True/False/TRUE/FALSE (not yes/no); nulls
 *   are empty, ~, null/Null/NULL; integers are -?(0|[1-9][0-9]*) within
 *   int64 ("007", "+1", "1.5", 2026-01-01 stay strings).
 * - Lenient recovery runs when strict YAML is malformed or hits a cap, never
 *   for an over-size block (BROKEN) or a well-formed non-mapping top level
 *   (BROKEN).  It reads column-0 `key: value` lines (key [A-Za-z0-9_-]+):
 *   plain values are typed as above after dropping a ` # comment`; quoted
 *   values are strings; a one-line `[a, "b"]` of plain or quoted items is
 *   an array; a null value followed by `- item` lines becomes an array;
 *   `|`/`>` block scalars and indented continuation lines of a plain value
 *   are joined; nested mappings are not recovered (the key is null).
 * - After a refused alias, the depth or a node cap only single-line scalar
 *   values are recovered (values starting with [ { & * ! | > are dropped),
 *   so the page keeps its type, owner and dates but no hostile structure
 *   is rebuilt.
 * - Invalid UTF-8 fails strict parsing; the lenient reader then sees it
 *   replaced by U+FFFD (NUL bytes dropped): LENIENT, or BROKEN if no key.
 * - err line numbers count lines of the YAML block (its first line is 1);
 *   add one for the page line when the block came from cg_fm_split.
 *
 * May be included by page/ and every layer above it (proto, index, node,
 * federation, gateway, cli).
 */
#ifndef CG_FRONTMATTER_H
#define CG_FRONTMATTER_H

#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"

#define CG_FM_MAX_BYTES ((size_t)256 * 1024)
#define CG_FM_MAX_NODES 20000

enum cg_fm_status {
	CG_FM_NONE = 0,    /* the page has no frontmatter block */
	CG_FM_OK = 1,      /* strict YAML parse succeeded */
	CG_FM_LENIENT = 2, /* strict parse failed; lenient reader recovered */
	CG_FM_BROKEN = 3,  /* nothing usable; fm is an empty object */
};

/*
 * Locates a frontmatter block: the text starts with a line "---" (a UTF-8
 * BOM and trailing spaces tolerated) and a later line "---" or "..." closes
 * it.  On success returns 1 and sets the YAML bytes [*yaml_off, +*yaml_len)
 * and where the body starts (*body_off, and *body_line, the 1-based line
 * number of the first body line).  Returns 0 when there is no block (body is
 * the whole text, line 1; *body_off skips a BOM).  Lines end at "\n"; a CR
 * before it is tolerated.  Any out-parameter may be NULL.
 */
int cg_fm_split(const char *text, size_t len, size_t *yaml_off,
                size_t *yaml_len, size_t *body_off, int *body_line);

/*
 * Parses the YAML of a frontmatter block into *out, a new JSON object (never
 * NULL on return, even on failure).  Scalars: plain `null`, `~` and empty
 * become null, plain `true`/`false` booleans, plain integers integers, all
 * else (dates included) strings; quoted scalars are always strings.  A
 * top-level value that is not a mapping is BROKEN; an empty document is an
 * empty object (OK).  Returns the status; on LENIENT or BROKEN, err (if
 * given) holds why strict parsing failed, with the line number (CG_EPARSE;
 * CG_ETOOBIG for the caps).  err is not cleared first, and a message it
 * already holds is kept.  *out is NULL only when memory ran out, and
 * then err's code is CG_ENOMEM (the caller must fail: an empty object
 * would read as a page without frontmatter).
 */
enum cg_fm_status cg_fm_parse(const char *yaml, size_t len, json_t **out,
                              cg_err *err);

#endif
