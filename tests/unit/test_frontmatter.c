/*
 * test_frontmatter.c - unit tests for node/frontmatter.c: locating the block
 * (BOM, CRLF, `...`, unclosed), strict YAML to JSON typing, the lenient
 * reader on pages strict YAML rejects, and hostile input (alias bombs, deep
 * nesting, node and size caps, invalid UTF-8) that must fail fast and clean.
 * Fixtures are written inline; nothing here reads the shared corpora.
 */
/* cmocka.h needs these first; keep clang-format from sorting it above. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
/* clang-format on */

#include "page/frontmatter.h"

/* Parses a NUL-terminated fixture; returns the status. */
static enum cg_fm_status
parse(const char *yaml, json_t **fm, cg_err *err)
{
	cg_err_clear(err);
	return cg_fm_parse(yaml, strlen(yaml), fm, err);
}

/* Like parse() but keeps what err already holds. */
static enum cg_fm_status
parse_keep(const char *yaml, json_t **fm, cg_err *err)
{
	return cg_fm_parse(yaml, strlen(yaml), fm, err);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* obj[key] as a string, failing the test when it is not one. */
static const char *
str_at(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	assert_non_null(v);
	assert_true(json_is_string(v));
	return json_string_value(v);
}

/* A malloc'd string of prefix + n copies of unit + suffix. */
static char *
repeat(const char *prefix, const char *unit, size_t n, const char *suffix)
{
	size_t pl = strlen(prefix);
	size_t ul = strlen(unit);
	size_t sl = strlen(suffix);
	char *s = malloc(pl + ul * n + sl + 1);
	char *p = s;

	assert_non_null(s);
	memcpy(p, prefix, pl);
	p += pl;
	for (size_t i = 0; i < n; i++, p += ul)
		memcpy(p, unit, ul);
	memcpy(p, suffix, sl + 1);
	return s;
}

/* ---------------------------------------------------------------- split */

static void
test_split_basic(void **state)
{
	const char *t = "---\ntype: concept\n---\n# Title\n";
	size_t yo, yl, bo;
	int bl;

	assert_int_equal(cg_fm_split(t, strlen(t), &yo, &yl, &bo, &bl), 1);
	assert_int_equal(yo, 4);
	assert_int_equal(yl, strlen("type: concept\n"));
	assert_memory_equal(t + yo, "type: concept\n", yl);
	assert_string_equal(t + bo, "# Title\n");
	assert_int_equal(bl, 4);
}

static void
test_split_without_frontmatter(void **state)
{
	const char *t = "# Title\n\n---\nnot: fm\n---\n";
	size_t yo = 9, yl = 9, bo = 9;
	int bl = 9;

	assert_int_equal(cg_fm_split(t, strlen(t), &yo, &yl, &bo, &bl), 0);
	assert_int_equal(yl, 0);
	assert_int_equal(bo, 0);
	assert_int_equal(bl, 1);
	/* Not openers: text after the dashes, four dashes, indentation. */
	assert_int_equal(
	    cg_fm_split("---x\na: 1\n---\n", 14, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(
	    cg_fm_split("----\na: 1\n---\n", 14, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(
	    cg_fm_split(" ---\na: 1\n---\n", 14, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(cg_fm_split(NULL, 0, &yo, &yl, &bo, &bl), 0);
	assert_int_equal(bo, 0);
	assert_int_equal(bl, 1);
}

static void
test_split_bom_crlf(void **state)
{
	const char *t = "\xEF\xBB\xBF---  \r\na: 1\r\nb: 2\r\n--- \r\nbody\r\n";
	size_t yo, yl, bo;
	int bl;
	json_t *fm;
	cg_err err;

	assert_int_equal(cg_fm_split(t, strlen(t), &yo, &yl, &bo, &bl), 1);
	assert_int_equal(yo, 3 + 7);
	assert_memory_equal(t + yo, "a: 1\r\nb: 2\r\n", yl);
	assert_int_equal(yl, 12);
	assert_string_equal(t + bo, "body\r\n");
	assert_int_equal(bl, 5);
	assert_int_equal(cg_fm_parse(t + yo, yl, &fm, &err), CG_FM_OK);
	assert_int_equal(json_integer_value(json_object_get(fm, "b")), 2);
	json_decref(fm);

	/* A BOM without frontmatter: the body starts after the BOM. */
	assert_int_equal(
	    cg_fm_split("\xEF\xBB\xBF# T\n", 7, &yo, &yl, &bo, &bl), 0);
	assert_int_equal(bo, 3);
	assert_int_equal(bl, 1);
}

static void
test_split_unclosed(void **state)
{
	const char *t = "---\ntype: concept\n# Title\nbody\n";
	size_t yo, yl, bo;
	int bl;

	assert_int_equal(cg_fm_split(t, strlen(t), &yo, &yl, &bo, &bl), 0);
	assert_int_equal(yl, 0);
	assert_int_equal(bo, 0);
	assert_int_equal(bl, 1);
	/* The opening line alone, with or without a newline. */
	assert_int_equal(cg_fm_split("---", 3, &yo, &yl, &bo, &bl), 0);
	assert_int_equal(cg_fm_split("---\n", 4, &yo, &yl, &bo, &bl), 0);
}

static void
test_split_dots_closer_and_empty_block(void **state)
{
	const char *t = "---\ntitle: x\n...\nbody";
	const char *e = "---\n---\n";
	const char *last = "---\na: 1\n---";
	size_t yo, yl, bo;
	int bl;
	json_t *fm;
	cg_err err;

	assert_int_equal(cg_fm_split(t, strlen(t), &yo, &yl, &bo, &bl), 1);
	assert_memory_equal(t + yo, "title: x\n", yl);
	assert_string_equal(t + bo, "body");
	assert_int_equal(bl, 4);

	assert_int_equal(cg_fm_split(e, strlen(e), &yo, &yl, &bo, &bl), 1);
	assert_int_equal(yl, 0);
	assert_int_equal(bo, 8);
	assert_int_equal(bl, 3);
	assert_int_equal(cg_fm_parse(e + yo, yl, &fm, &err), CG_FM_OK);
	assert_int_equal(json_object_size(fm), 0);
	json_decref(fm);

	/* The closer is the last line, without a newline: empty body. */
	assert_int_equal(cg_fm_split(last, strlen(last), &yo, &yl, &bo, &bl),
	                 1);
	assert_int_equal(bo, strlen(last));
	assert_int_equal(bl, 4);
}

/* ---------------------------------------------------------------- strict */

static const char guild_page[] =
    "type: standard\n"
    "owner: plugin-engineer\n"
    "confidence: high\n"
    "importance: 3\n"
    "source_refs:\n"
    "  - plugin/hooks/bootstrap.sh          # the hook itself\n"
    "  - \"plugin/scripts/x.ts\"\n"
    "  - docs/a.md#L40-L52\n"
    "created_at: 2026-01-01\n"
    "updated_at: 2026-07-25\n"
    "expires_at: null\n"
    "supersedes: ~\n"
    "sensitivity: internal\n"
    "tags: [hooks, \"json, parsing\", 'shell']\n"
    "applies_to: [plugin]\n"
    "related: []\n"
    "title: \"Standard: hooks\"\n"
    "draft: false\n"
    "reviewed: True\n"
    "code: 007\n"
    "version: 1.10\n"
    "big: 99999999999999999999\n"
    "delta: -5\n"
    "quoted_num: '42'\n"
    "tagged: !!str 43\n"
    "empty:\n";

static void
test_parse_guild_typical(void **state)
{
	json_t *fm, *refs, *tags;
	cg_err err;

	assert_int_equal(parse(guild_page, &fm, &err), CG_FM_OK);
	assert_string_equal(err.msg, "");
	assert_string_equal(str_at(fm, "type"), "standard");
	assert_string_equal(str_at(fm, "owner"), "plugin-engineer");
	assert_int_equal(json_integer_value(json_object_get(fm, "importance")),
	                 3);
	/* `  # comment` after a plain item is a YAML comment: dropped. */
	refs = json_object_get(fm, "source_refs");
	assert_true(json_is_array(refs));
	assert_int_equal(json_array_size(refs), 3);
	assert_string_equal(json_string_value(json_array_get(refs, 0)),
	                    "plugin/hooks/bootstrap.sh");
	assert_string_equal(json_string_value(json_array_get(refs, 1)),
	                    "plugin/scripts/x.ts");
	/* A `#` not preceded by a blank is content. */
	assert_string_equal(json_string_value(json_array_get(refs, 2)),
	                    "docs/a.md#L40-L52");
	assert_string_equal(str_at(fm, "created_at"), "2026-01-01");
	assert_string_equal(str_at(fm, "updated_at"), "2026-07-25");
	assert_true(json_is_null(json_object_get(fm, "expires_at")));
	assert_true(json_is_null(json_object_get(fm, "supersedes")));
	assert_true(json_is_null(json_object_get(fm, "empty")));
	tags = json_object_get(fm, "tags");
	assert_int_equal(json_array_size(tags), 3);
	assert_string_equal(json_string_value(json_array_get(tags, 1)),
	                    "json, parsing");
	assert_string_equal(json_string_value(json_array_get(tags, 2)),
	                    "shell");
	assert_string_equal(json_string_value(json_array_get(
	                        json_object_get(fm, "applies_to"), 0)),
	                    "plugin");
	assert_int_equal(json_array_size(json_object_get(fm, "related")), 0);
	assert_string_equal(str_at(fm, "title"), "Standard: hooks");
	assert_true(json_is_false(json_object_get(fm, "draft")));
	assert_true(json_is_true(json_object_get(fm, "reviewed")));
	assert_string_equal(str_at(fm, "code"), "007");
	assert_string_equal(str_at(fm, "version"), "1.10");
	assert_string_equal(str_at(fm, "big"), "99999999999999999999");
	assert_int_equal(json_integer_value(json_object_get(fm, "delta")), -5);
	assert_string_equal(str_at(fm, "quoted_num"), "42");
	assert_string_equal(str_at(fm, "tagged"), "43");
	assert_int_equal(json_object_size(fm), 23);
	json_decref(fm);
}

static void
test_parse_nested_and_duplicates(void **state)
{
	const char *y = "meta:\n"
	                "  owner: {name: ana, team: [a, b]}\n"
	                "  steps:\n"
	                "    - id: 1\n"
	                "      ok: yes\n"
	                "    - [x, ~]\n"
	                "type: first\n"
	                "type: second\n"
	                "anchored: &anc value\n"
	                "min: -9223372036854775808\n"
	                "max: 9223372036854775807\n"
	                "over: 9223372036854775808\n"
	                "esc: \"a\\tb\\u00e9\"\n";
	json_t *fm, *meta, *steps, *step0;
	cg_err err;

	assert_int_equal(parse(y, &fm, &err), CG_FM_OK);
	meta = json_object_get(fm, "meta");
	assert_true(json_is_object(meta));
	assert_string_equal(json_string_value(json_object_get(
	                        json_object_get(meta, "owner"), "name")),
	                    "ana");
	assert_int_equal(json_array_size(json_object_get(
	                     json_object_get(meta, "owner"), "team")),
	                 2);
	steps = json_object_get(meta, "steps");
	assert_int_equal(json_array_size(steps), 2);
	step0 = json_array_get(steps, 0);
	assert_int_equal(json_integer_value(json_object_get(step0, "id")), 1);
	/* Only true/false are booleans; `yes` stays a string. */
	assert_string_equal(str_at(step0, "ok"), "yes");
	assert_true(json_is_null(json_array_get(json_array_get(steps, 1), 1)));
	assert_string_equal(str_at(fm, "type"), "second");
	assert_string_equal(str_at(fm, "anchored"), "value");
	assert_true(json_integer_value(json_object_get(fm, "min")) ==
	            INT64_MIN);
	assert_true(json_integer_value(json_object_get(fm, "max")) ==
	            INT64_MAX);
	assert_string_equal(str_at(fm, "over"), "9223372036854775808");
	assert_string_equal(str_at(fm, "esc"), "a\tb\xC3\xA9");
	json_decref(fm);
}

static void
test_parse_empty_documents(void **state)
{
	const char *docs[] = {"", "\n\n", "# only a comment\n", "~\n",
	                      "--- \n"};
	json_t *fm;
	cg_err err;

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		assert_int_equal(parse(docs[i], &fm, &err), CG_FM_OK);
		assert_true(json_is_object(fm));
		assert_int_equal(json_object_size(fm), 0);
		json_decref(fm);
	}
	assert_int_equal(cg_fm_parse(NULL, 0, &fm, NULL), CG_FM_OK);
	assert_int_equal(json_object_size(fm), 0);
	json_decref(fm);
}

static void
test_parse_first_document_only(void **state)
{
	json_t *fm;
	cg_err err;

	assert_int_equal(parse("a: 1\n--- \nb: [\n", &fm, &err), CG_FM_OK);
	assert_int_equal(json_object_size(fm), 1);
	assert_int_equal(json_integer_value(json_object_get(fm, "a")), 1);
	json_decref(fm);
	/* libyaml ends the document before `&a &a x`; the junk still fails. */
	assert_int_equal(parse("&a &a x\n", &fm, &err), CG_FM_BROKEN);
	assert_non_null(strstr(err.msg, "document start"));
	json_decref(fm);
}

/* -------------------------------------------------------------- lenient */

static void
test_lenient_skill_description(void **state)
{
	const char *y = "name: guild-wiki-query\n"
	                "description: Searches the wiki. DO NOT TRIGGER for: "
	                "ingesting (guild:wiki-ingest).\n"
	                "when_to_use: \"Any specialist: always\"\n"
	                "type: knowledge\n";
	json_t *fm;
	cg_err err;

	assert_int_equal(parse(y, &fm, &err), CG_FM_LENIENT);
	assert_int_equal(err.code, CG_EPARSE);
	assert_non_null(strstr(err.msg, "line 2"));
	assert_non_null(strstr(err.msg, "mapping values"));
	assert_int_equal(json_object_size(fm), 4);
	assert_string_equal(str_at(fm, "name"), "guild-wiki-query");
	assert_string_equal(str_at(fm, "description"),
	                    "Searches the wiki. DO NOT TRIGGER for: ingesting "
	                    "(guild:wiki-ingest).");
	assert_string_equal(str_at(fm, "when_to_use"),
	                    "Any specialist: always");
	assert_string_equal(str_at(fm, "type"), "knowledge");
	json_decref(fm);
}

static void
test_lenient_lists_and_values(void **state)
{
	const char *y = "bad: a: b\n"
	                "source_refs:\n"
	                "  - plugin/a.md   # why\n"
	                "  - 'q''d'\n"
	                "  -\n"
	                "related:\n"
	                "- top-level-dash\n"
	                "# comment between items\n"
	                "- second\n"
	                "tags: [a, \"b, c\", 3]  # trailing\n"
	                "nested: [a, [b]]\n"
	                "expires_at: null\n"
	                "count: 12\n"
	                "notes: |\n"
	                "  line one\n"
	                "\n"
	                "  - line two\n"
	                "folded: >-\n"
	                "  one\n"
	                "  two\n"
	                "wrapped: first: part\n"
	                "  second part\n"
	                "x:y: not a key\n"
	                "  stray: indented\n"
	                "sub:\n"
	                "  key: nested mappings are not recovered\n";
	json_t *fm, *refs, *tags;
	cg_err err;

	assert_int_equal(parse(y, &fm, &err), CG_FM_LENIENT);
	assert_non_null(strstr(err.msg, "line 1"));
	assert_string_equal(str_at(fm, "bad"), "a: b");
	refs = json_object_get(fm, "source_refs");
	assert_int_equal(json_array_size(refs), 3);
	assert_string_equal(json_string_value(json_array_get(refs, 0)),
	                    "plugin/a.md");
	assert_string_equal(json_string_value(json_array_get(refs, 1)), "q'd");
	assert_true(json_is_null(json_array_get(refs, 2)));
	assert_int_equal(json_array_size(json_object_get(fm, "related")), 2);
	assert_string_equal(json_string_value(json_array_get(
	                        json_object_get(fm, "related"), 1)),
	                    "second");
	tags = json_object_get(fm, "tags");
	assert_int_equal(json_array_size(tags), 3);
	assert_string_equal(json_string_value(json_array_get(tags, 1)), "b, c");
	assert_int_equal(json_integer_value(json_array_get(tags, 2)), 3);
	assert_string_equal(str_at(fm, "nested"), "[a, [b]]");
	assert_true(json_is_null(json_object_get(fm, "expires_at")));
	assert_int_equal(json_integer_value(json_object_get(fm, "count")), 12);
	assert_string_equal(str_at(fm, "notes"), "line one\n\n- line two");
	assert_string_equal(str_at(fm, "folded"), "one two");
	assert_string_equal(str_at(fm, "wrapped"), "first: part second part");
	assert_null(json_object_get(fm, "x"));
	assert_null(json_object_get(fm, "stray"));
	assert_true(json_is_null(json_object_get(fm, "sub")));
	assert_int_equal(json_object_size(fm), 11);
	json_decref(fm);
}

static void
test_non_scalar_key_recovers(void **state)
{
	const char *y = "? [a, b]\n: value\ntype: decision\n";
	json_t *fm;
	cg_err err;

	assert_int_equal(parse(y, &fm, &err), CG_FM_LENIENT);
	assert_non_null(strstr(err.msg, "key must be a scalar"));
	assert_int_equal(json_object_size(fm), 1);
	assert_string_equal(str_at(fm, "type"), "decision");
	json_decref(fm);
}

static void
test_non_mapping_top_level_is_broken(void **state)
{
	const char *docs[] = {"- a\n- b\n", "just text\n", "'type: x'\n",
	                      "[a, b]\n"};
	json_t *fm;
	cg_err err;

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		assert_int_equal(parse(docs[i], &fm, &err), CG_FM_BROKEN);
		assert_int_equal(err.code, CG_EPARSE);
		assert_non_null(strstr(err.msg, "not a mapping"));
		assert_true(json_is_object(fm));
		assert_int_equal(json_object_size(fm), 0);
		json_decref(fm);
	}
}

/* -------------------------------------------------------------- hostile */

static const char laughs[] =
    "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";

static void
test_alias_bomb_rejected(void **state)
{
	char *y = repeat("type: standard\nowner: &o ana\n", "", 0, laughs);
	double t0 = now_s();
	json_t *fm;
	cg_err err;

	assert_int_equal(parse(y, &fm, &err), CG_FM_LENIENT);
	assert_true(now_s() - t0 < 1.0);
	/* Aliases copy at most CG_YAML_MAX_ALIAS_NODES nodes: the bomb
	 * stops at the fourth level (line 6). */
	assert_non_null(strstr(err.msg, "aliases expand to more than"));
	assert_non_null(strstr(err.msg, "line 6"));
	/* After an alias only single-line scalars survive: no a..i. */
	assert_int_equal(json_object_size(fm), 1);
	assert_string_equal(str_at(fm, "type"), "standard");
	json_decref(fm);

	/* The bare bomb recovers nothing. */
	assert_int_equal(parse(laughs, &fm, &err), CG_FM_BROKEN);
	assert_non_null(strstr(err.msg, "alias"));
	assert_int_equal(json_object_size(fm), 0);
	json_decref(fm);
	free(y);
}

/*
 * Parses y in under a second, asserting the status, a fragment of the
 * message and the number of keys recovered (type: t among them).
 */
static void
expect_fast_fail(const char *y, enum cg_fm_status want, const char *frag,
                 size_t keys)
{
	double t0 = now_s();
	json_t *fm;
	cg_err err;

	assert_int_equal(parse(y, &fm, &err), want);
	assert_true(now_s() - t0 < 1.0);
	assert_non_null(strstr(err.msg, frag));
	assert_int_equal(json_object_size(fm), keys);
	if (keys > 0)
		assert_string_equal(str_at(fm, "type"), "t");
	json_decref(fm);
}

static void
test_deep_flow_nesting(void **state)
{
	char *a = repeat("type: t\na: ", "[", 100000, "\n");
	char *b = repeat("", "[", 100000, "");
	char *c = repeat("type: t\na: ", "{a: ", 60000, "\n");
	char *d = repeat("type: t\na: ", "[\n", 100000, "");

	/* After a cap, `a: [[[...` is not recovered at all. */
	expect_fast_fail(a, CG_FM_LENIENT, "deeper than 64", 1);
	/* A sequence at the top is rejected at its first event. */
	expect_fast_fail(b, CG_FM_BROKEN, "not a mapping", 0);
	expect_fast_fail(c, CG_FM_LENIENT, "deeper than 64", 1);
	expect_fast_fail(d, CG_FM_LENIENT, "deeper than 64", 1);
	free(a);
	free(b);
	free(c);
	free(d);
}

static void
test_deep_block_nesting(void **state)
{
	char *seq = repeat("type: t\na:\n  ", "- ", 100000, "x\n");
	char *map = malloc(CG_FM_MAX_BYTES);
	size_t n = 0;
	int depth = 0;
	json_t *fm;
	cg_err err;

	/* `k:` lines one space deeper each, as deep as the byte cap allows. */
	assert_non_null(map);
	memcpy(map, "type: t\na:\n", 11);
	n = 11;
	depth = 1;
	while (n + (size_t)depth + 4 < CG_FM_MAX_BYTES - 1) {
		memset(map + n, ' ', (size_t)depth);
		n += (size_t)depth;
		memcpy(map + n, "k:\n", 3);
		n += 3;
		depth++;
	}
	map[n] = '\0';
	assert_true(depth > 700);
	/* `a:` keeps a null value: its lines below are not read. */
	expect_fast_fail(seq, CG_FM_LENIENT, "deeper than 64", 2);
	expect_fast_fail(map, CG_FM_LENIENT, "deeper than 64", 2);
	assert_int_equal(parse(map, &fm, &err), CG_FM_LENIENT);
	assert_true(json_is_null(json_object_get(fm, "a")));
	json_decref(fm);
	free(seq);
	free(map);
}

static void
test_node_cap(void **state)
{
	char *y = repeat("type: t\nlist: [", "1,", CG_FM_MAX_NODES, "1]\n");
	json_t *fm;
	cg_err err;

	expect_fast_fail(y, CG_FM_LENIENT, "more than 20000 nodes", 1);
	assert_int_equal(parse(y, &fm, &err), CG_FM_LENIENT);
	assert_int_equal(err.code, CG_ETOOBIG);
	json_decref(fm);
	free(y);
}

static void
test_invalid_utf8(void **state)
{
	const char *y = "type: concept\ntitle: caf\xff\xfe\nowner: \xc3\n";
	json_t *fm;
	cg_err err;

	assert_int_equal(parse(y, &fm, &err), CG_FM_LENIENT);
	assert_int_equal(err.code, CG_EPARSE);
	assert_non_null(strstr(err.msg, "UTF-8"));
	assert_non_null(strstr(err.msg, "line 2"));
	assert_string_equal(str_at(fm, "type"), "concept");
	assert_string_equal(str_at(fm, "title"), "caf\xEF\xBF\xBD\xEF\xBF\xBD");
	assert_string_equal(str_at(fm, "owner"), "\xEF\xBF\xBD");
	json_decref(fm);

	/* NUL bytes: not a crash, dropped by the lenient reader. */
	assert_int_equal(cg_fm_parse("a: x\0y\n", 7, &fm, &err), CG_FM_LENIENT);
	assert_string_equal(str_at(fm, "a"), "xy");
	json_decref(fm);
}

static void
test_oversize_input(void **state)
{
	size_t n = CG_FM_MAX_BYTES + 1;
	char *y = malloc(n);
	json_t *fm;
	cg_err err;

	assert_non_null(y);
	memset(y, 'a', n);
	memcpy(y, "type: x\nb: ", 11);
	cg_err_clear(&err);
	assert_int_equal(cg_fm_parse(y, n, &fm, &err), CG_FM_BROKEN);
	assert_int_equal(err.code, CG_ETOOBIG);
	assert_non_null(strstr(err.msg, "262144"));
	assert_true(json_is_object(fm));
	assert_int_equal(json_object_size(fm), 0);
	json_decref(fm);
	/* Exactly at the cap is parsed. */
	assert_int_equal(cg_fm_parse(y, n - 1, &fm, NULL), CG_FM_OK);
	assert_string_equal(str_at(fm, "type"), "x");
	json_decref(fm);
	free(y);
}

static void
test_err_first_message_kept(void **state)
{
	json_t *fm;
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_fm_parse("- a\n", 4, &fm, &err), CG_FM_BROKEN);
	json_decref(fm);
	/* A second failure does not overwrite the first message. */
	assert_int_equal(parse_keep("type: x\na: *b\n", &fm, &err),
	                 CG_FM_LENIENT);
	assert_non_null(strstr(err.msg, "not a mapping"));
	/* After an alias, the alias line itself is not recovered. */
	assert_int_equal(json_object_size(fm), 1);
	assert_string_equal(str_at(fm, "type"), "x");
	json_decref(fm);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_split_basic),
	    cmocka_unit_test(test_split_without_frontmatter),
	    cmocka_unit_test(test_split_bom_crlf),
	    cmocka_unit_test(test_split_unclosed),
	    cmocka_unit_test(test_split_dots_closer_and_empty_block),
	    cmocka_unit_test(test_parse_guild_typical),
	    cmocka_unit_test(test_parse_nested_and_duplicates),
	    cmocka_unit_test(test_parse_empty_documents),
	    cmocka_unit_test(test_parse_first_document_only),
	    cmocka_unit_test(test_lenient_skill_description),
	    cmocka_unit_test(test_lenient_lists_and_values),
	    cmocka_unit_test(test_non_scalar_key_recovers),
	    cmocka_unit_test(test_non_mapping_top_level_is_broken),
	    cmocka_unit_test(test_alias_bomb_rejected),
	    cmocka_unit_test(test_deep_flow_nesting),
	    cmocka_unit_test(test_deep_block_nesting),
	    cmocka_unit_test(test_node_cap),
	    cmocka_unit_test(test_invalid_utf8),
	    cmocka_unit_test(test_oversize_input),
	    cmocka_unit_test(test_err_first_message_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
