/*
 * test_workspace_query.c - a workspace with a manifest and three wikis:
 * hits are tagged with workspace, source and uri; --source scopes the
 * fan-out; per-source counts and the asked/answered lists are in the
 * receipt; a small source is not crowded out by a large one; source_refs
 * resolve against raw metadata (and report a missing one).
 */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"

static char *ws;
static char *cache;

static int
setup(void **state)
{
	ws = cgt_tmpdir("wsq");
	cache = cgt_tmpdir("wsq-cache");
	cgt_write(ws, ".guild/workspace.json",
	          "{\"schema\": \"guild.workspace.v1\", \"root_wiki\": true,"
	          " \"sub_guilds\": ["
	          "  {\"name\": \"big\", \"path\": \"services/big\","
	          "   \"kind\": \"service\", \"has_wiki\": true},"
	          "  {\"name\": \"small\", \"path\": \"libs/small\","
	          "   \"kind\": \"library\", \"has_wiki\": true}]}");
	cgt_page(ws, ".guild/wiki/context/overview.md",
	         "type: context\nsource_refs:\n  - kickoff-notes\n"
	         "  - missing-notes\n  - docs/plan.md # the plan",
	         "# Overview\n\nThe workspace overview mentions telemetry "
	         "once.\n");
	cgt_write(ws, ".guild/raw/sources/kickoff-notes/metadata.json",
	          "{\"slug\": \"kickoff-notes\", \"source_type\": \"file\","
	          " \"url\": \"https://example.invalid/kickoff\","
	          " \"checksum\": \"sha256:abc123\","
	          " \"captured_at\": \"2026-01-02T00:00:00Z\","
	          " \"captured_by\": \"researcher\"}");
	for (int i = 0; i < 40; i++) {
		char rel[128];

		(void)snprintf(rel, sizeof(rel),
		               "services/big/.guild/wiki/entities/e%02d.md", i);
		cgt_page(ws, rel, "type: entity",
		         "# Telemetry entity\n\nTelemetry telemetry telemetry "
		         "pipeline details.\n");
	}
	cgt_page(ws, "libs/small/.guild/wiki/concepts/tracing.md",
	         "type: concept\nowner: obs",
	         "# Tracing\n\nSpans and telemetry in the small library.\n");
	return 0;
}

static int
teardown(void **state)
{
	cgt_rm(ws);
	cgt_rm(cache);
	free(ws);
	free(cache);
	return 0;
}

static const char *
s(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

static void
test_tags_and_receipt(void **state)
{
	json_t *ans = cgt_query(ws, cache, "telemetry", NULL);
	json_t *all = cgt_query(ws, cache, "--limit", "50", "telemetry", NULL);
	const json_t *ev = json_object_get(ans, "evidence");
	const json_t *small = cgt_hit(all, "concepts/tracing.md");
	char *copy = strdup(ws);
	char uri[4096];

	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 20);
	assert_int_equal(json_array_size(json_object_get(all, "hits")), 42);
	assert_non_null(small);
	assert_string_equal(s(small, "source"), "small");
	assert_string_equal(s(small, "workspace"), basename(copy));
	(void)snprintf(uri, sizeof(uri),
	               "cg://%s/small/.guild/wiki/concepts/tracing.md",
	               basename(copy));
	assert_string_equal(s(small, "uri"), uri);
	assert_int_equal(json_array_size(json_object_get(ev, "sources_asked")),
	                 3);
	assert_int_equal(
	    json_array_size(json_object_get(ev, "sources_answered")), 3);
	/* The receipt names sources "workspace/source". */
	(void)snprintf(uri, sizeof(uri), "%s/small", basename(copy));
	assert_int_equal(
	    json_integer_value(json_object_get(
	        json_object_get(json_object_get(ev, "per_source"), uri),
	        "hits")),
	    1);
	assert_null(
	    json_object_get(json_object_get(ev, "per_source"), "small"));
	/* Timings: each round's wall time is at least its slowest node's
	 * own time, and every node says how long it worked. */
	{
		const json_t *rounds = json_object_get(ev, "rounds");
		const json_t *r;
		const json_t *n;
		size_t i;

		assert_int_equal(json_array_size(rounds), 3);
		assert_string_equal(s(json_array_get(rounds, 0), "op"),
		                    "stats");
		assert_string_equal(s(json_array_get(rounds, 1), "op"),
		                    "search");
		json_array_foreach(rounds, i, r) {
			double ms = json_number_value(json_object_get(r, "ms"));
			double node = json_number_value(
			    json_object_get(r, "slowest_node_ms"));

			assert_true(node > 0);
			assert_true(ms >= node);
		}
		json_array_foreach(json_object_get(ev, "nodes"), i, n)
			assert_true(
			    json_number_value(json_object_get(n, "ms")) > 0);
	}
	free(copy);
	json_decref(ans);
	json_decref(all);
}

static void
test_scope(void **state)
{
	json_t *ans = cgt_query(ws, cache, "--source", "small", "--source",
	                        "root", "telemetry", NULL);
	size_t i;
	const json_t *h;

	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 2);
	json_array_foreach(json_object_get(ans, "hits"), i, h)
		assert_true(strcmp(s(h, "source"), "big") != 0);
	assert_int_equal(
	    json_array_size(json_object_get(json_object_get(ans, "evidence"),
	                                    "sources_asked")),
	    2);
	json_decref(ans);
}

static void
test_source_refs(void **state)
{
	json_t *ans = cgt_query(ws, cache, "overview", NULL);
	const json_t *refs =
	    json_object_get(cgt_hit(ans, "overview.md"), "source_refs");
	const json_t *k = json_array_get(refs, 0);
	const json_t *m = json_array_get(refs, 1);
	const json_t *p = json_array_get(refs, 2);
	size_t i;
	const json_t *f;
	int saw = 0;

	assert_int_equal(json_array_size(refs), 3);
	assert_string_equal(s(k, "url"), "https://example.invalid/kickoff");
	assert_string_equal(s(k, "checksum_sha256"), "abc123");
	assert_string_equal(s(k, "captured_by"), "researcher");
	assert_true(json_is_false(json_object_get(k, "raw_path_missing")));
	assert_true(json_is_true(json_object_get(m, "raw_path_missing")));
	assert_string_equal(s(p, "path"), "docs/plan.md");
	json_array_foreach(json_object_get(ans, "followups"), i, f)
		saw |= strcmp(s(f, "kind"), "raw_missing") == 0 &&
		       strstr(s(f, "message"), "missing-notes") != NULL;
	assert_true(saw);
	json_decref(ans);
}

static void
test_index_command(void **state)
{
	char *out = NULL;
	json_t *rep;

	assert_int_equal(cgt_run(&out, NULL, "index", "--json", "--workspace",
	                         ws, "--cache", cache, NULL),
	                 0);
	rep = json_loads(out, 0, NULL);
	assert_non_null(rep);
	assert_int_equal(json_integer_value(json_object_get(
	                     json_object_get(rep, "big"), "files")),
	                 40);
	assert_non_null(json_object_get(rep, "small"));
	assert_non_null(json_object_get(rep, "root"));
	json_decref(rep);
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tags_and_receipt),
	    cmocka_unit_test(test_scope),
	    cmocka_unit_test(test_source_refs),
	    cmocka_unit_test(test_index_command),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
