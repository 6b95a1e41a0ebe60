/*
 * test_hiivmind_samples.c - format check of cache/hiivmind*.c against the
 * real hiivmind files in the shared corpora folder (read only, never
 * copied into the project): the registry, every config.yaml, index.yaml,
 * every index.md read as v1, graph.yaml and registry-graph.yaml parse with
 * the exact counts those files hold and no warning, and the Mustache
 * config template is refused as YAML.
 *
 * The folder is $CG_SHARED (the corpora folder, or a folder holding
 * corpora/), else $CG_SRC/../shared/corpora, else /work/shared/corpora.
 * When it is absent every test is skipped with one SKIP line; this file
 * must never fail for want of the data.
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
#include "common/cg_fs.h"

/* The hiivmind folder of the corpora, or NULL; set once by main. */
struct samples {
	char *dir;
};

static size_t
count(char **l)
{
	size_t n = 0;

	assert_non_null(l);
	while (l[n] != NULL)
		n++;
	return n;
}

/* Fails the test (printing them) when there are warnings. */
static void
no_warnings(const char *what, char **w)
{
	for (size_t i = 0; w[i] != NULL; i++)
		print_message("%s: warning: %s\n", what, w[i]);
	assert_int_equal(count(w), 0);
}

/* Reads dir/rel into a malloc'd buffer. */
static char *
slurp(void **state, const char *rel, size_t *len)
{
	const struct samples *s = *state;
	char *path;
	char *text = NULL;
	cg_err err;

	if (s->dir == NULL)
		skip();
	path = cg_path_join(s->dir, rel);
	assert_non_null(path);
	cg_err_clear(&err);
	if (cg_file_read(path, 64u << 20, &text, len, &err) != 0)
		print_message("%s: %s\n", path, err.msg);
	assert_non_null(text);
	free(path);
	return text;
}

static void
parse_config(void **state, const char *rel, cg_hm_config *c)
{
	size_t len;
	char *text = slurp(state, rel, &len);
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_hm_config_parse(c, text, len, &err), 0);
	no_warnings(rel, c->warnings);
	free(text);
}

static void
parse_v1(void **state, const char *rel, cg_hm_index *ix)
{
	size_t len;
	char *text = slurp(state, rel, &len);

	assert_int_equal(cg_hm_index_parse_v1(ix, text, len, NULL), 0);
	no_warnings(rel, ix->warnings);
	free(text);
}

static void
parse_v2(void **state, const char *rel, cg_hm_index *ix)
{
	size_t len;
	char *text = slurp(state, rel, &len);

	assert_int_equal(cg_hm_index_parse_v2(ix, text, len, NULL), 0);
	no_warnings(rel, ix->warnings);
	free(text);
}

static void
parse_graph(void **state, const char *rel, cg_hm_graph *g)
{
	size_t len;
	char *text = slurp(state, rel, &len);

	assert_int_equal(cg_hm_graph_parse(g, text, len, NULL), 0);
	no_warnings(rel, g->warnings);
	free(text);
}

static void
test_registry(void **state)
{
	size_t len;
	char *text =
	    slurp(state, "patterns/.hiivmind/corpus/registry.yaml", &len);
	cg_hm_registry r;

	assert_int_equal(cg_hm_registry_parse(&r, text, len, NULL), 0);
	no_warnings("registry.yaml", r.warnings);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.v[0].id, "flyio");
	assert_string_equal(r.v[1].id, "github-docs");
	for (size_t i = 0; i < r.n; i++) {
		assert_int_equal(r.v[i].type, CG_HM_GITHUB);
		assert_non_null(strstr(r.v[i].repo, "hiivmind/"));
		assert_string_equal(r.v[i].ref, "main");
		assert_null(r.v[i].path);
		assert_string_equal(r.v[i].strategy, "fetch");
		assert_int_equal(r.v[i].ttl_s, 7 * 86400);
	}
	cg_hm_registry_fini(&r);
	free(text);
}

/* One expected config.yaml. */
struct want_config {
	const char *rel;       /* file under the hiivmind folder */
	const char *name;      /* corpus.name */
	size_t nkeywords;      /* corpus.keywords */
	const char *source;    /* the one source's id */
	const char *docs_root; /* normalised */
};

static void
test_configs(void **state)
{
	static const struct want_config want[] = {
	    {"claudecodebook/config.yaml", "claudecodebook", 4,
	     "claude-code-from-source", "book"},
	    {"data/hiivmind-corpus-ibis/data/config.yaml", "ibis", 7, "ibis",
	     "docs"},
	    {"data/hiivmind-corpus-narwhals/data/config.yaml", "narwhals", 6,
	     "narwhals", "docs"},
	    {"data/hiivmind-corpus-polars/data/config.yaml", "polars", 7,
	     "polars", "docs/source"},
	    {"data/hiivmind-corpus-substrait/data/config.yaml", "substrait", 6,
	     "substrait", "site/docs"},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const cg_hm_source *s;
		cg_hm_config c;

		parse_config(state, want[i].rel, &c);
		assert_string_equal(c.name, want[i].name);
		assert_non_null(c.display_name);
		assert_int_equal(count(c.keywords), want[i].nkeywords);
		assert_int_equal(c.nsources, 1);
		s = cg_hm_config_source(&c, want[i].source);
		assert_non_null(s);
		assert_string_equal(s->type, "git");
		assert_string_equal(s->branch, "main");
		assert_string_equal(s->docs_root, want[i].docs_root);
		assert_string_equal(s->repo_name, want[i].source);
		assert_non_null(s->repo_owner);
		assert_non_null(s->repo_url);
		assert_int_equal(strlen(s->last_commit_sha), 40);
		cg_hm_config_fini(&c);
	}
}

/* The Mustache template is not YAML: refused, with the line. */
static void
test_template_refused(void **state)
{
	size_t len;
	char *text =
	    slurp(state, "patterns/templates/config.yaml.template", &len);
	cg_hm_config c;
	cg_err err;

	cg_err_clear(&err);
	assert_int_equal(cg_hm_config_parse(&c, text, len, &err), CG_EPARSE);
	assert_non_null(strstr(err.msg, "YAML line"));
	assert_null(c.sources);
	free(text);
}

static void
test_index_yaml(void **state)
{
	cg_hm_config c;
	cg_hm_graph g;
	cg_hm_index ix;
	size_t reference = 0;

	parse_v2(state, "claudecodebook/index.yaml", &ix);
	assert_int_equal(ix.version, 2);
	assert_int_equal(ix.n, 18);
	assert_string_equal(ix.v[0].id,
	                    "claude-code-from-source:ch01-architecture.md");
	assert_string_equal(ix.v[0].path, "ch01-architecture.md");
	assert_string_equal(ix.v[0].title, "The Architecture of an AI Agent");
	for (size_t i = 0; i < ix.n; i++) {
		const cg_hm_entry *e = &ix.v[i];

		assert_false(e->is_section);
		assert_false(e->stale);
		assert_null(e->stale_since);
		assert_string_equal(e->source, "claude-code-from-source");
		assert_non_null(e->summary);
		assert_true(count(e->tags) > 0);
		assert_true(count(e->keywords) > 0);
		assert_true(count(e->concepts) > 0);
		reference += strcmp(e->category, "reference") == 0;
	}
	assert_int_equal(reference, 2);
	/* Every entry's source and concepts resolve. */
	parse_config(state, "claudecodebook/config.yaml", &c);
	parse_graph(state, "claudecodebook/graph.yaml", &g);
	cg_hm_check(&ix, &c, &g);
	no_warnings("index.yaml check", ix.warnings);
	cg_hm_graph_fini(&g);
	cg_hm_config_fini(&c);
	cg_hm_index_fini(&ix);
}

/* index.md is rendered from index.yaml: same ids, titles, summaries. */
static void
test_index_md_matches_yaml(void **state)
{
	cg_hm_index v1;
	cg_hm_index v2;

	parse_v1(state, "claudecodebook/index.md", &v1);
	parse_v2(state, "claudecodebook/index.yaml", &v2);
	assert_int_equal(v1.version, 1);
	assert_int_equal(v1.n, 18);
	assert_int_equal(v1.n, v2.n);
	for (size_t i = 0; i < v1.n; i++) {
		const cg_hm_entry *a = &v1.v[i];
		const cg_hm_entry *b = NULL;

		for (size_t k = 0; k < v2.n && b == NULL; k++)
			if (strcmp(v2.v[k].id, a->id) == 0)
				b = &v2.v[k];
		assert_non_null(b);
		assert_string_equal(a->source, b->source);
		assert_string_equal(a->path, b->path);
		assert_string_equal(a->title, b->title);
		assert_string_equal(a->summary, b->summary);
		assert_string_equal(a->category, b->category);
	}
	cg_hm_index_fini(&v1);
	cg_hm_index_fini(&v2);
}

/* One expected index.md. */
struct want_md {
	const char *rel;    /* file under the hiivmind folder */
	const char *config; /* its config.yaml */
	size_t n;           /* entries */
	const char *first;  /* category of the first entry */
	const char *last;   /* category of the last entry */
};

static void
test_index_md(void **state)
{
	static const struct want_md want[] = {
	    {"claudecodebook/index.md", "claudecodebook/config.yaml", 18,
	     "guide", "reference"},
	    {"data/hiivmind-corpus-ibis/data/index.md",
	     "data/hiivmind-corpus-ibis/data/config.yaml", 92,
	     "getting started", "contributing"},
	    {"data/hiivmind-corpus-narwhals/data/index.md",
	     "data/hiivmind-corpus-narwhals/data/config.yaml", 65,
	     "getting started", "api reference"},
	    {"data/hiivmind-corpus-polars/data/index.md",
	     "data/hiivmind-corpus-polars/data/config.yaml", 77,
	     "getting started", "releases"},
	    {"data/hiivmind-corpus-substrait/data/index.md",
	     "data/hiivmind-corpus-substrait/data/config.yaml", 43, "overview",
	     "community"},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cg_hm_config c;
		cg_hm_index ix;

		parse_v1(state, want[i].rel, &ix);
		assert_int_equal(ix.n, want[i].n);
		assert_string_equal(ix.v[0].category, want[i].first);
		assert_string_equal(ix.v[ix.n - 1].category, want[i].last);
		for (size_t k = 0; k < ix.n; k++) {
			assert_non_null(ix.v[k].summary);
			assert_null(strstr(ix.v[k].summary, "GREP"));
		}
		/* Every entry names the corpus's one source. */
		parse_config(state, want[i].config, &c);
		cg_hm_check(&ix, &c, NULL);
		no_warnings(want[i].rel, ix.warnings);
		cg_hm_config_fini(&c);
		cg_hm_index_fini(&ix);
	}
}

static void
test_graph(void **state)
{
	cg_hm_graph g;
	const cg_hm_concept *c;
	size_t depends = 0;

	parse_graph(state, "claudecodebook/graph.yaml", &g);
	assert_int_equal(g.nconcepts, 9);
	assert_int_equal(g.nrels, 11);
	assert_string_equal(g.concepts[0].id, "core-architecture");
	assert_string_equal(g.concepts[8].id, "bootstrap");
	c = cg_hm_graph_concept(&g, "tool-system");
	assert_non_null(c);
	assert_string_equal(c->label, "Tool System");
	assert_non_null(c->description);
	assert_int_equal(count(c->tags), 4);
	for (size_t i = 0; i < g.nrels; i++) {
		assert_null(g.rels[i].from_corpus);
		assert_null(g.rels[i].note);
		depends += strcmp(g.rels[i].type, "depends-on") == 0;
	}
	assert_int_equal(depends, 6);
	cg_hm_graph_fini(&g);
}

static void
test_reggraph(void **state)
{
	static const char *const corpora[] = {"polars", "ibis", "narwhals",
	                                      "substrait"};
	size_t len;
	char *text =
	    slurp(state, "data/.hiivmind/corpus/registry-graph.yaml", &len);
	cg_hm_reggraph rg;
	size_t targets = 0;

	assert_int_equal(cg_hm_reggraph_parse(&rg, text, len, NULL), 0);
	no_warnings("registry-graph.yaml", rg.warnings);
	assert_int_equal(rg.nbridges, 60);
	assert_int_equal(rg.naliases, 19);
	for (size_t i = 0; i < rg.nbridges; i++) {
		const cg_hm_link *l = &rg.bridges[i];
		int known = 0;

		for (size_t k = 0; k < 4; k++)
			known += strcmp(l->from_corpus, corpora[k]) == 0;
		for (size_t k = 0; k < 4; k++)
			known += strcmp(l->to_corpus, corpora[k]) == 0;
		assert_int_equal(known, 2);
		assert_string_equal(l->type, "see-also");
		assert_non_null(l->note);
	}
	assert_string_equal(rg.bridges[0].from_corpus, "polars");
	assert_string_equal(rg.bridges[0].from, "lazy-evaluation");
	assert_string_equal(rg.bridges[0].to, "deferred-execution");
	assert_string_equal(rg.aliases[0].term, "lazy evaluation");
	assert_int_equal(rg.aliases[0].ntargets, 3);
	for (size_t i = 0; i < rg.naliases; i++)
		targets += rg.aliases[i].ntargets;
	assert_int_equal(targets, 60);
	cg_hm_reggraph_fini(&rg);
	free(text);
}

/* The hiivmind folder under base (or base/corpora), or NULL. */
static char *
find_in(const char *base)
{
	char *dir = cg_path_join(base, "hiivmind");
	char *alt;

	if (dir != NULL && cg_is_dir(dir))
		return dir;
	free(dir);
	alt = cg_path_join(base, "corpora/hiivmind");
	if (alt != NULL && cg_is_dir(alt))
		return alt;
	free(alt);
	return NULL;
}

static char *
find_samples(void)
{
	const char *shared = getenv("CG_SHARED");
	const char *src = getenv("CG_SRC");
	char *base;
	char *dir;

	if (shared != NULL && shared[0] != '\0')
		return find_in(shared);
	if (src == NULL || src[0] == '\0')
		return find_in("/work/shared/corpora");
	base = cg_path_join(src, "../shared/corpora");
	dir = base != NULL ? find_in(base) : NULL;
	free(base);
	return dir;
}

int
main(void)
{
	struct samples s = {find_samples()};
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_prestate(test_registry, &s),
	    cmocka_unit_test_prestate(test_configs, &s),
	    cmocka_unit_test_prestate(test_template_refused, &s),
	    cmocka_unit_test_prestate(test_index_yaml, &s),
	    cmocka_unit_test_prestate(test_index_md_matches_yaml, &s),
	    cmocka_unit_test_prestate(test_index_md, &s),
	    cmocka_unit_test_prestate(test_graph, &s),
	    cmocka_unit_test_prestate(test_reggraph, &s),
	};
	int rc;

	if (s.dir == NULL)
		printf("SKIP: ../shared/corpora not found; format check not "
		       "run\n");
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(s.dir);
	return rc;
}
