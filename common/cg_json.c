/*
 * cg_json.c - jansson lookups (see cg_json.h).
 */
#include "common/cg_json.h"

const char *
cg_json_str(const json_t *o, const char *key)
{
	const char *s = cg_json_str_or_null(o, key);

	return s != NULL ? s : "";
}

const char *
cg_json_str_or_null(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}
