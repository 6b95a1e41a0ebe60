/*
 * test_page_tools.c - read, peek, links and resolve through the real
 * binary (issue 3, acceptance 3 and 5).  A workspace with a root wiki and
 * a sub-guild "api": read returns frontmatter and body or a line range and
 * refuses "..", absolute paths, %2e%2e, a symlinked file or folder that
 * points outside, with exit 2 and a clear message; links lists wikilinks,
 * aliases, heading links and relative markdown links resolved to uris,
 * and backlinks from both sources; resolve finds pages by title, slug,
 * alias, path and wikilink; peek takes several uris; the receipt lists
 * unresolved links.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgtest.h"
#include "common/cg_buf.h"
#include "common/cg_fs.h"

static char *ws;
static char *cache;
static char *outside;
static char *wsname;

#define DECISION ".guild/wiki/decisions/use-postgres.md"
#define CACHING  ".guild/wiki/concepts/caching.md"
#define STORAGE  ".guild/wiki/concepts/storage.md"
#define AUTH     ".guild/wiki/concepts/auth-flow.md"
#define API_NOTE ".guild/wiki/entities/api-notes.md"

static const char decision_text[] =
    "---\n"
    "type: decision\n"
    "title: Use Postgres\n"
    "aliases: [pg-choice, Database Choice]\n"
    "tags: [db, storage]\n"
    "---\n"
    "# Use Postgres\n"
    "\n"
    "We chose Postgres. See [[caching]] and [[caching#Redis|the cache]].\n"
    "Also [[Database Choice]], [[concepts/caching]] and [[nowhere]].\n"
    "Relative: [caching](../concepts/caching.md) and "
    "[gone](../concepts/gone.md).\n"
    "Cross: [[api/auth-flow]] and [[nosuch/thing]].\n"
    "\n"
    "## Details\n"
    "\n"
    "More.\n";

static void
write_pages(void)
{
	cgt_write(ws, ".guild/workspace.json",
	          "{\"schema\": \"guild.workspace.v1\", \"root_wiki\": true,"
	          " \"sub_guilds\": [{\"name\": \"api\", \"path\": "
	          "\"services/api\", \"kind\": \"service\", \"has_wiki\": "
	          "true}]}");
	cgt_write(ws, DECISION, decision_text);
	cgt_page(ws, CACHING, "type: concept",
	         "# Caching\n\nBack to [[use-postgres]] and "
	         "[[pg-choice|the decision]].\n");
	cgt_page(ws, STORAGE, "type: concept\ntags: [db]",
	         "# Storage\n\nSee [the decision](../decisions/"
	         "use-postgres.md#why) for the database.\n");
	cgt_page(ws, ".guild/wiki/context/overview.md", "type: context",
	         "# Overview\n\nThe root overview.\n");
	cgt_page(ws, "services/api/" AUTH, "type: concept",
	         "# Auth Flow\n\nSessions live in [[root/Use Postgres]].\n"
	         "A bare [[use-postgres]] does not leave the api source.\n");
	cgt_page(ws, "services/api/" API_NOTE, "type: entity",
	         "# API notes\n\nSee [[root/decisions/use-postgres|the db "
	         "decision]].\n");
	cgt_page(ws, "services/api/.guild/wiki/context/overview.md",
	         "type: context", "# API overview\n\nThe api overview.\n");
}

static void
write_hostile(void)
{
	char *target = cg_path_join(outside, "secret.md");
	char *link = cg_path_join(ws, ".guild/wiki/concepts/leak.md");
	char *dlink = cg_path_join(ws, ".guild/wiki/linked");
	char *inlink = cg_path_join(ws, ".guild/wiki/concepts/alias.md");
	size_t big = (9u << 20);
	char *huge = malloc(big);

	cgt_write(outside, "secret.md", "# Secret\n\nTOP-SECRET\n");
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(symlink(outside, dlink), 0);
	assert_int_equal(symlink("caching.md", inlink), 0);
	cgt_write(ws, ".guild/wiki/concepts/bad-utf8.md",
	          "# Bad \xff bytes\n\nText \xc3\x28 here.\n");
	assert_non_null(huge);
	memset(huge, 'x', big);
	memcpy(huge, "# Huge\n", 7);
	for (size_t i = 100; i < big; i += 100)
		huge[i] = '\n';
	cgt_write_bytes(ws, ".guild/wiki/concepts/huge.md", huge, big);
	free(huge);
	free(target);
	free(link);
	free(dlink);
	free(inlink);
}

static int
setup(void **state)
{
	cgt_escape_new("pages", &ws, &cache, &outside, &wsname);
	write_pages();
	write_hostile();
	return 0;
}

static int
teardown(void **state)
{
	cgt_escape_free(ws, cache, outside, wsname);
	return 0;
}

static const char *
s(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

static int
ends_with(const char *a, const char *b)
{
	size_t x = strlen(a);
	size_t y = strlen(b);

	return x >= y && strcmp(a + x - y, b) == 0;
}

/* Runs `corpus-gw CMD [--json] --workspace ws --cache cache ARGS...`;
 * checks the exit code; returns stdout (and stderr in *err). */
static char *
run(int want, char **err, const char *cmd, int json, ...)
{
	const char *argv[64] = {"corpus-gw", cmd,       "--workspace",
	                        ws,          "--cache", cache};
	size_t n = 6;
	char *out = NULL;
	char *e = NULL;
	va_list ap;
	int rc;

	if (json)
		argv[n++] = "--json";
	va_start(ap, json);
	for (const char *a = va_arg(ap, const char *); a != NULL && n < 63;
	     a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	rc = cgt_runv(&out, &e, argv);
	if (rc != want)
		fprintf(stderr, "%s exited %d (want %d): %s\n", cmd, rc, want,
		        e);
	assert_int_equal(rc, want);
	if (err != NULL)
		*err = e;
	else
		free(e);
	return out;
}

/* As run() with --json; the parsed answer. */
static json_t *
run_json(int want, const char *cmd, const char *a1, const char *a2,
         const char *a3)
{
	char *out = run(want, NULL, cmd, 1, a1, a2, a3, NULL);
	json_error_t jerr;
	json_t *ans = json_loads(out, 0, &jerr);

	if (ans == NULL)
		fprintf(stderr, "not JSON: %s\n%s\n", jerr.text, out);
	assert_non_null(ans);
	free(out);
	return ans;
}

static char *
uri(const char *source, const char *path)
{
	cg_buf b;

	cg_buf_init(&b, 8192);
	(void)cg_buf_printf(&b, "cg://%s/%s/%s", wsname, source, path);
	return cg_buf_take(&b);
}

/* The receipt every tool answer carries. */
static void
assert_receipt(const json_t *ans)
{
	const json_t *ev = json_object_get(ans, "evidence");

	assert_true(json_is_array(json_object_get(ev, "sources_asked")));
	assert_true(json_is_array(json_object_get(ev, "sources_answered")));
	assert_true(json_array_size(json_object_get(ev, "nodes")) >= 1);
	assert_true(json_is_false(json_object_get(ev, "degraded")));
	assert_true(json_is_array(json_object_get(ans, "followups")));
}

/* --- read --------------------------------------------------------------- */

static void
test_read_page(void **state)
{
	char *u = uri("root", DECISION);
	json_t *ans = run_json(0, "read", u, NULL, NULL);
	const json_t *fm = json_object_get(ans, "frontmatter");
	char *out;

	assert_string_equal(s(ans, "uri"), u);
	assert_string_equal(s(ans, "source"), "root");
	assert_string_equal(s(ans, "path"), DECISION);
	assert_string_equal(s(ans, "title"), "Use Postgres");
	assert_string_equal(s(ans, "category"), "decision");
	assert_string_equal(s(fm, "type"), "decision");
	assert_int_equal(json_array_size(json_object_get(fm, "aliases")), 2);
	assert_string_equal(s(ans, "frontmatter_status"), "ok");
	assert_true(strncmp(s(ans, "body"), "# Use Postgres\n", 15) == 0);
	assert_int_equal(json_integer_value(json_object_get(ans, "body_line")),
	                 7);
	assert_int_equal(
	    json_integer_value(json_object_get(ans, "total_lines")), 16);
	assert_receipt(ans);
	json_decref(ans);
	/* Text mode prints the file exactly; the short form works too. */
	out = run(0, NULL, "read", 0, "root/" DECISION, NULL);
	assert_string_equal(out, decision_text);
	free(out);
	free(u);
}

static void
test_read_lines(void **state)
{
	json_t *ans = run_json(0, "read", "--lines", "7:8", "root/" DECISION);
	const json_t *r = json_object_get(ans, "range");

	assert_string_equal(s(ans, "text"), "# Use Postgres\n\n");
	assert_int_equal(json_integer_value(json_array_get(r, 0)), 7);
	assert_int_equal(json_integer_value(json_array_get(r, 1)), 8);
	assert_null(json_object_get(ans, "body"));
	assert_string_equal(s(json_object_get(ans, "frontmatter"), "title"),
	                    "Use Postgres");
	json_decref(ans);
	/* Clamped to the end; "A:" runs to the end; past it is empty. */
	ans = run_json(0, "read", "--lines", "15:99", "root/" DECISION);
	assert_string_equal(s(ans, "text"), "\nMore.\n");
	assert_int_equal(json_integer_value(
	                     json_array_get(json_object_get(ans, "range"), 1)),
	                 16);
	json_decref(ans);
	ans = run_json(0, "read", "--lines", "16:", "root/" DECISION);
	assert_string_equal(s(ans, "text"), "More.\n");
	json_decref(ans);
	ans = run_json(0, "read", "--lines", "40:50", "root/" DECISION);
	assert_string_equal(s(ans, "text"), "");
	assert_int_equal(
	    json_integer_value(json_object_get(ans, "total_lines")), 16);
	json_decref(ans);
	free(run(2, NULL, "read", 0, "--lines", "0:3", "root/" DECISION, NULL));
	free(run(2, NULL, "read", 0, "--lines", "5:2", "root/" DECISION, NULL));
	free(run(2, NULL, "read", 0, "--lines", "x", "root/" DECISION, NULL));
}

/* read of u exits 2, prints nothing, and says why (want in stderr). */
static void
refused(const char *u, const char *want)
{
	char *err = NULL;
	char *out = run(2, &err, "read", 0, u, NULL);

	if (strstr(err, want) == NULL)
		fprintf(stderr, "read %s: '%s' lacks '%s'\n", u, err, want);
	assert_non_null(strstr(err, want));
	assert_null(strstr(out, "TOP-SECRET"));
	assert_string_equal(out, "");
	free(out);
	free(err);
}

static void
test_read_refusals(void **state)
{
	char *u = uri("root", ".guild/wiki/%2e%2e/%2e%2e/secret.md");
	char *abs = uri("root", "/etc/passwd");

	refused("root/.guild/wiki/../../README.md", "escapes the source root");
	refused("root/.guild/wiki/concepts/../../../x.md",
	        "escapes the source root");
	refused(u, "escapes the source root");
	refused(abs, "absolute path");
	refused("root//etc/hostname", "absolute path");
	refused("root/.guild/wiki/concepts/leak.md", "symlink");
	refused("root/.guild/wiki/linked/secret.md", "symlink");
	refused("root/.guild/wiki/concepts/alias.md", "symlink");
	refused("root/services/api/.guild/wiki/concepts/auth-flow.md",
	        "escapes the source root");
	refused("root/.guild/wiki/concepts//caching.md", "empty path");
	refused("root/.guild/wiki/./concepts/caching.md", "'.'");
	refused("root/.guild/wiki/nope.md", "no such page");
	refused("nosource/.guild/wiki/x.md", "unknown source");
	refused("cg://elsewhere/root/" CACHING, "unknown source");
	free(u);
	free(abs);
}

static void
test_read_big_and_broken(void **state)
{
	char *err = NULL;
	json_t *ans;

	free(
	    run(2, &err, "read", 0, "root/.guild/wiki/concepts/huge.md", NULL));
	assert_non_null(strstr(err, "--lines"));
	free(err);
	ans = run_json(0, "read", "--lines", "1:2",
	               "root/.guild/wiki/concepts/huge.md");
	assert_true(strncmp(s(ans, "text"), "# Huge\n", 7) == 0);
	assert_true(json_integer_value(json_object_get(ans, "total_lines")) >
	            90000);
	json_decref(ans);
	ans = run_json(0, "read", "root/.guild/wiki/concepts/bad-utf8.md", NULL,
	               NULL);
	assert_string_equal(s(ans, "body"),
	                    "# Bad \xef\xbf\xbd bytes\n\nText \xef\xbf\xbd( "
	                    "here.\n");
	assert_int_equal(json_integer_value(json_object_get(ans, "utf8_fixed")),
	                 2);
	assert_string_equal(
	    s(json_array_get(json_object_get(ans, "followups"), 0), "kind"),
	    "invalid_utf8");
	json_decref(ans);
}

/* --- links ---------------------------------------------------------------- */

/* The outgoing link on line with target t (and anchor a or NULL). */
static const json_t *
link_at(const json_t *links, int line, const char *t, const char *a)
{
	size_t i;
	const json_t *lk;

	json_array_foreach(links, i, lk)
		if (json_integer_value(json_object_get(lk, "line")) == line &&
		    strcmp(s(lk, "target"), t) == 0 &&
		    (a == NULL ? json_is_null(json_object_get(lk, "anchor"))
		               : strcmp(s(lk, "anchor"), a) == 0))
			return lk;
	fprintf(stderr, "no link %s on line %d\n", t, line);
	return NULL;
}

static void
resolved_to(const json_t *lk, const char *source, const char *path,
            const char *match)
{
	char *u = uri(source, path);

	assert_non_null(lk);
	assert_true(json_is_true(json_object_get(lk, "resolved")));
	assert_string_equal(s(lk, "uri"), u);
	assert_string_equal(s(lk, "match"), match);
	free(u);
}

static void
unresolved(const json_t *lk, const char *why)
{
	assert_non_null(lk);
	assert_true(json_is_false(json_object_get(lk, "resolved")));
	assert_null(json_object_get(lk, "uri"));
	assert_non_null(strstr(s(lk, "reason"), why));
}

static void
test_links_outgoing(void **state)
{
	char *u = uri("root", DECISION);
	json_t *ans = run_json(0, "links", u, NULL, NULL);
	const json_t *out = json_object_get(ans, "outgoing");
	const json_t *c = json_object_get(ans, "counts");
	const json_t *lk;

	assert_string_equal(s(ans, "uri"), u);
	assert_int_equal(json_array_size(out), 9);
	resolved_to(link_at(out, 9, "caching", NULL), "root", CACHING, "slug");
	lk = link_at(out, 9, "caching", "Redis");
	resolved_to(lk, "root", CACHING, "slug");
	assert_string_equal(s(lk, "text"), "the cache");
	resolved_to(link_at(out, 10, "Database Choice", NULL), "root", DECISION,
	            "alias");
	resolved_to(link_at(out, 10, "concepts/caching", NULL), "root", CACHING,
	            "path");
	unresolved(link_at(out, 10, "nowhere", NULL), "nowhere");
	lk = link_at(out, 11, "../concepts/caching.md", NULL);
	resolved_to(lk, "root", CACHING, "path");
	assert_string_equal(s(lk, "kind"), "markdown");
	unresolved(link_at(out, 11, "../concepts/gone.md", NULL),
	           ".guild/wiki/concepts/gone.md");
	resolved_to(link_at(out, 12, "api/auth-flow", NULL), "api", AUTH,
	            "slug");
	unresolved(link_at(out, 12, "nosuch/thing", NULL), "nosuch");
	assert_int_equal(json_integer_value(json_object_get(c, "outgoing")), 9);
	assert_int_equal(json_integer_value(json_object_get(c, "unresolved")),
	                 3);
	assert_int_equal(json_array_size(json_object_get(ans, "followups")), 3);
	assert_string_equal(
	    s(json_array_get(json_object_get(ans, "followups"), 0), "kind"),
	    "unresolved_link");
	assert_receipt(ans);
	json_decref(ans);
	free(u);
}

/* The backlink from source/path on line, or NULL. */
static const json_t *
backlink(const json_t *ans, const char *source, const char *path, int line)
{
	size_t i;
	const json_t *b;
	char *u = uri(source, path);

	json_array_foreach(json_object_get(ans, "backlinks"), i, b)
		if (strcmp(s(b, "uri"), u) == 0 &&
		    json_integer_value(json_object_get(b, "line")) == line) {
			free(u);
			return b;
		}
	free(u);
	return NULL;
}

static void
test_backlinks(void **state)
{
	json_t *ans = run_json(0, "links", "root/" DECISION, NULL, NULL);
	const json_t *b;

	/* caching.md (slug and alias), storage.md (markdown), the page
	 * itself ([[Database Choice]]), and two from the api sub-guild
	 * (title and path forms qualified by the source). */
	assert_int_equal(json_array_size(json_object_get(ans, "backlinks")), 6);
	b = backlink(ans, "root", CACHING, 6);
	assert_non_null(b);
	assert_string_equal(s(b, "title"), "Caching");
	assert_non_null(backlink(ans, "root", STORAGE, 7));
	assert_non_null(backlink(ans, "root", DECISION, 10));
	b = backlink(ans, "api", AUTH, 6);
	assert_non_null(b);
	assert_string_equal(s(b, "target"), "root/Use Postgres");
	b = backlink(ans, "api", API_NOTE, 6);
	assert_non_null(b);
	assert_string_equal(s(b, "text"), "the db decision");
	/* A bare [[use-postgres]] in api stays in api: no backlink. */
	assert_null(backlink(ans, "api", AUTH, 7));
	assert_int_equal(json_integer_value(json_object_get(
	                     json_object_get(ans, "counts"), "backlinks")),
	                 6);
	json_decref(ans);
	/* The other direction: caching.md is linked from use-postgres. */
	ans = run_json(0, "links", "root/" CACHING, NULL, NULL);
	assert_non_null(backlink(ans, "root", DECISION, 9));
	assert_non_null(backlink(ans, "root", DECISION, 11));
	assert_null(backlink(ans, "api", AUTH, 7));
	json_decref(ans);
	free(run(2, NULL, "links", 0, "root/.guild/wiki/nope.md", NULL));
	free(run(2, NULL, "links", 0, "root/.guild/../x.md", NULL));
}

/* --- resolve ------------------------------------------------------------ */

/* The uri of match i of resolve NAME, and its match kind in *how. */
static void
resolves(const char *name, size_t n, const char *source, const char *path,
         const char *how)
{
	json_t *ans = run_json(0, "resolve", name, NULL, NULL);
	const json_t *m = json_array_get(json_object_get(ans, "matches"), 0);
	char *u = uri(source, path);

	if (json_array_size(json_object_get(ans, "matches")) != n)
		fprintf(stderr, "resolve %s: %zu matches\n", name,
		        json_array_size(json_object_get(ans, "matches")));
	assert_int_equal(json_array_size(json_object_get(ans, "matches")), n);
	assert_string_equal(s(m, "uri"), u);
	assert_string_equal(s(m, "match"), how);
	assert_receipt(ans);
	json_decref(ans);
	free(u);
}

static void
test_resolve(void **state)
{
	char *u = uri("api", AUTH);
	json_t *ans;
	char *out;

	resolves("Use Postgres", 1, "root", DECISION, "title");
	resolves("use postgres", 1, "root", DECISION, "title");
	resolves("use-postgres", 1, "root", DECISION, "slug");
	resolves("pg-choice", 1, "root", DECISION, "alias");
	resolves("[[Database Choice#Details|the db]]", 1, "root", DECISION,
	         "alias");
	resolves("decisions/use-postgres", 1, "root", DECISION, "path");
	resolves(DECISION, 1, "root", DECISION, "path");
	resolves("api/auth-flow", 1, "api", AUTH, "slug");
	resolves(u, 1, "api", AUTH, "path");
	/* One slug in two sources: both; equal depth, so uri order. */
	resolves("overview", 2, "api", ".guild/wiki/context/overview.md",
	         "slug");
	ans = run_json(0, "resolve", "[[x#y]]", NULL, NULL);
	assert_string_equal(s(ans, "lookup"), "x");
	assert_string_equal(s(ans, "anchor"), "y");
	json_decref(ans);
	ans = run_json(0, "resolve", "no-such-page", NULL, NULL);
	assert_int_equal(json_array_size(json_object_get(ans, "matches")), 0);
	assert_non_null(strstr(s(ans, "note"), "query"));
	json_decref(ans);
	out = run(0, NULL, "resolve", 0, "pg-choice", NULL);
	assert_non_null(strstr(out, "alias"));
	assert_non_null(strstr(out, DECISION));
	free(out);
	free(run(2, NULL, "resolve", 0, "[[]]", NULL));
	free(u);
}

/* --- peek ----------------------------------------------------------------- */

static void
test_peek_many(void **state)
{
	char *a = uri("root", DECISION);
	char *b = uri("api", AUTH);
	char *out = run(0, NULL, "peek", 1, a, b, "root/" STORAGE, NULL);
	json_t *ans = json_loads(out, 0, NULL);
	const json_t *pages = json_object_get(ans, "pages");
	const json_t *p = json_array_get(pages, 0);
	const json_t *h = json_array_get(json_object_get(p, "headings"), 1);

	assert_non_null(ans);
	assert_int_equal(json_array_size(pages), 3);
	assert_string_equal(s(p, "uri"), a);
	assert_string_equal(s(p, "title"), "Use Postgres");
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(p, "tags"), 1)),
	    "storage");
	assert_string_equal(s(h, "text"), "Details");
	assert_int_equal(json_integer_value(json_object_get(h, "line")), 14);
	assert_non_null(strstr(s(p, "first_line"), "We chose Postgres"));
	assert_int_equal(json_array_size(json_object_get(p, "links")), 9);
	assert_null(json_object_get(p, "body"));
	assert_null(json_object_get(p, "frontmatter"));
	p = json_array_get(pages, 1);
	assert_string_equal(s(p, "uri"), b);
	resolved_to(json_array_get(json_object_get(p, "links"), 0), "root",
	            DECISION, "title");
	unresolved(json_array_get(json_object_get(p, "links"), 1),
	           "use-postgres");
	assert_string_equal(s(json_array_get(pages, 2), "title"), "Storage");
	assert_receipt(ans);
	assert_int_equal(json_array_size(json_object_get(
	                     json_object_get(ans, "evidence"), "nodes")),
	                 2);
	json_decref(ans);
	free(out);
	/* One page missing: the others are still shown, exit 2. */
	out = run(2, NULL, "peek", 1, a, "root/.guild/wiki/nope.md", NULL);
	ans = json_loads(out, 0, NULL);
	assert_non_null(ans);
	pages = json_object_get(ans, "pages");
	assert_string_equal(s(json_array_get(pages, 0), "title"),
	                    "Use Postgres");
	assert_string_equal(
	    s(json_object_get(json_array_get(pages, 1), "error"), "code"),
	    "not_found");
	json_decref(ans);
	free(out);
	free(a);
	free(b);
}

/* The search receipt lists the unresolved link as a followup. */
static void
test_receipt_followups(void **state)
{
	json_t *ans = cgt_query(ws, cache, "postgres", NULL);
	size_t i;
	const json_t *f;
	int saw = 0;

	json_array_foreach(json_object_get(ans, "followups"), i, f)
		saw |= strcmp(s(f, "kind"), "unresolved_link") == 0 &&
		       ends_with(s(f, "uri"), DECISION) &&
		       strstr(s(f, "message"), "[[nowhere]]") != NULL;
	assert_true(saw);
	json_decref(ans);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_page),
	    cmocka_unit_test(test_read_lines),
	    cmocka_unit_test(test_read_refusals),
	    cmocka_unit_test(test_read_big_and_broken),
	    cmocka_unit_test(test_links_outgoing),
	    cmocka_unit_test(test_backlinks),
	    cmocka_unit_test(test_resolve),
	    cmocka_unit_test(test_peek_many),
	    cmocka_unit_test(test_receipt_followups),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
