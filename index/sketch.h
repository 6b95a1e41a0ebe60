/*
 * sketch.h - a page's word-set sketch, so that the federation can tell a
 * copy of a page (the same standard pasted into two sub-guilds, then
 * edited) from another page that only shares its title (two teams' own
 * "Retry policy"), without moving either body across the network.
 *
 * The sketch is a MinHash of the set of the body's tokens (page/token.h):
 * CG_SKETCH_K minimums, each under its own hash; the share of equal
 * positions between two sketches estimates the Jaccard similarity of the
 * two word sets (within about 0.06 at K = 64).
 *
 * May be included by index/ and the layers above it (node, gateway, cli).
 */
#ifndef CG_SKETCH_H
#define CG_SKETCH_H

#include <stdint.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "index/index.h"

#define CG_SKETCH_K 64

/* The sketch of page id's body (its sections' body text) as a new JSON
 * array of CG_SKETCH_K non-negative integers; an empty array for a page
 * without words.  NULL with err set on a database failure. */
json_t *cg_sketch_page(cg_index *idx, int64_t page, cg_err *err);

#endif
