/*
 * cg_json.c - jansson helpers (see cg_json.h).
 */
#include "common/cg_json.h"

#include <stdlib.h>
#include <string.h>

#include "common/cg_utf8.h"

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

json_t *
cg_json_text(const char *s)
{
	json_t *j;
	char *clean;

	if (s == NULL)
		return json_null();
	j = json_string(s);
	if (j != NULL)
		return j;
	clean = cg_utf8_sanitize(s, strlen(s), NULL, NULL);
	j = json_string(clean != NULL ? clean : "");
	free(clean);
	return j;
}

void
cg_json_bump(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL)
		json_object_set_new(o, key, json_integer(1));
	else
		json_integer_set(v, json_integer_value(v) + 1);
}
