/*
 * cg_yaml.c - the one bounded YAML reader: libyaml's event stream walked
 * with an explicit, capped stack into a jansson value.  It must never use
 * libyaml's document loader, never expand an alias, never recurse over
 * input structure, and never do more than linear work (plus libyaml's
 * bounded lookahead) on any input.
 */
#include "common/cg_yaml.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

/* ------------------------------------------------------------- scalars */

static bool
word_in(const char *s, size_t n, const char *const *words)
{
	for (; *words != NULL; words++)
		if (strlen(*words) == n && memcmp(s, *words, n) == 0)
			return true;
	return false;
}

/*
 * Parses -?(0|[1-9][0-9]*) within int64.  Leading zeros, '+', '_' and
 * other bases stay strings (zip codes, "007", versions).
 */
static bool
parse_int(const char *s, size_t n, json_int_t *out)
{
	bool neg = n > 0 && s[0] == '-';
	size_t i = neg ? 1 : 0;
	uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	uint64_t v = 0;

	if (i == n || (s[i] == '0' && n - i > 1))
		return false;
	for (; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (limit - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (neg)
		*out =
		    v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(json_int_t)v;
	else
		*out = (json_int_t)v;
	return true;
}

json_t *
cg_yaml_scalar(const char *s, size_t n)
{
	static const char *const nulls[] = {"",     "~",    "null",
	                                    "Null", "NULL", NULL};
	static const char *const trues[] = {"true", "True", "TRUE", NULL};
	static const char *const falses[] = {"false", "False", "FALSE", NULL};
	json_int_t v;

	if (word_in(s, n, nulls))
		return json_null();
	if (word_in(s, n, trues))
		return json_true();
	if (word_in(s, n, falses))
		return json_false();
	if (parse_int(s, n, &v))
		return json_integer(v);
	return json_stringn(s, n);
}

/* -------------------------------------------------------------- events */

/* One open collection. */
struct frame {
	json_t *node;   /* borrowed: owned by its parent or by builder.root */
	char *key;      /* owned key awaiting its value (mappings), or NULL */
	size_t key_len; /* bytes in key */
};

/* State of one event walk. */
struct builder {
	struct frame stack[CG_YAML_MAX_DEPTH]; /* open collections */
	int depth;                             /* entries used in stack */
	json_t *root;                          /* owned result, or NULL */
	bool ended;                            /* the first document ended */
	bool done;                             /* and the event after it came */
	size_t nodes;                          /* nodes seen so far */
	size_t max_nodes;                      /* cap on nodes */
	enum cg_yaml_fail fail;                /* CG_YAML_OK until a failure */
	cg_err *err;                           /* gets the first failure */
};

static int fail(struct builder *b, enum cg_yaml_fail kind, int code,
                size_t line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Records the first failure with its 1-based YAML line; returns -1. */
static int
fail(struct builder *b, enum cg_yaml_fail kind, int code, size_t line,
     const char *fmt, ...)
{
	char msg[CG_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (b->fail == CG_YAML_OK)
		b->fail = kind;
	cg_err_set(b->err, code, "YAML line %zu: %s", line, msg);
	return -1;
}

static int
count_node(struct builder *b, size_t line)
{
	if (++b->nodes > b->max_nodes)
		return fail(b, CG_YAML_HOSTILE, CG_ETOOBIG, line,
		            "more than %zu nodes", b->max_nodes);
	return 0;
}

/* Adds v (a new reference, stolen even on failure) to the open collection. */
static int
attach(struct builder *b, json_t *v, size_t line)
{
	struct frame *f = &b->stack[b->depth - 1];
	int rc;

	if (v == NULL)
		return fail(b, CG_YAML_NOMEM, CG_ENOMEM, line, "out of memory");
	if (json_is_array(f->node)) {
		rc = json_array_append_new(f->node, v);
	} else {
		rc = json_object_setn_new(f->node, f->key, f->key_len, v);
		free(f->key);
		f->key = NULL;
	}
	if (rc != 0)
		return fail(b, CG_YAML_NOMEM, CG_ENOMEM, line,
		            "cannot add a node");
	return 0;
}

static json_t *
scalar_value(const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;

	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    ev->data.scalar.tag != NULL)
		return json_stringn(s, n);
	return cg_yaml_scalar(s, n);
}

static int
on_scalar(struct builder *b, const yaml_event_t *ev, size_t line)
{
	struct frame *f;
	json_t *v;

	if (count_node(b, line) != 0)
		return -1;
	if (b->depth == 0) {
		/* A null root is an empty document: an empty mapping. */
		v = scalar_value(ev);
		if (!json_is_null(v)) {
			json_decref(v);
			return fail(b, CG_YAML_SHAPE, CG_EPARSE, line,
			            "the top level is a scalar, not a mapping");
		}
		b->root = json_object();
		if (b->root == NULL)
			return fail(b, CG_YAML_NOMEM, CG_ENOMEM, line,
			            "out of memory");
		return 0;
	}
	f = &b->stack[b->depth - 1];
	if (json_is_object(f->node) && f->key == NULL) {
		f->key_len = ev->data.scalar.length;
		f->key = malloc(f->key_len + 1);
		if (f->key == NULL)
			return fail(b, CG_YAML_NOMEM, CG_ENOMEM, line,
			            "out of memory");
		memcpy(f->key, ev->data.scalar.value, f->key_len + 1);
		return 0;
	}
	return attach(b, scalar_value(ev), line);
}

static int
on_start(struct builder *b, bool is_map, size_t line)
{
	struct frame *f = b->depth > 0 ? &b->stack[b->depth - 1] : NULL;
	json_t *v;

	if (count_node(b, line) != 0)
		return -1;
	if (f == NULL && !is_map)
		return fail(b, CG_YAML_SHAPE, CG_EPARSE, line,
		            "the top level is a sequence, not a mapping");
	if (f != NULL && json_is_object(f->node) && f->key == NULL)
		return fail(b, CG_YAML_SYNTAX, CG_EPARSE, line,
		            "a mapping key must be a scalar");
	if (b->depth == CG_YAML_MAX_DEPTH)
		return fail(b, CG_YAML_HOSTILE, CG_ETOOBIG, line,
		            "nesting deeper than %d levels", CG_YAML_MAX_DEPTH);
	v = is_map ? json_object() : json_array();
	if (f == NULL) {
		if (v == NULL)
			return fail(b, CG_YAML_NOMEM, CG_ENOMEM, line,
			            "out of memory");
		b->root = v;
	} else if (attach(b, v, line) != 0) {
		return -1;
	}
	b->stack[b->depth].node = v;
	b->stack[b->depth].key = NULL;
	b->stack[b->depth].key_len = 0;
	b->depth++;
	return 0;
}

static int
on_event(struct builder *b, const yaml_event_t *ev)
{
	size_t line = ev->start_mark.line + 1;

	/*
	 * libyaml ends a document implicitly before junk (`&a &a x`) and
	 * only fails on the next event: read one more, ignore what it is.
	 */
	if (b->ended) {
		b->done = true;
		return 0;
	}
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return fail(b, CG_YAML_HOSTILE, CG_EPARSE, line,
		            "alias *%.40s is not allowed",
		            (const char *)ev->data.alias.anchor);
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev, line);
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		return on_start(b, ev->type == YAML_MAPPING_START_EVENT, line);
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		if (b->depth > 0) {
			b->depth--;
			free(b->stack[b->depth].key);
			b->stack[b->depth].key = NULL;
		}
		return 0;
	case YAML_DOCUMENT_END_EVENT:
		b->ended = true;
		return 0;
	case YAML_STREAM_END_EVENT:
		b->done = true;
		return 0;
	default:
		return 0;
	}
}

/* Reports libyaml's own error with the line it points at. */
static void
parser_fail(struct builder *b, const yaml_parser_t *p, const char *yaml,
            size_t len)
{
	const char *problem = p->problem != NULL ? p->problem : "bad YAML";
	size_t line = p->problem_mark.line + 1;

	if (p->error == YAML_MEMORY_ERROR) {
		fail(b, CG_YAML_NOMEM, CG_ENOMEM, line, "out of memory");
		return;
	}
	if (p->error == YAML_READER_ERROR) {
		/* Reader errors carry a byte offset, not a mark. */
		size_t end = p->problem_offset < len ? p->problem_offset : len;

		line = 1;
		for (size_t i = 0; i < end; i++)
			line += yaml[i] == '\n';
		if (p->problem_value >= 0)
			fail(b, CG_YAML_SYNTAX, CG_EPARSE, line, "%s (0x%x)",
			     problem, (unsigned)p->problem_value);
		else
			fail(b, CG_YAML_SYNTAX, CG_EPARSE, line, "%s", problem);
		return;
	}
	fail(b, CG_YAML_SYNTAX, CG_EPARSE, line, "%s%s%s%s", problem,
	     p->context != NULL ? " (" : "",
	     p->context != NULL ? p->context : "",
	     p->context != NULL ? ")" : "");
}

enum cg_yaml_fail
cg_yaml_strict(const char *yaml, size_t len, size_t max_nodes, json_t **out,
               cg_err *err)
{
	struct builder b;
	yaml_parser_t p;
	yaml_event_t ev;

	memset(&b, 0, sizeof(b));
	b.err = err;
	b.max_nodes = max_nodes;
	if (!yaml_parser_initialize(&p)) {
		cg_err_set(err, CG_ENOMEM, "out of memory");
		return CG_YAML_NOMEM;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)yaml, len);
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	while (b.fail == CG_YAML_OK && !b.done) {
		if (!yaml_parser_parse(&p, &ev)) {
			parser_fail(&b, &p, yaml, len);
			break;
		}
		(void)on_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	for (int i = 0; i < b.depth; i++)
		free(b.stack[i].key);
	if (b.fail == CG_YAML_OK && b.root == NULL) {
		b.root = json_object();
		if (b.root == NULL)
			fail(&b, CG_YAML_NOMEM, CG_ENOMEM, 1, "out of memory");
	}
	if (b.fail != CG_YAML_OK) {
		json_decref(b.root);
		return b.fail;
	}
	*out = b.root;
	return CG_YAML_OK;
}

int
cg_yaml_load(const char *yaml, size_t len, size_t max_bytes, size_t max_nodes,
             json_t **out, cg_err *err)
{
	enum cg_yaml_fail sf;
	cg_err local;

	*out = NULL;
	if (len > max_bytes)
		return cg_err_set(err, CG_ETOOBIG,
		                  "%zu bytes of YAML, over the %zu-byte limit",
		                  len, max_bytes);
	cg_err_clear(&local);
	sf = cg_yaml_strict(yaml != NULL ? yaml : "", yaml != NULL ? len : 0,
	                    max_nodes, out, &local);
	if (sf == CG_YAML_OK)
		return 0;
	/* The code follows the failure, not what err held before. */
	return cg_err_set(err,
	                  sf == CG_YAML_NOMEM     ? CG_ENOMEM
	                  : sf == CG_YAML_HOSTILE ? CG_ETOOBIG
	                                          : CG_EPARSE,
	                  "%s", local.msg);
}
