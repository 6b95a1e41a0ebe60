/*
 * page_int.h - what the five files of the page reader share: page.c (the
 * entry point, the frontmatter block, line counting, the slug), fields.c
 * (the normalised fields and the claim key), markdown.c (the CommonMark
 * structure, read with md4c: headings, code and HTML blocks as line
 * ranges, and the links), body.c (sections: the body walk over those
 * ranges) and links.c (one link made a cg_link).  It holds the state of
 * one body walk, which body.c drives and links.c adds links to, the
 * block ranges markdown.c hands to body.c, and the few functions one of
 * these files calls in another, prefixed cg_pgi_ (as cg_hmi_ marks
 * cache/'s private hiivmind helpers).
 *
 * Private to page/: only page/page.c, page/fields.c, page/markdown.c,
 * page/body.c and page/links.c include it; nothing outside page/ may.
 */
#ifndef CG_PAGE_INT_H
#define CG_PAGE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cg_buf.h"
#include "page/page.h"

/* The state of one body walk over a page.  Errors are sticky in rc: once
 * it is set, nothing more is added. */
struct cg_pgi_walk {
	cg_page *pg; /* the page being filled */
	int rc;      /* 0, or the first failure (CG_ENOMEM) */
	/* Enclosing headings, outermost first (text points into the
	 * sanitized page, clipped to CG_HEADING_MAX_BYTES). */
	int lv[6];
	const char *ht[6];
	size_t hn[6];
	int depth;
	char *path; /* the heading path of the current content */
	/* The last heading, and whether a section carried its path yet. */
	int head_line;
	int head_level;
	bool head_used;
	/* The section being built: body text, first and last non-blank
	 * line, and the length up to the last non-blank line. */
	cg_buf buf;
	int start;
	int last;
	size_t keep;
	/* Capacities of pg->sections, pg->headings and pg->links. */
	size_t cap_sec;
	size_t cap_head;
	size_t cap_link;
};

/* What a run of body lines is, as CommonMark reads it. */
enum cg_pgi_block {
	CG_PGI_HEAD = 1, /* a top-level ATX or setext heading */
	CG_PGI_CODE = 2, /* a fenced (with its fences) or indented code block */
	CG_PGI_HTML = 3, /* an HTML block (a comment, a <div>, ...) */
};

/* One block: file lines [first, last], in document order, disjoint.
 * Lines no block covers are prose (paragraphs, lists, quotes, tables,
 * link reference definitions, thematic breaks, blank lines). */
struct cg_pgi_mark {
	enum cg_pgi_block kind;
	int first;
	int last;         /* a setext heading's underline is its last line */
	int level;        /* CG_PGI_HEAD: 1-6 */
	const char *text; /* CG_PGI_HEAD: its text (into the page, or own) */
	size_t tlen;
	char *own;     /* a setext heading's joined lines, owned */
	size_t extent; /* CG_PGI_CODE: bytes of its lines, newlines counted */
};

struct cg_pgi_marks {
	struct cg_pgi_mark *v;
	size_t n;
	size_t cap;
};

/* markdown.c: reads the body [s, s + n) (s is file line line) as
 * CommonMark with md4c: adds its links to b->pg (through links.c) and
 * its headings, code blocks and HTML blocks to *out.  A body over
 * CG_PAGE_MARKDOWN_MAX bytes is not parsed (no blocks, no links).
 * Failures go to b->rc. */
void cg_pgi_md_read(struct cg_pgi_walk *b, const char *s, size_t n, int line,
                    struct cg_pgi_marks *out);
void cg_pgi_marks_fini(struct cg_pgi_marks *m);

/* An ATX heading line: up to 3 spaces, 1-6 '#', a space or tab, then
 * text with an optional closing run of '#'.  Returns the level (0: not
 * one, or empty text) and the text, clipped to CG_HEADING_MAX_BYTES. */
int cg_pgi_atx(const char *l, size_t n, const char **text, size_t *tlen);

/* links.c: one link md4c found, at file line line.  A wikilink's target
 * as md4c read it ("t#h", or "t|alias" when the bar was escaped) and
 * its content (the alias when it differs from the target); a Markdown
 * link's destination and text (kept when the destination is relative).
 * Failures go to b->rc. */
void cg_pgi_link_wiki(struct cg_pgi_walk *b, const char *target, size_t tn,
                      const char *content, size_t cn, int line);
void cg_pgi_link_md(struct cg_pgi_walk *b, const char *dest, size_t dn,
                    const char *text, size_t xn, int line);
/* The "![[target]]" embeds of a run of prose text md4c left as text (it
 * reads "![" as an image opener); linear in n. */
void cg_pgi_link_embeds(struct cg_pgi_walk *b, const char *t, size_t n,
                        int line);

/* fields.c: every normalised field that comes from the frontmatter
 * object pg->fm alone (the title only when title: is set).  0, or
 * CG_ENOMEM. */
int cg_pgi_fields_read(cg_page *pg, const char *dir_category);

/* body.c: walks the body of the sanitized text s (n bytes) from byte pos,
 * which is file line line; fills the sections, headings, links,
 * first_line and, from the first "# " heading, a missing title.  0, or
 * CG_ENOMEM. */
int cg_pgi_body_read(cg_page *pg, const char *s, size_t n, size_t pos,
                     int line);

/* ASCII letters, and letters or digits (no locale). */
static inline bool
cg_pgi_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool
cg_pgi_alnum(char c)
{
	return cg_pgi_alpha(c) || (c >= '0' && c <= '9');
}

#endif
