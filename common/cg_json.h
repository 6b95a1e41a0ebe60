/*
 * cg_json.h - small jansson helpers that every layer repeats: lookups
 * (their results are borrowed from the object) and a string maker that
 * never fails on bad UTF-8.
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

/* Adds 1 to the integer at o[key], setting it to 1 when absent (a
 * counter kept in a JSON object). */
void cg_json_bump(json_t *o, const char *key);

/* A new JSON string of s with invalid UTF-8 replaced by U+FFFD (jansson
 * refuses it), or null when s is NULL; NULL only when out of memory. */
json_t *cg_json_text(const char *s);

#endif
