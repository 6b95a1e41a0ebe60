/*
 * test_hiivmind.c - unit tests for cache/hiivmind.c and
 * cache/hiivmind_index.c: the registry, config.yaml, index.yaml (v2),
 * index.md (v1), graph.yaml and registry-graph.yaml parsers on fixtures
 * shaped like the upstream files, the ttl parser, the warning cap, the
 * cross-file checks, and hostile YAML that must fail fast with CG_EPARSE.
 * Fixtures are written inline; nothing here reads the shared corpora.
 */
/* cmocka.h needs these first; keep clang-format from sorting it above. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
/* clang-format on */

#include "cache/hiivmind.h"
#include "common/cg_buf.h"

static size_t
count(char **l)
{
	size_t n = 0;

	assert_non_null(l);
	while (l[n] != NULL)
		n++;
	return n;
}

/* True when one warning contains a and (unless NULL) b. */
static int
has_warning(char **w, const char *a, const char *b)
{
	for (size_t i = 0; w[i] != NULL; i++)
		if (strstr(w[i], a) != NULL && (b == NULL || strstr(w[i], b)))
			return 1;
	return 0;
}

static void
dump(char **w)
{
	for (size_t i = 0; w != NULL && w[i] != NULL; i++)
		print_message("  warning: %s\n", w[i]);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------ registry */

static const char registry_yaml[] =
    "# Corpus Registry\n"
    "schema_version: 1\n"
    "\n"
    "corpora:\n"
    "  - id: flyio\n"
    "    source:\n"
    "      type: github\n"
    "      repo: acme/corpus-flyio\n"
    "      ref: v2.1\n"
    "      path: null\n"
    "    cache:\n"
    "      strategy: fetch      # clone | fetch | none\n"
    "      path: null\n"
    "      ttl: 12h\n"
    "    registered_at: \"2026-01-29T00:00:00Z\"\n"
    "\n"
    "  - id: polars\n"
    "    source:\n"
    "      type: github\n"
    "      repo: acme/corpus-data\n"
    "      path: ./corpus-polars/\n"
    "    cache:\n"
    "      ttl: 3\n"
    "\n"
    "  - id: internal\n"
    "    source:\n"
    "      type: local\n"
    "      path: ./docs/corpus\n"
    "    cache:\n"
    "      strategy: none\n"
    "\n"
    "  - source: {type: github, repo: a/b}\n"
    "  - id: ../evil\n"
    "    source: {type: local, path: /tmp}\n"
    "  - id: flyio\n"
    "    source: {type: local, path: again}\n"
    "  - id: gl\n"
    "    source: {type: gitlab, repo: a/b}\n"
    "  - id: badrepo\n"
    "    source: {type: github, repo: no-slash}\n"
    "  - id: badref\n"
    "    source: {type: github, repo: a/b, ref: \"-x\"}\n"
    "  - id: up\n"
    "    source: {type: github, repo: a/b, path: \"../x\"}\n"
    "  - id: nopath\n"
    "    source: {type: local}\n"
    "  - just a string\n";

static void
test_registry(void **state)
{
	cg_hm_registry r;
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_hm_registry_parse(&r, registry_yaml,
	                                      strlen(registry_yaml), &err),
	                 0);
	dump(r.warnings);
	assert_int_equal(r.n, 3);

	assert_string_equal(r.v[0].id, "flyio");
	assert_int_equal(r.v[0].type, CG_HM_GITHUB);
	assert_string_equal(r.v[0].repo, "acme/corpus-flyio");
	assert_string_equal(r.v[0].ref, "v2.1");
	assert_null(r.v[0].path);
	assert_string_equal(r.v[0].strategy, "fetch");
	assert_int_equal(r.v[0].ttl_s, 12 * 3600);

	assert_string_equal(r.v[1].id, "polars");
	assert_string_equal(r.v[1].ref, "main");
	assert_string_equal(r.v[1].path, "corpus-polars");
	assert_null(r.v[1].strategy);
	assert_int_equal(r.v[1].ttl_s, 3 * 86400);

	assert_string_equal(r.v[2].id, "internal");
	assert_int_equal(r.v[2].type, CG_HM_LOCAL);
	assert_null(r.v[2].repo);
	assert_null(r.v[2].ref);
	assert_string_equal(r.v[2].path, "./docs/corpus");
	assert_string_equal(r.v[2].strategy, "none");
	assert_int_equal(r.v[2].ttl_s, 7 * 86400);

	assert_int_equal(count(r.warnings), 9);
	assert_true(has_warning(r.warnings, "corpora[3]", "no id"));
	assert_true(has_warning(r.warnings, "corpora[4]", "../evil"));
	assert_true(has_warning(r.warnings, "corpora[5]", "duplicate"));
	assert_true(has_warning(r.warnings, "corpora[6]", "github or local"));
	assert_true(has_warning(r.warnings, "corpora[7]", "no-slash"));
	assert_true(has_warning(r.warnings, "corpora[8]", "ref"));
	assert_true(has_warning(r.warnings, "corpora[9]", "../x"));
	assert_true(has_warning(r.warnings, "corpora[10]", "path is missing"));
	assert_true(has_warning(r.warnings, "corpora[11]", "not a mapping"));
	cg_hm_registry_fini(&r);
	assert_null(r.v);
	assert_null(r.warnings);
	cg_hm_registry_fini(NULL);
}

static void
test_ttl(void **state)
{
	static const char yaml[] =
	    "corpora:\n"
	    "  - {id: a, source: {type: local, path: a}, cache: {ttl: 7d}}\n"
	    "  - {id: b, source: {type: local, path: b}, cache: {ttl: 30m}}\n"
	    "  - {id: c, source: {type: local, path: c}, cache: {ttl: 90s}}\n"
	    "  - {id: d, source: {type: local, path: d}, cache: {ttl: soon}}\n"
	    "  - {id: e, source: {type: local, path: e}, cache: {ttl: [1]}}\n"
	    "  - {id: f, source: {type: local, path: f}, cache: {ttl: \"3\"}}\n"
	    "  - {id: g, source: {type: local, path: g}, cache: {ttl: -2}}\n";
	cg_hm_registry r;
	long v = -1;

	assert_int_equal(cg_hm_ttl_parse("7d", &v), 0);
	assert_int_equal(v, 7 * 86400);
	assert_int_equal(cg_hm_ttl_parse("12h", &v), 0);
	assert_int_equal(v, 12 * 3600);
	assert_int_equal(cg_hm_ttl_parse("30m", &v), 0);
	assert_int_equal(v, 1800);
	assert_int_equal(cg_hm_ttl_parse("90s", &v), 0);
	assert_int_equal(v, 90);
	assert_int_equal(cg_hm_ttl_parse("3", &v), 0);
	assert_int_equal(v, 3 * 86400);
	assert_int_equal(cg_hm_ttl_parse(" 2W ", &v), 0);
	assert_int_equal(v, 14 * 86400);
	assert_int_equal(cg_hm_ttl_parse("0d", &v), 0);
	assert_int_equal(v, 0);
	v = 42;
	assert_int_equal(cg_hm_ttl_parse("garbage", &v), CG_EINVAL);
	assert_int_equal(cg_hm_ttl_parse("", &v), CG_EINVAL);
	assert_int_equal(cg_hm_ttl_parse("d", &v), CG_EINVAL);
	assert_int_equal(cg_hm_ttl_parse("-1d", &v), CG_EINVAL);
	assert_int_equal(cg_hm_ttl_parse("1.5d", &v), CG_EINVAL);
	assert_int_equal(cg_hm_ttl_parse("7dd", &v), CG_EINVAL);
	assert_int_equal(cg_hm_ttl_parse("7 d", &v), CG_EINVAL);
	assert_int_equal(cg_hm_ttl_parse("99999999999999999999d", &v),
	                 CG_EINVAL);
	assert_int_equal(cg_hm_ttl_parse("3651d", &v), CG_EINVAL);
	assert_int_equal(cg_hm_ttl_parse(NULL, &v), CG_EINVAL);
	assert_int_equal(v, 42);

	assert_int_equal(cg_hm_registry_parse(&r, yaml, strlen(yaml), NULL), 0);
	dump(r.warnings);
	assert_int_equal(r.n, 7);
	assert_int_equal(r.v[0].ttl_s, 7 * 86400);
	assert_int_equal(r.v[1].ttl_s, 1800);
	assert_int_equal(r.v[2].ttl_s, 90);
	assert_int_equal(r.v[3].ttl_s, 7 * 86400);
	assert_int_equal(r.v[4].ttl_s, 7 * 86400);
	assert_int_equal(r.v[5].ttl_s, 3 * 86400);
	assert_int_equal(r.v[6].ttl_s, 7 * 86400);
	assert_int_equal(count(r.warnings), 3);
	assert_true(has_warning(r.warnings, "(\"d\")", "\"soon\""));
	assert_true(has_warning(r.warnings, "(\"e\")", "using 7d"));
	assert_true(has_warning(r.warnings, "(\"g\")", "out of range"));
	cg_hm_registry_fini(&r);
}

/* -------------------------------------------------------------- config */

static const char config_yaml[] =
    "# Example Corpus Configuration\n"
    "schema_version: 2\n"
    "\n"
    "corpus:\n"
    "  name: \"widgets\"\n"
    "  display_name: \"Widgets\"\n"
    "  created_at: \"2025-12-10T15:34:00Z\"\n"
    "  keywords:\n"
    "    - widgets\n"
    "    - \"widget api\"\n"
    "    - 2024\n"
    "    - [nested]\n"
    "\n"
    "sources:\n"
    "  - id: \"widgets\"\n"
    "    type: \"git\"\n"
    "    repo_url: \"https://example.org/acme/widgets\"\n"
    "    repo_owner: \"acme\"\n"
    "    repo_name: \"widgets\"\n"
    "    docs_root: \"./docs/\"\n"
    "    last_commit_sha: \"9126733B38E1C92F6E787F92DC9954E88AB6400D\"\n"
    "    last_indexed_at: \"2025-12-10T15:45:00Z\"\n"
    "  - id: \"escape\"\n"
    "    type: \"git\"\n"
    "    repo_owner: \"acme\"\n"
    "    repo_name: \"other\"\n"
    "    docs_root: \"docs/../../etc\"\n"
    "\n"
    "index:\n"
    "  format: \"markdown\"\n";

static void
test_config(void **state)
{
	cg_hm_config c;
	const cg_hm_source *s;

	assert_int_equal(
	    cg_hm_config_parse(&c, config_yaml, strlen(config_yaml), NULL), 0);
	dump(c.warnings);
	assert_string_equal(c.name, "widgets");
	assert_string_equal(c.display_name, "Widgets");
	assert_int_equal(count(c.keywords), 3);
	assert_string_equal(c.keywords[0], "widgets");
	assert_string_equal(c.keywords[1], "widget api");
	assert_string_equal(c.keywords[2], "2024");
	assert_int_equal(c.nsources, 1);
	s = &c.sources[0];
	assert_string_equal(s->id, "widgets");
	assert_string_equal(s->type, "git");
	assert_string_equal(s->repo_owner, "acme");
	assert_string_equal(s->repo_name, "widgets");
	assert_string_equal(s->repo_url, "https://example.org/acme/widgets");
	assert_string_equal(s->branch, "main");
	assert_string_equal(s->docs_root, "docs");
	assert_null(s->path);
	assert_string_equal(s->last_commit_sha,
	                    "9126733b38e1c92f6e787f92dc9954e88ab6400d");
	assert_ptr_equal(cg_hm_config_source(&c, "widgets"), s);
	assert_null(cg_hm_config_source(&c, "escape"));
	assert_null(cg_hm_config_source(&c, NULL));
	assert_int_equal(count(c.warnings), 1);
	assert_true(has_warning(c.warnings, "sources[1] (\"escape\")",
	                        "docs/../../etc"));
	cg_hm_config_fini(&c);
	assert_null(c.sources);
}

static void
test_config_drift(void **state)
{
	static const char yaml[] = "corpus:\n"
	                           "  keywords: solo\n"
	                           "sources:\n"
	                           "  - id: vault\n"
	                           "    type: self\n"
	                           "    docs_root: \".\"\n"
	                           "    last_commit_sha: null\n"
	                           "  - id: up\n"
	                           "    type: local\n"
	                           "    path: \"uploads/team/\"\n"
	                           "    docs_root: \"//a//./b/\"\n"
	                           "    last_commit_sha: \"abc123...\"\n"
	                           "  - id: vault\n"
	                           "    type: git\n"
	                           "  - id: notype\n"
	                           "  - id: bs\n"
	                           "    type: git\n"
	                           "    docs_root: 'a\\b'\n"
	                           "  - id: br\n"
	                           "    type: git\n"
	                           "    branch: \"a..b\"\n"
	                           "  - id: \"x\\0y\"\n"
	                           "    type: git\n";
	cg_hm_config c;

	assert_int_equal(cg_hm_config_parse(&c, yaml, strlen(yaml), NULL), 0);
	dump(c.warnings);
	assert_null(c.name);
	assert_null(c.display_name);
	assert_int_equal(count(c.keywords), 1);
	assert_string_equal(c.keywords[0], "solo");
	assert_int_equal(c.nsources, 2);
	assert_string_equal(c.sources[0].type, "self");
	assert_string_equal(c.sources[0].docs_root, "");
	assert_null(c.sources[0].branch);
	assert_null(c.sources[0].last_commit_sha);
	assert_string_equal(c.sources[1].path, "uploads/team/");
	assert_string_equal(c.sources[1].docs_root, "a/b");
	assert_null(c.sources[1].last_commit_sha);
	assert_int_equal(count(c.warnings), 7);
	assert_true(has_warning(c.warnings, "corpus.name", NULL));
	assert_true(has_warning(c.warnings, "(\"up\")", "40 hex"));
	assert_true(has_warning(c.warnings, "sources[2]", "duplicate"));
	assert_true(has_warning(c.warnings, "sources[3]", "no type"));
	assert_true(has_warning(c.warnings, "sources[4]", "docs_root"));
	assert_true(has_warning(c.warnings, "sources[5]", "branch"));
	assert_true(has_warning(c.warnings, "sources[6]", "no id"));
	cg_hm_config_fini(&c);
}

/* ---------------------------------------------------------- index v2 */

static const char index_yaml[] =
    "entries:\n"
    "  - id: \"docs:guide/expressions.md\"\n"
    "    source: docs\n"
    "    path: \"guide/expressions.md\"\n"
    "    title: \"Expressions\"\n"
    "    summary: \"Overview of the expression system\"\n"
    "    tags: [expressions, core]\n"
    "    keywords: [col, lit, when, then]\n"
    "    concepts: [\"expressions\"]\n"
    "    category: reference\n"
    "    content_type: markdown\n"
    "    size: large\n"
    "    grep_hint: \"grep -n '^## ' FILE\"\n"
    "    headings:\n"
    "      - anchor: \"window-functions\"\n"
    "        title: \"Window Functions\"\n"
    "    links_to: []\n"
    "    frontmatter: {}\n"
    "    stale: false\n"
    "    stale_since: null\n"
    "    last_indexed: \"2026-04-05T10:00:00Z\"\n"
    "\n"
    "  - id: \"docs:guide/expressions.md#window-functions\"\n"
    "    parent: \"docs:guide/expressions.md\"\n"
    "    tier: section\n"
    "    source: docs\n"
    "    path: \"guide/expressions.md\"\n"
    "    anchor: \"window-functions\"\n"
    "    title: \"Window Functions\"\n"
    "    summary: \"How to use over()\"\n"
    "    tags: [window]\n"
    "    concepts: [\"window-expressions\"]\n"
    "    category: reference\n"
    "    heading_level: 2\n"
    "    line_range: [145, 210]\n"
    "    stale: false\n"
    "\n"
    "  - id: \"docs:lazy.md\"\n"
    "    path: \"lazy.md\"\n"
    "    title: \"Lazy\"\n"
    "    tags: lazy\n"
    "    stale: true\n"
    "    stale_since: \"2026-03-01T00:00:00Z\"\n"
    "\n"
    "  - id: \"docs:../x.md\"\n"
    "    source: docs\n"
    "    path: \"../x.md\"\n"
    "    title: \"Escape\"\n"
    "\n"
    "  - id: \"blog:posts/2024/intro.md\"\n"
    "    summary: \"No source field, no path field, no title\"\n"
    "\n"
    "  - id: \"docs:lazy.md#plans\"\n"
    "    tier: section\n"
    "    heading_level: 9\n"
    "    line_range: [20, 10]\n"
    "\n"
    "  - id: \"docs:lazy.md\"\n"
    "    title: \"Duplicate\"\n"
    "  - id: \"docs:/etc/passwd\"\n"
    "  - id: \"docs:a\\\\b.md\"\n"
    "  - id: \"nocolon\"\n"
    "  - id: \"docs:x.md#s\"\n"
    "    tier: section\n"
    "    anchor: \"\"\n"
    "    parent: \"\"\n"
    "  - id: \"docs:t.md\"\n"
    "    tier: chapter\n"
    "  - title: \"no id\"\n"
    "\n"
    "meta:\n"
    "  generated_at: \"2026-04-05T10:00:00Z\"\n"
    "  entry_count: 12\n";

static void
test_index_v2(void **state)
{
	cg_hm_index ix;
	const cg_hm_entry *e;

	assert_int_equal(
	    cg_hm_index_parse_v2(&ix, index_yaml, strlen(index_yaml), NULL), 0);
	dump(ix.warnings);
	assert_int_equal(ix.version, 2);
	assert_int_equal(ix.n, 6);

	e = &ix.v[0];
	assert_string_equal(e->id, "docs:guide/expressions.md");
	assert_string_equal(e->source, "docs");
	assert_string_equal(e->path, "guide/expressions.md");
	assert_string_equal(e->title, "Expressions");
	assert_string_equal(e->summary, "Overview of the expression system");
	assert_string_equal(e->category, "reference");
	assert_int_equal(count(e->tags), 2);
	assert_string_equal(e->tags[1], "core");
	assert_int_equal(count(e->keywords), 4);
	assert_string_equal(e->keywords[3], "then");
	assert_int_equal(count(e->concepts), 1);
	assert_string_equal(e->concepts[0], "expressions");
	assert_false(e->stale);
	assert_null(e->stale_since);
	assert_false(e->is_section);
	assert_null(e->parent);
	assert_int_equal(e->line_start, 0);

	e = &ix.v[1];
	assert_true(e->is_section);
	assert_string_equal(e->id,
	                    "docs:guide/expressions.md#window-functions");
	assert_string_equal(e->parent, "docs:guide/expressions.md");
	assert_string_equal(e->anchor, "window-functions");
	assert_string_equal(e->path, "guide/expressions.md");
	assert_int_equal(e->heading_level, 2);
	assert_int_equal(e->line_start, 145);
	assert_int_equal(e->line_end, 210);
	assert_int_equal(count(e->keywords), 0);

	e = &ix.v[2];
	assert_string_equal(e->source, "docs");
	assert_true(e->stale);
	assert_string_equal(e->stale_since, "2026-03-01T00:00:00Z");
	assert_int_equal(count(e->tags), 1);
	assert_string_equal(e->tags[0], "lazy");
	assert_null(e->summary);
	assert_null(e->category);

	/* No source and no path field: both come from the id. */
	e = &ix.v[3];
	assert_string_equal(e->id, "blog:posts/2024/intro.md");
	assert_string_equal(e->source, "blog");
	assert_string_equal(e->path, "posts/2024/intro.md");
	assert_string_equal(e->title, "intro.md");

	/* A section with only its id: parent, anchor and path derived. */
	e = &ix.v[4];
	assert_true(e->is_section);
	assert_string_equal(e->parent, "docs:lazy.md");
	assert_string_equal(e->anchor, "plans");
	assert_string_equal(e->path, "lazy.md");
	assert_string_equal(e->title, "lazy.md");
	assert_int_equal(e->heading_level, 0);
	assert_int_equal(e->line_start, 0);
	assert_int_equal(e->line_end, 0);

	/* An unknown tier is read as a file entry. */
	e = &ix.v[5];
	assert_string_equal(e->id, "docs:t.md");
	assert_false(e->is_section);

	assert_int_equal(count(ix.warnings), 9);
	assert_true(has_warning(ix.warnings, "entries[3]", "../x.md"));
	assert_true(has_warning(ix.warnings, "entries[5]", "line_range"));
	assert_true(has_warning(ix.warnings, "entries[6]", "duplicate"));
	assert_true(has_warning(ix.warnings, "entries[7]", "/etc/passwd"));
	assert_true(has_warning(ix.warnings, "entries[8]", "a\\b.md"));
	assert_true(has_warning(ix.warnings, "entries[9]", "source"));
	assert_true(has_warning(ix.warnings, "entries[10]", "anchor"));
	assert_true(has_warning(ix.warnings, "entries[11]", "tier"));
	assert_true(has_warning(ix.warnings, "entries[12]", "no id"));
	cg_hm_index_fini(&ix);
	assert_null(ix.v);
	cg_hm_index_fini(NULL);
}

/* ---------------------------------------------------------- index v1 */

static const char index_md[] =
    "# Widgets Documentation Index\n"
    "\n"
    "> Source: widgets (git) | 6 docs | Focus: widgets\n"
    "\n"
    "---\n"
    "\n"
    "## Getting Started\n"
    "\n"
    "- **Introduction** `widgets:index.md` - Overview of widgets: "
    "fast, small\n"
    "- **Installation** `widgets:guide/install.md`\n"
    "\n"
    "### Sub heading\n"
    "- **Large Page** `widgets:guide/big.md` - Covers everything "
    "\xE2\x9A\xA1 GREP - `grep -n '^## ' FILE`\n"
    "  - **Detail**: an indented continuation, not an entry\n"
    "  - **Nested** `widgets:nested.md` - indented, ignored\n"
    "- **Escape** `widgets:../etc/passwd.md` - refused\n"
    "- **Plain code** `not a reference` - ignored\n"
    "- Not bold `widgets:plain.md` - ignored\n"
    "\n"
    "## API Reference\r\n"
    "\r\n"
    "- **Bad \xFF Byte** `widgets:api/bad.md` \xE2\x80\x94 dash "
    "\xE2\x9A\xA1 bolt kept\r\n"
    "```\n"
    "## Not A Heading\n"
    "- **Fenced** `widgets:fenced.md` - inside a fence\n"
    "```\n"
    "* **Star** `widgets:api/star.md` - a star bullet\n"
    "- **** `widgets:api/untitled.md`\n"
    "- **Introduction** `widgets:index.md` - duplicate\n"
    "####### not a heading\n"
    "- **Last** `other-src:last.md` - no newline at the end";

static void
test_index_v1(void **state)
{
	cg_hm_index ix;
	const cg_hm_entry *e;

	assert_int_equal(
	    cg_hm_index_parse_v1(&ix, index_md, strlen(index_md), NULL), 0);
	dump(ix.warnings);
	assert_int_equal(ix.version, 1);
	assert_int_equal(ix.n, 7);

	e = &ix.v[0];
	assert_string_equal(e->id, "widgets:index.md");
	assert_string_equal(e->source, "widgets");
	assert_string_equal(e->path, "index.md");
	assert_string_equal(e->title, "Introduction");
	assert_string_equal(e->summary, "Overview of widgets: fast, small");
	assert_string_equal(e->category, "getting started");
	assert_int_equal(count(e->tags), 0);
	assert_int_equal(count(e->keywords), 0);
	assert_int_equal(count(e->concepts), 0);
	assert_false(e->is_section);

	e = &ix.v[1];
	assert_string_equal(e->title, "Installation");
	assert_null(e->summary);

	e = &ix.v[2];
	assert_string_equal(e->path, "guide/big.md");
	assert_string_equal(e->summary, "Covers everything");
	assert_string_equal(e->category, "getting started");

	e = &ix.v[3];
	assert_string_equal(e->title, "Bad \xEF\xBF\xBD Byte");
	assert_string_equal(e->summary, "dash \xE2\x9A\xA1 bolt kept");
	assert_string_equal(e->category, "api reference");

	e = &ix.v[4];
	assert_string_equal(e->id, "widgets:api/star.md");
	assert_string_equal(e->category, "api reference");

	e = &ix.v[5];
	assert_string_equal(e->title, "untitled.md");
	assert_null(e->summary);

	e = &ix.v[6];
	assert_string_equal(e->source, "other-src");
	assert_string_equal(e->summary, "no newline at the end");

	assert_int_equal(count(ix.warnings), 3);
	assert_true(has_warning(ix.warnings, "invalid UTF-8", NULL));
	assert_true(has_warning(ix.warnings, "line 16", "../etc/passwd.md"));
	assert_true(has_warning(ix.warnings, "line 29", "duplicate"));
	cg_hm_index_fini(&ix);

	/* Empty input, and NULL with no length. */
	assert_int_equal(cg_hm_index_parse_v1(&ix, "", 0, NULL), 0);
	assert_int_equal(ix.n, 0);
	assert_non_null(ix.v);
	assert_int_equal(count(ix.warnings), 0);
	cg_hm_index_fini(&ix);
	assert_int_equal(cg_hm_index_parse_v1(&ix, NULL, 0, NULL), 0);
	assert_int_equal(ix.n, 0);
	cg_hm_index_fini(&ix);
}

/* Tier indexes: links to "index-<id>.md" next to index.md, each once;
 * anything that could name another folder, and links in fences, are
 * not tiers. */
static void
test_index_v1_tiers(void **state)
{
	static const char md[] =
	    "# Fleet\n\n## Sections\n\n"
	    "- [Start](index-getting-started.md) - first steps\n"
	    "- [Machines](./index-machines.md \"T\") and "
	    "[again](index-machines.md#top)\n"
	    "- [Angle](<index-volumes.md>) [Doc](guide.md) "
	    "[Up](../index-up.md) [Sub](sub/index-sub.md)\n"
	    "- [Abs](/index-abs.md) [Bare](index-.md) [Odd](index-a b.md)\n"
	    "```\n[Fenced](index-fenced.md)\n```\n"
	    "- **Install** `fl:install.md` - [x](index-inline.md)\n";
	static const char tier[] = "## Setup\n- **Install** `fl:install.md`\n"
	                           "- **Launch** `fl:launch.md` - go\n";
	cg_hm_index ix;
	cg_hm_index more;
	char *big;
	size_t n = 0;

	(void)state;
	assert_int_equal(cg_hm_index_parse_v1(&ix, md, strlen(md), NULL), 0);
	assert_int_equal(count(ix.tiers), 4);
	assert_string_equal(ix.tiers[0], "index-getting-started.md");
	assert_string_equal(ix.tiers[1], "index-machines.md");
	assert_string_equal(ix.tiers[2], "index-volumes.md");
	assert_string_equal(ix.tiers[3], "index-inline.md");
	assert_int_equal(ix.n, 1);

	/* Merging: an id already there is kept once, the new one moves. */
	assert_int_equal(cg_hm_index_parse_v1(&more, tier, strlen(tier), NULL),
	                 0);
	assert_int_equal(more.n, 2);
	assert_int_equal(cg_hm_index_merge(&ix, &more), 0);
	assert_int_equal(ix.n, 2);
	assert_int_equal(more.n, 0);
	assert_string_equal(ix.v[1].id, "fl:launch.md");
	assert_string_equal(ix.v[1].category, "setup");
	cg_hm_index_fini(&more);
	cg_hm_index_fini(&ix);

	/* More links than CG_HM_MAX_TIERS: capped, one warning. */
	big = malloc((size_t)(CG_HM_MAX_TIERS + 10) * 40);
	assert_non_null(big);
	for (int i = 0; i < CG_HM_MAX_TIERS + 10; i++)
		n += (size_t)sprintf(big + n, "[t](index-%d.md)\n", i);
	assert_int_equal(cg_hm_index_parse_v1(&ix, big, n, NULL), 0);
	assert_int_equal(count(ix.tiers), CG_HM_MAX_TIERS);
	assert_true(has_warning(ix.warnings, "tier indexes", NULL));
	cg_hm_index_fini(&ix);
	free(big);
}

/* ------------------------------------------------------------- graph */

static const char graph_yaml[] = "schema_version: 2\n"
                                 "\n"
                                 "concepts:\n"
                                 "  core:\n"
                                 "    label: \"Core\"\n"
                                 "    description: \"The core abstractions\"\n"
                                 "    tags: [\"architecture\", \"loop\"]\n"
                                 "  tools:\n"
                                 "    label: \"Tools\"\n"
                                 "  bare:\n"
                                 "  \"bad id\":\n"
                                 "    label: \"Bad\"\n"
                                 "  listy: [1, 2]\n"
                                 "\n"
                                 "relationships:\n"
                                 "  - from: \"core\"\n"
                                 "    to: \"tools\"\n"
                                 "    type: \"includes\"\n"
                                 "    origin: \"manual\"\n"
                                 "    evidence: null\n"
                                 "  - from: \"tools\"\n"
                                 "    to: \"ghost\"\n"
                                 "    type: \"depends-on\"\n"
                                 "  - from: \"bare\"\n"
                                 "    to: \"core\"\n"
                                 "    type: \"inspired-by\"\n"
                                 "    note: \"kept, warned\"\n"
                                 "  - from: \"core\"\n"
                                 "    to: \"bare\"\n"
                                 "  - to: \"core\"\n"
                                 "    type: see-also\n"
                                 "\n"
                                 "meta:\n"
                                 "  concept_count: 3\n";

static void
test_graph(void **state)
{
	cg_hm_graph g;
	const cg_hm_concept *c;

	assert_int_equal(
	    cg_hm_graph_parse(&g, graph_yaml, strlen(graph_yaml), NULL), 0);
	dump(g.warnings);
	assert_int_equal(g.nconcepts, 3);
	assert_string_equal(g.concepts[0].id, "core");
	assert_string_equal(g.concepts[0].label, "Core");
	assert_string_equal(g.concepts[0].description, "The core abstractions");
	assert_int_equal(count(g.concepts[0].tags), 2);
	assert_string_equal(g.concepts[0].tags[1], "loop");
	assert_string_equal(g.concepts[1].id, "tools");
	assert_null(g.concepts[1].description);
	assert_string_equal(g.concepts[2].id, "bare");
	assert_null(g.concepts[2].label);
	assert_int_equal(count(g.concepts[2].tags), 0);
	c = cg_hm_graph_concept(&g, "tools");
	assert_ptr_equal(c, &g.concepts[1]);
	assert_null(cg_hm_graph_concept(&g, "ghost"));
	assert_null(cg_hm_graph_concept(&g, NULL));

	assert_int_equal(g.nrels, 2);
	assert_null(g.rels[0].from_corpus);
	assert_string_equal(g.rels[0].from, "core");
	assert_string_equal(g.rels[0].to, "tools");
	assert_string_equal(g.rels[0].type, "includes");
	assert_null(g.rels[0].note);
	assert_string_equal(g.rels[1].type, "inspired-by");
	assert_string_equal(g.rels[1].note, "kept, warned");

	assert_int_equal(count(g.warnings), 6);
	assert_true(has_warning(g.warnings, "bad id", NULL));
	assert_true(has_warning(g.warnings, "listy", "not a mapping"));
	assert_true(has_warning(g.warnings, "relationships[1]", "\"ghost\""));
	assert_true(has_warning(g.warnings, "relationships[2]", "inspired-by"));
	assert_true(has_warning(g.warnings, "relationships[3]", "no type"));
	assert_true(has_warning(g.warnings, "relationships[4]", "no from"));
	cg_hm_graph_fini(&g);
	cg_hm_graph_fini(NULL);
}

static void
test_graph_list_form(void **state)
{
	static const char yaml[] = "concepts:\n"
	                           "  - id: a\n"
	                           "    label: A\n"
	                           "  - id: a\n"
	                           "  - label: no id\n"
	                           "  - id: b\n"
	                           "relationships:\n"
	                           "  - {from: a, to: b, type: see-also}\n";
	cg_hm_graph g;

	assert_int_equal(cg_hm_graph_parse(&g, yaml, strlen(yaml), NULL), 0);
	dump(g.warnings);
	assert_int_equal(g.nconcepts, 2);
	assert_string_equal(g.concepts[0].label, "A");
	assert_string_equal(g.concepts[1].id, "b");
	assert_int_equal(g.nrels, 1);
	assert_int_equal(count(g.warnings), 2);
	assert_true(has_warning(g.warnings, "\"a\"", "duplicate"));
	assert_true(has_warning(g.warnings, "(none)", NULL));
	cg_hm_graph_fini(&g);
}

/* ---------------------------------------------------- registry graph */

static const char reggraph_yaml[] =
    "schema_version: 1\n"
    "\n"
    "bridges:\n"
    "  # === Lazy ===\n"
    "  - concept_a: \"alpha:lazy-evaluation\"\n"
    "    concept_b: \"beta:deferred-execution\"\n"
    "    type: \"see-also\"\n"
    "    note: \"Both defer execution\"\n"
    "  - concept_a: \"alpha:types\"\n"
    "    concept_b: \"noconcept\"\n"
    "    type: \"see-also\"\n"
    "  - concept_a: \":x\"\n"
    "    concept_b: \"beta:y\"\n"
    "    type: \"see-also\"\n"
    "  - concept_a: \"alpha:a\"\n"
    "    concept_b: \"gamma:b\"\n"
    "    type: \"contrast-with\"\n"
    "\n"
    "aliases:\n"
    "  \"lazy evaluation\":\n"
    "    - corpus: \"alpha\"\n"
    "      concept: \"lazy-evaluation\"\n"
    "    - corpus: \"beta\"\n"
    "      concept: \"deferred-execution\"\n"
    "  \"sql\":\n"
    "    - \"alpha:sql-interface\"\n"
    "    - corpus: \"beta\"\n"
    "    - corpus: \"../up\"\n"
    "      concept: \"x\"\n"
    "  \"nothing\":\n"
    "    - corpus: \"\"\n"
    "      concept: \"x\"\n"
    "  \"single\":\n"
    "    corpus: gamma\n"
    "    concept: b\n"
    "\n"
    "meta:\n"
    "  updated_at: \"2026-03-28T00:00:00Z\"\n"
    "  bridge_count: 4\n";

static void
test_reggraph(void **state)
{
	cg_hm_reggraph rg;

	assert_int_equal(cg_hm_reggraph_parse(&rg, reggraph_yaml,
	                                      strlen(reggraph_yaml), NULL),
	                 0);
	dump(rg.warnings);
	assert_int_equal(rg.nbridges, 2);
	assert_string_equal(rg.bridges[0].from_corpus, "alpha");
	assert_string_equal(rg.bridges[0].from, "lazy-evaluation");
	assert_string_equal(rg.bridges[0].to_corpus, "beta");
	assert_string_equal(rg.bridges[0].to, "deferred-execution");
	assert_string_equal(rg.bridges[0].type, "see-also");
	assert_string_equal(rg.bridges[0].note, "Both defer execution");
	assert_string_equal(rg.bridges[1].to_corpus, "gamma");
	assert_string_equal(rg.bridges[1].type, "contrast-with");
	assert_null(rg.bridges[1].note);

	assert_int_equal(rg.naliases, 3);
	assert_string_equal(rg.aliases[0].term, "lazy evaluation");
	assert_int_equal(rg.aliases[0].ntargets, 2);
	assert_string_equal(rg.aliases[0].targets[1].corpus, "beta");
	assert_string_equal(rg.aliases[0].targets[1].concept,
	                    "deferred-execution");
	assert_string_equal(rg.aliases[1].term, "sql");
	assert_int_equal(rg.aliases[1].ntargets, 1);
	assert_string_equal(rg.aliases[1].targets[0].corpus, "alpha");
	assert_string_equal(rg.aliases[1].targets[0].concept, "sql-interface");
	assert_string_equal(rg.aliases[2].term, "single");
	assert_int_equal(rg.aliases[2].ntargets, 1);
	assert_string_equal(rg.aliases[2].targets[0].concept, "b");

	assert_int_equal(count(rg.warnings), 6);
	assert_true(has_warning(rg.warnings, "bridges[1]", "noconcept"));
	assert_true(has_warning(rg.warnings, "bridges[2]", "concept_a"));
	assert_true(has_warning(rg.warnings, "[\"sql\"][1]", NULL));
	assert_true(has_warning(rg.warnings, "[\"sql\"][2]", NULL));
	assert_true(has_warning(rg.warnings, "[\"nothing\"][0]", NULL));
	assert_true(has_warning(rg.warnings, "[\"nothing\"]: no target", NULL));
	cg_hm_reggraph_fini(&rg);
	cg_hm_reggraph_fini(NULL);
}

/* ------------------------------------------------------------ checks */

static void
test_check(void **state)
{
	static const char cfg[] = "corpus: {name: w}\n"
	                          "sources:\n"
	                          "  - {id: docs, type: git}\n";
	static const char gr[] = "concepts:\n"
	                         "  expressions: {label: E}\n";
	cg_hm_config c;
	cg_hm_graph g;
	cg_hm_index ix;

	assert_int_equal(cg_hm_config_parse(&c, cfg, strlen(cfg), NULL), 0);
	assert_int_equal(cg_hm_graph_parse(&g, gr, strlen(gr), NULL), 0);
	assert_int_equal(
	    cg_hm_index_parse_v2(&ix, index_yaml, strlen(index_yaml), NULL), 0);
	assert_int_equal(count(ix.warnings), 9);
	cg_hm_check(&ix, &c, &g);
	dump(ix.warnings);
	/* blog:... has no source in the config; window-expressions is not a
	 * concept of the graph. */
	assert_int_equal(count(ix.warnings), 11);
	assert_true(has_warning(ix.warnings, "blog:posts/2024/intro.md",
	                        "\"blog\" is not in config.yaml"));
	assert_true(has_warning(ix.warnings, "#window-functions",
	                        "\"window-expressions\" is not in graph"));
	assert_int_equal(ix.n, 6);
	cg_hm_check(&ix, NULL, NULL);
	assert_int_equal(count(ix.warnings), 11);
	cg_hm_check(NULL, &c, &g);
	cg_hm_index_fini(&ix);
	cg_hm_graph_fini(&g);
	cg_hm_config_fini(&c);
}

/* Many bad entries: the list stops at the cap, the last line counts the
 * rest, and cg_hm_check keeps counting on top of it. */
static void
test_warning_cap(void **state)
{
	cg_buf b;
	cg_hm_index ix;
	cg_hm_config c;
	size_t n;

	cg_buf_init(&b, 1u << 20);
	assert_int_equal(cg_buf_puts(&b, "entries:\n"), 0);
	for (int i = 0; i < 70; i++)
		assert_int_equal(cg_buf_printf(&b, "  - id: \"s:../%d\"\n", i),
		                 0);
	assert_int_equal(cg_buf_puts(&b, "  - id: \"s:ok.md\"\n"), 0);
	assert_int_equal(cg_hm_index_parse_v2(&ix, b.data, b.len, NULL), 0);
	assert_int_equal(ix.n, 1);
	n = count(ix.warnings);
	assert_int_equal(n, CG_HM_MAX_WARNINGS);
	assert_string_equal(ix.warnings[n - 1], "21 more warnings not shown");
	assert_non_null(strstr(ix.warnings[n - 2], "entries[48]"));

	assert_int_equal(cg_hm_config_parse(&c, "sources: []\n", 12, NULL), 0);
	cg_hm_check(&ix, &c, NULL);
	n = count(ix.warnings);
	assert_int_equal(n, CG_HM_MAX_WARNINGS);
	assert_string_equal(ix.warnings[n - 1], "22 more warnings not shown");
	cg_hm_config_fini(&c);
	cg_hm_index_fini(&ix);
	cg_buf_fini(&b);
}

/* ----------------------------------------------------------- hostile */

typedef int (*parse_fn)(const char *text, size_t len, cg_err *err);

static int
p_registry(const char *t, size_t n, cg_err *err)
{
	cg_hm_registry r;
	int rc = cg_hm_registry_parse(&r, t, n, err);

	if (rc != 0) {
		assert_null(r.v);
		assert_null(r.warnings);
	}
	cg_hm_registry_fini(&r);
	return rc;
}

static int
p_config(const char *t, size_t n, cg_err *err)
{
	cg_hm_config c;
	int rc = cg_hm_config_parse(&c, t, n, err);

	if (rc != 0)
		assert_null(c.sources);
	cg_hm_config_fini(&c);
	return rc;
}

static int
p_index(const char *t, size_t n, cg_err *err)
{
	cg_hm_index ix;
	int rc = cg_hm_index_parse_v2(&ix, t, n, err);

	if (rc != 0)
		assert_null(ix.v);
	cg_hm_index_fini(&ix);
	return rc;
}

static int
p_graph(const char *t, size_t n, cg_err *err)
{
	cg_hm_graph g;
	int rc = cg_hm_graph_parse(&g, t, n, err);

	cg_hm_graph_fini(&g);
	return rc;
}

static int
p_reggraph(const char *t, size_t n, cg_err *err)
{
	cg_hm_reggraph rg;
	int rc = cg_hm_reggraph_parse(&rg, t, n, err);

	cg_hm_reggraph_fini(&rg);
	return rc;
}

static const parse_fn parsers[] = {p_registry, p_config, p_index, p_graph,
                                   p_reggraph};

/* Every YAML parser must refuse text with code, the message naming
 * needle. */
static void
all_refuse(const char *text, size_t len, int code, const char *needle)
{
	for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]); i++) {
		cg_err err;

		cg_err_clear(&err);
		assert_int_equal(parsers[i](text, len, &err), code);
		assert_int_equal(err.code, code);
		if (strstr(err.msg, needle) == NULL)
			print_message("message: %s\n", err.msg);
		assert_non_null(strstr(err.msg, needle));
	}
}

/* A malloc'd string of prefix + n copies of unit + suffix. */
static char *
repeat(const char *prefix, const char *unit, size_t n, const char *suffix)
{
	cg_buf b;

	cg_buf_init(&b, 64u << 20);
	assert_int_equal(cg_buf_puts(&b, prefix), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(cg_buf_puts(&b, unit), 0);
	assert_int_equal(cg_buf_puts(&b, suffix), 0);
	return cg_buf_take(&b);
}

static void
test_hostile(void **state)
{
	static const char bomb[] = "a: &a [\"x\",\"x\",\"x\",\"x\",\"x\"]\n"
	                           "b: &b [*a,*a,*a,*a,*a]\n"
	                           "c: &c [*b,*b,*b,*b,*b]\n"
	                           "d: &d [*c,*c,*c,*c,*c]\n"
	                           "corpora: [*d,*d,*d,*d,*d]\n"
	                           "entries: [*d,*d,*d,*d,*d]\n";
	static const char seq[] = "- id: a\n- id: b\n";
	static const char scalar[] = "just some text\n";
	static const char broken[] = "corpora:\n  - id: [a, b\n";
	static const char tmpl[] = "corpus:\n"
	                           "  keywords:\n"
	                           "    - \"{{name}}\"\n"
	                           "{{#more}}\n"
	                           "    - \"{{.}}\"\n"
	                           "{{/more}}\n";
	static const char bad_utf8[] = "corpora:\n  - id: \"\xC3\x28\"\n";
	char *deep = repeat("corpora: ", "[", 100000, "");
	char *close = repeat("", "}", 100, "");
	char *deep_map = repeat("x: ", "{a: ", 100, close);
	double t0 = now_s();

	/* Aliases are copies within bounds: this one passes the cap of
	 * copied nodes (CG_YAML_MAX_ALIAS_NODES) on line 5. */
	all_refuse(bomb, strlen(bomb), CG_EPARSE, "line 5");
	all_refuse(bomb, strlen(bomb), CG_EPARSE, "aliases expand");
	all_refuse(deep, strlen(deep), CG_EPARSE, "nesting");
	all_refuse(seq, strlen(seq), CG_EPARSE, "not a mapping");
	all_refuse(scalar, strlen(scalar), CG_EPARSE, "not a mapping");
	all_refuse(broken, strlen(broken), CG_EPARSE, "line 3");
	all_refuse(tmpl, strlen(tmpl), CG_EPARSE, "YAML line 5");
	all_refuse(bad_utf8, sizeof(bad_utf8) - 1, CG_EPARSE, "YAML line");
	all_refuse(deep_map, strlen(deep_map), CG_EPARSE, "nesting");
	assert_true(now_s() - t0 < 2.0);
	free(deep);
	free(deep_map);
	free(close);
}

static void
test_hostile_name_in_message(void **state)
{
	static const char seq[] = "- x\n";
	cg_hm_registry r;
	cg_hm_config c;
	cg_hm_index ix;
	cg_hm_graph g;
	cg_hm_reggraph rg;
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_hm_registry_parse(&r, seq, 4, &err), CG_EPARSE);
	assert_non_null(strstr(err.msg, "registry.yaml: YAML line 1"));
	cg_err_clear(&err);
	assert_int_equal(cg_hm_config_parse(&c, seq, 4, &err), CG_EPARSE);
	assert_non_null(strstr(err.msg, "config.yaml"));
	cg_err_clear(&err);
	assert_int_equal(cg_hm_index_parse_v2(&ix, seq, 4, &err), CG_EPARSE);
	assert_non_null(strstr(err.msg, "index.yaml"));
	cg_err_clear(&err);
	assert_int_equal(cg_hm_graph_parse(&g, seq, 4, &err), CG_EPARSE);
	assert_non_null(strstr(err.msg, "graph.yaml"));
	cg_err_clear(&err);
	assert_int_equal(cg_hm_reggraph_parse(&rg, seq, 4, &err), CG_EPARSE);
	assert_non_null(strstr(err.msg, "registry-graph.yaml"));
	/* NULL err is fine. */
	assert_int_equal(cg_hm_graph_parse(&g, seq, 4, NULL), CG_EPARSE);
}

static void
test_too_big(void **state)
{
	size_t n = (size_t)CG_HM_MAX_BYTES + 1;
	char *big = malloc(n);
	cg_hm_index ix;
	cg_err err;

	assert_non_null(big);
	memset(big, '#', n);
	all_refuse(big, n, CG_ETOOBIG, "limit");
	cg_err_clear(&err);
	assert_int_equal(cg_hm_index_parse_v1(&ix, big, n, &err), CG_ETOOBIG);
	assert_non_null(strstr(err.msg, "index.md"));
	assert_null(ix.v);
	free(big);
}

/* Shapes that are YAML but not what is expected: warned, never fatal. */
static void
test_wrong_shapes(void **state)
{
	static const char yaml[] = "corpora: 7\n"
	                           "sources: {a: 1}\n"
	                           "entries: \"x\"\n"
	                           "concepts: [1]\n"
	                           "relationships: {}\n"
	                           "bridges: [[1]]\n"
	                           "aliases: [1]\n"
	                           "corpus: [1]\n";
	static const char empty[] = "";
	cg_hm_registry r;
	cg_hm_config c;
	cg_hm_index ix;
	cg_hm_graph g;
	cg_hm_reggraph rg;

	assert_int_equal(cg_hm_registry_parse(&r, yaml, strlen(yaml), NULL), 0);
	assert_int_equal(r.n, 0);
	assert_true(has_warning(r.warnings, "corpora: not a list", NULL));
	cg_hm_registry_fini(&r);
	assert_int_equal(cg_hm_config_parse(&c, yaml, strlen(yaml), NULL), 0);
	assert_int_equal(c.nsources, 0);
	assert_null(c.name);
	assert_int_equal(count(c.keywords), 0);
	assert_true(has_warning(c.warnings, "sources: not a list", NULL));
	cg_hm_config_fini(&c);
	assert_int_equal(cg_hm_index_parse_v2(&ix, yaml, strlen(yaml), NULL),
	                 0);
	assert_int_equal(ix.n, 0);
	assert_true(has_warning(ix.warnings, "entries: not a list", NULL));
	cg_hm_index_fini(&ix);
	assert_int_equal(cg_hm_graph_parse(&g, yaml, strlen(yaml), NULL), 0);
	assert_int_equal(g.nconcepts, 0);
	assert_int_equal(g.nrels, 0);
	assert_true(has_warning(g.warnings, "relationships: not a list", NULL));
	cg_hm_graph_fini(&g);
	assert_int_equal(cg_hm_reggraph_parse(&rg, yaml, strlen(yaml), NULL),
	                 0);
	assert_int_equal(rg.nbridges, 0);
	assert_int_equal(rg.naliases, 0);
	assert_true(has_warning(rg.warnings, "aliases: not a mapping", NULL));
	cg_hm_reggraph_fini(&rg);

	/* An empty file is an empty mapping: nothing, no warning. */
	assert_int_equal(cg_hm_registry_parse(&r, empty, 0, NULL), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(count(r.warnings), 0);
	cg_hm_registry_fini(&r);
	assert_int_equal(cg_hm_reggraph_parse(&rg, NULL, 0, NULL), 0);
	assert_int_equal(count(rg.warnings), 0);
	cg_hm_reggraph_fini(&rg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_registry),
	    cmocka_unit_test(test_ttl),
	    cmocka_unit_test(test_config),
	    cmocka_unit_test(test_config_drift),
	    cmocka_unit_test(test_index_v2),
	    cmocka_unit_test(test_index_v1),
	    cmocka_unit_test(test_index_v1_tiers),
	    cmocka_unit_test(test_graph),
	    cmocka_unit_test(test_graph_list_form),
	    cmocka_unit_test(test_reggraph),
	    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_warning_cap),
	    cmocka_unit_test(test_hostile),
	    cmocka_unit_test(test_hostile_name_in_message),
	    cmocka_unit_test(test_too_big),
	    cmocka_unit_test(test_wrong_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
