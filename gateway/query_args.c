/*
 * query_args.c - typed JSON arguments from query parameters
 * (query_args.h).  An integer is strtoll's whole string, a boolean
 * true/false/1/0, anything else a string; a NUL byte anywhere in a name
 * or a value is refused before anything is typed.  This file must not
 * know what any argument means beyond its type.
 */
#include "gateway/query_args.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int
in_list(const char *const *v, const char *key)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		if (strcmp(v[i], key) == 0)
			return 1;
	return 0;
}

/* A new JSON value for key = val (NUL-free), or NULL with err set. */
static json_t *
typed_value(const cg_api_tool *t, const char *key, const char *val, size_t vlen,
            cg_err *err)
{
	char *end = NULL;
	long long n;
	json_t *v;

	if (in_list(t->ints, key)) {
		errno = 0;
		n = strtoll(val, &end, 10);
		if (end == val || *end != '\0' || errno != 0) {
			cg_err_set(err, CG_EINVAL, "'%s' must be an integer",
			           key);
			return NULL;
		}
		return json_integer(n);
	}
	if (in_list(t->bools, key)) {
		if (strcmp(val, "true") == 0 || strcmp(val, "1") == 0)
			return json_true();
		if (strcmp(val, "false") == 0 || strcmp(val, "0") == 0)
			return json_false();
		cg_err_set(err, CG_EINVAL, "'%s' must be true or false", key);
		return NULL;
	}
	v = json_stringn(val, vlen);
	if (v == NULL)
		cg_err_set(err, CG_EINVAL, "'%s' is not valid UTF-8", key);
	return v;
}

/* Appends v (taken) to the list args[key] (old, NULL: not there yet). */
static int
add_to_list(json_t *args, const char *key, json_t *old, json_t *v, cg_err *err)
{
	if (old == NULL) {
		old = json_array();
		if (json_object_set_new(args, key, old) != 0) {
			json_decref(v);
			return cg_err_set(err, CG_EINVAL,
			                  "'%s' is not a valid name", key);
		}
	}
	if (json_array_append_new(old, v) != 0)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	return 0;
}

int
cg_query_args_add(json_t *args, const cg_api_tool *t, const char *key,
                  size_t klen, const char *val, size_t vlen, cg_err *err)
{
	json_t *v;
	json_t *old;

	if (val == NULL) {
		val = "";
		vlen = 0;
	}
	if (memchr(key, '\0', klen) != NULL || memchr(val, '\0', vlen) != NULL)
		return cg_err_set(err, CG_EINVAL,
		                  "query parameter '%s' contains a NUL byte",
		                  key);
	v = typed_value(t, key, val, vlen, err);
	if (v == NULL)
		return err->code != 0
		           ? err->code
		           : cg_err_set(err, CG_ENOMEM, "out of memory");
	old = json_object_get(args, key);
	if (in_list(t->lists, key))
		return add_to_list(args, key, old, v, err);
	if (old != NULL) {
		json_decref(v);
		return cg_err_set(err, CG_EINVAL, "'%s' given twice", key);
	}
	if (json_object_set_new(args, key, v) != 0)
		return cg_err_set(err, CG_EINVAL, "'%s' is not a valid name",
		                  key);
	return 0;
}
