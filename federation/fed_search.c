/*
 * fed_search.c - the search over the nodes in scope (see fed_search.h):
 * an optional sync round, the stats round (global term statistics), the
 * search round (each source's own top hits scored with them), aliases
 * and bridges (fed_corpus.c), the merge (merge.c), the claims round and
 * the contradiction rule (conflict.c), then the receipt (evidence,
 * assumptions, followups).  It must not drop a conflicting page, let one
 * source's size crowd another out, or wait again on a node that failed
 * an earlier round of the same query.
 */
#include "federation/fed_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_json.h"
#include "federation/conflict.h"
#include "federation/fed_corpus.h"
#include "federation/fed_int.h"
#include "federation/merge.h"
#include "page/query.h"
#include "proto/stats.h"

#define FED_DEFAULT_LIMIT 20
#define FED_MAX_LIMIT     500

struct search_ctx {
	cg_fed *f;
	const cg_search_req *req;
	cg_query q;
	int limit;
	json_t **scope;   /* per node */
	json_t *nodes;    /* evidence: per-node outcome */
	json_t *answered; /* sources that answered */
	json_t *asked;    /* sources asked */
	json_t *followups;
	json_t *per_source;
	json_t *synced; /* per source: what the sync round did */
	bool no_terms;  /* text without a searchable word, no filter */
	int64_t walked;
	bool corpora;   /* a node holds a corpus in scope */
	json_t *rounds; /* evidence: [{op, ms, slowest_node_ms}] */
};

/* Times of a round: its wall time, and each node's own handling time
 * (the reply's "ms", summed per node over the rounds), so the fan-out's
 * cost (wall time minus the slowest node) is in the evidence. */
static void
account(struct search_ctx *c, const struct cg_fed_round *r, const char *op)
{
	double slowest = 0;

	for (size_t i = 0; i < r->n; i++) {
		json_t *n = json_object_get(c->nodes, c->f->nodes[i].name);
		double ms =
		    json_number_value(json_object_get(r->replies[i], "ms"));

		if (r->replies[i] == NULL || n == NULL)
			continue;
		if (ms > slowest)
			slowest = ms;
		json_object_set_new(
		    n, "ms",
		    json_real(json_number_value(json_object_get(n, "ms")) +
		              ms));
	}
	json_array_append_new(c->rounds,
	                      json_pack("{s:s, s:f, s:f}", "op", op, "ms",
	                                r->ms, "slowest_node_ms", slowest));
}

static void
note_outcome(struct search_ctx *c, size_t i, int code, const char *msg)
{
	json_t *n = json_object_get(c->nodes, c->f->nodes[i].name);

	if (n == NULL || code == 0)
		return;
	json_object_set_new(n, "outcome", json_string(msg));
}

/* Records why node i failed a round and drops it from the scope of the
 * later rounds: waiting on it again would cost another deadline per round
 * (a stopped node), and a node missing from the global statistics must
 * not add hits scored without it.  It is reported once, with this reason. */
static void
retire(struct search_ctx *c, size_t i, int code, const char *msg)
{
	if (code == 0)
		return;
	note_outcome(c, i, code, msg);
	json_decref(c->scope[i]);
	c->scope[i] = NULL;
}

/* The result of node i in a query round (stats, search), or NULL in
 * *res: a node's invalid_input fails the query with its words; any other
 * failure retires the node. */
static int
query_result(struct search_ctx *c, const struct cg_fed_round *r, size_t i,
             const json_t **res, cg_err *err)
{
	int code;
	const char *msg;

	*res = cg_fed_round_result(r, i, &code, &msg);
	if (code == CG_EINVAL)
		return cg_err_set(err, CG_EINVAL, "%s", msg);
	retire(c, i, code, msg);
	return 0;
}

static int
stats_round(struct search_ctx *c, cg_gstats *g, cg_err *err)
{
	struct cg_fed_round r = {0};
	json_t *args = json_pack("{s:s}", "q", c->req->text);
	int rc = cg_fed_round_run(c->f, &r, "stats", args, c->scope, err);

	memset(g, 0, sizeof(*g));
	g->nterms = c->q.n;
	for (size_t i = 0; rc == 0 && i < r.n; i++) {
		const json_t *res;
		cg_gstats s;

		rc = query_result(c, &r, i, &res, err);
		if (rc == 0 && res != NULL &&
		    cg_gstats_from_json(&s, json_object_get(res, "stats"),
		                        c->q.n) == 0)
			cg_gstats_add(g, &s);
	}
	if (rc == 0)
		account(c, &r, "stats");
	json_decref(args);
	cg_fed_round_fini(&r);
	return rc;
}

static void
take_search_result(struct search_ctx *c, size_t node, const json_t *res,
                   json_t *hits)
{
	const json_t *per = json_object_get(res, "per_source");
	const char *key;
	json_t *v;
	size_t k;
	json_t *h;

	json_array_foreach(json_object_get(res, "hits"), k, h) {
		cg_fed_tag(h, c->f->nodes[node].workspace);
		json_array_append(hits, h);
	}
	if (json_is_true(json_object_get(res, "corpora")))
		c->corpora = true;
	json_array_foreach(json_object_get(res, "followups"), k, h) {
		if (json_is_string(json_object_get(h, "path")) &&
		    json_is_string(json_object_get(h, "source")))
			cg_fed_tag(h, c->f->nodes[node].workspace);
		json_array_append(c->followups, h);
	}
	json_object_foreach((json_t *)per, key, v) {
		json_object_set(c->per_source, key, v);
		json_array_append_new(c->answered, json_string(key));
		c->walked +=
		    json_integer_value(json_object_get(v, "candidates"));
	}
}

static int
search_round(struct search_ctx *c, const cg_gstats *g, json_t *hits,
             cg_err *err)
{
	struct cg_fed_round r = {0};
	json_t *args = json_pack("{s:s, s:o, s:i, s:b}", "q", c->req->text,
	                         "filters", cg_filters_json(&c->req->filters),
	                         "limit", c->limit, "explain", c->req->explain);
	int rc;

	if (c->q.n > 0)
		json_object_set_new(args, "stats", cg_gstats_json(g));
	rc = cg_fed_round_run(c->f, &r, "search", args, c->scope, err);
	for (size_t i = 0; rc == 0 && i < r.n; i++) {
		const json_t *res;

		rc = query_result(c, &r, i, &res, err);
		if (rc == 0 && res != NULL)
			take_search_result(c, i, res, hits);
	}
	if (rc == 0)
		account(c, &r, "search");
	json_decref(args);
	cg_fed_round_fini(&r);
	return rc;
}

static void
fed_search_fini(struct search_ctx *c)
{
	for (size_t i = 0; c->scope != NULL && i < c->f->nnodes; i++)
		json_decref(c->scope[i]);
	free(c->scope);
	cg_query_fini(&c->q);
	json_decref(c->nodes);
	json_decref(c->rounds);
	json_decref(c->answered);
	json_decref(c->asked);
	json_decref(c->followups);
	json_decref(c->per_source);
	json_decref(c->synced);
}

static int
fed_search_prepare(struct search_ctx *c, cg_err *err)
{
	const cg_search_req *r = c->req;
	int rc;

	c->nodes = json_object();
	c->rounds = json_array();
	c->answered = json_array();
	c->asked = json_array();
	c->followups = json_array();
	c->per_source = json_object();
	c->synced = json_object();
	c->scope = calloc(c->f->nnodes ? c->f->nnodes : 1, sizeof(json_t *));
	if (c->scope == NULL)
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	if (c->f->nnodes == 0)
		return cg_err_set(err, CG_ENOPROV,
		                  "nothing provisioned to search: no wiki "
		                  "found (expected .guild/wiki/ in the "
		                  "workspace or its sub-guilds)");
	rc = cg_filters_validate(&r->filters, err);
	if (rc != 0)
		return rc;
	if (r->limit < 0 || r->limit > FED_MAX_LIMIT)
		return cg_err_set(err, CG_EINVAL,
		                  "invalid limit %d (valid: 1-%d)", r->limit,
		                  FED_MAX_LIMIT);
	c->limit = r->limit ? r->limit : FED_DEFAULT_LIMIT;
	rc = cg_query_parse(&c->q, r->text ? r->text : "", err);
	if (rc != 0)
		return rc;
	c->no_terms = c->q.n == 0 && !cg_filters_any(&r->filters);
	if (c->no_terms && (r->text == NULL || *r->text == '\0'))
		return cg_err_set(err, CG_EINVAL,
		                  "empty query: give search text, or a "
		                  "filter (category, owner, confidence, "
		                  "updated_since, tag)");
	rc = cg_fed_scope(c->f, r->sources, r->nsources, c->scope, err);
	for (size_t i = 0; rc == 0 && i < c->f->nnodes; i++) {
		if (c->scope[i] == NULL)
			continue;
		json_array_extend(c->asked, c->scope[i]);
		json_object_set_new(c->nodes, c->f->nodes[i].name,
		                    json_pack("{s:O, s:s}", "sources",
		                              c->scope[i], "outcome", "ok"));
	}
	return rc;
}

/* Asks the nodes in scope to catch up with their files first. */
static int
fed_sync_scope(struct search_ctx *c, cg_err *err)
{
	struct cg_fed_round r = {0};
	json_t *args = json_object();
	int rc = cg_fed_round_run(c->f, &r, "sync", args, c->scope, err);

	for (size_t i = 0; rc == 0 && i < r.n; i++) {
		int code;
		const char *msg;

		const json_t *res = cg_fed_round_result(&r, i, &code, &msg);

		/* A node that could not sync still serves its last index;
		 * one that did not answer is retired. */
		if (r.replies[i] == NULL)
			retire(c, i, code, msg);
		else
			note_outcome(c, i, code, msg);
		if (res != NULL)
			json_object_update(c->synced,
			                   json_object_get(res, "sources"));
	}
	json_decref(args);
	cg_fed_round_fini(&r);
	return rc;
}

/* Every page (in scope) sharing a claim key with a hit, tagged. */
static json_t *
claims_round(struct search_ctx *c, const json_t *hits)
{
	json_t *keys = json_array();
	json_t *pages = json_array();
	struct cg_fed_round r = {0};
	json_t *args;
	size_t i;
	const json_t *h;

	json_array_foreach(hits, i, h)
		if (json_is_string(json_object_get(h, "claim_key")))
			json_array_append(keys,
			                  json_object_get(h, "claim_key"));
	if (json_array_size(keys) == 0) {
		json_decref(keys);
		return pages;
	}
	args = json_pack("{s:o}", "keys", keys);
	if (cg_fed_round_run(c->f, &r, "claims", args, c->scope, NULL) == 0) {
		for (i = 0; i < r.n; i++) {
			int code;
			const char *msg;
			const json_t *res =
			    cg_fed_round_result(&r, i, &code, &msg);
			size_t k;
			json_t *p;

			retire(c, i, code, msg);
			json_array_foreach(json_object_get(res, "pages"), k,
			                   p) {
				cg_fed_tag(p, c->f->nodes[i].workspace);
				json_array_append(pages, p);
			}
		}
		account(c, &r, "claims");
	}
	json_decref(args);
	cg_fed_round_fini(&r);
	return pages;
}

static void
conflict_followups(json_t *fu, const json_t *conflicts)
{
	size_t i;
	const json_t *cf;

	json_array_foreach(conflicts, i, cf) {
		char msg[1024];

		(void)snprintf(msg, sizeof(msg),
		               "%zu pages disagree on '%s'; winner %s (%s). "
		               "Run a wiki lint pass to reconcile them.",
		               json_array_size(json_object_get(cf, "pages")),
		               cg_json_str(cf, "title"),
		               cg_json_str(cf, "winner"),
		               cg_json_str(cf, "resolution"));
		cg_fed_followup(fu, "conflict", cg_json_str(cf, "winner"), msg);
	}
}

/* Hit fields that are internal to the merge. */
static void
clean_hits(json_t *hits)
{
	size_t i;
	json_t *h;

	json_array_foreach(hits, i, h) {
		json_object_del(h, "match_rank");
		json_object_del(h, "body_hash");
	}
}

static json_t *
assumptions(const struct search_ctx *c)
{
	json_t *a = json_array();

	json_array_append_new(
	    a, json_string(
	           "case-insensitive and diacritic-insensitive word match"));
	json_array_append_new(
	    a, json_string(
	           "CJK text matched as character sequences (any substring)"));
	json_array_append_new(
	    a, json_string(
	           "no stemming and no prefix match: the index is lexical"));
	if (c->req->limit == 0)
		json_array_append_new(a, json_string("limit defaulted to 20"));
	if (c->req->nsources == 0)
		json_array_append_new(
		    a, json_string(
		           "scope defaulted to every source of the workspace"));
	if (c->q.truncated)
		json_array_append_new(
		    a, json_string("query cut to its first 32 terms"));
	return a;
}

static json_t *
evidence(const struct search_ctx *c, size_t nhits)
{
	json_t *terms = json_array();
	json_t *nodes = json_array();
	const char *key;
	json_t *v;
	int degraded = 0;

	for (size_t i = 0; i < c->q.n; i++)
		json_array_append_new(terms, json_string(c->q.terms[i].text));
	json_object_foreach(c->nodes, key, v) {
		json_t *n = json_deep_copy(v);

		json_object_set_new(n, "node", json_string(key));
		degraded |= strcmp(cg_json_str(v, "outcome"), "ok") != 0;
		json_array_append_new(nodes, n);
	}
	return json_pack("{s:s, s:o, s:o, s:I, s:I, s:O, s:O, s:O, s:o, s:b, "
	                 "s:O}",
	                 "query", c->req->text ? c->req->text : "", "terms",
	                 terms, "filters", json_object(), "candidates_walked",
	                 (json_int_t)c->walked, "hits_returned",
	                 (json_int_t)nhits, "per_source", c->per_source,
	                 "sources_asked", c->asked, "sources_answered",
	                 c->answered, "nodes", nodes, "degraded", degraded,
	                 "rounds", c->rounds);
}

static json_t *
fed_answer(struct search_ctx *c, json_t *hits, cg_err *err)
{
	json_t *claims = claims_round(c, hits);
	json_t *conflicts = cg_conflicts_find(claims);
	json_t *ev = evidence(c, json_array_size(hits));
	json_t *ans;

	json_object_set_new(ev, "filters", cg_filters_json(&c->req->filters));
	if (c->req->sync)
		json_object_set(ev, "index", c->synced);
	conflict_followups(c->followups, conflicts);
	clean_hits(hits);
	ans = json_pack("{s:s, s:o, s:i, s:O, s:o, s:o, s:o, s:O, s:[]}",
	                "query", c->req->text ? c->req->text : "", "filters",
	                cg_filters_json(&c->req->filters), "limit", c->limit,
	                "hits", hits, "conflicts", conflicts, "evidence", ev,
	                "assumptions", assumptions(c), "followups",
	                c->followups, "changed_files");
	if (ans != NULL && c->no_terms)
		json_object_set_new(
		    ans, "note",
		    json_string("The query has no searchable word (only "
		                "punctuation or operators), so nothing was "
		                "searched. Use grep to match such text "
		                "literally."));
	else if (ans != NULL && json_array_size(hits) == 0)
		json_object_set_new(
		    ans, "note",
		    json_string("No hits. The index is lexical: an empty "
		                "result does not prove the corpora lack the "
		                "topic. Try other words, or grep "
		                "(exhaustive, never misses a literal match)."));
	json_decref(claims);
	return ans;
}

int
cg_fed_search(cg_fed *fed, const cg_search_req *req, json_t **out, cg_err *err)
{
	struct search_ctx c;
	cg_gstats g;
	json_t *all = json_array();
	json_t *hits = NULL;
	json_t *graph = NULL;
	const cg_corpus_query cq = {req->text ? req->text : "",
	                            cg_filters_any(&req->filters), req->sources,
	                            req->nsources};
	int rc;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	c.f = fed;
	c.req = req;
	rc = fed_search_prepare(&c, err);
	if (rc == 0 && req->sync)
		rc = fed_sync_scope(&c, err);
	if (rc == 0 && c.q.n > 0)
		rc = stats_round(&c, &g, err);
	if (rc == 0 && !c.no_terms)
		rc = search_round(&c, &g, all, err);
	if (rc == 0 && c.corpora)
		cg_fed_corpus_route(fed, &cq, all, &graph);
	if (rc == 0) {
		hits = cg_merge_hits(all, c.limit);
		*out = hits ? fed_answer(&c, hits, err) : NULL;
		if (*out == NULL)
			rc = cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	}
	if (rc == 0 && c.corpora)
		json_object_set_new(
		    *out, "related",
		    cg_fed_corpus_related(fed, &cq, graph,
		                          json_object_get(*out, "hits")));
	json_decref(graph);
	json_decref(hits);
	json_decref(all);
	fed_search_fini(&c);
	return rc;
}
