/*
 * fed_search.c - the search over the nodes in scope (see fed_search.h and
 * ARCHITECTURE.md, "The query path"): an optional sync round; the global
 * statistics from the gateway's cache (fed_stats.c), with a stats round
 * only for what it lacks; the rank round (each source's own top keys and
 * scores under those statistics, re-run when a source answers stale); the
 * merge (merge.c); the fetch round (the hits of the winners, asked of
 * their owners only); aliases and bridges (fed_corpus.c); claims only for
 * contested keys the cache lacks, and the contradiction rule
 * (conflict.c); a "suggest" round only when the result is empty or thin
 * (fed_suggest.c: "did you mean" in the note and in "suggestions"); then
 * the receipt (evidence, assumptions, followups).  It
 * must not drop a conflicting page, let one source's size crowd another
 * out, or wait again on a node that failed an earlier round of the same
 * query.
 */
#include "federation/fed_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_fs.h"
#include "common/cg_json.h"
#include "federation/conflict.h"
#include "federation/fed_corpus.h"
#include "federation/fed_int.h"
#include "federation/fed_stats.h"
#include "federation/fed_suggest.h"
#include "federation/merge.h"
#include "federation/uri.h"
#include "page/query.h"
#include "proto/acl.h"
#include "proto/stats.h"

#define FED_DEFAULT_LIMIT 20
#define FED_MAX_LIMIT     500

struct search_ctx {
	cg_fed *f;
	const cg_search_req *req;
	cg_query q;
	int limit;
	json_t **scope; /* per node */
	/* Every source the receipt names is "workspace/source"
	 * (cg_uri_qname): two workspaces may both have a source "api". */
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
	json_t *failed; /* evidence: sources that could not answer, by name */
	bool nomem;     /* sticky: memory ran out while a node's result was
	                   taken in; the query fails with CG_ENOMEM rather
	                   than answer short of it */
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

/* Takes the sources a node reported failed (res.failed) out of its scope
 * for the rest of the query, and records why: a source fails alone, its
 * node's other sources keep answering.  A node left with no source is
 * retired with the first reason. */
static void
drop_failed(struct search_ctx *c, size_t i, const json_t *res)
{
	const char *src;
	const json_t *why;

	json_object_foreach(json_object_get(res, "failed"), src, why) {
		json_t *scope = c->scope[i];
		json_t *q = cg_uri_qname(c->f->nodes[i].workspace, src);

		for (size_t k = json_array_size(scope); k-- > 0;)
			if (strcmp(json_string_value(json_array_get(scope, k)),
			           src) == 0)
				json_array_remove(scope, k);
		/* Keyed "ws/source"; "bare" (the node's own name for it)
		 * is only for failed_sources' message. */
		if (q != NULL &&
		    json_object_get(c->failed, json_string_value(q)) == NULL)
			json_object_set_new(
			    c->failed, json_string_value(q),
			    json_pack("{s:s, s:s, s:s, s:s}", "bare", src,
			              "node", c->f->nodes[i].name, "code",
			              cg_json_str(why, "code"), "message",
			              cg_json_str(why, "message")));
		json_decref(q);
		if (scope != NULL && json_array_size(scope) == 0)
			retire(c, i, CG_EUNAVAIL, cg_json_str(why, "message"));
	}
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

/* --- statistics --------------------------------------------------------- */

/* Sums into g what the cache knows of every source in scope; need[i] is
 * set for each node with a source it does not know for the query. */
static bool
cached_stats(struct search_ctx *c, cg_gstats *g, bool *need)
{
	bool all = true;

	memset(g, 0, sizeof(*g));
	g->nterms = c->q.n;
	for (size_t i = 0; i < c->f->nnodes; i++) {
		size_t k;
		const json_t *src;

		need[i] = false;
		json_array_foreach(c->scope[i], k, src)
			if (!cg_fed_stats_add(c->f->stats, c->f->nodes[i].name,
			                      json_string_value(src), &c->q, g))
				need[i] = true;
		all &= !need[i];
	}
	return all;
}

/* Stores a node's per-source statistics (a stats result, or a stale
 * search reply's) in the cache. */
static void
keep_stats(struct search_ctx *c, size_t node, const json_t *per)
{
	const char *src;
	json_t *st;

	json_object_foreach((json_t *)per, src, st)
		cg_fed_stats_put(c->f->stats, c->f->nodes[node].name, src,
		                 &c->q, st);
}

static void
extra_free(json_t **x, size_t n)
{
	for (size_t i = 0; x != NULL && i < n; i++)
		json_decref(x[i]);
	free(x);
}

/* Per node of need[]: {claims: true} when the cache lacks the claim keys
 * of one of its sources in scope (never asked, or dropped when the
 * source's epoch moved), else {claims: false}: a node's claim keys are a
 * read and a sort of every page's key, the same for every query of an
 * epoch.  *asked counts the nodes asked for them. */
static json_t **
claims_extra(struct search_ctx *c, const bool *need, int *asked)
{
	json_t **x = calloc(c->f->nnodes ? c->f->nnodes : 1, sizeof(json_t *));

	*asked = 0;
	for (size_t i = 0; x != NULL && i < c->f->nnodes; i++) {
		bool lack = false;
		size_t k;
		const json_t *src;

		if (!need[i])
			continue;
		json_array_foreach(c->scope[i], k, src)
			lack |= cg_fed_stats_claims(
			            c->f->stats, c->f->nodes[i].name,
			            json_string_value(src), 0) < 0;
		*asked += lack;
		x[i] = json_pack("{s:b}", "claims", lack);
	}
	return x;
}

/* Asks the nodes of need[] for their sources' statistics (and the claim
 * hashes the cache lacks), into the cache. */
static int
stats_round(struct search_ctx *c, const bool *need, cg_err *err)
{
	struct cg_fed_round r = {0};
	json_t **scope =
	    calloc(c->f->nnodes ? c->f->nnodes : 1, sizeof(json_t *));
	json_t *args =
	    json_pack("{s:s}", "q", c->req->text ? c->req->text : "");
	int asked = 0;
	json_t **extra = claims_extra(c, need, &asked);
	int rc = scope != NULL && extra != NULL
	             ? 0
	             : cg_err_set(err, CG_ENOMEM, "out of memory");

	for (size_t i = 0; rc == 0 && i < c->f->nnodes; i++)
		scope[i] = need[i] ? c->scope[i] : NULL;
	r.extra = extra;
	if (rc == 0)
		rc = cg_fed_round_run(c->f, &r, "stats", args, scope, err);
	for (size_t i = 0; rc == 0 && i < r.n; i++) {
		const json_t *res;

		if (scope[i] == NULL)
			continue;
		rc = query_result(c, &r, i, &res, err);
		if (rc == 0 && res != NULL) {
			keep_stats(c, i, json_object_get(res, "per_source"));
			drop_failed(c, i, res);
		}
	}
	if (rc == 0) {
		account(c, &r, "stats");
		/* evidence: how many nodes were asked for claim keys */
		json_object_set_new(
		    json_array_get(c->rounds, json_array_size(c->rounds) - 1),
		    "claims_asked", json_integer(asked));
	}
	json_decref(args);
	extra_free(extra, c->f->nnodes);
	free(scope);
	cg_fed_round_fini(&r);
	return rc;
}

/* The global statistics of the query over the scope: from the cache,
 * after one stats round to the nodes it lacks.  A node that answered and
 * still left a gap (it failed) is retired. */
static int
global_stats(struct search_ctx *c, cg_gstats *g, cg_err *err)
{
	bool *need = calloc(c->f->nnodes ? c->f->nnodes : 1, sizeof(*need));
	int rc = need != NULL ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");

	if (rc == 0 && !cached_stats(c, g, need)) {
		rc = stats_round(c, need, err);
		if (rc == 0 && !cached_stats(c, g, need))
			for (size_t i = 0; i < c->f->nnodes; i++)
				if (need[i])
					retire(c, i, CG_EPROTO,
					       "bad reply: no statistics");
		if (rc == 0)
			(void)cached_stats(c, g, need);
	}
	free(need);
	return rc;
}

/* --- search: query phase, then fetch -------------------------------------- */

/* What one search round brought: per node, its hits or candidates. */
struct round_take {
	json_t *items; /* tagged hits or candidates, with "node": i */
	json_t *fu;    /* followups */
	json_t *per;   /* per_source */
	bool stale;    /* a node's source moved: the cache has it now */
};

static void
take_fini(struct round_take *t)
{
	json_decref(t->items);
	json_decref(t->fu);
	json_decref(t->per);
}

/* Sets dst["ws/source"] to each value of src (keyed by a node's own
 * source names), so that the receipt's names carry their workspace. */
static void
qualify_keys(json_t *dst, const char *ws, const json_t *src)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)src, k, v) {
		json_t *q = cg_uri_qname(ws, k);

		if (q != NULL)
			json_object_set(dst, json_string_value(q), v);
		json_decref(q);
	}
}

static void
take_result(struct search_ctx *c, size_t node, const json_t *res,
            struct round_take *t)
{
	const json_t *items = json_object_get(res, "hits");
	size_t k;
	json_t *h;

	drop_failed(c, node, res);
	if (json_object_get(res, "stale") != NULL) {
		keep_stats(c, node, json_object_get(res, "stale"));
		t->stale = true;
		return;
	}
	if (items == NULL)
		items = json_object_get(res, "candidates");
	cg_fed_stats_set_corpora(c->f->stats, c->f->nodes[node].name,
	                         json_is_true(json_object_get(res, "corpora")));
	if (json_is_true(json_object_get(res, "corpora")))
		c->corpora = true;
	json_array_foreach(items, k, h) {
		c->nomem |=
		    cg_fed_tag(h, c->f->nodes[node].workspace) != 0 ||
		    json_object_set_new(h, "node",
		                        json_integer((json_int_t)node)) != 0 ||
		    json_array_append(t->items, h) != 0;
	}
	json_array_foreach(json_object_get(res, "followups"), k, h) {
		if (json_is_string(json_object_get(h, "path")) &&
		    json_is_string(json_object_get(h, "source")))
			c->nomem |=
			    cg_fed_tag(h, c->f->nodes[node].workspace) != 0;
		c->nomem |= json_array_append(t->fu, h) != 0;
	}
	qualify_keys(t->per, c->f->nodes[node].workspace,
	             json_object_get(res, "per_source"));
}

/* Per node: {epochs: {source: epoch}} of what the statistics were summed
 * from, so that a node whose source moved says so instead of answering. */
static json_t **
epochs_extra(struct search_ctx *c)
{
	json_t **x = calloc(c->f->nnodes ? c->f->nnodes : 1, sizeof(json_t *));

	for (size_t i = 0; x != NULL && i < c->f->nnodes; i++) {
		json_t *e = json_object();
		size_t k;
		const json_t *src;

		json_array_foreach(c->scope[i], k, src) {
			json_t *ep =
			    cg_fed_stats_epoch(c->f->stats, c->f->nodes[i].name,
			                       json_string_value(src));

			if (ep != NULL)
				json_object_set_new(e, json_string_value(src),
				                    ep);
		}
		x[i] = json_pack("{s:o}", "epochs", e);
	}
	return x;
}

/* One search round: mode "rank" (candidates) or "hits". */
static int
search_round(struct search_ctx *c, const cg_gstats *g, const char *mode,
             bool check_epochs, struct round_take *t, cg_err *err)
{
	struct cg_fed_round r = {0};
	json_t *args = json_pack(
	    "{s:s, s:o, s:i, s:b, s:s}", "q", c->req->text ? c->req->text : "",
	    "filters", cg_filters_json(&c->req->filters), "limit", c->limit,
	    "explain", c->req->explain, "mode", mode);
	json_t **extra = check_epochs ? epochs_extra(c) : NULL;
	int rc = 0;

	*t = (struct round_take){json_array(), json_array(), json_object(),
	                         false};
	/* Not a request without its statistics: each node would score with
	 * its own, a silently different ranking. */
	if (args == NULL ||
	    (c->q.n > 0 &&
	     json_object_set_new(args, "stats", cg_gstats_json(g)) != 0))
		rc = cg_err_set(err, CG_ENOMEM, "search: out of memory");
	r.extra = extra;
	if (rc == 0)
		rc = cg_fed_round_run(c->f, &r, "search", args, c->scope, err);
	for (size_t i = 0; rc == 0 && i < r.n; i++) {
		const json_t *res;

		rc = query_result(c, &r, i, &res, err);
		if (rc == 0 && res != NULL)
			take_result(c, i, res, t);
	}
	if (rc == 0)
		account(c, &r, strcmp(mode, "rank") == 0 ? "rank" : "search");
	json_decref(args);
	extra_free(extra, c->f->nnodes);
	cg_fed_round_fini(&r);
	return rc;
}

/* The nodes answer hits at once (one round): when one node is in scope,
 * or a node in scope holds a corpus (aliases boost hits by their
 * concepts, which candidates do not carry); else candidates, merged, then
 * the hits of the winners only. */
static const char *
search_mode(struct search_ctx *c)
{
	size_t nodes = 0;
	bool corpora = false;

	for (size_t i = 0; i < c->f->nnodes; i++) {
		if (c->scope[i] == NULL)
			continue;
		nodes++;
		/* Not known yet counts as a corpus: the first search of a
		 * node learns it. */
		if (cg_fed_stats_corpora(c->f->stats, c->f->nodes[i].name) != 0)
			corpora = true;
	}
	return nodes > 1 && !corpora ? "rank" : "hits";
}

/* The statistics, then the search round; a node whose source moved since
 * the statistics were cached answers "stale" with its new ones, and the
 * round runs again with the new sums (twice at most; the third time the
 * nodes answer whatever their epochs). */
static int
query_phase(struct search_ctx *c, const char *mode, struct round_take *t,
            cg_err *err)
{
	cg_gstats g;
	int rc = 0;

	memset(&g, 0, sizeof(g));
	for (int attempt = 0; rc == 0 && attempt < 3; attempt++) {
		if (attempt > 0)
			take_fini(t);
		rc = global_stats(c, &g, err);
		if (rc == 0)
			rc = search_round(c, &g, mode, attempt < 2, t, err);
		if (rc != 0 || !t->stale)
			break;
	}
	return rc;
}

/* The fetch phase: the hits of the merged candidates, asked of their
 * nodes only, in the merged order (a page gone since is left out). */
static int
fetch_phase(struct search_ctx *c, const json_t *cands, json_t *hits, json_t *fu,
            cg_err *err)
{
	struct cg_fed_round r = {0};
	json_t **extra =
	    calloc(c->f->nnodes ? c->f->nnodes : 1, sizeof(json_t *));
	json_t **scope =
	    calloc(c->f->nnodes ? c->f->nnodes : 1, sizeof(json_t *));
	json_t *args =
	    json_pack("{s:s, s:b}", "q", c->req->text ? c->req->text : "",
	              "explain", c->req->explain);
	json_t *got = json_array();
	size_t k;
	json_t *h;
	int rc =
	    extra && scope ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");

	json_array_foreach(cands, k, h) {
		size_t i =
		    (size_t)json_integer_value(json_object_get(h, "node"));

		if (rc != 0 || i >= c->f->nnodes || c->scope[i] == NULL)
			continue;
		if (extra[i] == NULL)
			extra[i] = json_pack("{s:[]}", "items");
		scope[i] = c->scope[i];
		json_array_append(json_object_get(extra[i], "items"), h);
	}
	r.extra = extra;
	if (rc == 0 && json_array_size(cands) > 0)
		rc = cg_fed_round_run(c->f, &r, "fetch", args, scope, err);
	for (size_t i = 0; rc == 0 && i < r.n && json_array_size(cands) > 0;
	     i++) {
		const json_t *res;
		struct round_take t = {got, fu, NULL, false};

		if (scope[i] == NULL)
			continue;
		rc = query_result(c, &r, i, &res, err);
		if (rc == 0 && res != NULL) {
			t.per = json_object();
			take_result(c, i, res, &t);
			json_decref(t.per);
		}
	}
	if (rc == 0 && json_array_size(cands) > 0)
		account(c, &r, "fetch");
	json_array_foreach(cands, k, h) {
		size_t i;
		json_t *x;

		json_array_foreach(got, i, x)
			if (strcmp(cg_json_str(x, "uri"),
			           cg_json_str(h, "uri")) == 0) {
				json_array_append(hits, x);
				break;
			}
	}
	json_decref(got);
	json_decref(args);
	extra_free(extra, c->f->nnodes);
	free(scope);
	cg_fed_round_fini(&r);
	return rc;
}

/* The search's hits before aliases and the final cut: every node's hits
 * (mode "hits"), or the merged candidates' hits (mode "rank"; all of
 * them when a node turned out to hold a corpus). */
static int
search_hits(struct search_ctx *c, json_t *all, cg_err *err)
{
	const char *mode = search_mode(c);
	struct round_take t = {NULL, NULL, NULL, false};
	json_t *cut = NULL;
	int rc = query_phase(c, mode, &t, err);

	if (rc == 0) {
		const char *key;
		json_t *v;

		json_array_extend(c->followups, t.fu);
		json_object_foreach(t.per, key, v) {
			json_object_set(c->per_source, key, v);
			json_array_append_new(c->answered, json_string(key));
			c->walked += json_integer_value(
			    json_object_get(v, "candidates"));
		}
	}
	if (rc == 0 && strcmp(mode, "hits") == 0)
		json_array_extend(all, t.items);
	else if (rc == 0) {
		cut = c->corpora ? json_incref(t.items)
		                 : cg_merge_hits(t.items, c->limit);
		rc = cut != NULL ? fetch_phase(c, cut, all, c->followups, err)
		                 : cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	json_decref(cut);
	take_fini(&t);
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
	json_decref(c->failed);
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
	c->failed = json_object();
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
		json_t *q;

		if (c->scope[i] == NULL)
			continue;
		q = cg_uri_qnames(c->f->nodes[i].workspace, c->scope[i]);
		json_array_extend(c->asked, q);
		json_object_set_new(
		    c->nodes, c->f->nodes[i].name,
		    json_pack("{s:o, s:s}", "sources", q, "outcome", "ok"));
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

		/* A node that could not sync still serves its last index
		 * (a source that failed its sync is listed, and is dropped
		 * only when it then cannot answer); one that did not answer
		 * is retired. */
		if (r.replies[i] == NULL)
			retire(c, i, code, msg);
		else
			note_outcome(c, i, code, msg);
		if (res != NULL)
			qualify_keys(c->synced, c->f->nodes[i].workspace,
			             json_object_get(res, "sources"));
	}
	json_decref(args);
	cg_fed_round_fini(&r);
	return rc;
}

/* The signature of the caller's access policy: claims are answered under
 * it, so what is cached of them is kept per signature. */
static char *
acl_sig(const struct search_ctx *c)
{
	json_t *j;
	char *s;

	if (!cg_acl_active(c->f->acl))
		return strdup("");
	j = cg_acl_json(c->f->acl, "");
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	return s;
}

/* The claim keys of hits that another page in scope may share: a key
 * whose hash the cached claim keys of the scope hold twice or more, or
 * whose source's keys are not known.  A new array of strings. */
static json_t *
contested(struct search_ctx *c, const json_t *hits)
{
	json_t *keys = json_array();
	size_t k;
	const json_t *h;

	json_array_foreach(hits, k, h) {
		const char *key = cg_json_str_or_null(h, "claim_key");
		uint64_t hash = key ? cg_hash64(key, strlen(key)) : 0;
		int total = 0;
		bool unknown = false;

		for (size_t i = 0; key != NULL && i < c->f->nnodes; i++) {
			size_t j;
			const json_t *src;

			json_array_foreach(c->scope[i], j, src) {
				int n = cg_fed_stats_claims(
				    c->f->stats, c->f->nodes[i].name,
				    json_string_value(src), hash);

				unknown |= n < 0;
				total += n > 0 ? n : 0;
			}
		}
		if (key != NULL && (total >= 2 || unknown) &&
		    json_array_append_new(keys, json_string(key)) != 0) {
			json_decref(keys); /* a key left out hides a conflict */
			return NULL;
		}
	}
	return keys;
}

/* The pages of key that the cache holds for node i's sources in scope
 * (appended to pages, tagged); false when a source was not asked yet.
 * *bad when a page could not be tagged or kept (pages is short). */
static bool
cached_claims(struct search_ctx *c, size_t i, const char *sig, const char *key,
              json_t *pages, bool *bad)
{
	uint64_t hash = cg_hash64(key, strlen(key));
	size_t j;
	const json_t *src;
	bool all = true;

	json_array_foreach(c->scope[i], j, src) {
		const char *name = json_string_value(src);
		json_t *got;
		size_t k;
		json_t *p;

		if (cg_fed_stats_claims(c->f->stats, c->f->nodes[i].name, name,
		                        hash) == 0)
			continue;
		got = cg_fed_stats_claim_pages(c->f->stats, c->f->nodes[i].name,
		                               name, sig, key);
		if (got == NULL) {
			all = false;
			continue;
		}
		json_array_foreach(got, k, p) {
			if (cg_fed_tag(p, c->f->nodes[i].workspace) != 0 ||
			    json_array_append(pages, p) != 0)
				*bad = true;
		}
		json_decref(got);
	}
	return all;
}

/* Keeps what node i answered for keys, per source in scope, and appends
 * it to pages, tagged; CG_ENOMEM when a page could not be kept (pages is
 * then short of it: the caller must not use it). */
static int
keep_claims(struct search_ctx *c, size_t i, const char *sig, const json_t *keys,
            const json_t *res, json_t *pages)
{
	size_t k;
	const json_t *key;
	bool bad = false;

	json_array_foreach(keys, k, key) {
		size_t j;
		const json_t *src;

		json_array_foreach(c->scope[i], j, src) {
			json_t *mine = json_array();

			if (mine == NULL) {
				bad = true;
				continue;
			}
			size_t m;
			json_t *p;

			json_array_foreach(json_object_get(res, "pages"), m, p)
				if (strcmp(cg_json_str(p, "source"),
				           json_string_value(src)) == 0 &&
				    strcmp(cg_json_str(p, "claim_key"),
				           json_string_value(key)) == 0 &&
				    json_array_append(mine, p) != 0)
					bad = true;
			/* A list short of a page is neither cached nor used. */
			if (!bad)
				cg_fed_stats_put_claim_pages(
				    c->f->stats, c->f->nodes[i].name,
				    json_string_value(src), sig,
				    json_string_value(key), mine);
			json_array_foreach(mine, m, p) {
				json_t *t = json_deep_copy(p);

				if (cg_fed_tag(t, c->f->nodes[i].workspace) !=
				        0 ||
				    json_array_append_new(pages, t) != 0)
					bad = true;
			}
			json_decref(mine);
		}
	}
	return bad ? CG_ENOMEM : 0;
}

/* Every page (in scope) sharing a claim key with a hit, tagged: only the
 * keys that another page may share, from the cache when their pages were
 * asked under this epoch and policy, else in one claims round to the
 * nodes that lack them.  NULL when memory ran out: a list short of a page
 * would hide a conflict (a node that fails the round is retired and
 * reported, as in every round). */
static json_t *
claims_round(struct search_ctx *c, const json_t *hits)
{
	json_t *keys = contested(c, hits);
	size_t nn = c->f->nnodes ? c->f->nnodes : 1;
	json_t **ask = calloc(nn, sizeof(json_t *));
	json_t **scope = calloc(nn, sizeof(json_t *));
	json_t *pages = json_array();
	json_t *args = json_object();
	char *sig = acl_sig(c);
	struct cg_fed_round r = {0};
	bool any = false;
	bool bad = keys == NULL || ask == NULL || scope == NULL ||
	           pages == NULL || args == NULL || sig == NULL;

	for (size_t i = 0; !bad && i < c->f->nnodes; i++) {
		size_t k;
		json_t *key;

		json_array_foreach(keys, k, key) {
			if (c->scope[i] == NULL ||
			    cached_claims(c, i, sig, json_string_value(key),
			                  pages, &bad))
				continue;
			if (ask[i] == NULL)
				ask[i] = json_pack("{s:[]}", "keys");
			if (json_array_append(json_object_get(ask[i], "keys"),
			                      key) != 0)
				bad = true;
			scope[i] = c->scope[i];
			any = true;
		}
	}
	r.extra = ask;
	if (!bad && any &&
	    cg_fed_round_run(c->f, &r, "claims", args, scope, NULL) != 0)
		bad = true;
	if (!bad && any) {
		for (size_t i = 0; i < r.n; i++) {
			int code;
			const char *msg;
			const json_t *res;

			if (scope[i] == NULL)
				continue;
			res = cg_fed_round_result(&r, i, &code, &msg);
			retire(c, i, code, msg);
			drop_failed(c, i, res);
			if (res != NULL &&
			    keep_claims(c, i, sig,
			                json_object_get(ask[i], "keys"), res,
			                pages) != 0)
				bad = true;
		}
		account(c, &r, "claims");
	}
	cg_fed_round_fini(&r);
	extra_free(ask, c->f->nnodes);
	free(scope);
	free(sig);
	json_decref(args);
	json_decref(keys);
	if (bad) {
		json_decref(pages);
		return NULL;
	}
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
		json_object_del(h, "node");
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
	    a, json_string("exact words rank first; other English forms of a "
	                   "word (stems) match below them, and word* matches "
	                   "by prefix"));
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

/* The sources that could not answer: in the evidence (sources_failed,
 * degraded) and as a followup each, so every interface shows them. */
static void
failed_sources(struct search_ctx *c, json_t *ev)
{
	json_t *list = json_array();
	const char *src;
	json_t *why;

	json_object_foreach(c->failed, src, why) {
		char msg[CG_ERR_MSG_MAX + 64];
		json_t *one = json_deep_copy(why);
		const char *m = cg_json_str(why, "message");
		const char *bare = cg_json_str(why, "bare");
		size_t n = strlen(bare);

		json_object_del(one, "bare");
		json_object_set_new(one, "source", json_string(src));
		json_array_append_new(list, one);
		/* A node's message usually names the source already, bare:
		 * it gets the qualified name instead. */
		if (strncmp(m, "source ", 7) == 0 &&
		    strncmp(m + 7, bare, n) == 0 && m[7 + n] == ':')
			(void)snprintf(msg, sizeof(msg), "source %s%s", src,
			               m + 7 + n);
		else
			(void)snprintf(msg, sizeof(msg), "source %s: %s", src,
			               m);
		json_array_append_new(c->followups,
		                      json_pack("{s:s, s:s, s:s}", "kind",
		                                "source_failed", "source", src,
		                                "message", msg));
	}
	if (json_array_size(list) > 0)
		json_object_set_new(ev, "degraded", json_true());
	json_object_set_new(ev, "sources_failed", list);
}

/* When the result is thin (page/fed_suggest.h), one "suggest" round for
 * the query's words: the suggestions (a new array, maybe empty), or NULL
 * when none was looked for.  A node that fails it only suggests nothing. */
static json_t *
suggest_round(struct search_ctx *c, size_t nhits)
{
	json_t *words = cg_suggest_words(&c->q);
	json_t *replies = json_array();
	json_t *picks = NULL;
	struct cg_fed_round r = {0};

	if (nhits < CG_SUGGEST_THIN && json_array_size(words) > 0) {
		json_t *args = json_pack("{s:O}", "words", words);

		if (cg_fed_round_run(c->f, &r, "suggest", args, c->scope,
		                     NULL) == 0) {
			for (size_t i = 0; i < r.n; i++) {
				int code;
				const char *msg;
				json_t *per = json_object_get(
				    cg_fed_round_result(&r, i, &code, &msg),
				    "per_source");

				if (json_is_object(per))
					json_array_append(replies, per);
			}
			account(c, &r, "suggest");
			picks = cg_suggest_pick(&c->q, replies);
		}
		cg_fed_round_fini(&r);
		json_decref(args);
	}
	json_decref(words);
	json_decref(replies);
	return picks;
}

/* The answer's note: why nothing was searched, or that nothing or little
 * was found, with the suggestions when there are any. */
static void
set_note(json_t *ans, const struct search_ctx *c, size_t nhits,
         const json_t *picks)
{
	char *dym = json_array_size(picks) > 0
	                ? cg_suggest_note(picks, c->q.n == 1)
	                : NULL;

	if (c->no_terms)
		json_object_set_new(
		    ans, "note",
		    json_string("The query has no searchable word (only "
		                "punctuation or operators), so nothing was "
		                "searched. Use grep to match such text "
		                "literally."));
	else if (nhits == 0)
		json_object_set_new(
		    ans, "note",
		    json_sprintf("No hits.%s%s The index is lexical: an empty "
		                 "result does not prove the corpora lack the "
		                 "topic. Try other words, or grep "
		                 "(exhaustive, never misses a literal match).",
		                 dym ? " " : "", dym ? dym : ""));
	else if (dym != NULL)
		json_object_set_new(ans, "note",
		                    json_sprintf("Few hits. %s", dym));
	if (json_array_size(picks) > 0)
		json_object_set(ans, "suggestions", (json_t *)picks);
	free(dym);
}

static json_t *
fed_answer(struct search_ctx *c, json_t *hits, cg_err *err)
{
	json_t *claims = claims_round(c, hits);
	json_t *conflicts = claims ? cg_conflicts_find(claims) : NULL;
	json_t *picks =
	    c->no_terms ? NULL : suggest_round(c, json_array_size(hits));
	json_t *ev = evidence(c, json_array_size(hits));
	size_t nhits = json_array_size(hits);
	json_t *ans;

	json_object_set_new(ev, "filters", cg_filters_json(&c->req->filters));
	if (c->req->sync)
		json_object_set(ev, "index", c->synced);
	failed_sources(c, ev);
	conflict_followups(c->followups, conflicts);
	clean_hits(hits);
	ans = json_pack("{s:s, s:o, s:i, s:O, s:o, s:o, s:o, s:O, s:[]}",
	                "query", c->req->text ? c->req->text : "", "filters",
	                cg_filters_json(&c->req->filters), "limit", c->limit,
	                "hits", hits, "conflicts", conflicts, "evidence", ev,
	                "assumptions", assumptions(c), "followups",
	                c->followups, "changed_files");
	if (ans != NULL)
		set_note(ans, c, nhits, picks);
	json_decref(picks);
	json_decref(claims);
	return ans;
}

int
cg_fed_search(cg_fed *fed, const cg_search_req *req, json_t **out, cg_err *err)
{
	struct search_ctx c;
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
	if (rc == 0 && !c.no_terms)
		rc = search_hits(&c, all, err);
	if (rc == 0 && c.corpora)
		cg_fed_corpus_route(fed, &cq, all, &graph);
	if (rc == 0 && c.nomem)
		rc = cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	if (rc == 0) {
		hits = cg_merge_hits(all, c.limit);
		*out = hits ? fed_answer(&c, hits, err) : NULL;
		if (*out == NULL)
			rc = cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	}
	if (rc == 0 && c.corpora &&
	    json_object_set_new(
	        *out, "related",
	        cg_fed_corpus_related(fed, &cq, graph,
	                              json_object_get(*out, "hits"))) != 0) {
		json_decref(*out); /* not an answer short of its bridges */
		*out = NULL;
		rc = cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	}
	json_decref(graph);
	json_decref(hits);
	json_decref(all);
	fed_search_fini(&c);
	return rc;
}
