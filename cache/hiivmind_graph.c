/*
 * hiivmind_graph.c - parses a corpus's graph.yaml (concepts and typed
 * relationships between them) and the project's registry-graph.yaml
 * (cross-corpus bridges and query aliases) into the structs of hiivmind.h.
 *
 * Dangling relationships inside one graph are skipped with a warning;
 * whether a bridge's corpora and concepts exist is left to the caller,
 * which knows what is installed.  The jansson tree is walked with loops,
 * never recursion over input structure.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cache/hiivmind.h"
#include "cache/hiivmind_int.h"
#include "common/cg_str.h"

/* --------------------------------------------------------------- graph */

static bool
known_type(const char *t)
{
	static const char *const types[] = {"includes",      "extends",
	                                    "depends-on",    "see-also",
	                                    "contrast-with", NULL};

	for (size_t i = 0; types[i] != NULL; i++)
		if (strcmp(t, types[i]) == 0)
			return true;
	return false;
}

static void
link_free(cg_hm_link *l)
{
	free(l->from_corpus);
	free(l->from);
	free(l->to_corpus);
	free(l->to);
	free(l->type);
	free(l->note);
}

/* type and note of a relationship or bridge; false (warned) when there
 * is no type. */
static bool
link_type(struct cg_hmi *h, cg_hm_link *l, const json_t *it, const char *where)
{
	const char *type = cg_hmi_str(it, "type");
	char q[CG_HMI_QMAX];

	if (type == NULL || type[0] == '\0') {
		cg_hmi_warn(h, "%s: no type; skipped", where);
		return false;
	}
	if (!known_type(type))
		cg_hmi_warn(h, "%s: unknown type \"%s\"; kept", where,
		            cg_hmi_q(q, type));
	l->type = cg_hmi_dup(h, type);
	l->note = cg_hmi_opt(h, it, "note");
	return true;
}

/* One concept (key of the concepts mapping, or id of a list item). */
static void
graph_concept(struct cg_hmi *h, cg_hm_graph *g, const char *id, size_t n,
              const json_t *v)
{
	cg_hm_concept *c = &g->concepts[g->nconcepts];
	char q[CG_HMI_QMAX];

	if (id == NULL || !cg_hmi_safe_id(id, n) || strlen(id) != n) {
		cg_hmi_warn(h,
		            "concepts: id \"%s\" is not [A-Za-z0-9._-]+; "
		            "skipped",
		            cg_hmi_q(q, id != NULL ? id : "(none)"));
		return;
	}
	if (cg_hmi_seen(h, id) || (!json_is_object(v) && !json_is_null(v))) {
		cg_hmi_warn(
		    h, "concepts: \"%s\" is %s; skipped", cg_hmi_q(q, id),
		    json_is_object(v) || json_is_null(v) ? "a duplicate"
		                                         : "not a mapping");
		return;
	}
	c->id = cg_hmi_dup(h, id);
	c->label = cg_hmi_opt(h, v, "label");
	c->description = cg_hmi_opt(h, v, "description");
	c->tags = cg_hmi_strlist(h, json_object_get(v, "tags"));
	cg_hmi_mark(h, id);
	g->nconcepts++;
}

static void
graph_concepts(struct cg_hmi *h, cg_hm_graph *g, json_t *m)
{
	size_t n = json_is_object(m) ? json_object_size(m) : json_array_size(m);
	const char *key;
	size_t klen;
	json_t *v;

	if (m != NULL && !json_is_null(m) && !json_is_object(m) &&
	    !json_is_array(m))
		cg_hmi_warn(h, "concepts: not a mapping; ignored");
	g->concepts = calloc(n > 0 ? n : 1, sizeof(*g->concepts));
	if (g->concepts == NULL) {
		cg_hmi_nomem(h);
		return;
	}
	/* The schema is a mapping; a list of items with `id` is tolerated. */
	if (json_is_array(m)) {
		for (size_t i = 0; h->rc == 0 && i < n; i++) {
			v = json_array_get(m, i);
			key = cg_hmi_str(v, "id");
			graph_concept(h, g, key, key ? strlen(key) : 0, v);
		}
		return;
	}
	json_object_keylen_foreach(m, key, klen, v) {
		if (h->rc != 0)
			break;
		graph_concept(h, g, key, klen, v);
	}
}

static void
graph_rel(struct cg_hmi *h, cg_hm_graph *g, size_t i, const json_t *it)
{
	const char *from = cg_hmi_str(it, "from");
	const char *to = cg_hmi_str(it, "to");
	char where[CG_HMI_WHERE + CG_HMI_QMAX];
	char q1[CG_HMI_QMAX];
	char q2[CG_HMI_QMAX];
	cg_hm_link l;

	if (from == NULL || to == NULL) {
		cg_hmi_warn(h, "relationships[%zu]: no from or to; skipped", i);
		return;
	}
	(void)snprintf(where, sizeof(where), "relationships[%zu] (%s -> %s)", i,
	               cg_hmi_q(q1, from), cg_hmi_q(q2, to));
	if (!cg_hmi_seen(h, from) || !cg_hmi_seen(h, to)) {
		cg_hmi_warn(h,
		            "%s: \"%s\" is not a concept of this graph; "
		            "skipped",
		            where, cg_hmi_seen(h, from) ? q2 : q1);
		return;
	}
	memset(&l, 0, sizeof(l));
	if (link_type(h, &l, it, where)) {
		l.from = cg_hmi_dup(h, from);
		l.to = cg_hmi_dup(h, to);
		if (h->rc == 0) {
			g->rels[g->nrels++] = l;
			return;
		}
	}
	link_free(&l);
}

int
cg_hm_graph_parse(cg_hm_graph *out, const char *text, size_t len, cg_err *err)
{
	struct cg_hmi h;
	json_t *root;
	const json_t *list;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cg_hmi_load("graph.yaml", text, len, &root, err);
	if (rc != 0)
		return rc;
	cg_hmi_init(&h, err);
	graph_concepts(&h, out, json_object_get(root, "concepts"));
	list = json_object_get(root, "relationships");
	if (h.rc == 0)
		out->rels = cg_hmi_alloc_items(&h, list, "relationships",
		                               sizeof(*out->rels));
	for (size_t i = 0; h.rc == 0 && i < json_array_size(list); i++)
		graph_rel(&h, out, i, json_array_get(list, i));
	rc = cg_hmi_finish(&h, root, &out->warnings);
	if (rc != 0)
		cg_hm_graph_fini(out);
	return rc;
}

void
cg_hm_graph_fini(cg_hm_graph *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->nconcepts; i++) {
		free(g->concepts[i].id);
		free(g->concepts[i].label);
		free(g->concepts[i].description);
		cg_strv_free(g->concepts[i].tags);
	}
	free(g->concepts);
	for (size_t i = 0; i < g->nrels; i++)
		link_free(&g->rels[i]);
	free(g->rels);
	cg_strv_free(g->warnings);
	memset(g, 0, sizeof(*g));
}

const cg_hm_concept *
cg_hm_graph_concept(const cg_hm_graph *g, const char *id)
{
	if (g == NULL || id == NULL)
		return NULL;
	for (size_t i = 0; i < g->nconcepts; i++)
		if (strcmp(g->concepts[i].id, id) == 0)
			return &g->concepts[i];
	return NULL;
}

/* ------------------------------------------------------- registry graph */

/* Splits "corpus:concept" (both ids) into two copies; false if it is not
 * of that shape. */
static bool
split_ref(struct cg_hmi *h, const char *s, char **corpus, char **concept)
{
	const char *colon = s != NULL ? strchr(s, ':') : NULL;
	size_t n;

	if (colon == NULL)
		return false;
	n = (size_t)(colon - s);
	if (!cg_hmi_safe_id(s, n) ||
	    !cg_hmi_safe_id(colon + 1, strlen(colon + 1)))
		return false;
	*corpus = cg_hmi_dupn(h, s, n);
	*concept = cg_hmi_dup(h, colon + 1);
	return true;
}

static void
bridge(struct cg_hmi *h, cg_hm_reggraph *rg, size_t i, const json_t *it)
{
	const char *a = cg_hmi_str(it, "concept_a");
	const char *b = cg_hmi_str(it, "concept_b");
	char where[CG_HMI_WHERE];
	char q[CG_HMI_QMAX];
	cg_hm_link l;

	memset(&l, 0, sizeof(l));
	(void)snprintf(where, sizeof(where), "bridges[%zu]", i);
	if (!split_ref(h, a, &l.from_corpus, &l.from) ||
	    !split_ref(h, b, &l.to_corpus, &l.to)) {
		cg_hmi_warn(h,
		            "%s: concept_%c \"%s\" is not corpus:concept; "
		            "skipped",
		            where, l.from == NULL ? 'a' : 'b',
		            cg_hmi_q(q, l.from == NULL ? a : b));
		link_free(&l);
		return;
	}
	if (!link_type(h, &l, it, where) || h->rc != 0) {
		link_free(&l);
		return;
	}
	rg->bridges[rg->nbridges++] = l;
}

/* One alias target: {corpus, concept} or "corpus:concept". */
static bool
alias_target(struct cg_hmi *h, cg_hm_target *t, const json_t *v)
{
	const char *corpus = cg_hmi_str(v, "corpus");
	const char *concept = cg_hmi_str(v, "concept");

	if (json_is_string(v))
		return split_ref(h, cg_hmi_text(v), &t->corpus, &t->concept);
	if (corpus == NULL || concept == NULL ||
	    !cg_hmi_safe_id(corpus, strlen(corpus)) ||
	    !cg_hmi_safe_id(concept, strlen(concept)))
		return false;
	t->corpus = cg_hmi_dup(h, corpus);
	t->concept = cg_hmi_dup(h, concept);
	return true;
}

static void
alias_free(cg_hm_alias *a)
{
	free(a->term);
	for (size_t i = 0; i < a->ntargets; i++) {
		free(a->targets[i].corpus);
		free(a->targets[i].concept);
	}
	free(a->targets);
}

static void
alias(struct cg_hmi *h, cg_hm_reggraph *rg, const char *term, size_t tlen,
      const json_t *v)
{
	size_t n = json_is_array(v) ? json_array_size(v) : 1;
	cg_hm_alias a;
	char q[CG_HMI_QMAX];

	if (tlen == 0 || strlen(term) != tlen) {
		cg_hmi_warn(h, "aliases: empty term or a NUL byte; skipped");
		return;
	}
	memset(&a, 0, sizeof(a));
	a.term = cg_hmi_dupn(h, term, tlen);
	a.targets = calloc(n > 0 ? n : 1, sizeof(*a.targets));
	if (a.targets == NULL) {
		(void)cg_hmi_nomem(h);
		free(a.term);
		return;
	}
	for (size_t i = 0; h->rc == 0 && i < n; i++) {
		const json_t *it = json_is_array(v) ? json_array_get(v, i) : v;

		if (alias_target(h, &a.targets[a.ntargets], it))
			a.ntargets++;
		else
			cg_hmi_warn(h,
			            "aliases[\"%s\"][%zu]: not a corpus and "
			            "concept; skipped",
			            cg_hmi_q(q, term), i);
	}
	if (a.ntargets == 0 || h->rc != 0) {
		if (h->rc == 0)
			cg_hmi_warn(h, "aliases[\"%s\"]: no target; skipped",
			            cg_hmi_q(q, term));
		alias_free(&a);
		return;
	}
	rg->aliases[rg->naliases++] = a;
}

static void
aliases(struct cg_hmi *h, cg_hm_reggraph *rg, json_t *m)
{
	const char *term;
	size_t tlen;
	json_t *v;

	if (m != NULL && !json_is_null(m) && !json_is_object(m))
		cg_hmi_warn(h, "aliases: not a mapping; ignored");
	rg->aliases = calloc(json_object_size(m) + 1, sizeof(*rg->aliases));
	if (rg->aliases == NULL) {
		cg_hmi_nomem(h);
		return;
	}
	json_object_keylen_foreach(m, term, tlen, v) {
		if (h->rc != 0)
			break;
		alias(h, rg, term, tlen, v);
	}
}

int
cg_hm_reggraph_parse(cg_hm_reggraph *out, const char *text, size_t len,
                     cg_err *err)
{
	struct cg_hmi h;
	json_t *root;
	const json_t *list;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cg_hmi_load("registry-graph.yaml", text, len, &root, err);
	if (rc != 0)
		return rc;
	cg_hmi_init(&h, err);
	list = json_object_get(root, "bridges");
	out->bridges =
	    cg_hmi_alloc_items(&h, list, "bridges", sizeof(*out->bridges));
	for (size_t i = 0; h.rc == 0 && i < json_array_size(list); i++)
		bridge(&h, out, i, json_array_get(list, i));
	if (h.rc == 0)
		aliases(&h, out, json_object_get(root, "aliases"));
	rc = cg_hmi_finish(&h, root, &out->warnings);
	if (rc != 0)
		cg_hm_reggraph_fini(out);
	return rc;
}

void
cg_hm_reggraph_fini(cg_hm_reggraph *rg)
{
	if (rg == NULL)
		return;
	for (size_t i = 0; i < rg->nbridges; i++)
		link_free(&rg->bridges[i]);
	free(rg->bridges);
	for (size_t i = 0; i < rg->naliases; i++)
		alias_free(&rg->aliases[i]);
	free(rg->aliases);
	cg_strv_free(rg->warnings);
	memset(rg, 0, sizeof(*rg));
}
