/*
 * api_body.c - reads a POST /v1/<tool> body into the tool's arguments
 * (api_body.h).  It must not check the arguments themselves: each tool
 * does, for GET and POST alike.
 */
#include "gateway/api_body.h"

#include <string.h>
#include <strings.h>

bool
cg_api_body_type_ok(const char *ct)
{
	const char *p;

	if (ct == NULL)
		return false;
	while (*ct == ' ')
		ct++;
	if (strncasecmp(ct, "application/json", 16) != 0)
		return false;
	p = ct + 16;
	while (*p == ' ')
		p++;
	if (*p == '\0')
		return true;
	if (*p != ';')
		return false;
	p++;
	while (*p == ' ')
		p++;
	return strcasecmp(p, "charset=utf-8") == 0 ||
	       strcasecmp(p, "charset=\"utf-8\"") == 0;
}

int
cg_api_body_args(const char *body, size_t len, json_t **args, cg_err *err)
{
	json_error_t je;

	*args = NULL;
	if (len == 0)
		return cg_err_set(err, CG_EINVAL,
		                  "the body is empty: send the arguments as a "
		                  "JSON object");
	*args = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (*args == NULL)
		return cg_err_set(err, CG_EINVAL,
		                  "the body is not JSON: %s (at byte %d)",
		                  je.text, je.position);
	if (!json_is_object(*args)) {
		json_decref(*args);
		*args = NULL;
		return cg_err_set(
		    err, CG_EINVAL,
		    "the body must be a JSON object of arguments");
	}
	return 0;
}
