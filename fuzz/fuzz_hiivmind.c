/*
 * fuzz_hiivmind.c - libFuzzer target for cache/hiivmind.c and
 * cache/hiivmind_index.c.  The same bytes go to every parser (registry,
 * config, index.yaml, index.md, graph, registry-graph), then through the
 * cross-file check; it aborts when a promise of hiivmind.h breaks (safe
 * ids and paths, non-NULL lists, capped warnings, zeroed output on
 * failure).  It must not print or keep state between inputs.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/hiivmind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(bool ok)
{
	if (!ok)
		abort();
}

/* [A-Za-z0-9._-]+, not "." or "..". */
static bool
is_id(const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n == 0 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                 "0123456789._-") == n;
}

/* No leading '/', no backslash, no ".." component. */
static bool
is_relpath(const char *s)
{
	const char *p = s;

	if (s == NULL || s[0] == '\0' || s[0] == '/' || strchr(s, '\\'))
		return false;
	while (p != NULL) {
		if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0'))
			return false;
		p = strchr(p, '/');
		if (p != NULL)
			p++;
	}
	return true;
}

static void
check_list(char **l, size_t cap)
{
	size_t n = 0;

	check(l != NULL);
	while (l[n] != NULL)
		n++;
	check(n <= cap);
}

static void
check_index(const cg_hm_index *ix, int version)
{
	check(ix->version == version && ix->v != NULL);
	check_list(ix->warnings, CG_HM_MAX_WARNINGS);
	for (size_t i = 0; i < ix->n; i++) {
		const cg_hm_entry *e = &ix->v[i];

		check(e->id != NULL && e->title != NULL);
		check(is_id(e->source) && is_relpath(e->path));
		check_list(e->tags, SIZE_MAX);
		check_list(e->keywords, SIZE_MAX);
		check_list(e->concepts, SIZE_MAX);
		check(!e->is_section || (e->parent != NULL && e->anchor));
		check(e->line_start <= e->line_end && e->line_start >= 0);
	}
}

static void
fuzz_registry(const char *t, size_t n)
{
	cg_hm_registry r;

	if (cg_hm_registry_parse(&r, t, n, NULL) != 0) {
		check(r.v == NULL && r.warnings == NULL && r.n == 0);
		return;
	}
	check_list(r.warnings, CG_HM_MAX_WARNINGS);
	for (size_t i = 0; i < r.n; i++) {
		check(is_id(r.v[i].id) && r.v[i].ttl_s >= 0);
		check(r.v[i].type == CG_HM_LOCAL ||
		      (r.v[i].repo != NULL && r.v[i].ref != NULL));
		check(r.v[i].type == CG_HM_GITHUB || r.v[i].path != NULL);
	}
	cg_hm_registry_fini(&r);
}

static void
fuzz_graph(const char *t, size_t n, cg_hm_graph *g)
{
	if (cg_hm_graph_parse(g, t, n, NULL) != 0) {
		check(g->concepts == NULL && g->nconcepts == 0);
		return;
	}
	check_list(g->warnings, CG_HM_MAX_WARNINGS);
	for (size_t i = 0; i < g->nconcepts; i++) {
		check(is_id(g->concepts[i].id));
		check_list(g->concepts[i].tags, SIZE_MAX);
	}
	for (size_t i = 0; i < g->nrels; i++) {
		check(cg_hm_graph_concept(g, g->rels[i].from) != NULL);
		check(cg_hm_graph_concept(g, g->rels[i].to) != NULL);
		check(g->rels[i].type != NULL);
	}
}

static void
fuzz_reggraph(const char *t, size_t n)
{
	cg_hm_reggraph rg;

	if (cg_hm_reggraph_parse(&rg, t, n, NULL) != 0)
		return;
	check_list(rg.warnings, CG_HM_MAX_WARNINGS);
	for (size_t i = 0; i < rg.nbridges; i++)
		check(is_id(rg.bridges[i].from_corpus) &&
		      is_id(rg.bridges[i].from) &&
		      is_id(rg.bridges[i].to_corpus) &&
		      is_id(rg.bridges[i].to));
	for (size_t i = 0; i < rg.naliases; i++) {
		check(rg.aliases[i].ntargets > 0 && rg.aliases[i].term[0]);
		for (size_t k = 0; k < rg.aliases[i].ntargets; k++)
			check(is_id(rg.aliases[i].targets[k].corpus) &&
			      is_id(rg.aliases[i].targets[k].concept));
	}
	cg_hm_reggraph_fini(&rg);
}

static void
fuzz_config(const char *t, size_t n, cg_hm_config *c)
{
	if (cg_hm_config_parse(c, t, n, NULL) != 0) {
		check(c->sources == NULL && c->nsources == 0);
		return;
	}
	check_list(c->warnings, CG_HM_MAX_WARNINGS);
	check_list(c->keywords, SIZE_MAX);
	for (size_t i = 0; i < c->nsources; i++) {
		const cg_hm_source *s = &c->sources[i];

		check(is_id(s->id) && s->type != NULL && s->docs_root);
		check(s->docs_root[0] == '\0' || is_relpath(s->docs_root));
		check(cg_hm_config_source(c, s->id) == s);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	cg_hm_config c;
	cg_hm_graph g;
	cg_hm_index ix;

	fuzz_registry(text, size);
	fuzz_reggraph(text, size);
	fuzz_config(text, size, &c);
	fuzz_graph(text, size, &g);
	if (cg_hm_index_parse_v2(&ix, text, size, NULL) == 0) {
		check_index(&ix, 2);
		cg_hm_check(&ix, &c, &g);
		check_index(&ix, 2);
		cg_hm_index_fini(&ix);
	}
	if (cg_hm_index_parse_v1(&ix, text, size, NULL) == 0) {
		check_index(&ix, 1);
		cg_hm_check(&ix, &c, NULL);
		check_index(&ix, 1);
		cg_hm_index_fini(&ix);
	}
	cg_hm_graph_fini(&g);
	cg_hm_config_fini(&c);
	return 0;
}
