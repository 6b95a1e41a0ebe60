/*
 * page_int.h - what the four files of the page reader share: page.c (the
 * entry point, the frontmatter block, line counting, the slug), fields.c
 * (the normalised fields and the claim key), body.c (fences, headings,
 * sections: the body walk) and links.c (the link scanner).  It holds the
 * state of one body walk, which body.c drives and links.c adds links to,
 * and the few functions one of these files calls in another, prefixed
 * cg_pgi_ (as cg_hmi_ marks cache/'s private hiivmind helpers).
 *
 * Private to page/: only page/page.c, page/fields.c, page/body.c and
 * page/links.c include it; nothing outside page/ may.
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
	/* Inside a fenced code block: its character and run length. */
	bool fenced;
	char fch;
	size_t flen;
	/* Capacities of pg->sections, pg->headings and pg->links. */
	size_t cap_sec;
	size_t cap_head;
	size_t cap_link;
};

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

/* links.c: adds the links of one body line [l, l + n) (file line line,
 * outside a fence) to b->pg; failures go to b->rc.  Linear in n. */
void cg_pgi_links_scan(struct cg_pgi_walk *b, const char *l, size_t n,
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
