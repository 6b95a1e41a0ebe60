/*
 * ops_corpus.c - the node side of what only corpus sources have (see
 * ops.h): the entries of a concept (for bridges and aliases, SPEC 4.3),
 * and the registry-graph of the repositories that registered them, kept in
 * the node's memo until one of its files changes.  Their hits' facts and
 * freshness are index/corpus_hits.h.
 *
 * What it must not do: fetch (cache/ does), parse the wire format, or
 * show an entry the caller may not see.
 */

#include <sys/stat.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/corpus.h"
#include "common/cg_fs.h"
#include "node/ops.h"
#include "page/corpus_scan.h"
#include "proto/acl.h"

/* --- op concept ------------------------------------------------------- */

static const char *const concept_sql =
    "SELECT path, title, json_extract(fm, '$.corpus.summary') FROM pages "
    "WHERE cg_visible(path) AND EXISTS (SELECT 1 FROM "
    "json_each(pages.fm, '$.corpus.concepts') j WHERE j.value = ?1) "
    "ORDER BY path LIMIT ?2";

static int
concept_entries(cg_index *idx, const char *concept, int limit, json_t *out,
                cg_err *err)
{
	sqlite3_stmt *st;
	int rc = cg_node_ready(idx, err);

	if (rc != 0)
		return rc;
	st = cg_index_stmt(idx, concept_sql);
	if (st == NULL)
		return cg_index_query_fail(
		    idx, sqlite3_errcode(cg_index_db(idx)), "concept", err);
	sqlite3_bind_text(st, 1, concept, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, limit);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *sum = (const char *)sqlite3_column_text(st, 2);

		json_array_append_new(
		    out,
		    json_pack("{s:s, s:s, s:s, s:s, s:s?, s:s?}", "corpus",
		              cg_index_source(idx), "concept", concept,
		              "source", cg_index_source(idx), "path",
		              (const char *)sqlite3_column_text(st, 0), "title",
		              (const char *)sqlite3_column_text(st, 1),
		              "summary", sum));
	}
	sqlite3_reset(st);
	return 0;
}

int
cg_op_concept(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	const json_t *targets = json_object_get(args, "targets");
	const json_t *lim = json_object_get(args, "limit");
	json_t *out = json_array();
	const json_t *t;
	int limit = json_is_integer(lim) ? (int)json_integer_value(lim) : 3;
	size_t i;
	int rc = 0;

	if (!json_is_array(targets) || limit < 1 || limit > 20) {
		json_decref(out);
		return cg_err_set(err, CG_EINVAL,
		                  "concept: targets must be a list of "
		                  "{corpus, concept}, limit 1-20");
	}
	json_array_foreach(targets, i, t) {
		const char *c = json_string_value(json_object_get(t, "corpus"));
		const char *k =
		    json_string_value(json_object_get(t, "concept"));
		cg_index *idx = c ? cg_node_find(n, c) : NULL;

		if (idx == NULL || k == NULL ||
		    cg_index_kind(idx) == CG_SRC_WIKI ||
		    !cg_node_in_scope(args, c))
			continue;
		rc = concept_entries(idx, k, limit, out, err);
		if (rc != 0)
			break;
	}
	json_object_set_new(res, "entries", out);
	return rc;
}

/* --- op corpus_graph ------------------------------------------------- */

/* True when term occurs in q as whole words (ASCII case folded). */
static bool
mentions(const char *q, const char *term)
{
	size_t tn = strlen(term);

	if (tn == 0)
		return false;
	for (const char *p = q; *p; p++) {
		if (strncasecmp(p, term, tn) != 0)
			continue;
		if ((p == q || !isalnum((unsigned char)p[-1])) &&
		    !isalnum((unsigned char)p[tn]))
			return true;
	}
	return false;
}

static json_t *
end_name(const char *corpus, const char *concept)
{
	size_t len = strlen(corpus) + strlen(concept) + 2;
	char *s = malloc(len);
	json_t *j;

	if (s == NULL)
		return NULL;
	(void)snprintf(s, len, "%s:%s", corpus, concept);
	j = json_string(s);
	free(s);
	return j;
}

static bool
holds_corpus(cg_node *n, const char *id)
{
	cg_index *idx = cg_node_find(n, id);

	return idx != NULL && cg_index_kind(idx) != CG_SRC_WIKI;
}

static bool
registered(const cg_hm_registry *reg, const char *id)
{
	for (size_t i = 0; id != NULL && i < reg->n; i++)
		if (strcmp(reg->v[i].id, id) == 0)
			return true;
	return false;
}

/* A bridge touching this node's corpora whose ends are both registered;
 * a dangling one is reported in warnings. */
static void
add_bridge(cg_node *n, const cg_hm_registry *reg, const cg_hm_link *b,
           json_t *br, json_t *wa)
{
	char msg[512];

	if (!holds_corpus(n, b->from_corpus) && !holds_corpus(n, b->to_corpus))
		return;
	if (!registered(reg, b->from_corpus) ||
	    !registered(reg, b->to_corpus)) {
		(void)snprintf(msg, sizeof(msg),
		               "bridge %s:%s -> %s:%s names a corpus that is "
		               "not registered; skipped",
		               b->from_corpus, b->from, b->to_corpus, b->to);
		json_array_append_new(wa, json_string(msg));
		return;
	}
	json_array_append_new(
	    br, json_pack("{s:o, s:o, s:s, s:s?}", "from",
	                  end_name(b->from_corpus, b->from), "to",
	                  end_name(b->to_corpus, b->to), "type",
	                  b->type ? b->type : "see-also", "note", b->note));
}

/* The aliases and bridges of one registry-graph. */
static void
graph_of_registrar(cg_node *n, const char *repo, json_t *res)
{
	char *path = cg_corpus_reggraph_path(repo);
	char *text = NULL;
	size_t len = 0;
	cg_hm_reggraph rg;
	cg_hm_registry reg;
	json_t *al = json_object_get(res, "aliases");
	json_t *br = json_object_get(res, "bridges");
	json_t *wa = json_object_get(res, "warnings");

	if (path == NULL ||
	    cg_file_read(path, CG_HM_MAX_BYTES, &text, &len, NULL) != 0 ||
	    cg_hm_reggraph_parse(&rg, text, len, NULL) != 0) {
		free(path);
		free(text);
		return;
	}
	for (size_t i = 0; i < rg.naliases; i++) {
		const cg_hm_alias *a = &rg.aliases[i];

		for (size_t k = 0; k < a->ntargets; k++)
			json_array_append_new(
			    al, json_pack("{s:s, s:s, s:s}", "alias", a->term,
			                  "corpus", a->targets[k].corpus,
			                  "concept", a->targets[k].concept));
	}
	if (cg_corpus_registry_load(&reg, repo, NULL) == 0) {
		for (size_t i = 0; i < rg.nbridges; i++)
			add_bridge(n, &reg, &rg.bridges[i], br, wa);
		cg_hm_registry_fini(&reg);
	}
	for (size_t i = 0; rg.warnings[i] != NULL; i++)
		json_array_append_new(wa, json_string(rg.warnings[i]));
	cg_hm_reggraph_fini(&rg);
	free(text);
	free(path);
}

/* graph.yaml relationships of one corpus, as "corpus:concept" pairs. */
static void
graph_of_corpus(cg_index *idx, json_t *rels)
{
	char *path = cg_path_join(cg_index_repo(idx), "graph.yaml");
	const char *id = cg_index_source(idx);
	char *text = NULL;
	size_t len = 0;
	cg_hm_graph g;

	if (path == NULL ||
	    cg_file_read(path, CG_HM_MAX_BYTES, &text, &len, NULL) != 0 ||
	    cg_hm_graph_parse(&g, text, len, NULL) != 0) {
		free(path);
		free(text);
		return;
	}
	for (size_t i = 0; i < g.nrels; i++)
		json_array_append_new(
		    rels,
		    json_pack("{s:o, s:o, s:s}", "from",
		              end_name(id, g.rels[i].from), "to",
		              end_name(id, g.rels[i].to), "type",
		              g.rels[i].type ? g.rels[i].type : "see-also"));
	cg_hm_graph_fini(&g);
	free(text);
	free(path);
}

/* The files the graph is read from, folded into one signature: their
 * mtime, size and inode (a stat each, instead of parsing them all on
 * every query). */
static void
sig_add(uint64_t *sig, const char *path)
{
	struct stat st;
	int64_t v[4] = {0, 0, 0, 0};

	if (path != NULL && stat(path, &st) == 0) {
		v[0] = (int64_t)st.st_mtim.tv_sec;
		v[1] = (int64_t)st.st_mtim.tv_nsec;
		v[2] = (int64_t)st.st_size;
		v[3] = (int64_t)st.st_ino;
	}
	*sig = *sig * 1099511628211ULL ^ cg_hash64(v, sizeof(v));
}

static uint64_t
graph_sig(cg_node *n)
{
	uint64_t sig = 14695981039346656037ULL;

	for (size_t i = 0; i < cg_node_nsources(n); i++) {
		cg_index *idx = cg_node_index(n, i);
		const char *reg = cg_index_registrar(idx);
		char *p;

		if (cg_index_kind(idx) == CG_SRC_WIKI || reg == NULL)
			continue;
		p = cg_path_join(cg_index_repo(idx), "graph.yaml");
		sig_add(&sig, p);
		free(p);
		p = cg_corpus_reggraph_path(reg);
		sig_add(&sig, p);
		free(p);
		p = cg_corpus_registry_path(reg);
		sig_add(&sig, p);
		free(p);
	}
	return sig;
}

/* Every alias, bridge and relationship of the node's corpora. */
static json_t *
build_graph(cg_node *n)
{
	json_t *g = json_pack("{s:[], s:[], s:[], s:[]}", "aliases", "bridges",
	                      "warnings", "relationships");
	json_t *seen = json_object();

	for (size_t i = 0; g != NULL && i < cg_node_nsources(n); i++) {
		cg_index *idx = cg_node_index(n, i);
		const char *reg = cg_index_registrar(idx);

		if (cg_index_kind(idx) == CG_SRC_WIKI || reg == NULL)
			continue;
		graph_of_corpus(idx, json_object_get(g, "relationships"));
		if (json_object_get(seen, reg) != NULL)
			continue;
		json_object_set_new(seen, reg, json_true());
		graph_of_registrar(n, reg, g);
	}
	json_decref(seen);
	return g;
}

int
cg_op_corpus_graph(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	const char *q = json_string_value(json_object_get(args, "q"));
	uint64_t sig = graph_sig(n);
	json_t *g = cg_node_memo(n, sig);
	json_t *al = json_array();
	const json_t *a;
	size_t i;

	if (g == NULL) {
		g = build_graph(n);
		if (g == NULL) {
			json_decref(al);
			return cg_err_set(err, CG_ENOMEM, "out of memory");
		}
		cg_node_memo_set(n, sig, g);
	}
	json_array_foreach(json_object_get(g, "aliases"), i, a) {
		const char *term =
		    json_string_value(json_object_get(a, "alias"));

		if (q == NULL || (term != NULL && mentions(q, term)))
			json_array_append(al, (json_t *)a);
	}
	json_object_set_new(res, "aliases", al);
	json_object_set(res, "bridges", json_object_get(g, "bridges"));
	json_object_set(res, "relationships",
	                json_object_get(g, "relationships"));
	json_object_set(res, "warnings", json_object_get(g, "warnings"));
	return 0;
}
