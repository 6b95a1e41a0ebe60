/*
 * test_page.c - unit tests of page/ (cg_page_parse): normalised frontmatter
 * fields and their drift, titles, the heading outline, sections with exact line
 * ranges and splitting, links, the claim key, hostile input (invalid
 * UTF-8, NUL bytes, a 50 MB line, unclosed brackets) in bounded time, and
 * the body read as CommonMark: setext headings, headings and links inside
 * fenced and indented code and HTML comments ignored, reference links,
 * wikilinks and embeds, headings inside lists and quotes.
 *
 * Fixtures are written inline; the tests must not read files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "page/page.h"

static void
parse_n(cg_page *p, const char *text, size_t len, const char *slug,
        const char *dir)
{
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_page_parse(p, text, len, slug, dir, &err), 0);
	assert_non_null(p->fm);
}

static void
parse(cg_page *p, const char *text, const char *slug, const char *dir)
{
	parse_n(p, text, strlen(text), slug, dir);
}

static size_t
count(char **v)
{
	size_t n = 0;

	assert_non_null(v);
	while (v[n] != NULL)
		n++;
	return n;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
assert_section(const cg_page *p, size_t i, int start, int end,
               const char *headings, const char *body)
{
	assert_true(i < p->nsections);
	assert_int_equal(p->sections[i].line_start, start);
	assert_int_equal(p->sections[i].line_end, end);
	assert_string_equal(p->sections[i].headings, headings);
	assert_string_equal(p->sections[i].body, body);
}

static void
assert_heading(const cg_page *p, size_t i, int level, int line,
               const char *text)
{
	assert_true(i < p->nheadings);
	assert_int_equal(p->headings[i].level, level);
	assert_int_equal(p->headings[i].line, line);
	assert_string_equal(p->headings[i].text, text);
}

static void
assert_link(const cg_page *p, size_t i, enum cg_link_kind kind,
            const char *target, const char *anchor, const char *text, int line)
{
	const cg_link *l;

	assert_true(i < p->nlinks);
	l = &p->links[i];
	assert_int_equal(l->kind, kind);
	assert_string_equal(l->target, target);
	if (anchor == NULL)
		assert_null(l->anchor);
	else
		assert_string_equal(l->anchor, anchor);
	if (text == NULL)
		assert_null(l->text);
	else
		assert_string_equal(l->text, text);
	assert_int_equal(l->line, line);
}

static void
test_full_frontmatter(void **state)
{
	static const char text[] = "---\n"
	                           "type: decision\n"
	                           "title: Use SQLite\n"
	                           "owner: architect\n"
	                           "confidence: high\n"
	                           "created_at: 2026-01-02\n"
	                           "updated_at: 2026-02-03\n"
	                           "expires_at: 2027-01-01\n"
	                           "supersedes: old-choice\n"
	                           "tags: [storage, search]\n"
	                           "aliases:\n"
	                           "  - sqlite\n"
	                           "claim: storage engine\n"
	                           "source_refs:\n"
	                           "  - raw-one\n"
	                           "importance: high\n"
	                           "---\n"
	                           "\n"
	                           "# Use SQLite\n"
	                           "\n"
	                           "We store the index in SQLite.\n";
	cg_page p;

	parse(&p, text, "use-sqlite", "concept");
	assert_int_equal(p.fm_status, CG_FM_OK);
	assert_string_equal(p.fm_error, "");
	assert_string_equal(p.title, "Use SQLite");
	assert_string_equal(p.category, "decision");
	assert_null(p.category_raw);
	assert_string_equal(p.owner, "architect");
	assert_string_equal(p.confidence, "high");
	assert_null(p.confidence_raw);
	assert_string_equal(p.created_at, "2026-01-02");
	assert_string_equal(p.updated_at, "2026-02-03");
	assert_string_equal(p.expires_at, "2027-01-01");
	assert_string_equal(p.claim, "storage engine");
	assert_int_equal(count(p.supersedes), 1);
	assert_string_equal(p.supersedes[0], "old-choice");
	assert_int_equal(count(p.tags), 2);
	assert_string_equal(p.tags[0], "storage");
	assert_string_equal(p.tags[1], "search");
	assert_int_equal(count(p.aliases), 1);
	assert_string_equal(p.aliases[0], "sqlite");
	assert_int_equal(count(p.source_refs), 1);
	assert_string_equal(p.source_refs[0], "raw-one");
	/* Extra keys are kept. */
	assert_string_equal(
	    json_string_value(json_object_get(p.fm, "importance")), "high");
	assert_string_equal(p.first_line, "We store the index in SQLite.");
	assert_int_equal(p.nlines, 21);
	assert_int_equal(p.nheadings, 1);
	assert_int_equal(p.headings[0].line, 19);
	/* The frontmatter is never a section. */
	assert_int_equal(p.nsections, 1);
	/* The section starts at its heading (line 19), not at its body. */
	assert_section(&p, 0, 19, 21, "Use SQLite",
	               "We store the index in SQLite.");
	cg_page_fini(&p);
	assert_null(p.title);
}

static void
test_no_frontmatter(void **state)
{
	cg_page p;

	parse(&p, "# Heading Title\n\nBody text.\n", "slug", "concept");
	assert_int_equal(p.fm_status, CG_FM_NONE);
	assert_int_equal(json_object_size(p.fm), 0);
	assert_string_equal(p.category, "concept");
	assert_string_equal(p.title, "Heading Title");
	assert_null(p.owner);
	assert_null(p.updated_at);
	assert_int_equal(count(p.tags), 0);
	assert_int_equal(count(p.source_refs), 0);
	assert_int_equal(p.nlines, 3);
	assert_int_equal(p.nsections, 1);
	assert_section(&p, 0, 1, 3, "Heading Title", "Body text.");
	cg_page_fini(&p);
}

static void
test_title_falls_back_to_slug(void **state)
{
	cg_page p;

	parse(&p, "Just text, no heading.\n## Only a level two\nmore\n",
	      "my-page", NULL);
	assert_string_equal(p.title, "my-page");
	assert_null(p.category);
	assert_string_equal(p.first_line, "Just text, no heading.");
	cg_page_fini(&p);

	/* A frontmatter title wins over the heading. */
	parse(&p, "---\ntitle: From FM\n---\n# From Heading\n", "s", NULL);
	assert_string_equal(p.title, "From FM");
	cg_page_fini(&p);
}

static void
test_category_drift(void **state)
{
	cg_page p;

	parse(&p, "---\ncategory: context\n---\nx\n", "s", "decision");
	assert_string_equal(p.category, "context");
	assert_null(p.category_raw);
	cg_page_fini(&p);

	/* Plural and capitalised values seen in real pages. */
	parse(&p, "---\ncategory: decisions\n---\nx\n", "s", NULL);
	assert_string_equal(p.category, "decision");
	cg_page_fini(&p);
	parse(&p, "---\ntype: Standards\n---\nx\n", "s", NULL);
	assert_string_equal(p.category, "standard");
	cg_page_fini(&p);

	/* An invalid type falls back to the directory, kept as raw. */
	parse(&p, "---\ntype: reference\n---\nx\n", "s", "standard");
	assert_string_equal(p.category, "standard");
	assert_string_equal(p.category_raw, "reference");
	cg_page_fini(&p);
	parse(&p, "---\ncategory: architecture\n---\nx\n", "s", NULL);
	assert_null(p.category);
	assert_string_equal(p.category_raw, "architecture");
	cg_page_fini(&p);

	/* ADR-lite pages: type: is the category, category: something else. */
	parse(&p, "---\ntype: decision\ncategory: architecture\n---\nx\n", "s",
	      "concept");
	assert_string_equal(p.category, "decision");
	assert_null(p.category_raw);
	cg_page_fini(&p);
}

static void
test_dates_and_updated(void **state)
{
	cg_page p;

	parse(&p, "---\nupdated: 2026-01-15\n---\nx\n", "s", NULL);
	assert_string_equal(p.updated_at, "2026-01-15");
	cg_page_fini(&p);

	/* An invalid updated_at falls back to updated. */
	parse(&p,
	      "---\nupdated_at: 2026-02-30\nupdated: 2026-03-01\n"
	      "created_at: \"2026-05-26T12:00:00Z\"\nexpires_at: 2026-13-01\n"
	      "---\nx\n",
	      "s", NULL);
	assert_string_equal(p.updated_at, "2026-03-01");
	assert_string_equal(p.created_at, "2026-05-26");
	assert_null(p.expires_at);
	cg_page_fini(&p);

	parse(&p, "---\nexpires_at: null\ncreated_at: 2026-01-015\n---\nx\n",
	      "s", NULL);
	assert_null(p.expires_at);
	assert_null(p.created_at);
	cg_page_fini(&p);
}

static void
test_confidence(void **state)
{
	cg_page p;

	parse(&p, "---\nconfidence: very high\n---\nx\n", "s", NULL);
	assert_null(p.confidence);
	assert_string_equal(p.confidence_raw, "very high");
	cg_page_fini(&p);

	parse(&p, "---\nconfidence: HIGH\n---\nx\n", "s", NULL);
	assert_string_equal(p.confidence, "high");
	assert_null(p.confidence_raw);
	cg_page_fini(&p);

	parse(&p, "---\nconfidence: low | medium | high\n---\nx\n", "s", NULL);
	assert_null(p.confidence);
	assert_string_equal(p.confidence_raw, "low | medium | high");
	cg_page_fini(&p);
}

static void
test_source_refs(void **state)
{
	static const char text[] =
	    "---\n"
	    "source_refs:\n"
	    "  - plugin/a.ts        # a YAML comment\n"
	    "  - \"plugin/b.ts # a comment inside the string\"\n"
	    "  - \"docs/c.md#L10-L20\"\n"
	    "  - slug: raw-two\n"
	    "  - path: raw/three.md\n"
	    "  - \"# only a comment\"\n"
	    "  - null\n"
	    "---\n"
	    "x\n";
	cg_page p;

	parse(&p, text, "s", NULL);
	assert_int_equal(count(p.source_refs), 5);
	assert_string_equal(p.source_refs[0], "plugin/a.ts");
	assert_string_equal(p.source_refs[1], "plugin/b.ts");
	assert_string_equal(p.source_refs[2], "docs/c.md#L10-L20");
	assert_string_equal(p.source_refs[3], "raw-two");
	assert_string_equal(p.source_refs[4], "raw/three.md");
	cg_page_fini(&p);

	parse(&p, "---\nsource_refs: []\nsupersedes: null\n---\nx\n", "s",
	      NULL);
	assert_int_equal(count(p.source_refs), 0);
	assert_int_equal(count(p.supersedes), 0);
	cg_page_fini(&p);
}

static void
test_list_shapes(void **state)
{
	cg_page p;

	parse(&p,
	      "---\ntags: \"alpha, beta ,gamma\"\naliases: one name\n"
	      "supersedes:\n  - a\n  - b\n---\nx\n",
	      "s", NULL);
	assert_int_equal(count(p.tags), 3);
	assert_string_equal(p.tags[0], "alpha");
	assert_string_equal(p.tags[1], "beta");
	assert_string_equal(p.tags[2], "gamma");
	assert_int_equal(count(p.aliases), 1);
	assert_string_equal(p.aliases[0], "one name");
	assert_int_equal(count(p.supersedes), 2);
	assert_string_equal(p.supersedes[1], "b");
	cg_page_fini(&p);

	/* subject: stands for claim:. */
	parse(&p, "---\nsubject: tabs\n---\nx\n", "s", NULL);
	assert_string_equal(p.claim, "tabs");
	cg_page_fini(&p);
}

/* The section fixture: line numbers are in the comments. */
static const char sections_text[] = "---\n"             /* 1 */
                                    "type: concept\n"   /* 2 */
                                    "---\n"             /* 3 */
                                    "Intro line one.\n" /* 4 */
                                    "Intro line two.\n" /* 5 */
                                    "\n"                /* 6 */
                                    "# Title\n"         /* 7 */
                                    "\n"                /* 8 */
                                    "Title body.\n"     /* 9 */
                                    "\n"                /* 10 */
                                    "## Setup\n"        /* 11 */
                                    "### Linux\n"       /* 12 */
                                    "Install it.\n"     /* 13 */
                                    "\n"                /* 14 */
                                    "  \t\n"            /* 15 */
                                    "More install.\n"   /* 16 */
                                    "\n"                /* 17 */
                                    "## Empty\n"        /* 18 */
                                    "## Last ##\n"      /* 19 */
                                    "Final words.\n";   /* 20 */

static void
test_sections_and_lines(void **state)
{
	cg_page p;

	parse(&p, sections_text, "s", NULL);
	assert_int_equal(p.nlines, 20);
	assert_int_equal(p.nsections, 5);
	assert_section(&p, 0, 4, 5, "", "Intro line one.\nIntro line two.");
	/* Sections under a heading start at the heading's line; the
	 * preamble starts at its first line. */
	assert_section(&p, 1, 7, 9, "Title", "Title body.");
	/* "Setup" has no body but "Linux" carries its path and starts the
	 * range at its own line. */
	assert_section(&p, 2, 12, 16, "Title > Setup > Linux",
	               "Install it.\n\n\nMore install.");
	/* "Empty" would be unsearchable: it gets a section of its own. */
	assert_section(&p, 3, 18, 18, "Title > Empty", "");
	assert_section(&p, 4, 19, 20, "Title > Last", "Final words.");
	assert_string_equal(p.first_line, "Intro line one.");
	assert_string_equal(p.title, "Title");
	cg_page_fini(&p);
}

static void
test_heading_outline(void **state)
{
	cg_page p;

	parse(&p, sections_text, "s", NULL);
	assert_int_equal(p.nheadings, 5);
	assert_int_equal(p.headings[0].level, 1);
	assert_int_equal(p.headings[0].line, 7);
	assert_string_equal(p.headings[0].text, "Title");
	assert_int_equal(p.headings[2].level, 3);
	assert_int_equal(p.headings[2].line, 12);
	assert_string_equal(p.headings[2].text, "Linux");
	/* The closing "##" is not part of the text. */
	assert_string_equal(p.headings[4].text, "Last");
	cg_page_fini(&p);

	/* Skipped levels, going back up, a heading-only section at the end;
	 * "#nospace", "####### seven" and "#" alone are text. */
	parse(&p,
	      "# A\n### C\ntext c\n## B\nx\n# D\n#nospace\n####### seven\n"
	      "#\n## E\n",
	      "s", NULL);
	assert_int_equal(p.nheadings, 5);
	assert_int_equal(p.nsections, 4);
	assert_section(&p, 0, 2, 3, "A > C", "text c");
	assert_section(&p, 1, 4, 5, "A > B", "x");
	assert_section(&p, 2, 6, 9, "D", "#nospace\n####### seven\n#");
	assert_section(&p, 3, 10, 10, "D > E", "");
	cg_page_fini(&p);
}

/* The first section under a heading starts at the heading's line, but the
 * heading line is not part of its body. */
static void
test_first_section_starts_at_heading(void **state)
{
	cg_page p;

	parse(&p, "# Title\n\nIntro line.\n\n## Part\n\nPart body.\n", "s",
	      NULL);
	assert_int_equal(p.nlines, 7);
	assert_int_equal(p.nsections, 2);
	assert_section(&p, 0, 1, 3, "Title", "Intro line.");
	assert_section(&p, 1, 5, 7, "Title > Part", "Part body.");
	cg_page_fini(&p);
}

static void
test_fenced_code(void **state)
{
	static const char text[] = "# Real\n"            /* 1 */
	                           "```bash\n"           /* 2 */
	                           "# not a heading\n"   /* 3 */
	                           "[[not-a-link]]\n"    /* 4 */
	                           "```\n"               /* 5 */
	                           "~~~~\n"              /* 6 */
	                           "## also not\n"       /* 7 */
	                           "~~~\n"               /* 8 */
	                           "~~~~~\n"             /* 9 */
	                           "## Second\n"         /* 10 */
	                           "text [[yes]]\n"      /* 11 */
	                           "````\n"              /* 12 */
	                           "# unclosed fence\n"; /* 13 */
	cg_page p;

	parse(&p, text, "s", NULL);
	assert_int_equal(p.nheadings, 2);
	assert_string_equal(p.headings[1].text, "Second");
	assert_int_equal(p.headings[1].line, 10);
	assert_int_equal(p.nsections, 2);
	assert_section(&p, 0, 1, 9, "Real",
	               "```bash\n# not a heading\n[[not-a-link]]\n```\n"
	               "~~~~\n## also not\n~~~\n~~~~~");
	assert_section(&p, 1, 10, 13, "Real > Second",
	               "text [[yes]]\n````\n# unclosed fence");
	assert_int_equal(p.nlinks, 1);
	assert_link(&p, 0, CG_LINK_WIKI, "yes", NULL, NULL, 11);
	/* Fenced lines are not prose. */
	assert_string_equal(p.first_line, "text [[yes]]");
	cg_page_fini(&p);
}

/* "# Long\n" then count paragraphs of 100 bytes, each followed by a
 * blank line unless tight. */
static char *
paragraphs(int n, bool tight)
{
	size_t cap = 16 + (size_t)n * 102;
	char *t = malloc(cap);
	size_t o = 0;

	assert_non_null(t);
	memcpy(t, "# Long\n", 7);
	o = 7;
	for (int i = 0; i < n; i++) {
		int k = snprintf(t + o, cap - o, "Paragraph %02d ", i);

		o += (size_t)k;
		memset(t + o, 'a' + i % 26, 100 - (size_t)k);
		o += 100 - (size_t)k;
		t[o++] = '\n';
		if (!tight && i + 1 < n)
			t[o++] = '\n';
	}
	t[o] = '\0';
	return t;
}

static void
test_split_long_section(void **state)
{
	char *t = paragraphs(30, false);
	cg_page p;

	parse(&p, t, "s", NULL);
	/* Paragraph i is on line 2 + 2i; a section ends at the first blank
	 * line once over 1200 bytes: 12 paragraphs (12 * 102 - 2 bytes).
	 * The first section starts at the heading (line 1); the later ones
	 * at their first paragraph. */
	assert_int_equal(p.nsections, 3);
	assert_int_equal(p.sections[0].line_start, 1);
	assert_int_equal(p.sections[0].line_end, 24);
	assert_int_equal(strlen(p.sections[0].body), 1222);
	assert_int_equal(p.sections[1].line_start, 26);
	assert_int_equal(p.sections[1].line_end, 48);
	assert_int_equal(p.sections[2].line_start, 50);
	assert_int_equal(p.sections[2].line_end, 60);
	assert_int_equal(strlen(p.sections[2].body), 6 * 102 - 2);
	assert_memory_equal(p.sections[1].body, "Paragraph 12 ", 13);
	for (size_t i = 0; i < p.nsections; i++)
		assert_string_equal(p.sections[i].headings, "Long");
	cg_page_fini(&p);
	free(t);

	/* Without blank lines, the hard maximum cuts at line boundaries:
	 * 47 lines of 100 bytes fit in 4800. */
	t = paragraphs(100, true);
	parse(&p, t, "s", NULL);
	assert_int_equal(p.nsections, 3);
	assert_int_equal(p.sections[0].line_start, 1);
	assert_int_equal(p.sections[0].line_end, 48);
	assert_int_equal(p.sections[1].line_start, 49);
	assert_int_equal(p.sections[1].line_end, 95);
	assert_int_equal(p.sections[2].line_start, 96);
	assert_int_equal(p.sections[2].line_end, 101);
	for (size_t i = 0; i < p.nsections; i++)
		assert_true(strlen(p.sections[i].body) <= CG_SECTION_MAX_BYTES);
	cg_page_fini(&p);
	free(t);
}

static void
test_fence_kept_whole(void **state)
{
	size_t cap = 8192;
	char *t = malloc(cap);
	size_t o = 0;
	cg_page p;

	assert_non_null(t);
	o += (size_t)snprintf(t + o, cap - o, "# F\n"); /* line 1 */
	memset(t + o, 'p', 1000);                       /* line 2 */
	o += 1000;
	o += (size_t)snprintf(t + o, cap - o, "\n\n```\n"); /* 3, 4 */
	for (int i = 0; i < 10; i++)                        /* 5 .. 24 */
		o += (size_t)snprintf(t + o, cap - o,
		                      "code line %02d "
		                      "................................."
		                      "\n\n",
		                      i);
	o += (size_t)snprintf(t + o, cap - o, "```\n\nafter\n"); /* 25 .. 27 */
	parse_n(&p, t, o, "s", NULL);
	/* The blank lines inside the fence come after 1200 bytes but do not
	 * split it; the blank after the fence does. */
	assert_int_equal(p.nsections, 2);
	assert_int_equal(p.sections[0].line_start, 1);
	assert_int_equal(p.sections[0].line_end, 25);
	assert_true(strlen(p.sections[0].body) > CG_SECTION_TARGET_BYTES);
	assert_section(&p, 1, 27, 27, "F", "after");
	cg_page_fini(&p);

	/* A fence larger than the maximum is cut at line boundaries. */
	o = (size_t)snprintf(t, cap, "# F\n```\n"); /* lines 1, 2 */
	for (int i = 0; i < 70; i++) {              /* lines 3 .. 72 */
		memset(t + o, 'c', 99);
		o += 99;
		t[o++] = '\n';
	}
	o += (size_t)snprintf(t + o, cap - o, "```\n"); /* line 73 */
	parse_n(&p, t, o, "s", NULL);
	assert_int_equal(p.nsections, 2);
	assert_int_equal(p.sections[0].line_start, 1);
	assert_int_equal(p.sections[0].line_end, 49);
	assert_int_equal(strlen(p.sections[0].body), 3 + 47 * 100);
	assert_int_equal(p.sections[1].line_start, 50);
	assert_int_equal(p.sections[1].line_end, 73);
	cg_page_fini(&p);
	free(t);
}

static void
test_wikilinks(void **state)
{
	static const char text[] =
	    "---\n"
	    "type: concept\n"
	    "---\n"
	    "See [[alpha]] and [[beta|Beta Page]].\n" /* 4 */
	    "Jump to [[gamma#Setup]] or [[delta#Install|the install]].\n" /* 5
	                                                                   */
	    "`[[in code]]` and [[]] and [[#local]] and ``[[x]]``\n" /* 6 */
	    "| [[eps\\|Eps]] |\n"                                   /* 7 */
	    "![[embedded]] [[ spaced  |  alias ]]\n"                /* 8 */
	    "## Heading with [[in-heading]]\n";                     /* 9 */
	cg_page p;

	parse(&p, text, "s", NULL);
	assert_int_equal(p.nlinks, 8);
	assert_link(&p, 0, CG_LINK_WIKI, "alpha", NULL, NULL, 4);
	assert_link(&p, 1, CG_LINK_WIKI, "beta", NULL, "Beta Page", 4);
	assert_link(&p, 2, CG_LINK_WIKI, "gamma", "Setup", NULL, 5);
	assert_link(&p, 3, CG_LINK_WIKI, "delta", "Install", "the install", 5);
	assert_link(&p, 4, CG_LINK_WIKI, "eps", NULL, "Eps", 7);
	assert_link(&p, 5, CG_LINK_WIKI, "embedded", NULL, NULL, 8);
	assert_link(&p, 6, CG_LINK_WIKI, "spaced", NULL, "alias", 8);
	assert_link(&p, 7, CG_LINK_WIKI, "in-heading", NULL, NULL, 9);
	cg_page_fini(&p);
}

static void
test_markdown_links(void **state)
{
	static const char text[] =
	    "[Guide](docs/guide.md) and [Anchored](other.md#part-two "
	    "\"Title\").\n" /* 1 */
	    "[Web](https://example.com) [Mail](mailto:a@b.c) [Abs](/etc/x) "
	    "[Local](#here)\n" /* 2 */
	    "![Image](img/pic.png) and `[Code](code.md)` and "
	    "[Angle](<my page.md>)\n" /* 3 */
	    "[Ref][ref] and [![badge](b.svg)](badge.md) \\[no](esc.md)\n" /* 4
	                                                                   */
	    "[Up](../sibling/page.md) [Paren](a(b).md)\n"; /* 5 */
	cg_page p;

	/* CommonMark: "[Ref][ref]" has no definition, so it is text; a
	 * destination may hold balanced parentheses; a link's text is its
	 * text without markup (the badge's alt text). */
	parse(&p, text, "s", NULL);
	assert_int_equal(p.nlinks, 6);
	assert_link(&p, 0, CG_LINK_MD, "docs/guide.md", NULL, "Guide", 1);
	assert_link(&p, 1, CG_LINK_MD, "other.md", "part-two", "Anchored", 1);
	assert_link(&p, 2, CG_LINK_MD, "my page.md", NULL, "Angle", 3);
	assert_link(&p, 3, CG_LINK_MD, "badge.md", NULL, "badge", 4);
	assert_link(&p, 4, CG_LINK_MD, "../sibling/page.md", NULL, "Up", 5);
	assert_link(&p, 5, CG_LINK_MD, "a(b).md", NULL, "Paren", 5);
	cg_page_fini(&p);
}

static void
test_claim_key(void **state)
{
	cg_page p;
	char *k;

	parse(&p, "---\ntype: standard\n---\n# Test Standard!!\n", "s", NULL);
	k = cg_page_claim_key(&p);
	assert_string_equal(k, "standard|test standard");
	free(k);
	cg_page_fini(&p);

	parse(&p, "---\ntitle: \"  --Tabs:  vs   SPACES--  \"\n---\nx\n", "s",
	      "standard");
	k = cg_page_claim_key(&p);
	assert_string_equal(k, "standard|tabs vs spaces");
	free(k);
	cg_page_fini(&p);

	/* Non-ASCII letters are word characters. */
	parse(&p, "# 网关 Design\n", "s", NULL);
	k = cg_page_claim_key(&p);
	assert_string_equal(k, "|网关 design");
	free(k);
	cg_page_fini(&p);

	parse(&p, "---\nclaim: Indentation width\ntype: standard\n---\n# T\n",
	      "s", NULL);
	k = cg_page_claim_key(&p);
	assert_string_equal(k, "claim:Indentation width");
	free(k);
	cg_page_fini(&p);
}

static void
test_invalid_utf8(void **state)
{
	static const char text[] = "# T\xff\xfeitle\nbody \xc3\x28 text\n";
	cg_page p;

	parse_n(&p, text, sizeof(text) - 1, "s", NULL);
	assert_int_equal(p.utf8_fixed, 3);
	assert_string_equal(p.title, "T\xef\xbf\xbd\xef\xbf\xbditle");
	assert_int_equal(p.nsections, 1);
	assert_string_equal(p.sections[0].body, "body \xef\xbf\xbd( text");
	cg_page_fini(&p);
}

static void
test_nul_bytes(void **state)
{
	static const char text[] =
	    "---\ntype: con\0cept\n---\n# Ti\0tle\n\0body\0 text\n";
	cg_page p;

	parse_n(&p, text, sizeof(text) - 1, "s", NULL);
	assert_int_equal(p.utf8_fixed, 4);
	assert_string_equal(p.category, "concept");
	assert_string_equal(p.title, "Title");
	assert_int_equal(p.nlines, 5);
	assert_section(&p, 0, 4, 5, "Title", "body text");
	cg_page_fini(&p);
}

static void
test_crlf_and_bom(void **state)
{
	cg_page p;

	parse(&p, "\xef\xbb\xbf# T\r\n\r\nBody\r\n", "s", NULL);
	assert_string_equal(p.title, "T");
	assert_int_equal(p.nsections, 1);
	assert_section(&p, 0, 1, 3, "T", "Body");
	cg_page_fini(&p);

	/* A setext heading under CRLF: the underline is not text. */
	parse(&p, "Title\r\n=====\r\ntext\r\n", "s", NULL);
	assert_int_equal(p.nheadings, 1);
	assert_string_equal(p.title, "Title");
	assert_section(&p, 0, 1, 3, "Title", "text");
	cg_page_fini(&p);
}

static void
test_empty_inputs(void **state)
{
	cg_page p;

	parse_n(&p, NULL, 0, "empty", NULL);
	assert_int_equal(p.nlines, 0);
	assert_int_equal(p.nsections, 0);
	assert_string_equal(p.title, "empty");
	assert_null(p.first_line);
	assert_non_null(p.tags);
	cg_page_fini(&p);

	parse(&p, "---\ntype: concept\n---\n\n   \n", "fm-only", NULL);
	assert_int_equal(p.nsections, 0);
	assert_int_equal(p.nlines, 5);
	assert_string_equal(p.category, "concept");
	cg_page_fini(&p);

	/* fini is safe twice and on a zeroed page. */
	cg_page_fini(&p);
	cg_page_fini(NULL);
}

static void
test_broken_frontmatter(void **state)
{
	cg_page p;

	parse(&p, "---\ndescription: a: b\ntype: concept\n---\n# T\nbody\n",
	      "s", NULL);
	assert_true(p.fm_status == CG_FM_LENIENT ||
	            p.fm_status == CG_FM_BROKEN);
	assert_true(p.fm_error[0] != '\0');
	assert_string_equal(p.title, "T");
	assert_section(&p, 0, 5, 6, "T", "body");
	cg_page_fini(&p);
}

static void
test_first_line(void **state)
{
	char big[600];
	cg_page p;

	parse(&p, "\n# H\n```\ncode\n```\n   Prose here.  \nnext\n", "s", NULL);
	assert_string_equal(p.first_line, "Prose here.");
	cg_page_fini(&p);

	/* Clipped to 300 bytes, never inside a character. */
	memcpy(big, "x", 1);
	for (int i = 0; i < 150; i++)
		memcpy(big + 1 + 3 * i, "\xe7\xbd\x91", 3);
	big[451] = '\0';
	parse(&p, big, "s", NULL);
	assert_int_equal(strlen(p.first_line), 298);
	cg_page_fini(&p);
}

static void
test_categories(void **state)
{
	assert_string_equal(cg_category_for_dir("standards"), "standard");
	assert_string_equal(cg_category_for_dir("context"), "context");
	assert_string_equal(cg_category_for_dir("entities"), "entity");
	assert_null(cg_category_for_dir("misc"));
	assert_null(cg_category_for_dir("standard"));
	assert_null(cg_category_for_dir(NULL));
	assert_true(cg_category_valid("source"));
	assert_false(cg_category_valid("sources"));
	assert_false(cg_category_valid("Decision"));
	assert_false(cg_category_valid(NULL));
	assert_string_equal(cg_category_singular("standards"), "standard");
	assert_string_equal(cg_category_singular("entities"), "entity");
	assert_string_equal(cg_category_singular("decisions"), "decision");
	assert_null(cg_category_singular("standard"));
	assert_null(cg_category_singular("bogus"));
	assert_string_equal(cg_category_list(),
	                    "context, standard, product, entity, concept, "
	                    "decision, source");
}

static void
test_date_valid(void **state)
{
	assert_true(cg_date_valid("2024-02-29"));
	assert_true(cg_date_valid("2000-02-29"));
	assert_false(cg_date_valid("2023-02-29"));
	assert_false(cg_date_valid("1900-02-29"));
	assert_false(cg_date_valid("2024-04-31"));
	assert_true(cg_date_valid("2024-12-31"));
	assert_false(cg_date_valid("2024-00-10"));
	assert_false(cg_date_valid("2024-4-01"));
	assert_false(cg_date_valid("2024-01-01x"));
	assert_false(cg_date_valid("0000-01-01"));
	assert_false(cg_date_valid(""));
	assert_false(cg_date_valid(NULL));
}

static void
test_huge_single_line(void **state)
{
	size_t n = 50u << 20;
	char *t = malloc(n);
	size_t total = 0;
	double t0;
	cg_page p;

	assert_non_null(t);
	for (size_t i = 0; i < n; i++)
		t[i] = (i % 8 == 7) ? ' ' : "wo[d`x]("[i % 8];
	t0 = now_s();
	parse_n(&p, t, n, "s", NULL);
	/* Linear, not quadratic: a quadratic scan of 50 MB takes hours; the
	 * bound is loose enough for sanitizers on a loaded machine (5 s
	 * failed there). */
	assert_true(now_s() - t0 < 60.0);
	assert_int_equal(p.nlines, 1);
	assert_true(p.nsections > n / CG_SECTION_MAX_BYTES);
	for (size_t i = 0; i < p.nsections; i++) {
		size_t len = strlen(p.sections[i].body);

		assert_true(len <= CG_SECTION_MAX_BYTES);
		assert_int_equal(p.sections[i].line_start, 1);
		assert_int_equal(p.sections[i].line_end, 1);
		total += len;
	}
	/* Cut after spaces: nothing is lost. */
	assert_int_equal(total, n);
	assert_int_equal(strlen(p.first_line), 300);
	cg_page_fini(&p);
	free(t);
}

static void
test_unclosed_brackets(void **state)
{
	size_t n = 200000;
	char *t = malloc(4 * n + 64);
	double t0;
	cg_page p;

	assert_non_null(t);
	/* 100k "[[" and nothing closes them. */
	memset(t, '[', n);
	memcpy(t + n, "text\n", 6);
	t0 = now_s();
	parse(&p, t, "s", NULL);
	assert_int_equal(p.nlinks, 0);
	assert_int_equal(p.nsections, n / CG_SECTION_MAX_BYTES + 1);
	cg_page_fini(&p);

	/* The same, closed once at the end: only the innermost is a link. */
	memcpy(t + n, "x]]\n", 5);
	parse(&p, t, "s", NULL);
	assert_int_equal(p.nlinks, 1);
	assert_link(&p, 0, CG_LINK_WIKI, "x", NULL, NULL, 1);
	cg_page_fini(&p);

	/* Deep nesting, links whose destination or title never closes,
	 * and backtick runs of every length without closers. */
	memset(t, '[', n);
	memset(t + n, ']', n);
	memset(t + 2 * n, 'b', 2 * n);
	for (size_t i = 0; i + 6 <= n; i += 6)
		memcpy(t + 2 * n + i, "[](a \"", 6);
	for (size_t i = 0, k = 1; i + k + 1 < n; i += k + 1, k++)
		memset(t + 3 * n + i, '`', k);
	t[4 * n] = '\0';
	parse_n(&p, t, 4 * n, "s", NULL);
	assert_int_equal(p.nlinks, 0);
	cg_page_fini(&p);
	assert_true(now_s() - t0 < 5.0);
	free(t);
}

/* The body read as CommonMark (page/markdown.c). */

static void
test_setext_headings(void **state)
{
	static const char text[] = "---\n"            /* 1 */
	                           "type: concept\n"  /* 2 */
	                           "---\n"            /* 3 */
	                           "Retry Policy\n"   /* 4 */
	                           "============\n"   /* 5 */
	                           "\n"               /* 6 */
	                           "Intro text.\n"    /* 7 */
	                           "\n"               /* 8 */
	                           "Backoff and\n"    /* 9 */
	                           "jitter\n"         /* 10 */
	                           "-----------\n"    /* 11 */
	                           "Wait [[base]].\n" /* 12 */
	                           "\n"               /* 13 */
	                           "## Limits\n"      /* 14 */
	                           "Three tries.\n";  /* 15 */
	cg_page p;

	(void)state;
	parse(&p, text, "slug", NULL);
	assert_string_equal(p.title, "Retry Policy");
	assert_int_equal(p.nheadings, 3);
	assert_heading(&p, 0, 1, 4, "Retry Policy");
	assert_heading(&p, 1, 2, 9, "Backoff and jitter");
	assert_heading(&p, 2, 2, 14, "Limits");
	assert_int_equal(p.nsections, 3);
	assert_section(&p, 0, 4, 7, "Retry Policy", "Intro text.");
	assert_section(&p, 1, 9, 12, "Retry Policy > Backoff and jitter",
	               "Wait [[base]].");
	assert_section(&p, 2, 14, 15, "Retry Policy > Limits", "Three tries.");
	assert_int_equal(p.nlinks, 1);
	assert_link(&p, 0, CG_LINK_WIKI, "base", NULL, NULL, 12);
	assert_string_equal(p.first_line, "Intro text.");
	cg_page_fini(&p);

	/* A thematic break after a blank line is no underline, and a "---"
	 * after a list item belongs to no heading. */
	parse(&p, "# T\n\ntext\n\n---\n\n- item\n---\nend\n", "slug", NULL);
	assert_int_equal(p.nheadings, 1);
	assert_int_equal(p.nsections, 1);
	assert_section(&p, 0, 1, 9, "T", "text\n\n---\n\n- item\n---\nend");
	cg_page_fini(&p);

	/* "#tag" is no ATX heading, so over "===" it is a setext one. */
	parse(&p, "#tag\n===\nbody\n", "slug", NULL);
	assert_int_equal(p.nheadings, 1);
	assert_heading(&p, 0, 1, 1, "#tag");
	assert_section(&p, 0, 1, 3, "#tag", "body");
	cg_page_fini(&p);
}

static void
test_code_blocks_hide_structure(void **state)
{
	static const char text[] = "# Real\n"                 /* 1 */
	                           "\n"                       /* 2 */
	                           "Before.\n"                /* 3 */
	                           "\n"                       /* 4 */
	                           "    # indented comment\n" /* 5 */
	                           "    [[not-a-link]]\n"     /* 6 */
	                           "\n"                       /* 7 */
	                           "    [x](hidden.md)\n"     /* 8 */
	                           "\n"                       /* 9 */
	                           "```sh\n"                  /* 10 */
	                           "\n"                       /* 11 */
	                           "# shell comment\n"        /* 12 */
	                           "[[fenced]]\n"             /* 13 */
	                           "```\n"                    /* 14 */
	                           "- list\n"                 /* 15 */
	                           "\n"                       /* 16 */
	                           "  ~~~\n"                  /* 17 */
	                           "  # in list code\n"       /* 18 */
	                           "  ~~~\n"                  /* 19 */
	                           "\n"                       /* 20 */
	                           "## After\n"               /* 21 */
	                           "[[yes]]\n";               /* 22 */
	cg_page p;

	(void)state;
	parse(&p, text, "slug", NULL);
	assert_int_equal(p.nheadings, 2);
	assert_heading(&p, 0, 1, 1, "Real");
	assert_heading(&p, 1, 2, 21, "After");
	assert_int_equal(p.nsections, 2);
	assert_section(&p, 0, 1, 19, "Real",
	               "Before.\n\n    # indented comment\n"
	               "    [[not-a-link]]\n\n    [x](hidden.md)\n\n"
	               "```sh\n\n# shell comment\n[[fenced]]\n```\n- list\n\n"
	               "  ~~~\n  # in list code\n  ~~~");
	assert_section(&p, 1, 21, 22, "Real > After", "[[yes]]");
	assert_int_equal(p.nlinks, 1);
	assert_link(&p, 0, CG_LINK_WIKI, "yes", NULL, NULL, 22);
	assert_string_equal(p.first_line, "Before.");
	cg_page_fini(&p);

	/* An indented block is prose under a paragraph (a lazy
	 * continuation), and an empty fenced block has no content. */
	parse(&p, "para\n    # still para [[a]]\n```\n```\n# H\n", "slug",
	      NULL);
	assert_int_equal(p.nheadings, 1);
	assert_heading(&p, 0, 1, 5, "H");
	assert_int_equal(p.nlinks, 1);
	assert_link(&p, 0, CG_LINK_WIKI, "a", NULL, NULL, 2);
	assert_section(&p, 0, 1, 4, "",
	               "para\n    # still para [[a]]\n```\n```");
	cg_page_fini(&p);
}

static void
test_html_comments_hide_structure(void **state)
{
	static const char text[] = "# Page\n"                            /* 1 */
	                           "<!--\n"                              /* 2 */
	                           "# commented heading\n"               /* 3 */
	                           "[[commented-link]] [c](c.md)\n"      /* 4 */
	                           "-->\n"                               /* 5 */
	                           "Text <!-- [[inline]] --> [[real]]\n" /* 6 */
	                           "<!-- one line [[x]] -->\n";          /* 7 */
	cg_page p;

	(void)state;
	parse(&p, text, "slug", NULL);
	assert_int_equal(p.nheadings, 1);
	assert_int_equal(p.nlinks, 1);
	assert_link(&p, 0, CG_LINK_WIKI, "real", NULL, NULL, 6);
	/* HTML is kept in the body (it is text to search) but is not the
	 * page's first line. */
	assert_int_equal(p.nsections, 1);
	assert_section(&p, 0, 1, 7, "Page",
	               "<!--\n# commented heading\n[[commented-link]] "
	               "[c](c.md)\n-->\nText <!-- [[inline]] --> [[real]]\n"
	               "<!-- one line [[x]] -->");
	assert_string_equal(p.first_line, "Text <!-- [[inline]] --> [[real]]");
	cg_page_fini(&p);
}

static void
test_reference_links(void **state)
{
	static const char text[] =
	    "# Refs\n"                                           /* 1 */
	    "See [the guide][g], [Other] and [**bold** x][g].\n" /* 2 */
	    "[Web][w] and [none][missing].\n"                    /* 3 */
	    "A link over\n"                                      /* 4 */
	    "[two\n"                                             /* 5 */
	    "lines](two.md#sec).\n"                              /* 6 */
	    "\n"                                                 /* 7 */
	    "[g]: docs/guide.md#start \"Guide\"\n"               /* 8 */
	    "[other]: <other page.md>\n"                         /* 9 */
	    "[w]: https://example.com/x.md\n";                   /* 10 */
	cg_page p;

	(void)state;
	parse(&p, text, "slug", NULL);
	assert_int_equal(p.nlinks, 4);
	assert_link(&p, 0, CG_LINK_MD, "docs/guide.md", "start", "the guide",
	            2);
	assert_link(&p, 1, CG_LINK_MD, "other page.md", NULL, "Other", 2);
	assert_link(&p, 2, CG_LINK_MD, "docs/guide.md", "start", "bold x", 2);
	assert_link(&p, 3, CG_LINK_MD, "two.md", "sec", "two lines", 5);
	cg_page_fini(&p);
}

static void
test_wikilinks_and_embeds(void **state)
{
	static const char text[] =
	    "# W\n"                                             /* 1 */
	    "[[Alpha]] [[beta#Setup|the setup]] ![[diagram]]\n" /* 2 */
	    "\n"                                                /* 3 */
	    "| a | b |\n"                                       /* 4 */
	    "|---|---|\n"                                       /* 5 */
	    "| [[gamma\\|Gamma]] | `[[code]]` |\n"              /* 6 */
	    "\n"                                                /* 7 */
	    "- item [[delta]]\n"                                /* 8 */
	    "  > quoted ![[eps|E]] [[[]]]\n";                   /* 9 */
	cg_page p;

	(void)state;
	parse(&p, text, "slug", NULL);
	assert_int_equal(p.nlinks, 6);
	assert_link(&p, 0, CG_LINK_WIKI, "Alpha", NULL, NULL, 2);
	assert_link(&p, 1, CG_LINK_WIKI, "beta", "Setup", "the setup", 2);
	assert_link(&p, 2, CG_LINK_WIKI, "diagram", NULL, NULL, 2);
	assert_link(&p, 3, CG_LINK_WIKI, "gamma", NULL, "Gamma", 6);
	assert_link(&p, 4, CG_LINK_WIKI, "delta", NULL, NULL, 8);
	assert_link(&p, 5, CG_LINK_WIKI, "eps", NULL, "E", 9);
	cg_page_fini(&p);
}

static void
test_nested_headings_are_text(void **state)
{
	static const char text[] = "# Top\n"       /* 1 */
	                           "> # quoted\n"  /* 2 */
	                           "- ## listed\n" /* 3 */
	                           "\n"            /* 4 */
	                           "Sub\n"         /* 5 */
	                           "---\n"         /* 6 */
	                           "body\n";       /* 7 */
	cg_page p;

	(void)state;
	parse(&p, text, "slug", NULL);
	assert_int_equal(p.nheadings, 2);
	assert_heading(&p, 0, 1, 1, "Top");
	assert_heading(&p, 1, 2, 5, "Sub");
	assert_int_equal(p.nsections, 2);
	assert_section(&p, 0, 1, 3, "Top", "> # quoted\n- ## listed");
	assert_section(&p, 1, 5, 7, "Top > Sub", "body");
	cg_page_fini(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_frontmatter),
	    cmocka_unit_test(test_no_frontmatter),
	    cmocka_unit_test(test_title_falls_back_to_slug),
	    cmocka_unit_test(test_category_drift),
	    cmocka_unit_test(test_dates_and_updated),
	    cmocka_unit_test(test_confidence),
	    cmocka_unit_test(test_source_refs),
	    cmocka_unit_test(test_list_shapes),
	    cmocka_unit_test(test_sections_and_lines),
	    cmocka_unit_test(test_heading_outline),
	    cmocka_unit_test(test_first_section_starts_at_heading),
	    cmocka_unit_test(test_fenced_code),
	    cmocka_unit_test(test_split_long_section),
	    cmocka_unit_test(test_fence_kept_whole),
	    cmocka_unit_test(test_wikilinks),
	    cmocka_unit_test(test_markdown_links),
	    cmocka_unit_test(test_claim_key),
	    cmocka_unit_test(test_invalid_utf8),
	    cmocka_unit_test(test_nul_bytes),
	    cmocka_unit_test(test_crlf_and_bom),
	    cmocka_unit_test(test_empty_inputs),
	    cmocka_unit_test(test_broken_frontmatter),
	    cmocka_unit_test(test_first_line),
	    cmocka_unit_test(test_categories),
	    cmocka_unit_test(test_date_valid),
	    cmocka_unit_test(test_huge_single_line),
	    cmocka_unit_test(test_unclosed_brackets),
	    cmocka_unit_test(test_setext_headings),
	    cmocka_unit_test(test_code_blocks_hide_structure),
	    cmocka_unit_test(test_html_comments_hide_structure),
	    cmocka_unit_test(test_reference_links),
	    cmocka_unit_test(test_wikilinks_and_embeds),
	    cmocka_unit_test(test_nested_headings_are_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
