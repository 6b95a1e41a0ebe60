/*
 * test_registry_notes.c - a repository whose corpus registry
 * (.hiivmind/corpus/registry.yaml) cannot be read is served without its
 * corpora, and every interface says so, naming the file and why (issue 15,
 * finding 8): `query` (a registry_unreadable followup), `status` (the
 * wiki's errors) and `serve` (a log line).  A registry that uses a YAML
 * alias within bounds is read; an alias bomb is refused with its reason.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgproc.h"
#include "cgtest.h"
#include "common/cg_fs.h"
#include "common/cg_json.h"

static char *T;
static char ws[4096];
static char cache[4096];

static int
setup(void **state)
{
	(void)state;
	T = cgt_tmpdir("registry");
	(void)snprintf(ws, sizeof(ws), "%s/ws", T);
	(void)snprintf(cache, sizeof(cache), "%s/cache", T);
	cgt_page(ws, ".guild/wiki/standards/style.md",
	         "type: standard\nupdated_at: 2026-10-01",
	         "# Style\n\nTabs, not spaces, says the narwhal.\n");
	cgt_write(ws, "corpora/handbook/index.md",
	          "# Handbook\n\n## Guide\n\n"
	          "- **Onboarding** `hb:onboarding.md` - Narwhal badge\n");
	cgt_write(ws, "corpora/handbook/config.yaml",
	          "schema_version: 2\ncorpus:\n  name: handbook\nsources:\n"
	          "  - id: hb\n    type: self\n    docs_root: \"./docs/\"\n");
	cgt_write(ws, "corpora/handbook/docs/onboarding.md",
	          "# Onboarding\n\nAsk for a narwhal badge.\n");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	cgt_rm(T);
	free(T);
	return 0;
}

static void
registry(const char *text)
{
	cgt_write(ws, ".hiivmind/corpus/registry.yaml", text);
}

/* The followup of kind in a query answer, or NULL (borrowed). */
static const json_t *
followup(const json_t *ans, const char *kind)
{
	size_t i;
	const json_t *f;

	json_array_foreach(json_object_get(ans, "followups"), i, f)
		if (strcmp(cg_json_str(f, "kind"), kind) == 0)
			return f;
	return NULL;
}

/* The errors of source name in a `status --json` answer, joined. */
static char *
status_errors(const char *name)
{
	char *out = NULL;
	json_t *st;
	size_t i;
	const json_t *node;
	char buf[8192] = "";

	assert_int_equal(cgt_run(&out, NULL, "status", "--json", "--workspace",
	                         ws, "--cache", cache, NULL),
	                 0);
	st = json_loads(out, 0, NULL);
	assert_non_null(st);
	json_array_foreach(json_object_get(st, "nodes"), i, node) {
		size_t k;
		const json_t *src;

		json_array_foreach(json_object_get(node, "sources"), k, src) {
			size_t e;
			const json_t *msg;

			if (strcmp(cg_json_str(src, "source"), name) != 0)
				continue;
			json_array_foreach(json_object_get(src, "errors"), e,
			                   msg) {
				strncat(buf, json_string_value(msg),
				        sizeof(buf) - strlen(buf) - 2);
				strcat(buf, "\n"); /* NOLINT: room kept */
			}
		}
	}
	json_decref(st);
	free(out);
	return strdup(buf);
}

static void
test_broken_registry_is_reported(void **state)
{
	json_t *ans;
	const json_t *f;
	char *errs;
	char logp[4200];
	const char *argv[] = {
	    "corpus-gw",   "serve", "--listen", "http://127.0.0.1:0",
	    "--workspace", ws,      "--cache",  cache,
	    NULL};
	cgt_proc *p;
	char *line;
	char *text = NULL;
	size_t len = 0;

	(void)state;
	registry("schema_version: 1\ncorpora:\n  - id: handbook\n"
	         "    source: [unclosed\n");
	ans = cgt_query(ws, cache, "narwhal", NULL);
	/* The wiki answers; the corpus is not served, and the answer says
	 * which file and why. */
	assert_non_null(cgt_hit(ans, "standards/style.md"));
	assert_null(cgt_hit(ans, "docs/onboarding.md"));
	f = followup(ans, "registry_unreadable");
	assert_non_null(f);
	assert_non_null(strstr(cg_json_str(f, "message"),
	                       ".hiivmind/corpus/registry.yaml: YAML line"));
	assert_non_null(
	    strstr(cg_json_str(f, "message"), "its corpora are not served"));
	json_decref(ans);

	errs = status_errors("root");
	assert_non_null(strstr(errs, ".hiivmind/corpus/registry.yaml: YAML"));
	free(errs);

	(void)snprintf(logp, sizeof(logp), "%s/serve.log", T);
	p = cgt_spawnv(logp, argv);
	line = cgt_proc_line(p, 30000 * cgt_slowdown());
	assert_non_null(line);
	assert_true(strncmp(line, "listening http://", 17) == 0);
	free(line);
	cgt_proc_kill(p, 15);
	assert_int_equal(cgt_proc_wait(p, 10000 * cgt_slowdown()), 0);
	cgt_proc_free(p);
	assert_int_equal(cg_file_read(logp, 1 << 20, &text, &len, NULL), 0);
	assert_non_null(strstr(text, "registry unreadable source=root"));
	assert_non_null(strstr(text, "registry.yaml: YAML line"));
	free(text);
}

static void
test_alias_within_bounds(void **state)
{
	json_t *ans;

	(void)state;
	/* An anchor and an alias: the second corpus reuses the first's
	 * cache settings. */
	registry("schema_version: 1\ncorpora:\n"
	         "  - id: handbook\n    source:\n      type: local\n"
	         "      path: corpora/handbook\n"
	         "    cache: &defaults\n      strategy: none\n"
	         "  - id: handbook2\n    source:\n      type: local\n"
	         "      path: corpora/handbook\n"
	         "    cache: *defaults\n");
	ans = cgt_query(ws, cache, "narwhal", NULL);
	assert_non_null(cgt_hit(ans, "docs/onboarding.md"));
	assert_null(followup(ans, "registry_unreadable"));
	json_decref(ans);
}

static void
test_alias_bomb_refused(void **state)
{
	json_t *ans;
	const json_t *f;
	char bomb[2048];
	size_t off;

	(void)state;
	off = (size_t)snprintf(bomb, sizeof(bomb),
	                       "schema_version: 1\nx: &a [lol, lol, lol, lol, "
	                       "lol, lol, lol, lol, lol]\n");
	for (char c = 'b'; c <= 'j'; c++)
		off +=
		    (size_t)snprintf(bomb + off, sizeof(bomb) - off,
		                     "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, "
		                     "*%c, *%c, *%c]\n",
		                     c, c, c - 1, c - 1, c - 1, c - 1, c - 1,
		                     c - 1, c - 1, c - 1, c - 1);
	registry(bomb);
	ans = cgt_query(ws, cache, "narwhal", NULL);
	assert_non_null(cgt_hit(ans, "standards/style.md"));
	f = followup(ans, "registry_unreadable");
	assert_non_null(f);
	assert_non_null(
	    strstr(cg_json_str(f, "message"), "aliases expand to more than"));
	json_decref(ans);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_broken_registry_is_reported),
	    cmocka_unit_test(test_alias_within_bounds),
	    cmocka_unit_test(test_alias_bomb_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
