/*
 * markdown.c - a page body read as CommonMark by md4c (with its tables
 * and wikilinks extensions): the links (through links.c), and the line
 * ranges of what shapes sections (body.c): top-level ATX and setext
 * headings, fenced and indented code blocks, HTML blocks.  So "# x" in a
 * code block or an HTML comment is no heading, "[[x]]" there no link,
 * and "[t][ref]" with a "[ref]: dest" definition is a link.
 *
 * md4c reports text, not positions: a line is computed from the byte
 * offset of a text pointer into the body buffer (pointers md4c makes
 * itself, for an indent or a line break, are not in the buffer and are
 * ignored).  A fence line carries no text, so a fenced block's fences
 * are found on the lines around its content (the opening one: the first
 * fence line after the text before the block; the closing one: after its
 * content and blank lines).  Line numbers count '\n' only, as body.c
 * does.
 *
 * Decisions: a heading inside a list or a block quote is text (sections
 * follow the page's own outline); a setext heading's text is its lines
 * joined with one space; "![[t]]" (an embed) is a wikilink although md4c
 * reads "![" as an image; a wikilink target over 100 bytes is text (md4c's
 * rule); a body over CG_PAGE_MARKDOWN_MAX bytes is not parsed (plain
 * text: no headings, no links).
 *
 * It must not do I/O or fail on any input except out of memory, and must
 * stay linear: md4c is linear, and the line cursor moves forward but for
 * a few lines back to a block's start.
 */
#include <limits.h>
#include <md4c.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "common/cg_str.h"
#include "common/cg_utf8.h"
#include "common/cg_vec.h"
#include "page/page.h"
#include "page/page_int.h"

#define LINK_TEXT_KEEP 1024 /* link text collected (links.c clips it) */
#define HREF_NEAR      256  /* bytes searched for an empty link's line */

/* page_int.h; here because only the Markdown reader asks. */
int
cg_pgi_atx(const char *l, size_t n, const char **text, size_t *tlen)
{
	size_t i = 0;
	size_t h;
	size_t e;
	const char *t;
	size_t m;

	while (i < 3 && i < n && l[i] == ' ')
		i++;
	h = i;
	while (h < n && h - i < 7 && l[h] == '#')
		h++;
	if (h == i || h - i > 6 || h >= n || (l[h] != ' ' && l[h] != '\t'))
		return 0;
	t = l + h;
	m = n - h;
	cg_trim(&t, &m, CG_SPACES);
	e = m;
	while (e > 0 && t[e - 1] == '#')
		e--;
	if (e == 0)
		m = 0;
	else if (e < m && (t[e - 1] == ' ' || t[e - 1] == '\t'))
		m = e;
	cg_trim(&t, &m, CG_SPACES);
	if (m == 0)
		return 0;
	*text = t;
	*tlen = cg_utf8_clip(t, m, CG_HEADING_MAX_BYTES);
	return (int)(h - i);
}

/* The state of one md4c run over a body. */
struct md {
	struct cg_pgi_walk *b;
	struct cg_pgi_marks *out;
	const char *s; /* the body */
	size_t n;
	/* The line cursor: cur_off is the start of file line cur_line. */
	size_t cur_off;
	int cur_line;
	size_t text_end; /* end offset of the last text in the body */
	int seen;        /* the last line with text or in a block */
	int containers;  /* lists, list items and quotes open */
	/* The leaf block being read (a heading, code or HTML block). */
	MD_BLOCKTYPE leaf;
	bool in_leaf;
	int level;
	char fch; /* a code block's fence character, 0 when indented */
	int first, last;
	int seen_at_open;
	/* The link being read (links do not nest; images are skipped). */
	MD_SPANTYPE link;
	bool in_link;
	int nested; /* links opened inside it (md4c does not) */
	int images;
	char *target;
	size_t tn;
	cg_buf text;
	int link_line;
	size_t href_off; /* an inline destination's offset, or SIZE_MAX */
};

static bool
in_body(const struct md *m, const char *p)
{
	return p >= m->s && p < m->s + m->n;
}

/* Moves the cursor to the start of the line holding byte off. */
static int
line_of(struct md *m, size_t off)
{
	for (;;) {
		const char *nl;

		if (m->cur_off > off) {
			size_t k = m->cur_off - 1; /* the '\n' before it */

			while (k > 0 && m->s[k - 1] != '\n')
				k--;
			m->cur_off = k;
			m->cur_line--;
			continue;
		}
		nl = memchr(m->s + m->cur_off, '\n', m->n - m->cur_off);
		if (nl == NULL || (size_t)(nl - m->s) >= off)
			return m->cur_line;
		m->cur_off = (size_t)(nl - m->s) + 1;
		m->cur_line++;
	}
}

/* File line L of the body (no "\r"), or NULL past its end. */
static const char *
line_at(struct md *m, int line, size_t *len)
{
	const char *nl;
	size_t e;

	while (m->cur_line > line && m->cur_off > 0)
		(void)line_of(m, m->cur_off - 1);
	while (m->cur_line < line) {
		nl = memchr(m->s + m->cur_off, '\n', m->n - m->cur_off);
		if (nl == NULL)
			return NULL;
		m->cur_off = (size_t)(nl - m->s) + 1;
		m->cur_line++;
	}
	if (m->cur_line != line || m->cur_off >= m->n)
		return NULL;
	nl = memchr(m->s + m->cur_off, '\n', m->n - m->cur_off);
	e = nl ? (size_t)(nl - m->s) : m->n;
	if (e > m->cur_off && m->s[e - 1] == '\r')
		e--;
	*len = e - m->cur_off;
	return m->s + m->cur_off;
}

/* A line's content after container markers: blanks, '>' and list
 * markers ("-", "*", "+", "1." or "1)" then a blank). */
static const char *
strip_containers(const char *l, size_t n, size_t *rest)
{
	size_t i = 0;

	for (;;) {
		size_t k = i;

		while (i < n && (l[i] == ' ' || l[i] == '\t' || l[i] == '>'))
			i++;
		if (i < n && (l[i] == '-' || l[i] == '*' || l[i] == '+') &&
		    i + 1 < n && (l[i + 1] == ' ' || l[i + 1] == '\t')) {
			i++;
		} else {
			size_t d = i;

			while (d < n && d - i < 9 && l[d] >= '0' && l[d] <= '9')
				d++;
			if (d > i && d + 1 < n &&
			    (l[d] == '.' || l[d] == ')') &&
			    (l[d + 1] == ' ' || l[d + 1] == '\t'))
				i = d + 1;
		}
		if (i == k)
			break;
	}
	*rest = n - i;
	return l + i;
}

/* The run of fence character c starting a line's content: its length
 * (0: not a fence line); *tail_blank when only blanks follow it. */
static size_t
fence_run(const char *l, size_t n, char c, bool *tail_blank)
{
	size_t r;
	const char *p = strip_containers(l, n, &r);
	size_t k = 0;
	const char *t;
	size_t tn;

	while (k < r && p[k] == c)
		k++;
	if (k < 3)
		return 0;
	t = p + k;
	tn = r - k;
	cg_trim(&t, &tn, CG_BLANKS);
	*tail_blank = tn == 0;
	return k;
}

static bool
blank_line(const char *l, size_t n)
{
	size_t r;

	(void)strip_containers(l, n, &r);
	return r == 0;
}

static void
add_mark(struct md *m, const struct cg_pgi_mark *k)
{
	struct cg_pgi_marks *o = m->out;

	if (cg_vec_reserve((void **)&o->v, &o->cap, o->n, sizeof(*o->v)) != 0) {
		free(k->own);
		m->b->rc = CG_ENOMEM;
		return;
	}
	o->v[o->n++] = *k;
	if (k->last > m->seen)
		m->seen = k->last;
}

/* Bytes of file lines [first, last], each with its '\n'. */
static size_t
extent(struct md *m, int first, int last)
{
	size_t a;
	size_t l;
	const char *p;

	if (line_at(m, first, &l) == NULL)
		return 0;
	a = m->cur_off;
	p = line_at(m, last, &l);
	if (p == NULL)
		return m->n - a;
	p = memchr(p, '\n', m->n - m->cur_off);
	return (p ? (size_t)(p - m->s) + 1 : m->n) - a;
}

/* A setext heading's text: its lines trimmed, joined with one space. */
static char *
setext_text(struct md *m, int first, int last, size_t *tlen)
{
	cg_buf t;
	char *s;

	cg_buf_init(&t, SIZE_MAX / 2);
	for (int i = first; i <= last; i++) {
		size_t n = 0;
		const char *l = line_at(m, i, &n);

		if (l == NULL)
			break;
		cg_trim(&l, &n, CG_SPACES);
		if ((t.len > 0 && cg_buf_putc(&t, ' ') != 0) ||
		    cg_buf_append(&t, l, n) != 0) {
			cg_buf_fini(&t);
			return NULL;
		}
		if (t.len > CG_HEADING_MAX_BYTES)
			break;
	}
	*tlen = cg_utf8_clip(cg_buf_str(&t), t.len, CG_HEADING_MAX_BYTES);
	s = cg_buf_take(&t);
	if (s != NULL)
		s[*tlen] = '\0';
	return s;
}

/* A setext underline: up to 3 spaces, a run of '=' or '-', blanks. */
static bool
underline(const char *l, size_t n)
{
	size_t i = 0;
	size_t k;

	while (i < n && i < 3 && l[i] == ' ')
		i++;
	if (i >= n || (l[i] != '=' && l[i] != '-'))
		return false;
	k = i;
	while (k < n && l[k] == l[i])
		k++;
	while (k < n && (l[k] == ' ' || l[k] == '\t'))
		k++;
	return k == n;
}

static void
heading_mark(struct md *m)
{
	struct cg_pgi_mark k;
	size_t n = 0;
	const char *l = line_at(m, m->first, &n);

	memset(&k, 0, sizeof(k));
	if (l == NULL || m->containers > 0)
		return;
	k.kind = CG_PGI_HEAD;
	k.first = m->first;
	k.level = m->level;
	if (cg_pgi_atx(l, n, &k.text, &k.tlen) > 0) {
		/* ATX: one line; its text as written. */
		k.last = m->first;
	} else {
		/* Setext: the underline follows the last text line ("#tag"
		 * over "===" is one too). */
		l = line_at(m, m->last + 1, &n);
		if (l == NULL || !underline(l, n))
			return;
		k.last = m->last + 1;
		k.own = setext_text(m, m->first, m->last, &k.tlen);
		if (k.own == NULL) {
			m->b->rc = CG_ENOMEM;
			return;
		}
		if (k.tlen == 0) {
			free(k.own);
			return;
		}
		k.text = k.own;
	}
	add_mark(m, &k);
}

/* The opening fence: the first fence line of m->fch after the text
 * before the block (and before its content). */
static int
find_open(struct md *m, size_t *run)
{
	int stop = m->first > 0 ? m->first : INT_MAX;

	for (int i = m->seen_at_open + 1; i < stop; i++) {
		size_t n = 0;
		const char *l = line_at(m, i, &n);
		bool tb;

		if (l == NULL)
			break;
		*run = fence_run(l, n, m->fch, &tb);
		if (*run > 0)
			return i;
	}
	return 0;
}

/* The closing fence after line from: blank lines, then a fence line at
 * least as long with nothing after it; else from (unclosed). */
static int
find_close(struct md *m, int from, size_t run)
{
	for (int i = from + 1;; i++) {
		size_t n = 0;
		const char *l = line_at(m, i, &n);
		bool tb = false;

		if (l == NULL)
			return from;
		if (blank_line(l, n))
			continue;
		return fence_run(l, n, m->fch, &tb) >= run && tb ? i : from;
	}
}

static void
code_mark(struct md *m)
{
	struct cg_pgi_mark k;
	size_t run = 0;

	memset(&k, 0, sizeof(k));
	k.kind = CG_PGI_CODE;
	if (m->fch == 0) {
		if (m->first == 0)
			return;
		k.first = m->first;
		k.last = m->last;
	} else {
		k.first = find_open(m, &run);
		if (k.first == 0)
			return;
		k.last =
		    find_close(m, m->last > k.first ? m->last : k.first, run);
	}
	k.extent = extent(m, k.first, k.last);
	add_mark(m, &k);
}

static void
leaf_close(struct md *m)
{
	struct cg_pgi_mark k;

	if (m->leaf == MD_BLOCK_H && m->first > 0) {
		heading_mark(m);
	} else if (m->leaf == MD_BLOCK_CODE) {
		code_mark(m);
	} else if (m->leaf == MD_BLOCK_HTML && m->first > 0) {
		memset(&k, 0, sizeof(k));
		k.kind = CG_PGI_HTML;
		k.first = m->first;
		k.last = m->last;
		add_mark(m, &k);
	}
	m->in_leaf = false;
}

static int
enter_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
	struct md *m = ud;

	switch (type) {
	case MD_BLOCK_QUOTE:
	case MD_BLOCK_UL:
	case MD_BLOCK_OL:
	case MD_BLOCK_LI:
		m->containers++;
		break;
	case MD_BLOCK_H:
	case MD_BLOCK_CODE:
	case MD_BLOCK_HTML:
		m->leaf = type;
		m->in_leaf = true;
		m->first = m->last = 0;
		m->seen_at_open = m->seen;
		m->level = type == MD_BLOCK_H
		               ? (int)((MD_BLOCK_H_DETAIL *)detail)->level
		               : 0;
		m->fch = '\0';
		if (type == MD_BLOCK_CODE)
			m->fch = ((MD_BLOCK_CODE_DETAIL *)detail)->fence_char;
		break;
	default:
		break;
	}
	return m->b->rc != 0;
}

static int
leave_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
	struct md *m = ud;

	(void)detail;
	if (type == MD_BLOCK_QUOTE || type == MD_BLOCK_UL ||
	    type == MD_BLOCK_OL || type == MD_BLOCK_LI)
		m->containers--;
	else if (m->in_leaf && type == m->leaf)
		leaf_close(m);
	return m->b->rc != 0;
}

static void
link_open(struct md *m, MD_SPANTYPE type, const MD_ATTRIBUTE *a)
{
	m->link = type;
	m->in_link = true;
	m->nested = 0;
	m->link_line = 0;
	cg_buf_reset(&m->text);
	m->target = a->size > 0 ? strndup(a->text, a->size) : strdup("");
	m->tn = a->size;
	if (m->target == NULL)
		m->b->rc = CG_ENOMEM;
	m->href_off = a->size > 0 && in_body(m, a->text)
	                  ? (size_t)(a->text - m->s)
	                  : SIZE_MAX;
}

/* The line of a link without text: its inline destination's when it is
 * just ahead of the text before it, else that text's line. */
static int
empty_link_line(struct md *m)
{
	if (m->href_off == SIZE_MAX || m->href_off < m->text_end ||
	    m->href_off - m->text_end > HREF_NEAR)
		return m->cur_line;
	return line_of(m, m->href_off);
}

static void
link_close(struct md *m)
{
	int line = m->link_line > 0 ? m->link_line : empty_link_line(m);

	if (m->target != NULL && m->b->rc == 0) {
		if (m->link == MD_SPAN_WIKILINK)
			cg_pgi_link_wiki(m->b, m->target, m->tn,
			                 cg_buf_str(&m->text), m->text.len,
			                 line);
		else
			cg_pgi_link_md(m->b, m->target, m->tn,
			               cg_buf_str(&m->text), m->text.len, line);
	}
	free(m->target);
	m->target = NULL;
	m->in_link = false;
}

static int
enter_span(MD_SPANTYPE type, void *detail, void *ud)
{
	struct md *m = ud;
	bool link = type == MD_SPAN_A || type == MD_SPAN_WIKILINK;

	if (type == MD_SPAN_IMG)
		m->images++;
	else if (link && m->in_link)
		m->nested++;
	else if (link && m->images == 0)
		link_open(m, type,
		          type == MD_SPAN_A
		              ? &((MD_SPAN_A_DETAIL *)detail)->href
		              : &((MD_SPAN_WIKILINK_DETAIL *)detail)->target);
	return m->b->rc != 0;
}

static int
leave_span(MD_SPANTYPE type, void *detail, void *ud)
{
	struct md *m = ud;

	(void)detail;
	if (type == MD_SPAN_IMG && m->images > 0)
		m->images--;
	else if ((type == MD_SPAN_A || type == MD_SPAN_WIKILINK) &&
	         m->in_link && m->nested > 0)
		m->nested--;
	else if ((type == MD_SPAN_A || type == MD_SPAN_WIKILINK) && m->in_link)
		link_close(m);
	return m->b->rc != 0;
}

static int
text(MD_TEXTTYPE type, const MD_CHAR *t, MD_SIZE size, void *ud)
{
	struct md *m = ud;

	if (size > 0 && in_body(m, t)) {
		size_t off = (size_t)(t - m->s);
		int line = line_of(m, off);
		int end =
		    memchr(t, '\n', size) ? line_of(m, off + size - 1) : line;

		if (m->in_leaf && m->first == 0)
			m->first = line;
		if (m->in_leaf)
			m->last = end;
		if (end > m->seen)
			m->seen = end;
		m->text_end = off + size;
		if (m->in_link && m->link_line == 0)
			m->link_line = line;
		if (type == MD_TEXT_NORMAL && !m->in_link && m->images == 0)
			cg_pgi_link_embeds(m->b, t, size, line);
	}
	if (m->in_link && m->text.len < LINK_TEXT_KEEP) {
		bool brk = type == MD_TEXT_BR || type == MD_TEXT_SOFTBR;

		if (cg_buf_append(&m->text, brk ? " " : t, brk ? 1 : size) != 0)
			m->b->rc = CG_ENOMEM;
	}
	return m->b->rc != 0;
}

void
cg_pgi_md_read(struct cg_pgi_walk *b, const char *s, size_t n, int line,
               struct cg_pgi_marks *out)
{
	MD_PARSER p;
	struct md m;

	memset(out, 0, sizeof(*out));
	if (n > CG_PAGE_MARKDOWN_MAX || b->rc != 0)
		return;
	memset(&m, 0, sizeof(m));
	m.b = b;
	m.out = out;
	m.s = s;
	m.n = n;
	m.cur_line = line;
	m.seen = line - 1;
	cg_buf_init(&m.text, SIZE_MAX / 2);
	memset(&p, 0, sizeof(p));
	p.abi_version = 0;
	p.flags = MD_FLAG_TABLES | MD_FLAG_WIKILINKS;
	p.enter_block = enter_block;
	p.leave_block = leave_block;
	p.enter_span = enter_span;
	p.leave_span = leave_span;
	p.text = text;
	/* md4c fails only for want of memory (or when a callback stops it,
	 * which these do after a failure). */
	if (md_parse(s, (MD_SIZE)n, &p, &m) != 0 && b->rc == 0)
		b->rc = CG_ENOMEM;
	free(m.target);
	cg_buf_fini(&m.text);
}

void
cg_pgi_marks_fini(struct cg_pgi_marks *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].own);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
