/*
 * cg_args.c - strict JSON argument reading, shared by the API table, the
 * node tools and the config loader.
 */
#include "common/cg_args.h"

#include <string.h>

#include "common/cg_buf.h"

int
cg_args_check(const json_t *obj, const char *const *valid, const char *what,
              cg_err *err)
{
	const char *key;
	json_t *v;

	if (obj != NULL && !json_is_object(obj))
		return cg_err_set(err, CG_EINVAL, "%ss must be an object",
		                  what);
	json_object_foreach((json_t *)obj, key, v) {
		size_t i = 0;
		cg_buf list;
		int rc;

		while (valid[i] != NULL && strcmp(valid[i], key) != 0)
			i++;
		if (valid[i] != NULL)
			continue;
		cg_buf_init(&list, 4096);
		for (i = 0; valid[i] != NULL; i++)
			(void)cg_buf_printf(&list, "%s%s", i ? ", " : "",
			                    valid[i]);
		rc = cg_err_set(err, CG_EINVAL,
		                "unknown %s '%.100s' (valid: %s)", what, key,
		                cg_buf_str(&list));
		cg_buf_fini(&list);
		return rc;
	}
	return 0;
}

int
cg_args_str(const json_t *obj, const char *key, const char **out, cg_err *err)
{
	const json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return cg_err_set(err, CG_EINVAL, "'%s' must be a string", key);
	*out = json_string_value(v);
	return 0;
}

int
cg_args_int(const json_t *obj, const char *key, int def, int lo, int hi,
            int *out, cg_err *err)
{
	const json_t *v = json_object_get(obj, key);

	*out = def;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < lo ||
	    json_integer_value(v) > hi)
		return cg_err_set(err, CG_EINVAL,
		                  "'%s' must be an integer from %d to %d", key,
		                  lo, hi);
	*out = (int)json_integer_value(v);
	return 0;
}

int
cg_args_bool(const json_t *obj, const char *key, bool *out, cg_err *err)
{
	const json_t *v = json_object_get(obj, key);

	*out = false;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return cg_err_set(err, CG_EINVAL, "'%s' must be true or false",
		                  key);
	*out = json_is_true(v);
	return 0;
}

int
cg_args_list(const json_t *obj, const char *key, const char **v, size_t max,
             size_t *n, cg_err *err)
{
	const json_t *a = json_object_get(obj, key);
	size_t i;
	const json_t *s;

	*n = 0;
	if (a == NULL || json_is_null(a))
		return 0;
	if (json_is_string(a) && max > 0) {
		v[(*n)++] = json_string_value(a);
		return 0;
	}
	if (!json_is_array(a) || json_array_size(a) > max)
		return cg_err_set(err, CG_EINVAL,
		                  "'%s' must be a string or a list of at most "
		                  "%zu strings",
		                  key, max);
	json_array_foreach(a, i, s) {
		if (!json_is_string(s))
			return cg_err_set(err, CG_EINVAL,
			                  "'%s' must hold strings", key);
		v[(*n)++] = json_string_value(s);
	}
	return 0;
}
