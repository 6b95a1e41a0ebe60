/*
 * reply_bound.c - the bound of a node's reply, from its request (see
 * reply_bound.h).  One table says, per op, which argument sizes the reply
 * and which result array it bounds; the byte checks are a single pass
 * over the bytes that stops as soon as the budget is spent.  It must not
 * parse the reply itself (that is what it protects) nor print.
 */
#include "proto/reply_bound.h"

#include <stdbool.h>
#include <string.h>

#include "proto/limits.h"
#include "proto/wire.h"

/* How an op's reply is sized by its request: items = the integer
 * argument num (default dflt) plus the integer argument add, or the
 * length of the array argument arr, times the sources asked when
 * per_source; list (and alt) is the result array they bound. */
struct op_bound {
	const char *op;
	const char *num;  /* an integer argument, or NULL */
	const char *add;  /* an integer argument added (list's offset) */
	const char *arr;  /* an array argument, or NULL */
	const char *list; /* the result array checked, or NULL */
	const char *alt;
	int dflt;         /* num's default */
	bool per_source;  /* times the sources asked */
	bool sized_bytes; /* the bytes follow the items too (search hits) */
};

static const struct op_bound ops[] = {
    {"search", "limit", NULL, NULL, "hits", "candidates", 20, true, true},
    {"fetch", NULL, NULL, "items", "hits", NULL, 0, false, true},
    {"peek", NULL, NULL, "items", "pages", NULL, 0, false, false},
    {"resolve", NULL, NULL, "names", "results", NULL, 0, false, false},
    {"list", "limit", "offset", NULL, "items", NULL, CG_LIST_DEFAULT_LIMIT,
     false, false},
    {"grep", "max", NULL, NULL, "matches", NULL, CG_GREP_DEFAULT_MAX, false,
     false},
    {"claims", NULL, NULL, "keys", NULL, NULL, 0, true, false},
    {"concept", "limit", NULL, "targets", NULL, NULL, 3, true, false},
    {"stats", NULL, NULL, NULL, NULL, NULL, 0, false, false},
    {"suggest", NULL, NULL, "words", NULL, NULL, 0, true, false},
};

/* A non-negative integer argument, or dflt. */
static size_t
arg_count(const json_t *args, const char *key, int dflt)
{
	const json_t *v = key ? json_object_get(args, key) : NULL;
	json_int_t n = json_is_integer(v) ? json_integer_value(v) : dflt;

	return n > 0 ? (size_t)n : 0;
}

/* The items a reply of op o may carry, from args. */
static size_t
items_of(const struct op_bound *o, const json_t *args)
{
	size_t n = 0;
	size_t nsrc = json_array_size(json_object_get(args, "sources"));

	if (o->num != NULL)
		n = arg_count(args, o->num, o->dflt);
	if (o->add != NULL)
		n += arg_count(args, o->add, 0);
	if (o->arr != NULL) {
		size_t len = json_array_size(json_object_get(args, o->arr));

		n = o->num != NULL ? n * len : len;
	}
	if (o->per_source)
		n *= nsrc > 0 ? nsrc : 1;
	return n;
}

void
cg_reply_bound_of(cg_reply_bound *b, const json_t *req)
{
	const char *op = json_string_value(json_object_get(req, "op"));
	const json_t *args = json_object_get(req, "args");

	*b = (cg_reply_bound){op ? op : "",
	                      CG_WIRE_MAX_REPLY,
	                      CG_REPLY_TOKENS_DEFAULT,
	                      NULL,
	                      NULL,
	                      0};
	for (size_t i = 0; op != NULL && i < sizeof(ops) / sizeof(ops[0]);
	     i++) {
		const struct op_bound *o = &ops[i];
		size_t n;

		if (strcmp(op, o->op) != 0)
			continue;
		/* Every count is capped by the protocol's own limits far
		 * below where these products could overflow. */
		n = items_of(o, args);
		if (n > CG_WIRE_MAX_REPLY)
			n = CG_WIRE_MAX_REPLY;
		b->tokens = CG_REPLY_TOKENS_BASE + n * CG_REPLY_TOKENS_PER_ITEM;
		if (o->sized_bytes &&
		    n < (CG_WIRE_MAX_REPLY - CG_REPLY_BYTES_BASE) /
		            CG_REPLY_BYTES_PER_ITEM)
			b->bytes =
			    CG_REPLY_BYTES_BASE + n * CG_REPLY_BYTES_PER_ITEM;
		b->list = o->list;
		b->alt = o->alt;
		b->items = n;
		return;
	}
}

/* Structural tokens of p outside strings, counted up to max + 1. */
static size_t
count_tokens(const unsigned char *p, size_t len, size_t max)
{
	size_t n = 0;
	bool in_str = false;
	bool esc = false;

	for (size_t i = 0; i < len && n <= max; i++) {
		unsigned char c = p[i];

		if (in_str) {
			if (esc)
				esc = false;
			else if (c == '\\')
				esc = true;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '{' || c == '[' || c == ',' || c == ':') {
			n++;
		}
	}
	return n;
}

int
cg_reply_bound_bytes(const cg_reply_bound *b, const void *buf, size_t len,
                     cg_err *err)
{
	const unsigned char *p = buf;
	size_t i = 0;

	if (len > b->bytes)
		return cg_err_set(err, CG_EPROTO,
		                  "bad reply: %zu bytes, over the %zu a %s "
		                  "reply may hold",
		                  len, b->bytes, b->op);
	while (i < len &&
	       (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (i == len || p[i] != '{')
		return cg_err_set(err, CG_EPROTO, "bad reply");
	if (count_tokens(p + i, len - i, b->tokens) > b->tokens)
		return cg_err_set(err, CG_EPROTO,
		                  "bad reply: more than %zu JSON tokens for a "
		                  "%s of %zu items",
		                  b->tokens, b->op, b->items);
	return 0;
}

static int
check_list(const cg_reply_bound *b, const json_t *res, const char *key,
           cg_err *err)
{
	size_t n;

	if (key == NULL)
		return 0;
	n = json_array_size(json_object_get(res, key));
	if (n <= b->items)
		return 0;
	return cg_err_set(err, CG_EPROTO,
	                  "bad reply: %zu %s for a %s of at most %zu", n, key,
	                  b->op, b->items);
}

int
cg_reply_bound_items(const cg_reply_bound *b, const json_t *reply, cg_err *err)
{
	const json_t *res = json_object_get(reply, "result");
	int rc = check_list(b, res, b->list, err);

	return rc != 0 ? rc : check_list(b, res, b->alt, err);
}
