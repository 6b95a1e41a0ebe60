/*
 * frontmatter.c - finds the YAML frontmatter block of a page and turns it
 * into a jansson object.  The strict path is common/cg_yaml.h's bounded
 * event reader; the lenient path reads `key: value` lines when strict YAML
 * fails.  It must never expand an alias past cg_yaml's caps, never recurse
 * over input structure, and never do more than linear work on any input.
 */
#include "page/frontmatter.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "common/cg_str.h"
#include "common/cg_utf8.h"
#include "common/cg_yaml.h"

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
	cg_trim(s, n, CG_BLANKS);
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
	cg_trim(&p, &len, CG_BLANKS);
	return len > 0 ? cg_yaml_scalar(p, len) : NULL;
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
	j = cg_yaml_scalar(v, n);
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
	cg_trim(&v, &n, CG_BLANKS);
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
	cg_trim(&v, &n, CG_BLANKS);
	if (n > 0 && (v[0] == '"' || v[0] == '\''))
		j = quoted_value(l, v, n);
	if (j == NULL) {
		strip_comment(&v, &n);
		j = cg_yaml_scalar(v, n);
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

/* An indented line: a continuation or a list item.  A block scalar's
 * lines are its text, even those that look like items. */
static void
on_indented(struct lenient *l, const char *s, size_t n)
{
	bool block = l->cont == CONT_LITERAL || l->cont == CONT_FOLDED;

	cg_trim(&s, &n, CG_BLANKS);
	if (!block && is_item(s, n) && (l->list != NULL || l->may_list))
		on_item(l, s + 1, n - 1);
	else if (block || (l->cont == CONT_PLAIN && n > 0 && s[0] != '#'))
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
	enum cg_yaml_fail sf;
	enum cg_fm_status st = CG_FM_BROKEN;

	if (out == NULL) {
		cg_err_set(err, CG_EINVAL, "cg_fm_parse: out is NULL");
		return CG_FM_BROKEN;
	}
	if (len > CG_FM_MAX_BYTES) {
		cg_err_set(err, CG_ETOOBIG,
		           "frontmatter is %zu bytes, over the %zu-byte limit",
		           len, CG_FM_MAX_BYTES);
		*out = json_object();
		return CG_FM_BROKEN;
	}
	if (yaml == NULL) {
		yaml = "";
		len = 0;
	}
	cg_err_clear(&why);
	sf = cg_yaml_strict(yaml, len, CG_FM_MAX_NODES, &obj, &why);
	if (sf == CG_YAML_OK) {
		*out = obj;
		return CG_FM_OK;
	}
	if (sf == CG_YAML_NOMEM) {
		/* Not broken YAML: the page's fields are unknown, and an empty
		 * object would index it without them. */
		json_decref(obj);
		*out = NULL;
		cg_err_set(err, CG_ENOMEM, "frontmatter: out of memory");
		return CG_FM_BROKEN;
	}
	if (sf == CG_YAML_SYNTAX || sf == CG_YAML_HOSTILE)
		st = lenient_parse(yaml, len, sf == CG_YAML_HOSTILE, &obj);
	if (obj == NULL)
		obj = json_object();
	cg_err_set(err, why.code, "%s", why.msg);
	*out = obj;
	return st;
}
