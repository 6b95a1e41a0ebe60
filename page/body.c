/*
 * body.c - the walk over a page's Markdown body: headings (the outline and
 * the heading path), sections with file line ranges and size bounds, and
 * the first prose line.  What a line is (a heading, code, HTML, prose)
 * comes from markdown.c, which reads the body as CommonMark with md4c and
 * finds the links.
 *
 * It must not do I/O or fail on any input except out of memory, and must
 * stay linear in the input: every line is visited once, and the blocks
 * markdown.c found are consumed in order.  The caps of page.h on
 * sections and headings (sizes and counts) are enforced here, those on
 * links in links.c.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_analyzer.h"
#include "common/cg_buf.h"
#include "common/cg_str.h"
#include "common/cg_utf8.h"
#include "common/cg_vec.h"
#include "page/page.h"
#include "page/page_int.h"

#define FIRST_LINE_MAX 300

/* ------------------------------------------------------------------ */
/* Body: fences, headings, sections                                    */

/* True when [s, s + n) is only CG_SPACES. */
static bool
is_blank(const char *s, size_t n)
{
	cg_trim(&s, &n, CG_SPACES);
	return n == 0;
}

static void
append(struct cg_pgi_walk *b, const char *p, size_t n)
{
	if (b->rc == 0 && cg_buf_append(&b->buf, p, n) != 0)
		b->rc = CG_ENOMEM;
}

/* Adds a section (taking body) unless the page already has the most the
 * index can number. */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the body and
 * path are stored in pg->sections, which cg_page_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static void
emit(struct cg_pgi_walk *b, int start, int end, char *body)
{
	cg_page *pg = b->pg;
	char *path = strdup(b->path ? b->path : "");
	cg_section *sec;

	if (body == NULL || path == NULL) {
		b->rc = CG_ENOMEM;
		goto out_free;
	}
	/* The first section under a heading starts at the heading's line,
	 * so a line range always shows the heading that titles it. */
	if (!b->head_used && b->head_line > 0 && b->head_line < start)
		start = b->head_line;
	b->head_used = true;
	if (pg->nsections >= CG_PAGE_MAX_SECTIONS)
		goto out_free;
	if (cg_vec_reserve((void **)&pg->sections, &b->cap_sec, pg->nsections,
	                   sizeof(*sec)) != 0) {
		b->rc = CG_ENOMEM;
		goto out_free;
	}
	sec = &pg->sections[pg->nsections++];
	sec->line_start = start;
	sec->line_end = end;
	sec->headings = path;
	sec->body = body;
	return;
out_free:
	free(path);
	free(body);
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* Ends the section being built; trailing blank lines are dropped and a
 * section without a non-blank line is not kept. */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): emit stores the body
 * in pg->sections, which cg_page_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static void
flush(struct cg_pgi_walk *b)
{
	if (b->start > 0 && b->rc == 0)
		emit(b, b->start, b->last,
		     strndup(cg_buf_str(&b->buf), b->keep));
	cg_buf_reset(&b->buf);
	b->start = b->last = 0;
	b->keep = 0;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* Where to cut a line longer than a section may be: at most
 * CG_SECTION_MAX_BYTES, on a code point boundary, after a space when one
 * is in the last quarter. */
static size_t
piece_len(const char *l, size_t n)
{
	size_t k;

	if (n <= CG_SECTION_MAX_BYTES)
		return n;
	k = cg_utf8_clip(l, n, CG_SECTION_MAX_BYTES);
	for (size_t j = k; j > k - CG_SECTION_MAX_BYTES / 4; j--)
		if (l[j - 1] == ' ' || l[j - 1] == '\t')
			return j;
	return k > 0 ? k : 1;
}

/* Appends non-blank text of one line to the section being built. */
static void
add_piece(struct cg_pgi_walk *b, const char *l, size_t n, int line)
{
	bool sep = b->start > 0;

	if (sep && b->buf.len + 1 + n > CG_SECTION_MAX_BYTES) {
		flush(b);
		sep = false;
	}
	if (sep)
		append(b, "\n", 1);
	append(b, l, n);
	if (b->start == 0)
		b->start = line;
	b->last = line;
	b->keep = b->buf.len;
}

/* Adds one body line.  A blank line outside a fence ends the section once
 * it is over the target size; any line that would push it past the hard
 * maximum starts a new one; a line longer than the maximum is cut. */
static void
add_line(struct cg_pgi_walk *b, const char *l, size_t n, int line, bool fenced)
{
	if (is_blank(l, n)) {
		if (b->start == 0)
			return;
		if ((!fenced && b->buf.len > CG_SECTION_TARGET_BYTES) ||
		    b->buf.len + 1 > CG_SECTION_MAX_BYTES)
			flush(b);
		else
			append(b, "\n", 1);
		return;
	}
	while (n > 0 && b->rc == 0) {
		size_t k = piece_len(l, n);

		if (!is_blank(l, k))
			add_piece(b, l, k, line);
		l += k;
		n -= k;
		if (n > 0)
			flush(b);
	}
}

/* The heading path: the enclosing headings joined with " > ". */
static int
set_path(struct cg_pgi_walk *b)
{
	cg_buf p;

	cg_buf_init(&p, SIZE_MAX / 2);
	for (int i = 0; i < b->depth; i++) {
		if ((i > 0 && cg_buf_append(&p, " > ", 3) != 0) ||
		    cg_buf_append(&p, b->ht[i], b->hn[i]) != 0) {
			cg_buf_fini(&p);
			return CG_ENOMEM;
		}
	}
	free(b->path);
	b->path = cg_buf_take(&p);
	return b->path ? 0 : CG_ENOMEM;
}

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the title and
 * the heading text are stored in pg, which cg_page_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static void
record_heading(struct cg_pgi_walk *b, int level, const char *t, size_t n,
               int line)
{
	cg_page *pg = b->pg;
	cg_heading *h;
	char *text;

	if (pg->title == NULL && level == 1) {
		pg->title = strndup(t, n);
		if (pg->title == NULL)
			b->rc = CG_ENOMEM;
	}
	if (pg->nheadings >= CG_PAGE_MAX_HEADINGS || b->rc != 0)
		return;
	text = strndup(t, n);
	if (text == NULL || cg_vec_reserve((void **)&pg->headings, &b->cap_head,
	                                   pg->nheadings, sizeof(*h)) != 0) {
		free(text);
		b->rc = CG_ENOMEM;
		return;
	}
	h = &pg->headings[pg->nheadings++];
	h->level = level;
	h->line = line;
	h->text = text;
}

/* (The region above also covers on_heading: the strdup("") it hands emit
 * is stored in pg->sections.)
 *
 * A heading ends the section before it.  The previous heading, when no
 * section carries it and this one is not nested under it, gets a section
 * of its own with an empty body so that it stays searchable. */
static void
on_heading(struct cg_pgi_walk *b, int level, const char *t, size_t n, int line)
{
	flush(b);
	if (b->head_line > 0 && !b->head_used && level <= b->head_level)
		emit(b, b->head_line, b->head_line, strdup(""));
	record_heading(b, level, t, n, line);
	while (b->depth > 0 && b->lv[b->depth - 1] >= level)
		b->depth--;
	b->lv[b->depth] = level;
	b->ht[b->depth] = t;
	b->hn[b->depth] = n;
	b->depth++;
	if (b->rc == 0)
		b->rc = set_path(b);
	b->head_line = line;
	b->head_level = level;
	b->head_used = false;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* ------------------------------------------------------------------ */
/* The walk                                                            */

static void
set_first_line(struct cg_pgi_walk *b, const char *l, size_t n)
{
	cg_trim(&l, &n, CG_SPACES);
	if (n == 0 || b->pg->first_line != NULL)
		return;
	b->pg->first_line = strndup(l, cg_utf8_clip(l, n, FIRST_LINE_MAX));
	if (b->pg->first_line == NULL)
		b->rc = CG_ENOMEM;
}

/* One body line, in block k (markdown.c) or in prose (k NULL). */
static void
body_line(struct cg_pgi_walk *b, const char *l, size_t n, int line,
          const struct cg_pgi_mark *k)
{
	if (k == NULL) {
		add_line(b, l, n, line, false);
		set_first_line(b, l, n);
	} else if (k->kind == CG_PGI_HEAD) {
		if (line == k->first)
			on_heading(b, k->level, k->text, k->tlen, line);
	} else if (k->kind == CG_PGI_CODE) {
		/* Keep a block whole when it fits in a section. */
		if (line == k->first && b->start > 0 &&
		    b->buf.len + 1 + k->extent > CG_SECTION_MAX_BYTES)
			flush(b);
		add_line(b, l, n, line, true);
	} else {
		add_line(b, l, n, line, false);
	}
}

int
cg_pgi_body_read(cg_page *pg, const char *s, size_t n, size_t pos, int line)
{
	struct cg_pgi_walk b;
	struct cg_pgi_marks mk;
	size_t k = 0;

	memset(&b, 0, sizeof(b));
	b.pg = pg;
	cg_buf_init(&b.buf, SIZE_MAX / 2);
	if (pos == 0 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		pos = 3;
	cg_pgi_md_read(&b, s + pos, n - pos, line, &mk);
	while (pos < n && b.rc == 0) {
		const char *nl = memchr(s + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - s) : n;
		size_t len = end - pos;
		size_t next = end < n ? end + 1 : n;

		if (len > 0 && s[end - 1] == '\r')
			len--;
		while (k < mk.n && mk.v[k].last < line)
			k++;
		body_line(&b, s + pos, len, line,
		          k < mk.n && mk.v[k].first <= line ? &mk.v[k] : NULL);
		pos = next;
		if (line < INT_MAX)
			line++;
	}
	flush(&b);
	if (b.head_line > 0 && !b.head_used)
		emit(&b, b.head_line, b.head_line, strdup(""));
	cg_buf_fini(&b.buf);
	cg_pgi_marks_fini(&mk);
	free(b.path);
	return b.rc;
}
