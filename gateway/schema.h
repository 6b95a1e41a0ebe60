/*
 * schema.h - the JSON Schemas of the tools' answers (MCP outputSchema),
 * written as files under gateway/schema/<tool>.json and embedded into the
 * binary at build time (cmake/embed-json.cmake generates the definition).
 * Keeping them as files lets them be read, diffed and validated as JSON;
 * this header must not grow logic: it only hands out their text.
 *
 * May be included by gateway/ only (the tool table reads it).
 */
#ifndef CG_SCHEMA_H
#define CG_SCHEMA_H

/* The text of gateway/schema/<name>.json (static storage), or NULL. */
const char *cg_schema_text(const char *name);

#endif
