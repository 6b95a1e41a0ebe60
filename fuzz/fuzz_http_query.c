/*
 * fuzz_http_query.c - libFuzzer target for the query parameters of
 * GET /v1/<tool>?...: the first byte picks a tool (cg_api_tools(), modulo
 * their count), the rest is a raw query string.  It is split as
 * libmicrohttpd 0.9.75 splits one (on '&', then on the first '=', a
 * parameter without '=' having no value), each part has '+' turned into a
 * space and is decoded with MHD_http_unescape (the decoder libmicrohttpd
 * uses), and each parameter goes to cg_query_args_add() as the gateway
 * feeds it, until the first refusal.
 *
 * abort()s when a parameter holding a NUL byte is accepted (the cut value
 * of issue 15's finding 10); when a refusal has no code or a message that
 * is not UTF-8 (it could not be sent as JSON); when an accepted argument
 * does not have its tool's type (an array for a list argument, an integer,
 * a boolean, else a string holding exactly the decoded bytes); or when
 * the arguments cannot be serialized.  It must touch no file and no
 * network.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <microhttpd.h>

#include "common/cg_err.h"
#include "gateway/api.h"
#include "gateway/query_args.h"

static int
listed(const char *const *v, const char *key)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		if (strcmp(v[i], key) == 0)
			return 1;
	return 0;
}

/* '+' to ' ', then percent-decoding in place; the decoded length. */
static size_t
decode(char *s)
{
	for (char *p = s; *p != '\0'; p++)
		if (*p == '+')
			*p = ' ';
	return MHD_http_unescape(s);
}

/* The argument just added for key = val has its tool's type. */
static void
check_added(const cg_api_tool *t, const json_t *args, const char *key,
            const char *val, size_t vlen)
{
	const json_t *v = json_object_get(args, key);

	if (v == NULL)
		abort();
	if (listed(t->lists, key)) {
		if (!json_is_array(v) || json_array_size(v) == 0)
			abort();
		v = json_array_get(v, json_array_size(v) - 1);
	}
	if (listed(t->ints, key)) {
		if (!json_is_integer(v))
			abort();
	} else if (listed(t->bools, key)) {
		if (!json_is_boolean(v))
			abort();
	} else if (!json_is_string(v) || json_string_length(v) != vlen ||
	           memcmp(json_string_value(v), val, vlen) != 0) {
		abort();
	}
}

/* Feeds one parameter "key[=val]" (a NUL-terminated copy); 0 to go on. */
static int
feed(const cg_api_tool *t, json_t *args, char *param)
{
	char *eq = strchr(param, '=');
	char *val = NULL;
	size_t klen;
	size_t vlen = 0;
	int nul;
	int rc;
	cg_err err;

	cg_err_clear(&err);
	if (eq != NULL) {
		*eq = '\0';
		val = eq + 1;
		vlen = decode(val);
	}
	klen = decode(param);
	nul = memchr(param, '\0', klen) != NULL ||
	      (val != NULL && memchr(val, '\0', vlen) != NULL);
	rc = cg_query_args_add(args, t, param, klen, val, vlen, &err);
	if (rc != 0) {
		json_t *msg = json_string(err.msg);

		if (err.code != rc || err.msg[0] == '\0' || msg == NULL)
			abort();
		json_decref(msg);
		return -1;
	}
	if (nul)
		abort();
	check_added(t, args, param, val ? val : "", vlen);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t ntools = 0;
	const cg_api_tool *tools = cg_api_tools(&ntools);
	const cg_api_tool *t;
	json_t *args;
	char *query;
	char *text;
	char *p;

	if (size == 0 || ntools == 0 || size > (1u << 16))
		return 0;
	t = &tools[data[0] % ntools];
	/* The query as libmicrohttpd holds it: a C string, so a raw NUL
	 * ends it (only a decoded %00 can put one inside a value). */
	query = strndup((const char *)data + 1, size - 1);
	args = json_object();
	if (query == NULL || args == NULL)
		abort();
	for (p = query; p != NULL;) {
		char *amp = strchr(p, '&');

		if (amp != NULL)
			*amp = '\0';
		if (*p != '\0' && feed(t, args, p) != 0)
			break;
		p = amp ? amp + 1 : NULL;
	}
	text = json_dumps(args, JSON_COMPACT);
	if (text == NULL)
		abort();
	free(text);
	json_decref(args);
	free(query);
	return 0;
}
