/*
 * wire.c - the node wire codec (see wire.h).  Every check that can be made
 * on the raw bytes is made before jansson parses them: size, UTF-8,
 * nesting depth.  It must not interpret the request beyond its envelope
 * (an object with an echo-able id) and must not print.
 */
#include "proto/wire.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_utf8.h"

/* Offset of the first invalid UTF-8 sequence, or len when all is valid. */
static size_t
utf8_bad_offset(const unsigned char *p, size_t len)
{
	size_t off = 0;

	while (off < len) {
		uint32_t cp;
		int n;

		if (p[off] < 0x80) {
			off++;
			continue;
		}
		n = cg_utf8_decode(p + off, len - off, &cp);
		if (n == 0)
			return off;
		off += (size_t)n;
	}
	return len;
}

/* Deepest nesting of arrays and objects outside strings, stopping as soon
 * as it passes max (the bytes need not be valid JSON). */
static int
nesting_depth(const unsigned char *p, size_t len, int max)
{
	int depth = 0;
	int deepest = 0;
	int in_str = 0;
	int esc = 0;

	for (size_t i = 0; i < len && deepest <= max; i++) {
		unsigned char c = p[i];

		if (in_str) {
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '[' || c == '{') {
			if (++depth > deepest)
				deepest = depth;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return deepest;
}

static const char *
kind_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	default:
		return "an object";
	}
}

static bool
id_ok(const json_t *id)
{
	return id == NULL || json_is_null(id) || json_is_integer(id) ||
	       json_is_string(id);
}

/* The checks made on the bytes before parsing. */
static int
check_bytes(const unsigned char *p, size_t len, cg_err *err)
{
	size_t bad;

	if (len > CG_WIRE_MAX_REQUEST)
		return cg_err_set(err, CG_ETOOBIG,
		                  "request of %zu bytes exceeds the limit of "
		                  "%u bytes",
		                  len, CG_WIRE_MAX_REQUEST);
	if (len == 0)
		return cg_err_set(err, CG_EPARSE, "empty request");
	bad = utf8_bad_offset(p, len);
	if (bad < len)
		return cg_err_set(err, CG_EPARSE,
		                  "request is not valid UTF-8 (byte %zu)", bad);
	if (nesting_depth(p, len, CG_WIRE_MAX_DEPTH) > CG_WIRE_MAX_DEPTH)
		return cg_err_set(err, CG_EPARSE,
		                  "request nests deeper than %d levels",
		                  CG_WIRE_MAX_DEPTH);
	return 0;
}

int
cg_wire_decode(const void *buf, size_t len, json_t **req, cg_err *err)
{
	json_error_t jerr;
	json_t *v;
	int rc;

	*req = NULL;
	rc = check_bytes(buf, len, err);
	if (rc != 0)
		return rc;
	v = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
	               &jerr);
	if (v == NULL)
		return cg_err_set(err, CG_EPARSE,
		                  "request is not JSON: %s (line %d, column "
		                  "%d)",
		                  jerr.text, jerr.line, jerr.column);
	if (!json_is_object(v)) {
		rc = cg_err_set(err, CG_EPARSE,
		                "request is %s, expected a JSON object",
		                kind_name(v));
		json_decref(v);
		return rc;
	}
	if (!id_ok(json_object_get(v, "id"))) {
		json_decref(v);
		return cg_err_set(err, CG_EPARSE,
		                  "request id must be an integer or a string");
	}
	*req = v;
	return 0;
}

int
cg_wire_encode(const json_t *msg, char **buf, size_t *len, cg_err *err)
{
	const size_t flags = JSON_COMPACT | JSON_PRESERVE_ORDER;
	size_t need;
	char *out;

	*buf = NULL;
	*len = 0;
	if (!json_is_object(msg))
		return cg_err_set(err, CG_EINVAL,
		                  "wire: a message must be a JSON object");
	need = json_dumpb(msg, NULL, 0, flags);
	if (need == 0)
		return cg_err_set(err, CG_ERR, "wire: reply cannot be encoded");
	if (need > CG_WIRE_MAX_REPLY)
		return cg_err_set(err, CG_ETOOBIG,
		                  "reply of %zu bytes exceeds the limit of %u "
		                  "bytes",
		                  need, CG_WIRE_MAX_REPLY);
	out = malloc(need + 1);
	if (out == NULL)
		return cg_err_set(err, CG_ENOMEM, "wire: out of memory");
	if (json_dumpb(msg, out, need, flags) != need) {
		free(out);
		return cg_err_set(err, CG_ERR, "wire: reply cannot be encoded");
	}
	out[need] = '\0';
	*buf = out;
	*len = need;
	return 0;
}

json_t *
cg_wire_request(int64_t id, const char *op, int deadline_ms, json_t *args)
{
	return json_pack("{s:i, s:I, s:s, s:i, s:o}", "v", CG_PROTO_VERSION,
	                 "id", (json_int_t)id, "op", op, "deadline_ms",
	                 deadline_ms, "args", args);
}

json_t *
cg_wire_reply_ok(const char *node, const json_t *id, json_t *gen, json_t *res,
                 double ms)
{
	return json_pack("{s:i, s:O, s:s, s:b, s:o, s:o, s:f}", "v",
	                 CG_PROTO_VERSION, "id", id ? id : json_null(), "node",
	                 node, "ok", 1, "generation", gen, "result", res, "ms",
	                 ms);
}

json_t *
cg_wire_reply_error(const char *node, const json_t *id, int code,
                    const char *msg)
{
	return json_pack("{s:i, s:O, s:s, s:b, s:{s:s, s:s}}", "v",
	                 CG_PROTO_VERSION, "id", id ? id : json_null(), "node",
	                 node, "ok", 0, "error", "code", cg_code_name(code),
	                 "message", msg);
}

json_t *
cg_wire_reply_refused(const char *node, const void *buf, size_t len,
                      const cg_err *err)
{
	json_t *whole = NULL;
	const json_t *id = NULL;
	json_t *reply;
	int code = err->code != 0 ? err->code : CG_EPARSE;

	/* jansson caps its own recursion, and invalid UTF-8 fails cleanly:
	 * a lenient second parse is safe within the size limit. */
	if (len > 0 && len <= CG_WIRE_MAX_REQUEST)
		whole = json_loadb(buf, len, 0, NULL);
	if (json_is_object(whole)) {
		id = json_object_get(whole, "id");
		if (!json_is_integer(id) && !json_is_string(id))
			id = NULL;
	}
	reply = cg_wire_reply_error(
	    node, id, code, err->msg[0] ? err->msg : cg_code_name(code));
	json_decref(whole);
	return reply;
}

json_t *
cg_wire_decode_reply(const void *buf, size_t len, int64_t id, cg_err *err)
{
	json_t *rep = json_loadb(buf, len, 0, NULL);

	if (!json_is_object(rep) ||
	    json_integer_value(json_object_get(rep, "id")) != id ||
	    !json_is_boolean(json_object_get(rep, "ok"))) {
		json_decref(rep);
		cg_err_set(err, CG_EPROTO, "bad reply");
		return NULL;
	}
	return rep;
}
