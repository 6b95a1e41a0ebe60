/*
 * test_llms_txt.c - unit tests for the llms.txt format of an llms-txt
 * source (cache/llms_txt.h, cache/hiivmind_llms.c), its config fields
 * (cache/hiivmind.c) and SHA-256 (common/cg_sha256.c): the manifest
 * parser on manifests shaped like the published ones, link resolution and
 * the document paths it makes, the refusals (schemes, hosts, credentials,
 * "..", encoded tricks), redirects, sections, and the FIPS 180-4 test
 * vectors.  Fixtures are written inline.
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

#include <cmocka.h>
/* clang-format on */

#include "cache/hiivmind.h"
#include "cache/llms_txt.h"
#include "common/cg_sha256.h"

static const char manifest[] =
    "# Quokka Docs\n"
    "\n"
    "> Quokka is a build tool for\n"
    "> marsupial-shaped projects.\n"
    "\n"
    "Some prose with a [link](https://x.test/not-a-page.md) that is not\n"
    "an item.\n"
    "\n"
    "## Getting Started\n"
    "\n"
    "- [Install](https://docs.x.test/en/install.md): How to install\n"
    "- [Quick start](quickstart)\n"
    "  * [Nested [beta] item](/guide/nested.md \"a title\") - nested note\n"
    "\n"
    "```\n"
    "- [Fenced](fenced.md): not a link\n"
    "```\n"
    "\n"
    "## Reference ##\n"
    "\n"
    "1. [CLI](<cli/commands.md>): every command\n"
    "- [Parens](api/f(x).md)\n"
    "- []()\n"
    "### Deeper heading\n"
    "- [Still reference](ref/more.md)\n"
    "\n"
    "## Optional\n"
    "\n"
    "- [Changelog](https://docs.x.test/en/changelog.md)\n";

static void
test_parse(void **state)
{
	cg_llms m;

	(void)state;
	assert_int_equal(cg_llms_parse(&m, manifest, strlen(manifest), NULL),
	                 0);
	assert_string_equal(m.title, "Quokka Docs");
	assert_string_equal(m.summary,
	                    "Quokka is a build tool for marsupial-shaped "
	                    "projects.");
	assert_int_equal(m.n, 7);
	assert_string_equal(m.links[0].title, "Install");
	assert_string_equal(m.links[0].href,
	                    "https://docs.x.test/en/install.md");
	assert_string_equal(m.links[0].note, "How to install");
	assert_string_equal(m.links[0].section, "Getting Started");
	assert_int_equal(m.links[0].line, 11);
	assert_null(m.links[1].note);
	assert_string_equal(m.links[2].title, "Nested [beta] item");
	assert_string_equal(m.links[2].href, "/guide/nested.md");
	assert_string_equal(m.links[2].note, "nested note");
	assert_string_equal(m.links[3].href, "cli/commands.md");
	assert_string_equal(m.links[3].section, "Reference");
	assert_string_equal(m.links[4].href, "api/f(x).md");
	assert_string_equal(m.links[5].section, "Reference");
	assert_false(m.links[5].optional);
	assert_true(m.links[6].optional);
	assert_string_equal(m.sections[0], "Getting Started");
	assert_string_equal(m.sections[2], "Optional");
	assert_null(m.sections[3]);
	/* "- []()" has an empty href: a warning naming its line. */
	assert_non_null(m.warnings[0]);
	assert_non_null(strstr(m.warnings[0], "line 23"));
	cg_llms_fini(&m);
}

/* Only the item's own text counts for a change. */
static void
test_line_hash(void **state)
{
	const char a[] = "# T\n## S\n- [A](a.md): one\n- [B](b.md)\n";
	const char b[] =
	    "# T\n\n## Renamed\n- [A](a.md): one\n- [B](b.md): two\n";
	cg_llms x;
	cg_llms y;

	(void)state;
	assert_int_equal(cg_llms_parse(&x, a, strlen(a), NULL), 0);
	assert_int_equal(cg_llms_parse(&y, b, strlen(b), NULL), 0);
	assert_true(x.links[0].line_hash == y.links[0].line_hash);
	assert_true(x.links[1].line_hash != y.links[1].line_hash);
	cg_llms_fini(&x);
	cg_llms_fini(&y);
}

static void
test_parse_hostile(void **state)
{
	static const char bad[] = "# T\xff\xfe\n> s\x00ummary\n## S\n"
	                          "- [x](y.md)\n";
	cg_err err;
	cg_llms m;
	size_t big = CG_LLMS_MAX_BYTES + 1;
	char *many;
	size_t off = 0;

	(void)state;
	assert_int_equal(cg_llms_parse(&m, bad, sizeof(bad) - 1, NULL), 0);
	assert_non_null(strstr(m.warnings[0], "invalid UTF-8"));
	assert_string_equal(m.summary, "summary");
	assert_int_equal(m.n, 1);
	cg_llms_fini(&m);
	/* Over the cap: refused before reading. */
	cg_err_clear(&err);
	assert_int_equal(cg_llms_parse(&m, "", big, &err), CG_ETOOBIG);
	assert_null(m.links);
	/* More links than the cap: the rest ignored, said. */
	many = malloc((size_t)(CG_LLMS_MAX_LINKS + 5) * 16 + 16);
	off += (size_t)sprintf(many, "# T\n");
	for (int i = 0; i < CG_LLMS_MAX_LINKS + 5; i++)
		off += (size_t)sprintf(many + off, "- [p](p%d.md)\n", i);
	assert_int_equal(cg_llms_parse(&m, many, off, NULL), 0);
	assert_int_equal(m.n, CG_LLMS_MAX_LINKS);
	assert_non_null(strstr(m.warnings[0], "5 links past"));
	cg_llms_fini(&m);
	free(many);
	/* Nothing at all. */
	assert_int_equal(cg_llms_parse(&m, NULL, 0, NULL), 0);
	assert_int_equal(m.n, 0);
	assert_null(m.sections[0]);
	assert_non_null(strstr(m.warnings[0], "no \"# title\""));
	cg_llms_fini(&m);
}

/* Resolves href on a site; returns the URL and sets *doc. */
static int
resolve(const cg_llms_site *s, const char *href, char **url, char **doc,
        cg_err *why)
{
	return cg_llms_resolve(s, href, url, doc, why);
}

static void
expect(const cg_llms_site *s, const char *href, const char *url,
       const char *doc)
{
	char *u = NULL;
	char *d = NULL;
	cg_err why;

	cg_err_clear(&why);
	if (resolve(s, href, &u, &d, &why) != 0)
		fail_msg("%s refused: %s", href, why.msg);
	assert_string_equal(u, url);
	assert_string_equal(d, doc);
	free(u);
	free(d);
}

static void
refused(const cg_llms_site *s, const char *href, const char *why_part)
{
	char *u = (char *)"x";
	char *d = (char *)"x";
	cg_err why;

	cg_err_clear(&why);
	assert_int_equal(resolve(s, href, &u, &d, &why), CG_EINVAL);
	assert_null(u);
	assert_null(d);
	if (strstr(why.msg, why_part) == NULL)
		fail_msg("%s: want \"%s\" in \"%s\"", href, why_part, why.msg);
}

static void
test_resolve(void **state)
{
	cg_llms_site s;

	(void)state;
	assert_int_equal(cg_llms_site_init(&s, "https://docs.x.test/llms.txt",
	                                   "https://docs.x.test/en/", ".md",
	                                   NULL),
	                 0);
	assert_string_equal(s.base, "https://docs.x.test/en");
	/* hiivmind's resolve_url examples. */
	expect(&s, "skills", "https://docs.x.test/en/skills.md", "skills.md");
	expect(&s, "/agents/overview.md",
	       "https://docs.x.test/en/agents/overview.md",
	       "agents/overview.md");
	expect(&s, "https://docs.x.test/en/a/b.md#part",
	       "https://docs.x.test/en/a/b.md", "a/b.md");
	/* Outside the base, same host: its path from the root. */
	expect(&s, "https://DOCS.x.test:443/de/c.md",
	       "https://DOCS.x.test:443/de/c.md", "de/c.md");
	expect(&s, "//docs.x.test/en/d.md", "https://docs.x.test/en/d.md",
	       "d.md");
	/* Encoding: spaces and UTF-8 escaped in the URL, decoded in the
	 * document path. */
	expect(&s, "guide/my page", "https://docs.x.test/en/guide/my%20page.md",
	       "guide/my page.md");
	expect(&s, "caf\xc3\xa9.md", "https://docs.x.test/en/caf%C3%A9.md",
	       "caf\xc3\xa9.md");
	expect(&s, "tips/", "https://docs.x.test/en/tips/", "tips/index.md");
	expect(&s, "q.md?v=2", "https://docs.x.test/en/q.md?v=2", "q.md");
	expect(&s, "r?v=2", "https://docs.x.test/en/r.md?v=2", "r.md");
	refused(&s, "file:///etc/passwd", "scheme");
	refused(&s, "javascript:alert(1)", "scheme");
	refused(&s, "https://evil.test/x.md", "another host");
	refused(&s, "http://docs.x.test/en/x.md", "another host");
	refused(&s, "https://user:pw@docs.x.test/en/x.md", "credentials");
	refused(&s, "../../etc/passwd", "'..'");
	refused(&s, "a/%2e%2e/b.md", "'..'");
	refused(&s, "a/%2E%2e/%2e%2e/b.md", "'..'");
	refused(&s, "a/./b.md", "'..'");
	refused(&s, "a%2fb.md", "decodes");
	refused(&s, "a%5cb.md", "decodes");
	refused(&s, "a%00b.md", "bad %-escape");
	refused(&s, "a%ffb.md", "decodes");
	refused(&s, "a//b.md", "empty path segment");
	refused(&s, "a\\b.md", "backslash");
	refused(&s, "", "empty");
	refused(&s, "/", "no path");
	refused(&s, "#top", "empty");
	cg_llms_site_fini(&s);
}

static void
test_site(void **state)
{
	cg_llms_site s;
	cg_err err;

	(void)state;
	/* No base: the manifest's folder; no suffix. */
	assert_int_equal(
	    cg_llms_site_init(&s, "http://127.0.0.1:8080/docs/llms.txt", NULL,
	                      NULL, NULL),
	    0);
	assert_string_equal(s.base, "http://127.0.0.1:8080/docs");
	expect(&s, "intro", "http://127.0.0.1:8080/docs/intro", "intro.md");
	expect(&s, "http://127.0.0.1:8080/other/x.md",
	       "http://127.0.0.1:8080/other/x.md", "other/x.md");
	refused(&s, "http://127.0.0.1:8081/docs/x.md", "another host");
	cg_llms_site_fini(&s);
	/* A base on another host opens that host too. */
	assert_int_equal(cg_llms_site_init(&s, "https://a.test/llms.txt",
	                                   "https://cdn.b.test/md", "", NULL),
	                 0);
	expect(&s, "https://a.test/x.md", "https://a.test/x.md", "x.md");
	expect(&s, "y.md", "https://cdn.b.test/md/y.md", "y.md");
	cg_llms_site_fini(&s);
	cg_err_clear(&err);
	assert_int_equal(
	    cg_llms_site_init(&s, "file:///etc/llms.txt", NULL, NULL, &err),
	    CG_EINVAL);
	assert_non_null(strstr(err.msg, "manifest.url"));
	cg_err_clear(&err);
	assert_int_equal(cg_llms_site_init(&s, "https://u:p@a.test/llms.txt",
	                                   NULL, NULL, &err),
	                 CG_EINVAL);
	assert_non_null(strstr(err.msg, "credentials"));
	cg_err_clear(&err);
	assert_int_equal(cg_llms_site_init(&s, "https://a.test/llms.txt",
	                                   "ftp://a.test/", NULL, &err),
	                 CG_EINVAL);
	assert_non_null(strstr(err.msg, "base_url"));
}

static void
test_redirect(void **state)
{
	cg_llms_site s;
	char *u = NULL;
	cg_err why;

	(void)state;
	assert_int_equal(cg_llms_site_init(&s, "https://a.test/docs/llms.txt",
	                                   NULL, NULL, NULL),
	                 0);
	assert_int_equal(
	    cg_llms_redirect(&s, "https://a.test/docs/x.md", "y.md", &u, &why),
	    0);
	assert_string_equal(u, "https://a.test/docs/y.md");
	free(u);
	assert_int_equal(cg_llms_redirect(&s, "https://a.test/docs/x.md",
	                                  "/moved/x.md", &u, &why),
	                 0);
	assert_string_equal(u, "https://a.test/moved/x.md");
	free(u);
	assert_int_equal(cg_llms_redirect(&s, "https://a.test/docs/x.md",
	                                  "file:///etc/passwd", &u, &why),
	                 CG_EINVAL);
	assert_non_null(strstr(why.msg, "other than http(s)"));
	assert_int_equal(cg_llms_redirect(&s, "https://a.test/docs/x.md",
	                                  "https://b.test/x.md", &u, &why),
	                 CG_EINVAL);
	assert_non_null(strstr(why.msg, "another host"));
	assert_int_equal(cg_llms_redirect(&s, "https://a.test/docs/x.md",
	                                  "//b.test/x.md", &u, &why),
	                 CG_EINVAL);
	assert_null(u);
	cg_llms_site_fini(&s);
}

static void
test_sections_and_doc(void **state)
{
	char *const want[] = {"getting-started", " Reference ", NULL};
	char *d;

	(void)state;
	assert_true(cg_llms_section_in("Getting Started", want));
	assert_true(cg_llms_section_in("reference", want));
	assert_false(cg_llms_section_in("Optional", want));
	assert_false(cg_llms_section_in(NULL, want));
	assert_false(cg_llms_section_in("!!!", (char *const[]){"???", NULL}));
	d = cg_llms_doc_of("skills");
	assert_string_equal(d, "skills.md");
	free(d);
	d = cg_llms_doc_of("a/b.md");
	assert_string_equal(d, "a/b.md");
	free(d);
}

static void
test_config(void **state)
{
	static const char cfg[] =
	    "corpus:\n  name: vendor\n"
	    "sources:\n"
	    "  - id: docs\n    type: llms-txt\n"
	    "    manifest:\n      url: \"https://a.test/llms.txt\"\n"
	    "      last_hash: \"sha256:00\"\n"
	    "    urls:\n      base_url: \"https://a.test/en\"\n"
	    "      suffix: \".md\"\n"
	    "    cache:\n      strategy: selective\n"
	    "      sections: [\"Guides\", api]\n"
	    "  - id: lazy\n    type: llms-txt\n"
	    "    manifest: {url: \"https://b.test/llms.txt\"}\n"
	    "    cache: {enabled: false, strategy: full}\n"
	    "  - id: odd\n    type: llms-txt\n"
	    "    manifest: {url: \"https://c.test/llms.txt\"}\n"
	    "    cache: {strategy: sometimes}\n"
	    "  - id: nourl\n    type: llms-txt\n    manifest: {}\n"
	    "  - id: plain\n    type: llms-txt\n"
	    "    manifest: {url: \"https://d.test/llms.txt\"}\n";
	cg_hm_config c;

	(void)state;
	assert_int_equal(cg_hm_config_parse(&c, cfg, strlen(cfg), NULL), 0);
	assert_int_equal(c.nsources, 4);
	assert_string_equal(c.sources[0].manifest_url,
	                    "https://a.test/llms.txt");
	assert_string_equal(c.sources[0].last_hash, "sha256:00");
	assert_string_equal(c.sources[0].base_url, "https://a.test/en");
	assert_string_equal(c.sources[0].suffix, ".md");
	assert_int_equal(c.sources[0].strategy, CG_HM_SELECTIVE);
	assert_string_equal(c.sources[0].sections[1], "api");
	assert_int_equal(c.sources[1].strategy, CG_HM_ON_DEMAND);
	assert_int_equal(c.sources[2].strategy, CG_HM_ON_DEMAND);
	assert_int_equal(c.sources[3].strategy, CG_HM_FULL);
	assert_null(c.sources[3].sections[0]);
	assert_non_null(strstr(c.warnings[0], "sometimes"));
	assert_non_null(strstr(c.warnings[1], "manifest.url is missing"));
	cg_hm_config_fini(&c);
}

static void
test_sha256(void **state)
{
	char t[CG_SHA256_TEXT];
	char *mil = malloc(1000000);

	(void)state;
	cg_sha256_text("", 0, t);
	assert_string_equal(t, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4"
	                       "649b934ca495991b7852b855");
	cg_sha256_text("abc", 3, t);
	assert_string_equal(t, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a3"
	                       "96177a9cb410ff61f20015ad");
	cg_sha256_text(
	    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, t);
	assert_string_equal(t, "sha256:248d6a61d20638b8e5c026930c3e6039a33ce459"
	                       "64ff2167f6ecedd419db06c1");
	memset(mil, 'a', 1000000);
	cg_sha256_text(mil, 1000000, t);
	assert_string_equal(t, "sha256:cdc76e5c9914fb9281a1c7e284d73e67f1809a48"
	                       "a497200e046d39ccc7112cd0");
	free(mil);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_line_hash),
	    cmocka_unit_test(test_parse_hostile),
	    cmocka_unit_test(test_resolve),
	    cmocka_unit_test(test_site),
	    cmocka_unit_test(test_redirect),
	    cmocka_unit_test(test_sections_and_doc),
	    cmocka_unit_test(test_config),
	    cmocka_unit_test(test_sha256),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
