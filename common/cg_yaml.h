/*
 * cg_yaml.h - the one bounded YAML reader: libyaml's event API walked into
 * a jansson value, for page frontmatter (page/frontmatter.h), the gateway
 * config (conf/config.c) and the hiivmind corpus files (cache/).
 *
 * Hostile YAML is bounded: an alias is refused (no alias bomb can expand),
 * nesting deeper than CG_YAML_MAX_DEPTH and more than the caller's node cap
 * fail fast, and only the first document is read.  Scalars: booleans are
 * only true/false/True/False/TRUE/FALSE (not yes/no); nulls are empty, ~,
 * null/Null/NULL; integers are -?(0|[1-9][0-9]*) within int64 ("007",
 * "+1", "1.5", 2026-01-01 stay strings); a quoted or tagged scalar is a
 * string; duplicate keys: the last one wins.
 *
 * May be included by any layer.  Must not: expand an alias, recurse over
 * input structure, or do more than linear work on any input.
 */
#ifndef CG_YAML_H
#define CG_YAML_H

#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"

#define CG_YAML_MAX_DEPTH 64

/* Why a strict read stopped; a caller may recover differently for each. */
enum cg_yaml_fail {
	CG_YAML_OK = 0,  /* parsed */
	CG_YAML_SYNTAX,  /* malformed YAML or a non-scalar key */
	CG_YAML_HOSTILE, /* an alias, the depth or the node cap */
	CG_YAML_SHAPE,   /* well-formed, but the top level is not a mapping */
	CG_YAML_NOMEM,   /* out of memory */
};

/*
 * Walks the events of the first document (later ones are not read); on
 * CG_YAML_OK *out gets a new object (an empty document is an empty
 * object), else err says why with the 1-based YAML line.
 */
enum cg_yaml_fail cg_yaml_strict(const char *yaml, size_t len, size_t max_nodes,
                                 json_t **out, cg_err *err);

/*
 * Strict YAML for whole configuration and index files, with caller-chosen
 * caps.  The top level must be a mapping (else CG_EPARSE).  *out is a new
 * object on success, NULL on failure: CG_ETOOBIG over max_bytes or a cap,
 * CG_EPARSE, CG_ENOMEM (err says why, with the YAML line).
 */
int cg_yaml_load(const char *yaml, size_t len, size_t max_bytes,
                 size_t max_nodes, json_t **out, cg_err *err);

/* The JSON value of an untagged plain scalar, typed as above (a new
 * reference; NULL on allocation failure). */
json_t *cg_yaml_scalar(const char *s, size_t n);

#endif
