/*
 * test_corpus_tiered.c - a hiivmind v1 corpus rendered tiered (its
 * index.md links per-section indexes, index-<section>.md) is read with
 * all of them: documents listed only in a tier index are found by a
 * query, in their tier's category; a tier index linking another is
 * followed; an entry pinned in index.md and in its tier is one page; a
 * linked tier index that is missing is a followup naming it while the
 * rest still indexes.  Runs the real binary ($CG_BIN) over a local
 * corpus written here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "cgtest.h"

static char *T;
static char *WS;
static char *CACHE;

static int
setup(void **state)
{
	(void)state;
	cgt_tree("corpus-tiered", &T, &WS, &CACHE);
	cgt_page(WS, ".guild/wiki/standards/style.md",
	         "type: standard\nupdated_at: 2026-10-01",
	         "# Style\n\nTabs, not spaces.\n");
	cgt_write(WS, ".hiivmind/corpus/registry.yaml",
	          "schema_version: 1\ncorpora:\n"
	          "  - id: fleet\n    source:\n      type: local\n"
	          "      path: corpora/fleet\n");
	cgt_write(WS, "corpora/fleet/config.yaml",
	          "schema_version: 2\ncorpus:\n  name: fleet\nsources:\n"
	          "  - id: fl\n    type: self\n    docs_root: docs\n"
	          "render:\n  strategy: tiered\n  sections:\n"
	          "    - id: getting-started\n      title: Getting Started\n"
	          "    - id: machines\n      title: Machines\n");
	/* The main index: a quick reference entry (also in its tier), the
	 * tier links, and a link that is no tier. */
	cgt_write(WS, "corpora/fleet/index.md",
	          "# Fleet Documentation\n\n"
	          "## Quick Reference\n\n"
	          "- **Install** `fl:install.md` - Install the flyctl tool\n\n"
	          "## Sections\n\n"
	          "- [Getting Started](index-getting-started.md) - first "
	          "steps\n"
	          "- [Machines](./index-machines.md \"Machines\") - the "
	          "machine lifecycle\n"
	          "- See also [the changelog](changelog.md).\n\n"
	          "```\n[Not a tier](index-fenced.md)\n```\n");
	cgt_write(WS, "corpora/fleet/index-getting-started.md",
	          "# Getting Started\n\n## Setup\n\n"
	          "- **Install** `fl:install.md` - Install the flyctl tool\n"
	          "- **Launch** `fl:launch.md` - Launch a narwhal app\n\n"
	          "More in [Volumes](index-volumes.md).\n");
	cgt_write(WS, "corpora/fleet/index-machines.md",
	          "# Machines\n\n## Lifecycle\n\n"
	          "- **Restart policy** `fl:machines/restart.md` - When a "
	          "machine restarts itself\n");
	cgt_write(WS, "corpora/fleet/index-volumes.md",
	          "# Volumes\n\n## Storage\n\n"
	          "- **Snapshots** `fl:volumes/snapshots.md` - Daily "
	          "axolotl snapshots\n");
	cgt_write(WS, "corpora/fleet/docs/install.md",
	          "# Install\n\nCurl the installer script.\n");
	cgt_write(WS, "corpora/fleet/docs/launch.md",
	          "# Launch\n\nRun launch in the app folder.\n");
	cgt_write(WS, "corpora/fleet/docs/machines/restart.md",
	          "# Restart policy\n\nA quokka watchdog restarts the "
	          "machine.\n");
	cgt_write(WS, "corpora/fleet/docs/volumes/snapshots.md",
	          "# Snapshots\n\nVolumes are snapshotted every day.\n");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	cgt_tree_free(T, WS, CACHE);
	return 0;
}

static const char *
hit_str(const json_t *h, const char *key)
{
	return json_string_value(json_object_get(h, key));
}

static size_t
hits_ending(const json_t *ans, const char *suffix)
{
	const json_t *hits = json_object_get(ans, "hits");
	size_t n = 0;

	for (size_t i = 0; i < json_array_size(hits); i++) {
		const char *u = hit_str(json_array_get(hits, i), "path");
		size_t k = u ? strlen(u) : 0;

		if (k >= strlen(suffix) &&
		    strcmp(u + k - strlen(suffix), suffix) == 0)
			n++;
	}
	return n;
}

static void
test_tier_entries_found(void **state)
{
	json_t *ans;
	json_t *h;
	char *fu;

	(void)state;
	/* Listed only in index-machines.md: its body and its summary. */
	ans = cgt_query(WS, CACHE, "quokka watchdog", NULL);
	h = cgt_hit(ans, "docs/machines/restart.md");
	assert_non_null(h);
	assert_string_equal(hit_str(h, "source"), "fleet");
	assert_string_equal(hit_str(h, "category"), "lifecycle");
	json_decref(ans);
	ans = cgt_query(WS, CACHE, "narwhal", NULL);
	assert_non_null(cgt_hit(ans, "docs/launch.md"));
	json_decref(ans);
	/* A tier index linked from a tier index. */
	ans = cgt_query(WS, CACHE, "axolotl", NULL);
	assert_non_null(cgt_hit(ans, "docs/volumes/snapshots.md"));
	/* Nothing is missing, and the fenced link was no tier. */
	fu = json_dumps(json_object_get(ans, "followups"), 0);
	assert_null(strstr(fu, "missing"));
	assert_null(strstr(fu, "index-fenced.md"));
	free(fu);
	json_decref(ans);
	/* Pinned in index.md and listed in its tier: one page. */
	ans = cgt_query(WS, CACHE, "installer", NULL);
	assert_int_equal(hits_ending(ans, "docs/install.md"), 1);
	json_decref(ans);
}

static void
test_missing_tier_is_a_followup(void **state)
{
	json_t *ans;
	char *fu;

	(void)state;
	cgt_sh("rm %s/corpora/fleet/index-machines.md", WS);
	ans = cgt_query(WS, CACHE, "narwhal", NULL);
	/* The rest still indexes... */
	assert_non_null(cgt_hit(ans, "docs/launch.md"));
	/* ...and the followup names the missing tier index. */
	fu = json_dumps(json_object_get(ans, "followups"), 0);
	assert_non_null(strstr(fu, "index-machines.md"));
	assert_non_null(strstr(fu, "missing"));
	free(fu);
	json_decref(ans);
	/* Its entries are gone with it. */
	ans = cgt_query(WS, CACHE, "quokka", NULL);
	assert_null(cgt_hit(ans, "docs/machines/restart.md"));
	json_decref(ans);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tier_entries_found),
	    cmocka_unit_test(test_missing_tier_is_a_followup),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
