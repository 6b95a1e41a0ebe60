/*
 * test_workspace.c - unit tests of federation/workspace.c over workspaces
 * built in temporary directories: a manifest, detection without one, the
 * root wiki rules, sub-guilds skipped with a warning (no wiki, "..",
 * absolute, symlink escape, duplicates), a malformed manifest, an empty
 * directory.  Every directory made here is removed at the end.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/cg_fs.h"
#include "conf/workspace.h"

/* A temporary workspace root and a second directory outside it. */
struct fixture {
	char root[64];
	char outside[64];
	char *real; /* realpath of root */
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	memcpy(f->root, "/tmp/cg-ws-test.XXXXXX", 23);
	memcpy(f->outside, "/tmp/cg-ws-out.XXXXXX", 22);
	if (mkdtemp(f->root) == NULL || mkdtemp(f->outside) == NULL)
		return -1;
	f->real = cg_realpath(f->root);
	*state = f;
	return f->real ? 0 : -1;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	(void)cg_rm_rf(f->root);
	(void)cg_rm_rf(f->outside);
	free(f->real);
	free(f);
	return 0;
}

/* Makes <base>/<rel> and its parents. */
static void
mk(const char *base, const char *rel)
{
	char *p = cg_path_join(base, rel);

	assert_non_null(p);
	assert_int_equal(cg_mkdir_p(p, NULL), 0);
	free(p);
}

static void
put(const char *base, const char *rel, const char *text)
{
	char *p = cg_path_join(base, rel);
	FILE *fp;

	assert_non_null(p);
	fp = fopen(p, "w");
	assert_non_null(fp);
	assert_true(fputs(text, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
	free(p);
}

static void
manifest(const struct fixture *f, const char *json)
{
	mk(f->root, ".guild");
	put(f->root, ".guild/workspace.json", json);
}

/* The real path of <root>/<rel>, for comparisons (caller frees). */
static char *
under(const struct fixture *f, const char *rel)
{
	char *p = cg_path_join(f->real, rel);

	assert_non_null(p);
	return p;
}

static size_t
nwarnings(const cg_workspace *ws)
{
	size_t n = 0;

	assert_non_null(ws->warnings);
	while (ws->warnings[n] != NULL)
		n++;
	return n;
}

/* True when some warning contains both a and b. */
static int
warned(const cg_workspace *ws, const char *a, const char *b)
{
	for (size_t i = 0; ws->warnings[i] != NULL; i++)
		if (strstr(ws->warnings[i], a) != NULL &&
		    strstr(ws->warnings[i], b) != NULL)
			return 1;
	return 0;
}

static void
load_ok(cg_workspace *ws, const struct fixture *f)
{
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_workspace_load(ws, f->root, &err), 0);
	assert_string_equal(ws->root, f->real);
}

static void
assert_source(const cg_workspace *ws, size_t i, const struct fixture *f,
              const char *name, const char *repo_rel)
{
	char *repo = repo_rel ? under(f, repo_rel) : strdup(f->real);
	char *wiki = cg_path_join(repo, ".guild/wiki");

	assert_true(i < ws->nsources);
	assert_string_equal(ws->sources[i].name, name);
	assert_string_equal(ws->sources[i].repo, repo);
	assert_string_equal(ws->sources[i].wiki, wiki);
	free(repo);
	free(wiki);
}

static void
test_manifest(void **state)
{
	struct fixture *f = *state;
	const char *base;
	cg_workspace ws;

	mk(f->root, ".guild/wiki");
	mk(f->root, "apps/web/.guild/wiki");
	mk(f->root, "services/api/.guild/wiki");
	/* Detection would find this one; the manifest does not list it. */
	mk(f->root, "unlisted/.guild/wiki");
	manifest(f, "{\"schema\": \"guild.workspace.v1\", \"root_wiki\": true,"
	            " \"sub_guilds\": ["
	            "{\"name\": \"web\", \"path\": \"apps/web\", \"kind\": "
	            "\"app\", \"remote\": \"git@example.org:web.git\", "
	            "\"has_wiki\": false, \"last_seen_commit\": \"abc\"},"
	            "{\"name\": \"api\", \"path\": \"services/api/\", "
	            "\"kind\": \"service\"}],"
	            " \"query_recipe\": {\"x\": 1}}");
	load_ok(&ws, f);
	assert_int_equal(ws.has_manifest, 1);
	base = strrchr(f->real, '/') + 1;
	assert_string_equal(ws.name, base);
	assert_int_equal(ws.nsources, 3);
	assert_source(&ws, 0, f, "root", NULL);
	assert_source(&ws, 1, f, "api", "services/api");
	assert_source(&ws, 2, f, "web", "apps/web");
	assert_null(ws.sources[0].guild_kind);
	assert_string_equal(ws.sources[1].guild_kind, "service");
	assert_null(ws.sources[1].remote);
	assert_string_equal(ws.sources[2].guild_kind, "app");
	assert_string_equal(ws.sources[2].remote, "git@example.org:web.git");
	assert_int_equal(nwarnings(&ws), 0);
	assert_ptr_equal(cg_workspace_source(&ws, "web"), &ws.sources[2]);
	assert_null(cg_workspace_source(&ws, "unlisted"));
	assert_null(cg_workspace_source(&ws, "nope"));
	cg_workspace_fini(&ws);
	assert_null(ws.sources);
}

static void
test_detection(void **state)
{
	struct fixture *f = *state;
	char *target;
	char *link;
	cg_workspace ws;

	mk(f->root, "zeta/.git");
	mk(f->root, "zeta/.guild/wiki");
	mk(f->root, "alpha/.guild/wiki");
	mk(f->root, "wt/.guild/wiki");
	put(f->root, "wt/.git", "gitdir: elsewhere\n");
	mk(f->root, "nowiki/.git");
	mk(f->root, "plain/.guild-not/wiki");
	mk(f->root, ".hidden/.guild/wiki");
	put(f->root, "file.txt", "not a directory\n");
	/* A symlinked child is not followed, even to a real guild. */
	target = under(f, "alpha");
	link = under(f, "link");
	assert_int_equal(symlink(target, link), 0);
	load_ok(&ws, f);
	assert_int_equal(ws.has_manifest, 0);
	/* No root wiki; children sorted by name; wt has a .git file. */
	assert_int_equal(ws.nsources, 3);
	assert_source(&ws, 0, f, "alpha", "alpha");
	assert_source(&ws, 1, f, "wt", "wt");
	assert_source(&ws, 2, f, "zeta", "zeta");
	assert_null(ws.sources[0].guild_kind);
	assert_int_equal(nwarnings(&ws), 0);
	cg_workspace_fini(&ws);
	free(target);
	free(link);
}

static void
test_root_wiki_rules(void **state)
{
	struct fixture *f = *state;
	cg_workspace ws;

	/* root_wiki: true without a wiki: no root source. */
	mk(f->root, "a/.guild/wiki");
	manifest(f, "{\"schema\": \"guild.workspace.v1\", \"root_wiki\": true,"
	            " \"sub_guilds\": [{\"name\": \"a\", \"path\": \"a\"}]}");
	load_ok(&ws, f);
	assert_int_equal(ws.nsources, 1);
	assert_source(&ws, 0, f, "a", "a");
	assert_null(cg_workspace_source(&ws, "root"));
	cg_workspace_fini(&ws);

	/* root_wiki: false hides an existing root wiki. */
	mk(f->root, ".guild/wiki");
	manifest(f, "{\"schema\": \"guild.workspace.v1\", \"root_wiki\": false,"
	            " \"sub_guilds\": []}");
	load_ok(&ws, f);
	assert_int_equal(ws.nsources, 0);
	cg_workspace_fini(&ws);

	/* Absent: the root wiki is included. */
	manifest(f, "{\"schema\": \"guild.workspace.v1\"}");
	load_ok(&ws, f);
	assert_int_equal(ws.nsources, 1);
	assert_source(&ws, 0, f, "root", NULL);
	cg_workspace_fini(&ws);
}

static void
test_child_without_wiki(void **state)
{
	struct fixture *f = *state;
	cg_workspace ws;

	mk(f->root, "docs/.git");
	mk(f->root, "tools/.guild");
	mk(f->root, "web/.guild/wiki");
	manifest(f, "{\"schema\": \"guild.workspace.v1\", \"sub_guilds\": ["
	            "{\"name\": \"docs\", \"path\": \"docs\"},"
	            "{\"name\": \"tools\", \"path\": \"tools\", "
	            "\"has_wiki\": false},"
	            "{\"name\": \"web\", \"path\": \"web\"}]}");
	load_ok(&ws, f);
	assert_int_equal(ws.nsources, 1);
	assert_source(&ws, 0, f, "web", "web");
	/* Only the entry that claimed a wiki is reported. */
	assert_int_equal(nwarnings(&ws), 1);
	assert_true(warned(&ws, "docs", "no .guild/wiki"));
	cg_workspace_fini(&ws);
}

static void
test_bad_paths(void **state)
{
	struct fixture *f = *state;
	cg_workspace ws;

	mk(f->outside, ".guild/wiki");
	mk(f->root, "ok/.guild/wiki");
	mk(f->root, "sub/x/.guild/wiki");
	manifest(f, "{\"schema\": \"guild.workspace.v1\", \"sub_guilds\": ["
	            "{\"name\": \"esc\", \"path\": \"../escape\"},"
	            "{\"name\": \"mid\", \"path\": \"sub/../sub/x\"},"
	            "{\"name\": \"abs\", \"path\": \"/etc\"},"
	            "{\"name\": \"nopath\"},"
	            "{\"name\": \"gone\", \"path\": \"missing\"},"
	            "{\"name\": \"self\", \"path\": \".\"},"
	            "{\"path\": \"ok\"},"
	            "{\"name\": \"a/b\", \"path\": \"ok\"},"
	            "42,"
	            "{\"name\": \"ok\", \"path\": \"ok\"}]}");
	load_ok(&ws, f);
	assert_int_equal(ws.nsources, 1);
	assert_source(&ws, 0, f, "ok", "ok");
	assert_int_equal(nwarnings(&ws), 9);
	assert_true(warned(&ws, "esc", "'..'"));
	assert_true(warned(&ws, "mid", "'..'"));
	assert_true(warned(&ws, "abs", "absolute"));
	assert_true(warned(&ws, "nopath", "no path"));
	assert_true(warned(&ws, "gone", "not a directory"));
	assert_true(warned(&ws, "self", "root itself"));
	assert_true(warned(&ws, "sub_guilds[6]", "no name"));
	assert_true(warned(&ws, "sub_guilds[7]", "invalid name"));
	assert_true(warned(&ws, "sub_guilds[8]", "not an object"));
	cg_workspace_fini(&ws);
}

static void
test_symlink_escape(void **state)
{
	struct fixture *f = *state;
	char *evil;
	char *wlink;
	char *owiki;
	char *alias;
	cg_workspace ws;

	/* A sub-guild that is a symlink to a guild outside the root. */
	mk(f->outside, ".guild/wiki");
	evil = under(f, "evil");
	assert_int_equal(symlink(f->outside, evil), 0);
	/* A sub-guild whose wiki is a symlink to a wiki outside. */
	mk(f->root, "sneaky/.guild");
	owiki = cg_path_join(f->outside, ".guild/wiki");
	wlink = under(f, "sneaky/.guild/wiki");
	assert_int_equal(symlink(owiki, wlink), 0);
	/* A symlink that stays inside the root is fine. */
	mk(f->root, "real/.guild/wiki");
	alias = under(f, "alias");
	assert_int_equal(symlink("real", alias), 0);
	manifest(f, "{\"schema\": \"guild.workspace.v1\", \"sub_guilds\": ["
	            "{\"name\": \"evil\", \"path\": \"evil\"},"
	            "{\"name\": \"sneaky\", \"path\": \"sneaky\"},"
	            "{\"name\": \"alias\", \"path\": \"alias\"}]}");
	load_ok(&ws, f);
	assert_int_equal(ws.nsources, 1);
	assert_source(&ws, 0, f, "alias", "real");
	assert_int_equal(nwarnings(&ws), 2);
	assert_true(warned(&ws, "evil", "outside the workspace root"));
	assert_true(warned(&ws, "sneaky", "outside the workspace root"));
	cg_workspace_fini(&ws);
	free(evil);
	free(wlink);
	free(owiki);
	free(alias);
}

static void
test_schema_and_duplicates(void **state)
{
	struct fixture *f = *state;
	cg_workspace ws;

	mk(f->root, ".guild/wiki");
	mk(f->root, "one/.guild/wiki");
	mk(f->root, "two/.guild/wiki");
	manifest(f, "{\"schema\": \"guild.workspace.v2\", \"root_wiki\": "
	            "\"yes\", \"sub_guilds\": ["
	            "{\"name\": \"dup\", \"path\": \"one\"},"
	            "{\"name\": \"dup\", \"path\": \"two\"},"
	            "{\"name\": \"root\", \"path\": \"two\"}]}");
	load_ok(&ws, f);
	assert_int_equal(ws.nsources, 2);
	assert_source(&ws, 0, f, "root", NULL);
	assert_source(&ws, 1, f, "dup", "one");
	assert_int_equal(nwarnings(&ws), 4);
	assert_true(warned(&ws, "guild.workspace.v2", "read anyway"));
	assert_true(warned(&ws, "root_wiki", "not a boolean"));
	assert_true(warned(&ws, "'dup'", "duplicate"));
	assert_true(warned(&ws, "'root'", "duplicate"));
	cg_workspace_fini(&ws);
}

static void
test_malformed_manifest(void **state)
{
	struct fixture *f = *state;
	cg_workspace ws;
	cg_err err;

	manifest(f, "{\"schema\": \"guild.workspace.v1\",\n"
	            " \"sub_guilds\": [}\n");
	cg_err_clear(&err);
	assert_int_equal(cg_workspace_load(&ws, f->root, &err), CG_EPARSE);
	assert_int_equal(err.code, CG_EPARSE);
	assert_non_null(strstr(err.msg, ".guild/workspace.json:2:"));
	assert_null(ws.sources);
	assert_null(ws.root);

	/* Valid JSON that is not an object. */
	manifest(f, "[1, 2]");
	cg_err_clear(&err);
	assert_int_equal(cg_workspace_load(&ws, f->root, &err), CG_EPARSE);
	assert_non_null(strstr(err.msg, "not a JSON object"));
}

static void
test_empty_and_missing(void **state)
{
	struct fixture *f = *state;
	cg_workspace ws;
	cg_err err;
	char *gone;

	load_ok(&ws, f);
	assert_int_equal(ws.nsources, 0);
	assert_int_equal(ws.has_manifest, 0);
	assert_int_equal(nwarnings(&ws), 0);
	cg_workspace_fini(&ws);
	cg_workspace_fini(&ws);

	gone = cg_path_join(f->root, "does-not-exist");
	cg_err_clear(&err);
	assert_int_equal(cg_workspace_load(&ws, gone, &err), CG_ENOTFOUND);
	assert_non_null(strstr(err.msg, "does-not-exist"));
	free(gone);

	put(f->root, "file", "x");
	gone = cg_path_join(f->root, "file");
	cg_err_clear(&err);
	assert_int_equal(cg_workspace_load(&ws, gone, &err), CG_EINVAL);
	free(gone);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_manifest, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_detection, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_root_wiki_rules, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_child_without_wiki, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_bad_paths, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_symlink_escape, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_schema_and_duplicates, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_malformed_manifest, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_empty_and_missing, setup,
	                                    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
