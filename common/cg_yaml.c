/*
 * cg_yaml.c - the one bounded YAML reader: libyaml's event stream walked
 * with an explicit, capped stack into a jansson value.  It must never use
 * libyaml's document loader, never expand an alias past the caps, never
 * recurse over input structure, and never do more than linear work in the
 * size of the expanded result (plus libyaml's bounded lookahead) on any
 * input.
 *
 * Aliases: an anchored node is remembered with its size (the nodes it
 * holds, its own aliases expanded); an alias adds a copy of it and counts
 * that size against the caller's node cap and against
 * CG_YAML_MAX_ALIAS_NODES, so the value built never holds more than
 * max_nodes nodes, nor more than CG_YAML_MAX_ALIAS_NODES of them copied by
 * aliases, whatever the aliases nest (the billion-laughs guard: the work
 * and memory an alias can cost are bounded by a constant, not by the
 * caller's node cap; an alias copies one node at least, so this also
 * caps the aliases of a document);
 * an alias of a node still open (a cycle) or of no anchor is refused.
 */
#include "common/cg_yaml.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "common/cg_analyzer.h"

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

/* An anchor seen in the document. */
struct anchor {
	char *name;   /* owned */
	json_t *node; /* a reference of ours to the anchored value */
	size_t start; /* builder.nodes before the node */
	size_t size;  /* nodes it holds, expanded, once closed */
	int depth;    /* the stack depth its collection opened at */
	bool open;    /* a collection whose end has not come yet */
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
	struct anchor *anchors;                /* owned, nanchors used */
	size_t nanchors, cap_anchors;
	size_t alias_nodes;     /* nodes they copied */
	enum cg_yaml_fail fail; /* CG_YAML_OK until a failure */
	cg_err *err;            /* gets the first failure */
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

/* Remembers the anchor name (may be NULL: none) of node, which starts at
 * the current count; a collection stays open until its end event.
 * gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the name is
 * stored in b->anchors, which anchors_free frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
anchor_add(struct builder *b, const yaml_char_t *name, json_t *node,
           bool collection, size_t line)
{
	struct anchor *a;

	if (name == NULL)
		return 0;
	if (b->nanchors == b->cap_anchors) {
		size_t cap = b->cap_anchors ? 2 * b->cap_anchors : 8;
		struct anchor *v = realloc(b->anchors, cap * sizeof(*v));

		if (v == NULL)
			return fail(b, CG_YAML_NOMEM, CG_ENOMEM, line,
			            "out of memory");
		b->anchors = v;
		b->cap_anchors = cap;
	}
	a = &b->anchors[b->nanchors];
	a->name = strdup((const char *)name);
	if (a->name == NULL)
		return fail(b, CG_YAML_NOMEM, CG_ENOMEM, line, "out of memory");
	a->node = json_incref(node);
	a->start = b->nodes - 1; /* the node itself is counted already */
	a->size = 1;
	a->depth = b->depth;
	a->open = collection;
	b->nanchors++;
	return 0;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* Closes the anchors of the collection ending at depth (before the pop). */
static void
anchors_close(struct builder *b, int depth)
{
	for (size_t i = b->nanchors; i-- > 0;)
		if (b->anchors[i].open && b->anchors[i].depth == depth) {
			b->anchors[i].open = false;
			b->anchors[i].size = b->nodes - b->anchors[i].start;
		}
}

static void
anchors_free(struct builder *b)
{
	for (size_t i = 0; i < b->nanchors; i++) {
		free(b->anchors[i].name);
		json_decref(b->anchors[i].node);
	}
	free(b->anchors);
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
		            "out of memory (cannot add a node)");
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
		json_t *k = NULL;
		int rc;

		f->key_len = ev->data.scalar.length;
		f->key = malloc(f->key_len + 1);
		if (f->key == NULL)
			return fail(b, CG_YAML_NOMEM, CG_ENOMEM, line,
			            "out of memory");
		memcpy(f->key, ev->data.scalar.value, f->key_len + 1);
		if (ev->data.scalar.anchor == NULL)
			return 0;
		k = json_stringn(f->key, f->key_len);
		rc = k != NULL
		         ? anchor_add(b, ev->data.scalar.anchor, k, false, line)
		         : fail(b, CG_YAML_NOMEM, CG_ENOMEM, line,
		                "out of memory");
		json_decref(k);
		return rc;
	}
	v = scalar_value(ev);
	if (anchor_add(b, ev->data.scalar.anchor, v, false, line) != 0) {
		json_decref(v);
		return -1;
	}
	return attach(b, v, line);
}

/* An alias: a copy of its anchor's value (or its text as a key), the
 * anchor's expanded size counted against the node cap. */
static int
on_alias(struct builder *b, const yaml_event_t *ev, size_t line)
{
	const char *name = (const char *)ev->data.alias.anchor;
	struct frame *f = b->depth > 0 ? &b->stack[b->depth - 1] : NULL;
	struct anchor *a = NULL;

	for (size_t i = b->nanchors; i-- > 0 && a == NULL;)
		if (strcmp(b->anchors[i].name, name) == 0)
			a = &b->anchors[i];
	if (a == NULL)
		return fail(b, CG_YAML_HOSTILE, CG_EPARSE, line,
		            "alias *%.40s names no anchor before it", name);
	if (a->open)
		return fail(b, CG_YAML_HOSTILE, CG_EPARSE, line,
		            "alias *%.40s is inside its own anchor", name);
	if (a->size > CG_YAML_MAX_ALIAS_NODES - b->alias_nodes ||
	    a->size > b->max_nodes - b->nodes)
		return fail(b, CG_YAML_HOSTILE, CG_ETOOBIG, line,
		            "alias *%.40s: aliases expand to more than %zu "
		            "nodes",
		            name,
		            b->max_nodes < CG_YAML_MAX_ALIAS_NODES
		                ? b->max_nodes
		                : (size_t)CG_YAML_MAX_ALIAS_NODES);
	b->alias_nodes += a->size;
	b->nodes += a->size;
	if (f == NULL)
		return fail(b, CG_YAML_SHAPE, CG_EPARSE, line,
		            "the top level is an alias, not a mapping");
	if (json_is_object(f->node) && f->key == NULL) {
		if (!json_is_string(a->node))
			return fail(b, CG_YAML_SYNTAX, CG_EPARSE, line,
			            "a mapping key must be a scalar");
		f->key_len = json_string_length(a->node);
		f->key = malloc(f->key_len + 1);
		if (f->key == NULL)
			return fail(b, CG_YAML_NOMEM, CG_ENOMEM, line,
			            "out of memory");
		memcpy(f->key, json_string_value(a->node), f->key_len + 1);
		return 0;
	}
	return attach(b, json_deep_copy(a->node), line);
}

static int
on_start(struct builder *b, bool is_map, const yaml_char_t *anchor, size_t line)
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
	return anchor_add(b, anchor, v, true, line);
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
		return on_alias(b, ev, line);
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev, line);
	case YAML_MAPPING_START_EVENT:
		return on_start(b, true, ev->data.mapping_start.anchor, line);
	case YAML_SEQUENCE_START_EVENT:
		return on_start(b, false, ev->data.sequence_start.anchor, line);
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		anchors_close(b, b->depth);
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
	anchors_free(&b);
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
	/* The code follows the failure (the one fail() recorded: a cap is
	 * too_big, a cyclic or unknown alias a parse error), not what err
	 * held before. */
	return cg_err_set(err,
	                  local.code != 0         ? local.code
	                  : sf == CG_YAML_NOMEM   ? CG_ENOMEM
	                  : sf == CG_YAML_HOSTILE ? CG_ETOOBIG
	                                          : CG_EPARSE,
	                  "%s", local.msg);
}
