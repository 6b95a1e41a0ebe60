/*
 * cg_json.h - small jansson lookups that every layer repeats.  All results
 * are borrowed from the object.
 *
 * May be included by any layer.
 */
#ifndef CG_JSON_H
#define CG_JSON_H

#include <jansson.h>

/* The string at o[key], or "" when o is not an object, the key is absent
 * or its value is not a string. */
const char *cg_json_str(const json_t *o, const char *key);

/* The string at o[key], or NULL likewise. */
const char *cg_json_str_or_null(const json_t *o, const char *key);

#endif
