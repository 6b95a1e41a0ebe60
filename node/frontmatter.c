/*
 * frontmatter.c - finds the YAML frontmatter block of a page and turns it
 * into a jansson object.  The strict path walks libyaml's event stream with
 * an explicit, capped stack; the lenient path reads `key: value` lines when
 * strict YAML fails.  It must never use libyaml's document loader, never
 * expand an alias, never recurse over input structure, and never do more
 * than linear work (plus libyaml's bounded lookahead) on any input.
 */
#include "frontmatter.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "cg_buf.h"
#include "cg_utf8.h"

/* ---------------------------------------------------------------- split */

/* Offset of the '\n' ending the line that starts at off, or len. */
static size_t
line_end(const char *t, size_t len, size_t off)
{
	const char *nl = memchr(t + off, '\n', len - off);

	return nl != NULL ? (size_t)(nl - t) : len;
}

/* True when t[off, end) is the 3-byte mark plus only spaces, tabs, CRs. */
static bool
is_delim(const char *t, size_t off, size_t end, const char *mark)
{
	if (end - off < 3 || memcmp(t + off, mark, 3) != 0)
		return false;
	for (size_t i = off + 3; i < end; i++)
		if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r')
			return false;
	return true;
}

static void
set_split(size_t *yaml_off, size_t *yaml_len, size_t *body_off, int *body_line,
          size_t yo, size_t yl, size_t bo, int bl)
{
	if (yaml_off != NULL)
		*yaml_off = yo;
	if (yaml_len != NULL)
		*yaml_len = yl;
	if (body_off != NULL)
		*body_off = bo;
	if (body_line != NULL)
		*body_line = bl;
}

int
cg_fm_split(const char *text, size_t len, size_t *yaml_off, size_t *yaml_len,
            size_t *body_off, int *body_line)
{
	size_t start = 0;
	size_t yaml_start;
	size_t off;
	size_t end;
	int line = 1;

	if (text == NULL)
		len = 0;
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		start = 3;
	set_split(yaml_off, yaml_len, body_off, body_line, 0, 0, start, 1);
	if (len == 0)
		return 0;
	end = line_end(text, len, start);
	if (end == len || !is_delim(text, start, end, "---"))
		return 0;
	yaml_start = end + 1;
	for (off = yaml_start; off < len && line < INT32_MAX - 1;
	     off = end + 1) {
		line++;
		end = line_end(text, len, off);
		if (is_delim(text, off, end, "---") ||
		    is_delim(text, off, end, "...")) {
			set_split(yaml_off, yaml_len, body_off, body_line,
			          yaml_start, off - yaml_start,
			          end < len ? end + 1 : len, line + 1);
			return 1;
		}
	}
	return 0;
}

/* -------------------------------------------------------------- scalars */

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

/* The JSON value of an untagged plain scalar (both paths use this). */
static json_t *
plain_value(const char *s, size_t n)
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

/* -------------------------------------------------------- strict (libyaml) */

/* Why the strict parse stopped; decides what the lenient reader may do. */
enum strict_fail {
	SF_NONE,    /* parsed */
	SF_SYNTAX,  /* malformed YAML or a non-scalar key: full recovery */
	SF_HOSTILE, /* alias, depth or node cap: top-level scalars only */
	SF_SHAPE,   /* well-formed, but the top level is not a mapping */
	SF_NOMEM,   /* out of memory */
};

/* One open collection. */
struct frame {
	json_t *node;   /* borrowed: owned by its parent or by builder.root */
	char *key;      /* owned key awaiting its value (mappings), or NULL */
	size_t key_len; /* bytes in key */
};

/* State of one event walk. */
struct builder {
	struct frame stack[CG_FM_MAX_DEPTH]; /* open collections */
	int depth;                           /* entries used in stack */
	json_t *root;                        /* owned result, or NULL */
	bool ended;                          /* the first document ended */
	bool done;                           /* and the event after it came */
	size_t nodes;                        /* nodes seen so far */
	size_t max_nodes;                    /* cap on nodes */
	enum strict_fail fail;               /* SF_NONE until a failure */
	cg_err *err;                         /* gets the first failure */
};

static int fail(struct builder *b, enum strict_fail kind, int code, size_t line,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Records the first failure with its 1-based YAML line; returns -1. */
static int
fail(struct builder *b, enum strict_fail kind, int code, size_t line,
     const char *fmt, ...)
{
	char msg[CG_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (b->fail == SF_NONE)
		b->fail = kind;
	cg_err_set(b->err, code, "YAML line %zu: %s", line, msg);
	return -1;
}

static int
count_node(struct builder *b, size_t line)
{
	if (++b->nodes > b->max_nodes)
		return fail(b, SF_HOSTILE, CG_ETOOBIG, line,
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
		return fail(b, SF_NOMEM, CG_ENOMEM, line, "out of memory");
	if (json_is_array(f->node)) {
		rc = json_array_append_new(f->node, v);
	} else {
		rc = json_object_setn_new(f->node, f->key, f->key_len, v);
		free(f->key);
		f->key = NULL;
	}
	if (rc != 0)
		return fail(b, SF_NOMEM, CG_ENOMEM, line, "cannot add a node");
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
	return plain_value(s, n);
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
			return fail(b, SF_SHAPE, CG_EPARSE, line,
			            "the top level is a scalar, not a mapping");
		}
		b->root = json_object();
		if (b->root == NULL)
			return fail(b, SF_NOMEM, CG_ENOMEM, line,
			            "out of memory");
		return 0;
	}
	f = &b->stack[b->depth - 1];
	if (json_is_object(f->node) && f->key == NULL) {
		f->key_len = ev->data.scalar.length;
		f->key = malloc(f->key_len + 1);
		if (f->key == NULL)
			return fail(b, SF_NOMEM, CG_ENOMEM, line,
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
		return fail(b, SF_SHAPE, CG_EPARSE, line,
		            "the top level is a sequence, not a mapping");
	if (f != NULL && json_is_object(f->node) && f->key == NULL)
		return fail(b, SF_SYNTAX, CG_EPARSE, line,
		            "a mapping key must be a scalar");
	if (b->depth == CG_FM_MAX_DEPTH)
		return fail(b, SF_HOSTILE, CG_ETOOBIG, line,
		            "nesting deeper than %d levels", CG_FM_MAX_DEPTH);
	v = is_map ? json_object() : json_array();
	if (f == NULL) {
		if (v == NULL)
			return fail(b, SF_NOMEM, CG_ENOMEM, line,
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
		return fail(b, SF_HOSTILE, CG_EPARSE, line,
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
		fail(b, SF_NOMEM, CG_ENOMEM, line, "out of memory");
		return;
	}
	if (p->error == YAML_READER_ERROR) {
		/* Reader errors carry a byte offset, not a mark. */
		size_t end = p->problem_offset < len ? p->problem_offset : len;

		line = 1;
		for (size_t i = 0; i < end; i++)
			line += yaml[i] == '\n';
		if (p->problem_value >= 0)
			fail(b, SF_SYNTAX, CG_EPARSE, line, "%s (0x%x)",
			     problem, (unsigned)p->problem_value);
		else
			fail(b, SF_SYNTAX, CG_EPARSE, line, "%s", problem);
		return;
	}
	fail(b, SF_SYNTAX, CG_EPARSE, line, "%s%s%s%s", problem,
	     p->context != NULL ? " (" : "",
	     p->context != NULL ? p->context : "",
	     p->context != NULL ? ")" : "");
}

/*
 * Walks the events of the first document (later ones are not read); *out
 * gets the object.
 */
static enum strict_fail
strict_parse(const char *yaml, size_t len, size_t max_nodes, json_t **out,
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
		return SF_NOMEM;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)yaml, len);
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	while (b.fail == SF_NONE && !b.done) {
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
	if (b.fail == SF_NONE && b.root == NULL) {
		b.root = json_object();
		if (b.root == NULL)
			fail(&b, SF_NOMEM, CG_ENOMEM, 1, "out of memory");
	}
	if (b.fail != SF_NONE) {
		json_decref(b.root);
		return b.fail;
	}
	*out = b.root;
	return SF_NONE;
}

/* ------------------------------------------------------------- lenient */

/* How indented lines after a key line extend its value. */
enum cont {
	CONT_NONE,    /* they do not */
	CONT_PLAIN,   /* a multi-line plain scalar: joined with spaces */
	CONT_LITERAL, /* a `|` block scalar: joined with newlines */
	CONT_FOLDED,  /* a `>` block scalar: joined with spaces */
};

/* State of the line reader. */
struct lenient {
	json_t *obj;     /* the result */
	bool hostile;    /* strict hit a cap: single-line scalars only */
	const char *key; /* key of the last key line (into the text) */
	size_t key_len;  /* bytes in key */
	json_t *list;    /* borrowed obj[key] collecting `- item`s, or NULL */
	bool may_list;   /* obj[key] is null; an item makes it a list */
	enum cont cont;  /* how continuation lines extend obj[key] */
	bool extended;   /* a continuation line was added to text */
	cg_buf text;     /* the value being continued */
	size_t nodes;    /* values stored, capped at CG_FM_MAX_NODES */
};

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Trims spaces and tabs on both ends of [*s, *s + *n). */
static void
trim(const char **s, size_t *n)
{
	while (*n > 0 && is_blank(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && is_blank((*s)[*n - 1]))
		(*n)--;
}

/* Cuts a YAML comment (`#` at the start or after a blank) and trims. */
static void
strip_comment(const char **s, size_t *n)
{
	for (size_t i = 0; i < *n; i++) {
		if ((*s)[i] == '#' && (i == 0 || is_blank((*s)[i - 1]))) {
			*n = i;
			break;
		}
	}
	trim(s, n);
}

/* True when only blanks or a comment follow. */
static bool
rest_empty(const char *s, size_t n)
{
	strip_comment(&s, &n);
	return n == 0;
}

/*
 * Reads the quoted scalar at s[0] (' or ") into out, undoing `''` and the
 * `\"`, `\\`, `\n`, `\t` escapes (other escapes are kept as written).
 * Returns the bytes consumed, both quotes included, or 0 when the quote does
 * not close on this line.
 */
static size_t
read_quoted(const char *s, size_t n, cg_buf *out)
{
	char q = s[0];
	int rc = 0;

	cg_buf_reset(out);
	for (size_t i = 1; i < n && rc == 0; i++) {
		char c = s[i];

		if (q == '\'' && c == '\'' && i + 1 < n && s[i + 1] == '\'') {
			i++;
		} else if (c == q) {
			return i + 1;
		} else if (q == '"' && c == '\\' && i + 1 < n) {
			c = s[++i];
			if (c == 'n' || c == 't')
				c = c == 'n' ? '\n' : '\t';
			else if (c != '"' && c != '\\' && c != '/')
				rc = cg_buf_putc(out, '\\');
		}
		if (rc == 0)
			rc = cg_buf_putc(out, c);
	}
	return 0;
}

/* One flow-list item at s[*i]; NULL when it is not a simple item. */
static json_t *
flow_item(const char *s, size_t n, size_t *i, cg_buf *tmp)
{
	size_t start = *i;
	const char *p;
	size_t len;

	if (s[start] == '"' || s[start] == '\'') {
		len = read_quoted(s + start, n - start, tmp);
		if (len == 0)
			return NULL;
		*i = start + len;
		return json_stringn(cg_buf_str(tmp), tmp->len);
	}
	while (*i < n && s[*i] != ',' && s[*i] != ']') {
		if (strchr("[{}", s[*i]) != NULL)
			return NULL;
		(*i)++;
	}
	p = s + start;
	len = *i - start;
	trim(&p, &len);
	return len > 0 ? plain_value(p, len) : NULL;
}

/*
 * Parses a one-line flow list of plain or quoted items, `[a, "b, c"]`, into
 * a new array; NULL when the value is anything else (nested, unclosed,
 * text after the `]`).
 */
static json_t *
flow_list(struct lenient *l, const char *s, size_t n)
{
	json_t *arr = json_array();
	size_t i = 1;

	while (arr != NULL) {
		json_t *item;

		while (i < n && is_blank(s[i]))
			i++;
		if (i < n && s[i] == ']' && rest_empty(s + i + 1, n - i - 1))
			return arr;
		if (i >= n || l->nodes >= CG_FM_MAX_NODES)
			break;
		item = flow_item(s, n, &i, &l->text);
		if (item == NULL || json_array_append_new(arr, item) != 0)
			break;
		l->nodes++;
		while (i < n && is_blank(s[i]))
			i++;
		if (i < n && s[i] == ',')
			i++;
		else if (i >= n || s[i] != ']')
			break;
	}
	json_decref(arr);
	return NULL;
}

/* Stores obj[key] = v (v stolen); counts it against the node cap. */
static bool
store(struct lenient *l, json_t *v)
{
	if (v == NULL ||
	    json_object_setn_new(l->obj, l->key, l->key_len, v) != 0)
		return false;
	l->nodes++;
	return true;
}

/* Ends a pending continuation, storing the joined text. */
static void
flush(struct lenient *l)
{
	if (l->cont != CONT_NONE && l->extended) {
		while (l->cont == CONT_LITERAL && l->text.len > 0 &&
		       l->text.data[l->text.len - 1] == '\n')
			l->text.data[--l->text.len] = '\0';
		(void)store(l, json_stringn(cg_buf_str(&l->text), l->text.len));
	}
	l->cont = CONT_NONE;
	l->extended = false;
	cg_buf_reset(&l->text);
}

/* Appends one continuation line (already trimmed) to the pending value. */
static void
extend(struct lenient *l, const char *s, size_t n)
{
	bool first = l->text.len == 0 && !l->extended;

	if (l->cont == CONT_LITERAL) {
		if (!first)
			(void)cg_buf_putc(&l->text, '\n');
	} else if (n == 0) {
		return;
	} else if (l->text.len > 0) {
		(void)cg_buf_putc(&l->text, ' ');
	}
	(void)cg_buf_append(&l->text, s, n);
	l->extended = true;
}

/* True for a block scalar header: `|` or `>` with +, - or a digit. */
static bool
block_header(const char *v, size_t n, enum cont *mode)
{
	size_t i = 1;

	if (n == 0 || (v[0] != '|' && v[0] != '>'))
		return false;
	while (i < n &&
	       (v[i] == '+' || v[i] == '-' || (v[i] >= '0' && v[i] <= '9')))
		i++;
	if (!rest_empty(v + i, n - i))
		return false;
	*mode = v[0] == '|' ? CONT_LITERAL : CONT_FOLDED;
	return true;
}

/* A quoted value with nothing but a comment after it; NULL otherwise. */
static json_t *
quoted_value(struct lenient *l, const char *v, size_t n)
{
	size_t used = read_quoted(v, n, &l->text);
	json_t *s;

	if (used == 0 || !rest_empty(v + used, n - used))
		return NULL;
	s = json_stringn(cg_buf_str(&l->text), l->text.len);
	cg_buf_reset(&l->text);
	return s;
}

/* The value of a plain scalar; starts a possible continuation. */
static json_t *
plain_line_value(struct lenient *l, const char *v, size_t n)
{
	json_t *j;

	cg_buf_reset(&l->text);
	strip_comment(&v, &n);
	j = plain_value(v, n);
	if (json_is_null(j)) {
		l->may_list = !l->hostile;
	} else if (json_is_string(j) && !l->hostile) {
		l->cont = CONT_PLAIN;
		(void)cg_buf_append(&l->text, v, n);
	}
	return j;
}

/* A `key: value` line: sets obj[key] and the state for the next lines. */
static void
on_key(struct lenient *l, const char *key, size_t klen, const char *v, size_t n)
{
	json_t *j = NULL;
	enum cont mode;

	flush(l);
	l->list = NULL;
	l->may_list = false;
	l->key = key;
	l->key_len = klen;
	trim(&v, &n);
	if (n > 0 && (v[0] == '"' || v[0] == '\''))
		j = quoted_value(l, v, n);
	else if (l->hostile && n > 0 && strchr("[{&*!|>", v[0]) != NULL)
		return; /* after a cap, no structure is recovered */
	else if (n > 0 && v[0] == '[')
		j = flow_list(l, v, n);
	else if (block_header(v, n, &mode)) {
		l->cont = mode;
		j = json_string("");
	}
	if (j == NULL)
		j = plain_line_value(l, v, n);
	(void)store(l, j);
}

/* A `- item` line (text after the dash); appends to the current list. */
static void
on_item(struct lenient *l, const char *v, size_t n)
{
	json_t *j = NULL;

	flush(l);
	if (l->list == NULL) {
		/* obj owns the array; l->list is borrowed from it. */
		l->list = json_array();
		if (!store(l, l->list)) {
			l->list = NULL;
			return;
		}
		l->may_list = false;
	}
	trim(&v, &n);
	if (n > 0 && (v[0] == '"' || v[0] == '\''))
		j = quoted_value(l, v, n);
	if (j == NULL) {
		strip_comment(&v, &n);
		j = plain_value(v, n);
	}
	if (j != NULL && json_array_append_new(l->list, j) == 0)
		l->nodes++;
}

/* True for a `-` item marker: a dash then a blank or the end. */
static bool
is_item(const char *s, size_t n)
{
	return n > 0 && s[0] == '-' && (n == 1 || is_blank(s[1]));
}

/* Length of the key at the start of a `key: value` line, or 0. */
static size_t
key_line(const char *s, size_t n, size_t *colon)
{
	size_t k = 0;
	size_t i;

	while (k < n &&
	       (s[k] == '_' || s[k] == '-' || (s[k] >= '0' && s[k] <= '9') ||
	        ((s[k] | 0x20) >= 'a' && (s[k] | 0x20) <= 'z')))
		k++;
	for (i = k; i < n && is_blank(s[i]); i++)
		;
	if (k == 0 || i == n || s[i] != ':' ||
	    (i + 1 < n && !is_blank(s[i + 1])))
		return 0;
	*colon = i;
	return k;
}

/* An indented line: a continuation or a list item. */
static void
on_indented(struct lenient *l, const char *s, size_t n)
{
	trim(&s, &n);
	if (l->cont == CONT_LITERAL || l->cont == CONT_FOLDED)
		extend(l, s, n);
	else if (is_item(s, n) && (l->list != NULL || l->may_list))
		on_item(l, s + 1, n - 1);
	else if (l->cont == CONT_PLAIN && n > 0 && s[0] != '#')
		extend(l, s, n);
}

/* One line, trailing blanks and CR already removed. */
static void
on_line(struct lenient *l, const char *s, size_t n)
{
	size_t colon;
	size_t klen;

	if (n == 0) {
		if (l->cont == CONT_LITERAL)
			extend(l, s, n);
		return;
	}
	if (is_blank(s[0])) {
		on_indented(l, s, n);
		return;
	}
	flush(l);
	if (s[0] == '#')
		return;
	if (is_item(s, n) && (l->list != NULL || l->may_list)) {
		on_item(l, s + 1, n - 1);
		return;
	}
	klen = key_line(s, n, &colon);
	if (klen > 0) {
		on_key(l, s, klen, s + colon + 1, n - colon - 1);
		return;
	}
	l->list = NULL;
	l->may_list = false;
}

/*
 * Recovers top-level keys line by line from (sanitized) text.  Returns
 * LENIENT when a key was found, else BROKEN; *out is always set.
 */
static enum cg_fm_status
lenient_parse(const char *yaml, size_t len, bool hostile, json_t **out)
{
	struct lenient l;
	char *text;
	size_t n;
	size_t off = 0;

	memset(&l, 0, sizeof(l));
	l.hostile = hostile;
	l.obj = json_object();
	cg_buf_init(&l.text, (size_t)CG_FM_MAX_BYTES * 2);
	text = cg_utf8_sanitize(yaml, len, &n, NULL);
	while (text != NULL && l.obj != NULL && off < n &&
	       l.nodes < CG_FM_MAX_NODES) {
		size_t end = line_end(text, n, off);
		size_t e = end;

		while (e > off &&
		       (is_blank(text[e - 1]) || text[e - 1] == '\r'))
			e--;
		on_line(&l, text + off, e - off);
		off = end + 1;
	}
	if (l.obj != NULL)
		flush(&l);
	cg_buf_fini(&l.text);
	free(text);
	*out = l.obj;
	return json_object_size(l.obj) > 0 ? CG_FM_LENIENT : CG_FM_BROKEN;
}

/* ---------------------------------------------------------------- parse */

enum cg_fm_status
cg_fm_parse(const char *yaml, size_t len, json_t **out, cg_err *err)
{
	cg_err why;
	json_t *obj = NULL;
	enum strict_fail sf;
	enum cg_fm_status st = CG_FM_BROKEN;

	if (out == NULL) {
		cg_err_set(err, CG_EINVAL, "cg_fm_parse: out is NULL");
		return CG_FM_BROKEN;
	}
	if (len > CG_FM_MAX_BYTES) {
		cg_err_set(err, CG_ETOOBIG,
		           "frontmatter is %zu bytes, over the %d-byte limit",
		           len, CG_FM_MAX_BYTES);
		*out = json_object();
		return CG_FM_BROKEN;
	}
	if (yaml == NULL) {
		yaml = "";
		len = 0;
	}
	cg_err_clear(&why);
	sf = strict_parse(yaml, len, CG_FM_MAX_NODES, &obj, &why);
	if (sf == SF_NONE) {
		*out = obj;
		return CG_FM_OK;
	}
	if (sf == SF_SYNTAX || sf == SF_HOSTILE)
		st = lenient_parse(yaml, len, sf == SF_HOSTILE, &obj);
	if (obj == NULL)
		obj = json_object();
	cg_err_set(err, why.code, "%s", why.msg);
	*out = obj;
	return st;
}

int
cg_yaml_load(const char *yaml, size_t len, size_t max_bytes, size_t max_nodes,
             json_t **out, cg_err *err)
{
	enum strict_fail sf;
	cg_err local;

	*out = NULL;
	if (len > max_bytes)
		return cg_err_set(err, CG_ETOOBIG,
		                  "%zu bytes of YAML, over the %zu-byte limit",
		                  len, max_bytes);
	cg_err_clear(&local);
	sf = strict_parse(yaml != NULL ? yaml : "", yaml != NULL ? len : 0,
	                  max_nodes, out, &local);
	if (sf == SF_NONE)
		return 0;
	/* The code follows the failure, not what err held before. */
	return cg_err_set(err,
	                  sf == SF_NOMEM     ? CG_ENOMEM
	                  : sf == SF_HOSTILE ? CG_ETOOBIG
	                                     : CG_EPARSE,
	                  "%s", local.msg);
}
