/*
 * page.h - one guild wiki page read from its bytes: frontmatter, normalised
 * fields (with the drift SPEC 3.1 tolerates), title, sections with line
 * ranges, heading outline, and outgoing links.
 *
 * This module does no I/O: the caller reads the file (capped, no symlinks)
 * and passes the bytes.  Invalid UTF-8 is replaced with U+FFFD and counted,
 * never fatal.  It is five files: page.c (the entry point and the
 * frontmatter block), fields.c (the normalised fields, categories, dates,
 * the claim key), markdown.c (the body read as CommonMark with md4c:
 * headings, code and HTML blocks, links), body.c (sections) and links.c
 * (one link made a cg_link), sharing the private page_int.h.
 *
 * May be included by page/ and every layer above it (proto, index, node,
 * federation, gateway, cli).
 */
#ifndef CG_PAGE_H
#define CG_PAGE_H

#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "page/frontmatter.h"

/*
 * How a page is read (decisions a caller must know):
 *
 * - Structure.  The body is read as CommonMark (md4c, with tables and
 *   wikilinks): a "# x" line or a "[[x]]" inside a fenced or indented
 *   code block or an HTML block (an <!-- comment -->) is no heading and
 *   no link.  Only headings at the top level count (one inside a list or
 *   a block quote is text); "#" with no text is text.
 * - Sections.  The body is split at ATX and setext headings ("Title"
 *   over "=====" is level 1, over "-----" level 2; a setext heading's text
 *   is its lines joined with one space; its line is its first).  A
 *   section's body excludes its heading line and keeps markup; leading and
 *   trailing blank lines are dropped and whitespace-only sections are not
 *   kept.  line_start/line_end are the file lines (frontmatter counted) of
 *   its first and last non-blank body line, except that the first section
 *   under a heading starts at the heading's own line.  headings is the path of
 *   enclosing headings ("Title > Setup > Linux", skipped levels left out;
 *   "" before the first heading); it is never NULL.  Within one heading's
 *   content a section ends at a blank line outside a code block once its body
 * is over CG_SECTION_TARGET_BYTES; a code block (fenced or indented) is kept
 * whole when it fits in CG_SECTION_MAX_BYTES; no body is ever larger than
 *   CG_SECTION_MAX_BYTES: past it the text is cut at a line boundary, and a
 *   longer line is cut on a code point (after a space when one is near).
 * - A heading whose content is empty and that no later section's path
 *   names (the next heading is not nested under it) yields a section with
 *   body "" and line_start = line_end = the heading's line, so that it stays
 *   searchable.  "# Title" directly followed by "## Part" yields none.
 * - Category: first valid of type:, category:, dir_category.  A plural or a
 *   directory name ("standards", "decisions", seen in real pages) and any
 *   letter case are taken as the singular.  category_raw is the first
 *   invalid type:/category: value, kept only when neither key was valid.
 * - Dates: "YYYY-MM-DD" or an ISO timestamp starting with a valid date
 *   ("2026-05-26T12:00:00Z" -> "2026-05-26"); updated_at is the first valid
 *   of updated_at:, updated:.  Invalid dates are NULL.
 * - Lists: an array, or a string ("[a, b]" left by a lenient read is split
 *   at commas; tags: also splits "a, b").  source_refs drops a " # comment"
 *   ('#' at the start or after a space; "file.md#L10" is kept) and reads a
 *   mapping item's slug: or path:.  Null or absent gives an empty list.
 * - Links: as CommonMark reads them, outside code and HTML.  [[t]],
 *   [[t|alias]], [[t#h]], [[t#h|alias]] ("\|" in tables); [[#h]] (no
 *   target) is skipped; ![[t]] counts as a wikilink; a target over 100
 *   bytes is text (md4c's limit).  [text](dest) and [text][ref] (with a
 *   "[ref]: dest" definition) only when dest is relative (no scheme, not
 *   "/..." or "#..."), any file type; images are not links.  text is the
 *   link's text without markup ("[**a**](x.md)" -> "a"), line breaks as
 *   spaces, clipped to 256 bytes; line is the line where the text starts.
 * - first_line: the first non-blank prose line (not a heading, code or
 *   an HTML block), trimmed, clipped to 300 bytes.
 * - NUL bytes are dropped and counted in utf8_fixed with the invalid
 *   sequences; line numbers are unchanged by the repair.  A "\r" before
 *   "\n" is not part of a line.  nlines counts a last line without "\n".
 * - The claim key keeps claim:/subject: as written (trimmed).
 * - Heading text is clipped to CG_HEADING_MAX_BYTES.  Past the caps below,
 *   further sections, headings and links are dropped (the index numbers
 *   sections in 16 bits).
 * - Runs in linear time on any input.  A body over CG_PAGE_MARKDOWN_MAX
 *   (twice what the index reads of a page file, CG_PAGE_MAX_BYTES) is read
 *   as plain text:
 *   sections only, no headings, no links.
 */

/* Target section body size: past it, a section ends at the next blank
 * line outside a fence. */
#define CG_SECTION_TARGET_BYTES 1200
/* Hard bound on a section body (a fence or a long line is split past it). */
#define CG_SECTION_MAX_BYTES ((size_t)4 * CG_SECTION_TARGET_BYTES)
#define CG_HEADING_MAX_BYTES 512
#define CG_LINK_TARGET_MAX   1024
#define CG_PAGE_MAX_SECTIONS 65535
#define CG_PAGE_MAX_HEADINGS 65535
#define CG_PAGE_MAX_LINKS    100000
/* Bodies up to this size are read as CommonMark. */
#define CG_PAGE_MARKDOWN_MAX ((size_t)16 << 20)

enum cg_link_kind {
	CG_LINK_WIKI = 1, /* [[target]], [[target|alias]], [[target#heading]] */
	CG_LINK_MD = 2,   /* [text](relative/path.md#anchor) */
};

typedef struct cg_link {
	enum cg_link_kind kind;
	char *target; /* wikilink target or relative path, as written */
	char *anchor; /* heading part after '#', or NULL */
	char *text;   /* alias or link text, or NULL */
	int line;     /* 1-based line of the link in the file */
} cg_link;

typedef struct cg_section {
	int line_start; /* 1-based, inclusive, in the file */
	int line_end;   /* 1-based, inclusive */
	char *headings; /* the heading path, "Title > Setup > Linux" */
	char *body;     /* the section's text, markup kept */
} cg_section;

typedef struct cg_heading {
	int level; /* 1-6 */
	int line;  /* 1-based */
	char *text;
} cg_heading;

typedef struct cg_page {
	json_t *fm; /* frontmatter object, owned, never NULL */
	enum cg_fm_status fm_status;
	char fm_error[256]; /* why strict YAML failed, or "" */

	/* Normalised fields, owned, NULL when absent. */
	char *title;        /* title:, else first "# ", else the slug */
	char *category;     /* singular enum value, or NULL */
	char *category_raw; /* type:/category: as written when invalid */
	char *owner;
	char *confidence;     /* "low" | "medium" | "high" or NULL */
	char *confidence_raw; /* as written when not one of those */
	char *created_at;     /* YYYY-MM-DD when valid */
	char *updated_at;     /* updated_at:, else updated:, YYYY-MM-DD */
	char *expires_at;     /* YYYY-MM-DD when valid */
	char *claim;          /* claim: or subject:, or NULL */
	char **supersedes;    /* NULL-terminated, may be empty */
	char **tags;          /* NULL-terminated */
	char **source_refs;   /* NULL-terminated; "# comment" stripped */
	char **aliases;       /* NULL-terminated, from aliases: */
	char *first_line;     /* first non-empty body line that is not a
	                         heading, trimmed; or NULL */

	cg_section *sections;
	size_t nsections;
	cg_heading *headings;
	size_t nheadings;
	cg_link *links;
	size_t nlinks;

	size_t utf8_fixed; /* invalid sequences replaced */
	int nlines;        /* lines in the file */
} cg_page;

/*
 * Parses a page.  slug is the file name without ".md" (title fallback);
 * dir_category is the category implied by the page's directory (e.g.
 * "decision" for decisions/), or NULL.  The category is the first valid of
 * type:, category:, dir_category.  Returns 0, or CG_ENOMEM.  Broken
 * frontmatter is not an error: see fm_status and fm_error.
 */
int cg_page_parse(cg_page *page, const char *text, size_t len, const char *slug,
                  const char *dir_category, cg_err *err);
void cg_page_fini(cg_page *page);

/* The slug of a page path: its file name without ".md" ("a/b/use-pg.md"
 * -> "use-pg"), as a span of path: returns its start, *len its length. */
const char *cg_page_slug(const char *path, size_t *len);

/* The singular category for a wiki directory name ("standards" ->
 * "standard"), or NULL when the directory is not a category directory. */
const char *cg_category_for_dir(const char *dir);

/* True when s is one of the seven category values. */
int cg_category_valid(const char *s);

/* The singular for a plural category ("standards" -> "standard"), or NULL. */
const char *cg_category_singular(const char *s);

/* The valid categories as "context, standard, ..." (static string). */
const char *cg_category_list(void);

/* The i-th valid category value (in cg_category_list's order), NULL past
 * the last. */
const char *cg_category_at(size_t i);

/* True when s is a valid YYYY-MM-DD calendar date. */
int cg_date_valid(const char *s);

/* The claim key of SPEC 4.2 into a malloc'd string: "claim:<claim>" when
 * the page has claim:/subject:, else "<category>|<normalised title>"
 * (lowercase, runs of non-alphanumerics collapsed to one space, trimmed). */
char *cg_page_claim_key(const cg_page *page);

#endif
