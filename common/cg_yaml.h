/*
 * cg_yaml.h - the one bounded YAML reader: libyaml's event API walked into
 * a jansson value, for page frontmatter (page/frontmatter.h), the gateway
 * config (conf/config.c) and the hiivmind corpus files (cache/).
 *
 * Hostile YAML is bounded: nesting deeper than CG_YAML_MAX_DEPTH and more
 * than the caller's node cap fail fast, and only the first document is
 * read.  Aliases (`cache: *defaults`) are copies of their anchor's value,
 * bounded: the nodes they copy count against the node cap and, in total,
 * at most CG_YAML_MAX_ALIAS_NODES (however aliases nest: an alias bomb
 * fails with "aliases expand to more than N nodes"), and an alias inside
 * its own anchor (a cycle) or of an unknown anchor is refused.  Merge keys
 * (`<<: *a`) are not interpreted: "<<" is an ordinary key.  Scalars: booleans
 * are only true/false/True/False/TRUE/FALSE (not yes/no); nulls are empty, ~,
 * null/Null/NULL; integers are -?(0|[1-9][0-9]*) within int64 ("007",
 * "+1", "1.5", 2026-01-01 stay strings); a quoted or tagged scalar is a
 * string; duplicate keys: the last one wins.
 *
 * May be included by any layer.  Must not: expand aliases past the node
 * cap, recurse over input structure, or do more than linear work in the
 * size of the (capped) result on any input.
 */
#ifndef CG_YAML_H
#define CG_YAML_H

#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"

#define CG_YAML_MAX_DEPTH 64
/* Nodes all the aliases of one document may copy, in total (so also the
 * most aliases a document may hold): reuse such as `cache: *defaults`
 * costs a handful; a bomb is refused at this. */
#define CG_YAML_MAX_ALIAS_NODES 1000

/* Why a strict read stopped; a caller may recover differently for each. */
enum cg_yaml_fail {
	CG_YAML_OK = 0,  /* parsed */
	CG_YAML_SYNTAX,  /* malformed YAML or a non-scalar key */
	CG_YAML_HOSTILE, /* a cyclic alias, the depth, alias or node caps */
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
