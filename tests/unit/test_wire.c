/*
 * test_wire.c - the node wire codec: what a node agrees to parse (size,
 * UTF-8, nesting, object with an echo-able id, no duplicate keys), the
 * compact encoding and its cap, and the error reply for refused bytes
 * (node name, code, the id recovered when it can be).
 */
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "common/cg_utf8.h"
#include "node/node.h"
#include "proto/wire.h"

static json_t *
decode_ok(const char *text)
{
	json_t *req = NULL;
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_wire_decode(text, strlen(text), &req, &err), 0);
	assert_non_null(req);
	return req;
}

/* Decodes n bytes expecting code; returns the message (static copy). */
static const char *
decode_fails(const void *buf, size_t n, int code)
{
	static cg_err err;
	json_t *req = (json_t *)buf; /* must be reset to NULL */

	cg_err_clear(&err);
	assert_int_equal(cg_wire_decode(buf, n, &req, &err), code);
	assert_null(req);
	assert_int_equal(err.code, code);
	assert_true(err.msg[0] != '\0');
	return err.msg;
}

static void
test_valid_requests(void **state)
{
	json_t *r = decode_ok("{\"v\":1,\"id\":7,\"op\":\"stats\","
	                      "\"args\":{\"q\":\"x\"}}");

	assert_int_equal(json_integer_value(json_object_get(r, "id")), 7);
	json_decref(r);
	r = decode_ok("{\"v\":1,\"id\":\"abc\",\"op\":\"sync\"}");
	assert_string_equal(json_string_value(json_object_get(r, "id")), "abc");
	json_decref(r);
	json_decref(decode_ok("{\"v\":1,\"id\":null,\"op\":\"sync\"}"));
	json_decref(decode_ok("{\"op\":\"sync\"}"));
	/* Brackets and escaped quotes inside strings are not nesting. */
	json_decref(decode_ok("{\"q\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
	                      "[[[[[[[[\\\"{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{"
	                      "{{{{{\"}"));
	/* Non-ASCII UTF-8 passes. */
	json_decref(decode_ok("{\"q\":\"网关 café\"}"));
}

static void
test_size_limit(void **state)
{
	size_t n = CG_WIRE_MAX_REQUEST;
	char *big = malloc(n + 2);
	json_t *r = NULL;

	assert_non_null(big);
	/* Exactly at the limit: accepted. */
	memset(big, 'a', n);
	memcpy(big, "{\"q\":\"", 6);
	memcpy(big + n - 2, "\"}", 2);
	assert_int_equal(cg_wire_decode(big, n, &r, NULL), 0);
	json_decref(r);
	/* One byte more: too big, before any parsing. */
	memcpy(big + n - 2, "a\"}", 3);
	assert_non_null(strstr(decode_fails(big, n + 1, CG_ETOOBIG), "limit"));
	free(big);
}

static void
test_refused(void **state)
{
	static const unsigned char bad_utf8[] = "{\"q\":\"\xc3\x28\"}";
	static const char with_nul[] = "{\"q\":\"a\0b\"}";

	decode_fails("", 0, CG_EPARSE);
	assert_non_null(
	    strstr(decode_fails(bad_utf8, sizeof(bad_utf8) - 1, CG_EPARSE),
	           "UTF-8 (byte 6)"));
	assert_non_null(strstr(
	    decode_fails("{\"v\":1,\"op\":\"sta", 16, CG_EPARSE), "not JSON"));
	assert_non_null(
	    strstr(decode_fails("[1,2,3]", 7, CG_EPARSE), "an array"));
	assert_non_null(strstr(decode_fails("42", 2, CG_EPARSE), "a number"));
	decode_fails("{} x", 4, CG_EPARSE);
	decode_fails(with_nul, sizeof(with_nul) - 1, CG_EPARSE);
	decode_fails("{\"id\":1,\"id\":2}", 15, CG_EPARSE);
	assert_non_null(strstr(
	    decode_fails("{\"id\":{\"a\":1}}", 14, CG_EPARSE), "id must be"));
	decode_fails("{\"id\":1.5}", 10, CG_EPARSE);
	decode_fails("{\"id\":[1]}", 10, CG_EPARSE);
}

/* "{"a":" then depth-1 arrays: depth levels in all. */
static char *
nested(int depth)
{
	char *s = malloc((size_t)depth * 2 + 16);
	size_t n = 0;

	assert_non_null(s);
	n += (size_t)snprintf(s, 16, "{\"a\":");
	for (int i = 1; i < depth; i++)
		s[n++] = '[';
	for (int i = 1; i < depth; i++)
		s[n++] = ']';
	s[n++] = '}';
	s[n] = '\0';
	return s;
}

static void
test_depth(void **state)
{
	char *ok = nested(CG_WIRE_MAX_DEPTH);
	char *deep = nested(CG_WIRE_MAX_DEPTH + 1);
	char *huge = malloc(300001);

	json_decref(decode_ok(ok));
	assert_non_null(strstr(decode_fails(deep, strlen(deep), CG_EPARSE),
	                       "deeper than 32"));
	/* Far beyond jansson's own limit: refused by the scan, quickly. */
	assert_non_null(huge);
	memset(huge, '[', 300000);
	huge[300000] = '\0';
	decode_fails(huge, 300000, CG_EPARSE);
	free(ok);
	free(deep);
	free(huge);
}

static void
test_encode(void **state)
{
	json_t *m =
	    json_pack("{s:i, s:s, s:[i,i]}", "v", 1, "node", "n", "x", 1, 2);
	char *buf = NULL;
	size_t len = 0;
	json_t *big;
	char *pad;

	assert_int_equal(cg_wire_encode(m, &buf, &len, NULL), 0);
	assert_string_equal(buf, "{\"v\":1,\"node\":\"n\",\"x\":[1,2]}");
	assert_int_equal(len, strlen(buf));
	free(buf);
	json_decref(m);
	m = json_array();
	assert_int_equal(cg_wire_encode(m, &buf, &len, NULL), CG_EINVAL);
	assert_null(buf);
	json_decref(m);
	pad = malloc(CG_WIRE_MAX_REPLY + 1);
	assert_non_null(pad);
	memset(pad, 'x', CG_WIRE_MAX_REPLY);
	pad[CG_WIRE_MAX_REPLY] = '\0';
	big = json_pack("{s:s}", "p", pad);
	assert_int_equal(cg_wire_encode(big, &buf, &len, NULL), CG_ETOOBIG);
	assert_null(buf);
	json_decref(big);
	free(pad);
}

static cg_node *
empty_node(void)
{
	cg_node_opts o = {"wire-node", "/nonexistent-cache", NULL, 0, 0};
	cg_node *n = NULL;

	assert_int_equal(cg_node_new(&n, &o, NULL), 0);
	return n;
}

/* Decodes text (expected to fail) and returns the error reply. */
static json_t *
error_reply(cg_node *n, const char *text, size_t len)
{
	json_t *req = NULL;
	cg_err err;
	json_t *reply;

	cg_err_clear(&err);
	assert_true(cg_wire_decode(text, len, &req, &err) < 0);
	reply = cg_wire_reply_refused(cg_node_name(n), text, len, &err);
	assert_non_null(reply);
	assert_int_equal(json_integer_value(json_object_get(reply, "v")), 1);
	assert_string_equal(json_string_value(json_object_get(reply, "node")),
	                    "wire-node");
	assert_true(json_is_false(json_object_get(reply, "ok")));
	return reply;
}

static const char *
reply_code(const json_t *reply)
{
	return json_string_value(
	    json_object_get(json_object_get(reply, "error"), "code"));
}

static void
test_error_reply(void **state)
{
	cg_node *n = empty_node();
	char *deep = nested(40);
	char *deep_id;
	json_t *r;

	/* An invalid escape next to a multi-byte character: jansson's error
	 * text ends in half of it; the reply must still be built, and be
	 * valid UTF-8 (issue 15, finding 6). */
	r = error_reply(n, "\x22\x5c\xf2\x8c\x8c\xac\x76\xf2\x8c\x8c\xac\x55",
	                12);
	assert_string_equal(reply_code(r), "parse_error");
	{
		const char *m = json_string_value(
		    json_object_get(json_object_get(r, "error"), "message"));

		assert_non_null(m);
		assert_true(cg_utf8_valid(m, strlen(m)));
	}
	json_decref(r);
	r = error_reply(n, "\x01\x02garbage", 9);
	assert_string_equal(reply_code(r), "parse_error");
	assert_true(json_is_null(json_object_get(r, "id")));
	json_decref(r);
	/* Too deep for the node, parseable by jansson: the id comes back. */
	deep_id = malloc(strlen(deep) + 16);
	assert_non_null(deep_id);
	(void)snprintf(deep_id, strlen(deep) + 16, "{\"id\":9,%s", deep + 1);
	r = error_reply(n, deep_id, strlen(deep_id));
	assert_string_equal(reply_code(r), "parse_error");
	assert_int_equal(json_integer_value(json_object_get(r, "id")), 9);
	assert_non_null(strstr(json_string_value(json_object_get(
	                           json_object_get(r, "error"), "message")),
	                       "deeper"));
	json_decref(r);
	/* An id that cannot be echoed is not. */
	r = error_reply(n, "{\"id\":{\"x\":1}}", 14);
	assert_true(json_is_null(json_object_get(r, "id")));
	json_decref(r);
	free(deep);
	free(deep_id);
	cg_node_free(n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_valid_requests),
	    cmocka_unit_test(test_size_limit),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_depth),
	    cmocka_unit_test(test_encode),
	    cmocka_unit_test(test_error_reply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
