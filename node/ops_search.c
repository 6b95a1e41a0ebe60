/*
 * ops_search.c - the search family of node operations (see ops.h): sync,
 * stats, search, claims and problems, each over the sources in scope.
 * The scoring itself is index/search.h; this file reads the arguments,
 * runs them on each index (rebuilding a corrupt one once, node.h) and
 * assembles the result.
 *
 * What it must not do: rank across sources (the federation merges), or
 * report a problem of a page the caller may not see.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_json.h"
#include "index/corpus_hits.h"
#include "index/search.h"
#include "node/ops.h"
#include "page/query.h"
#include "proto/acl.h"
#include "proto/limits.h"
#include "proto/order.h"

/* --- sync and problems ------------------------------------------------ */

static json_t *
sync_json(const cg_sync_stats *st)
{
	json_t *o = json_pack(
	    "{s:I, s:b, s:i, s:i, s:i, s:i, s:i, s:i}", "generation",
	    (json_int_t)st->generation, "rebuilt", st->rebuilt, "files",
	    st->files, "read", st->read, "reparsed", st->reparsed, "added",
	    st->added, "deleted", st->deleted, "skipped", st->skipped);

	if (st->rebuilt)
		json_object_set_new(o, "rebuild_reason",
		                    json_string(st->rebuild_reason));
	return o;
}

int
cg_op_sync(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	json_t *per = json_object();
	int first = 0;

	/* One source that cannot sync (a corpus index that does not parse)
	 * keeps its last index and does not hold the others back: it is
	 * listed in res.failed with its reason. */
	json_object_set_new(res, "sources", per);
	for (size_t i = 0; i < cg_node_nsources(n) && first == 0; i++) {
		const char *name = cg_node_source_name(n, i);
		cg_index *idx = cg_node_index(n, i);
		cg_sync_stats st;
		cg_err serr;
		int rc;

		if (!cg_node_in_scope(args, name))
			continue;
		cg_err_clear(&serr);
		rc = cg_index_sync(idx, &st, &serr);
		if (rc == 0)
			json_object_set_new(per, name, sync_json(&st));
		else
			first = cg_node_source_failed(res, idx, rc, &serr, err);
	}
	return first;
}

int
cg_op_problems(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	json_t *all = json_array();

	json_object_set_new(res, "problems", all);
	for (size_t i = 0; i < cg_node_nsources(n); i++) {
		const char *name = cg_node_source_name(n, i);
		json_t *p;
		size_t k;
		json_t *item;

		if (!cg_node_in_scope(args, name))
			continue;
		p = cg_index_problems(cg_node_index(n, i));
		json_array_foreach(p, k, item) {
			json_object_set_new(item, "source", json_string(name));
			json_array_append(all, item);
		}
		json_decref(p);
	}
	return 0;
}

/* --- stats ------------------------------------------------------------- */

/* Parses args.q (a string, may be absent) into q. */
static int
args_query(const json_t *args, cg_query *q, cg_err *err)
{
	const json_t *t = json_object_get(args, "q");

	if (t != NULL && !json_is_string(t))
		return cg_err_set(err, CG_EINVAL, "q must be a string");
	return cg_query_parse(q, t ? json_string_value(t) : "", err);
}

struct stats_run {
	const cg_query *q;
	bool claims;    /* add the claim-key hashes */
	cg_gstats st;   /* one source's statistics */
	json_t *hashes; /* new reference, or NULL */
};

static int
stats_one(cg_index *idx, void *ctx, cg_err *err)
{
	struct stats_run *r = ctx;
	int rc = cg_search_stats(idx, r->q, &r->st, err);

	json_decref(r->hashes);
	r->hashes = NULL;
	if (rc == 0 && r->claims) {
		r->hashes = cg_search_claim_hashes(idx);
		if (r->hashes == NULL)
			rc = cg_err_set(err, CG_ENOMEM, "stats: out of memory");
	}
	return rc;
}

/* One source's statistics for q, with its epoch (and the hashes of its
 * claim keys when asked), as the federation caches them. */
static int
source_stats(cg_index *idx, const cg_query *q, bool claims, json_t **out,
             cg_err *err)
{
	struct stats_run r = {q, claims, {0}, NULL};
	char epoch[CG_EPOCH_MAX];
	int rc = cg_node_run(idx, stats_one, &r, err);
	bool bad;

	*out = NULL;
	if (rc != 0) {
		json_decref(r.hashes);
		return rc;
	}
	cg_index_epoch(idx, epoch);
	*out = cg_gstats_json(&r.st);
	/* Statistics short of their epoch or claims would be cached as
	 * whole: an error instead.  r.hashes is handed over or freed on
	 * every path (json_object_set_new frees it when it fails). */
	bad = *out == NULL ||
	      json_object_set_new(*out, "epoch", json_string(epoch)) != 0;
	if (bad)
		json_decref(r.hashes);
	else if (r.hashes != NULL)
		bad = json_object_set_new(*out, "claims", r.hashes) != 0;
	if (bad) {
		json_decref(*out);
		*out = NULL;
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	return 0;
}

int
cg_op_stats(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	cg_query q;
	cg_gstats sum;
	json_t *per = json_object();
	bool claims = json_is_true(json_object_get(args, "claims"));
	int rc = args_query(args, &q, err);

	json_object_set_new(res, "per_source", per);
	if (rc != 0)
		return rc;
	memset(&sum, 0, sizeof(sum));
	sum.nterms = q.n;
	for (size_t i = 0; i < cg_node_nsources(n) && rc == 0; i++) {
		json_t *one = NULL;
		cg_gstats s;

		cg_err serr;

		if (!cg_node_in_scope(args, cg_node_source_name(n, i)))
			continue;
		cg_err_clear(&serr);
		rc = source_stats(cg_node_index(n, i), &q, claims, &one, &serr);
		if (rc != 0) {
			rc = cg_node_source_failed(res, cg_node_index(n, i), rc,
			                           &serr, err);
			continue;
		}
		/* one is ours: when it does not read back, memory ran out
		 * (the sum is not a sum short of a source). */
		if (cg_gstats_from_json(&s, one, q.n) == 0)
			cg_gstats_add(&sum, &s);
		else
			rc = cg_err_set(err, CG_ENOMEM, "stats: out of memory");
		if (json_object_set_new(per, cg_node_source_name(n, i), one) !=
		        0 &&
		    rc == 0)
			rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	if (rc == 0 &&
	    (per == NULL ||
	     json_object_set_new(res, "stats", cg_gstats_json(&sum)) != 0))
		rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	cg_query_fini(&q);
	return rc;
}

/* --- search: the query phase ------------------------------------------ */

static int
search_args(const json_t *args, const cg_query *q, cg_filters *f, cg_gstats *g,
            cg_search_opts *o, cg_err *err)
{
	const json_t *lim = json_object_get(args, "limit");
	int rc;

	cg_filters_from_json(f, json_object_get(args, "filters"));
	rc = cg_filters_validate(f, err);
	if (rc != 0)
		return rc;
	if (q->n > 0 &&
	    cg_gstats_from_json(g, json_object_get(args, "stats"), q->n) != 0)
		return cg_err_set(err, CG_EINVAL,
		                  "search: missing or malformed stats");
	o->q = q;
	o->f = f;
	o->g = g;
	o->limit = json_is_integer(lim) ? (int)json_integer_value(lim) : 20;
	o->explain = json_is_true(json_object_get(args, "explain"));
	return 0;
}

/* Appends a source's index problems to followups, at most max of them
 * plus one line counting the rest. */
static void
problem_followups(cg_index *idx, json_t *fu, size_t max)
{
	json_t *probs = cg_index_problems(idx);
	size_t k;
	json_t *p;

	/* Problems of pages the caller may not see are not its business. */
	for (k = json_array_size(probs); k-- > 0;)
		if (!cg_acl_allows(cg_index_acl(idx), cg_index_source(idx),
		                   json_string_value(json_object_get(
		                       json_array_get(probs, k), "path"))))
			json_array_remove(probs, k);
	json_array_foreach(probs, k, p) {
		if (k == max) {
			char msg[160];

			(void)snprintf(msg, sizeof(msg),
			               "%zu more indexing problem(s) in "
			               "source %s",
			               json_array_size(probs) - max,
			               cg_index_source(idx));
			json_array_append_new(
			    fu, json_pack("{s:s, s:s, s:s}", "kind", "index",
			                  "source", cg_index_source(idx),
			                  "message", msg));
			break;
		}
		json_object_set_new(p, "source",
		                    json_string(cg_index_source(idx)));
		json_array_append(fu, p);
	}
	json_decref(probs);
}

/* A candidate of one source, with the source it came from. */
struct pick {
	cg_cand *c;
	size_t src; /* node source index */
};

/* The node's candidates over its sources in scope (one cg_cands per node
 * source, best first; unused slots empty) and the node's cut of them in
 * the one hit order. */
struct search_run {
	const cg_search_opts *o;
	cg_cands *per;  /* per node source */
	struct pick *v; /* the node's best, in order */
	size_t n;
	json_t *res; /* the op's result: failed sources go to res.failed */
};

/* One source's ranking, for cg_node_run. */
struct rank_run {
	const cg_search_opts *o;
	cg_cands *c;
	int64_t walked;
};

static int
rank_one(cg_index *idx, void *ctx, cg_err *err)
{
	struct rank_run *r = ctx;

	cg_cands_fini(r->c);
	r->walked = 0;
	return cg_search_rank(idx, r->o, r->c, &r->walked, err);
}

static cg_order_key
pick_key(cg_node *n, const struct pick *p, char *uri, size_t cap)
{
	cg_order_key k = {p->c->m, p->c->score, p->c->updated_at, p->c->conf,
	                  uri};

	(void)snprintf(uri, cap, "%s/%s", cg_node_source_name(n, p->src),
	               p->c->path);
	return k;
}

static int
pick_cmp(cg_node *n, const struct pick *a, const struct pick *b)
{
	char ua[4200];
	char ub[4200];
	cg_order_key ka = pick_key(n, a, ua, sizeof(ua));
	cg_order_key kb = pick_key(n, b, ub, sizeof(ub));

	return cg_order_cmp(&ka, &kb);
}

/* The node's cut: the best limit candidates over its sources. */
static int
node_cut(cg_node *n, struct search_run *r, const bool *asked, cg_err *err)
{
	size_t total = 0;

	for (size_t i = 0; i < cg_node_nsources(n); i++)
		total += asked[i] ? r->per[i].n : 0;
	r->v = calloc(total ? total : 1, sizeof(*r->v));
	if (r->v == NULL)
		return cg_err_set(err, CG_ENOMEM, "search: out of memory");
	for (size_t i = 0; i < cg_node_nsources(n); i++)
		for (size_t k = 0; asked[i] && k < r->per[i].n; k++) {
			struct pick x = {&r->per[i].v[k], i};
			size_t at = r->n;

			while (at > 0 && pick_cmp(n, &x, &r->v[at - 1]) < 0) {
				r->v[at] = r->v[at - 1];
				at--;
			}
			r->v[at] = x;
			r->n++;
		}
	/* A node holding a corpus in scope keeps every source's best: an
	 * alias may still double a score past the cut (fed_corpus.c). */
	for (size_t i = 0; i < cg_node_nsources(n); i++)
		if (asked[i] &&
		    cg_index_kind(cg_node_index(n, i)) != CG_SRC_WIKI)
			return 0;
	if (r->n > (size_t)(r->o->limit > 0 ? r->o->limit : 1))
		r->n = (size_t)(r->o->limit > 0 ? r->o->limit : 1);
	return 0;
}

/* The epoch the federation scored with differs from a source's: the
 * source's statistics now, for the federation to score again. */
static int
stale_sources(cg_node *n, const json_t *args, const cg_query *q, json_t *res,
              bool *stale, cg_err *err)
{
	const json_t *want = json_object_get(args, "epochs");
	int rc = 0;

	*stale = false;
	if (!json_is_object(want))
		return 0;
	for (size_t i = 0; i < cg_node_nsources(n) && rc == 0; i++) {
		const char *name = cg_node_source_name(n, i);
		const char *w = json_string_value(json_object_get(want, name));
		char epoch[CG_EPOCH_MAX];
		json_t *one = NULL;

		if (!cg_node_in_scope(args, name))
			continue;
		cg_index_epoch(cg_node_index(n, i), epoch);
		if (w != NULL && strcmp(w, epoch) == 0)
			continue;
		rc = source_stats(cg_node_index(n, i), q, true, &one, err);
		if (rc == 0) {
			if (!*stale)
				json_object_set_new(res, "stale",
				                    json_object());
			*stale = true;
			json_object_set_new(json_object_get(res, "stale"), name,
			                    one);
		}
	}
	return rc;
}

static json_t *
cand_json(cg_node *n, const struct pick *p)
{
	const cg_cand *c = p->c;

	return json_pack("{s:s, s:s, s:I, s:I, s:f, s:i, s:s, s:s}", "source",
	                 cg_node_source_name(n, p->src), "path", c->path,
	                 "page", (json_int_t)c->page, "rowid",
	                 (json_int_t)c->rowid, "score", c->score, "match_rank",
	                 (int)c->m, "updated_at", c->updated_at, "confidence",
	                 c->confidence);
}

struct fetch_run {
	const cg_search_opts *o;
	const struct pick *v; /* this source's picks */
	size_t n;
	json_t *hits;
	json_t *fu;
};

static int
fetch_one(cg_index *idx, void *ctx, cg_err *err)
{
	struct fetch_run *r = ctx;
	json_t *fresh = r->n > 0 ? cg_corpus_hits_freshness(idx) : NULL;
	int rc = 0;

	for (size_t i = 0; i < r->n && rc == 0; i++)
		rc = cg_search_fetch(idx, r->o, r->v[i].c, fresh, r->hits,
		                     r->fu, err);
	json_decref(fresh);
	return rc;
}

/* The hits of the node's cut, in its order: one fetch run per source, so
 * that each source's corpus freshness is read once. */
static int
fetch_picks(cg_node *n, const cg_search_opts *o, const struct pick *v,
            size_t nv, json_t *hits, json_t *fu, json_t *res, cg_err *err)
{
	struct pick *mine = calloc(nv ? nv : 1, sizeof(*mine));
	json_t *got = json_array();
	size_t i;
	json_t *h;
	int rc = mine != NULL && got != NULL
	             ? 0
	             : cg_err_set(err, CG_ENOMEM, "fetch: out of memory");

	for (size_t s = 0; s < cg_node_nsources(n) && rc == 0; s++) {
		struct fetch_run r = {o, mine, 0, got, fu};

		cg_err serr;

		for (size_t k = 0; k < nv; k++)
			if (v[k].src == s)
				mine[r.n++] = v[k];
		cg_err_clear(&serr);
		if (r.n > 0)
			rc = cg_node_run(cg_node_index(n, s), fetch_one, &r,
			                 &serr);
		if (rc != 0)
			rc = cg_node_source_failed(res, cg_node_index(n, s), rc,
			                           &serr, err);
	}
	/* Back in the cut's order (a page gone since it was ranked is not
	 * among the hits). */
	for (size_t k = 0; k < nv && rc == 0; k++)
		json_array_foreach(got, i, h) {
			if (strcmp(cg_json_str(h, "source"),
			           cg_node_source_name(n, v[k].src)) == 0 &&
			    strcmp(cg_json_str(h, "path"), v[k].c->path) == 0) {
				json_array_append(hits, h);
				break;
			}
		}
	json_decref(got);
	free(mine);
	return rc;
}

/* Ranks every source in scope into r->per, recording per_source and
 * followups. */
static int
rank_sources(cg_node *n, const json_t *args, struct search_run *r, bool *asked,
             json_t *per, json_t *fu, cg_err *err)
{
	int rc = 0;

	for (size_t i = 0; i < cg_node_nsources(n) && rc == 0; i++) {
		const char *name = cg_node_source_name(n, i);
		cg_index *idx = cg_node_index(n, i);
		struct rank_run one = {r->o, &r->per[i], 0};
		cg_err serr;

		if (!cg_node_in_scope(args, name))
			continue;
		cg_err_clear(&serr);
		rc = cg_node_run(idx, rank_one, &one, &serr);
		if (rc != 0) {
			rc = cg_node_source_failed(r->res, idx, rc, &serr, err);
			continue;
		}
		asked[i] = true;
		problem_followups(idx, fu, 20);
		cg_node_sync_followup(n, name, fu);
		json_object_set_new(per, name,
		                    json_pack("{s:I, s:I}", "candidates",
		                              (json_int_t)one.walked, "hits",
		                              (json_int_t)r->per[i].n));
	}
	return rc;
}

static void
search_run_fini(cg_node *n, struct search_run *r)
{
	for (size_t i = 0; r->per != NULL && i < cg_node_nsources(n); i++)
		cg_cands_fini(&r->per[i]);
	free(r->per);
	free(r->v);
}

/* The search op's result once the epochs agree: candidates (args.mode
 * "rank": the query phase of a federation over several nodes), or the
 * hits of the node's cut (one node: both phases at once). */
static int
search_answer(cg_node *n, const json_t *args, const cg_search_opts *o,
              json_t *res, cg_err *err)
{
	bool rank_only = strcmp(cg_json_str(args, "mode"), "rank") == 0;
	struct search_run r = {o, NULL, NULL, 0, res};
	bool *asked = calloc(cg_node_nsources(n) + 1, sizeof(*asked));
	json_t *per = json_object();
	json_t *fu = json_array();
	json_t *out = json_array();
	int rc = 0;

	json_object_set_new(res, "per_source", per);
	json_object_set_new(res, "followups", fu);
	json_object_set_new(res, rank_only ? "candidates" : "hits", out);
	r.per = calloc(cg_node_nsources(n) + 1, sizeof(*r.per));
	if (asked == NULL || r.per == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "search: out of memory");
	if (rc == 0)
		rc = rank_sources(n, args, &r, asked, per, fu, err);
	if (rc == 0)
		rc = node_cut(n, &r, asked, err);
	for (size_t k = 0; rc == 0 && rank_only && k < r.n; k++)
		json_array_append_new(out, cand_json(n, &r.v[k]));
	if (rc == 0 && !rank_only)
		rc = fetch_picks(n, o, r.v, r.n, out, fu, res, err);
	search_run_fini(n, &r);
	free(asked);
	return rc;
}

int
cg_op_search(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	cg_query q;
	cg_filters f;
	cg_gstats g;
	cg_search_opts o;
	bool stale = false;
	int rc = args_query(args, &q, err);

	for (size_t i = 0; i < cg_node_nsources(n); i++)
		if (cg_index_kind(cg_node_index(n, i)) != CG_SRC_WIKI &&
		    cg_node_in_scope(args, cg_node_source_name(n, i)))
			json_object_set_new(res, "corpora", json_true());
	if (rc != 0)
		return rc;
	memset(&g, 0, sizeof(g));
	rc = search_args(args, &q, &f, &g, &o, err);
	if (rc == 0)
		rc = stale_sources(n, args, &q, res, &stale, err);
	if (rc == 0 && !stale)
		rc = search_answer(n, args, &o, res, err);
	cg_query_fini(&q);
	return rc;
}

/* --- search: the fetch phase ------------------------------------------ */

/* Reads one fetch item into a candidate (its path borrowed). */
static int
fetch_item(cg_node *n, const json_t *it, struct pick *p, cg_err *err)
{
	const char *src = json_string_value(json_object_get(it, "source"));
	const json_t *page = json_object_get(it, "page");
	const json_t *rowid = json_object_get(it, "rowid");
	const json_t *m = json_object_get(it, "match_rank");

	for (p->src = 0; src != NULL && p->src < cg_node_nsources(n); p->src++)
		if (strcmp(cg_node_source_name(n, p->src), src) == 0)
			break;
	if (src == NULL || p->src == cg_node_nsources(n) ||
	    !json_is_integer(page) || !json_is_integer(rowid) ||
	    !json_is_integer(m) || json_integer_value(m) < CG_MATCH_NONE ||
	    json_integer_value(m) > CG_MATCH_PHRASE ||
	    !json_is_string(json_object_get(it, "path")))
		return cg_err_set(err, CG_EINVAL,
		                  "fetch: items are {source (of this node), "
		                  "path, page, rowid, match_rank, score}");
	*p->c = (cg_cand){
	    .page = json_integer_value(page),
	    .rowid = json_integer_value(rowid),
	    .score = json_number_value(json_object_get(it, "score")),
	    .m = (enum cg_match)json_integer_value(m),
	    .path = (char *)json_string_value(json_object_get(it, "path"))};
	return 0;
}

int
cg_op_fetch(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	const json_t *items = json_object_get(args, "items");
	size_t ni = json_array_size(items);
	cg_query q;
	cg_search_opts o = {0};
	cg_filters f = {0};
	struct pick *v = NULL;
	cg_cand *c = NULL;
	json_t *hits = json_array();
	json_t *fu = json_array();
	int rc;

	json_object_set_new(res, "hits", hits);
	json_object_set_new(res, "followups", fu);
	if (!json_is_array(items) || ni > CG_FETCH_MAX_ITEMS)
		return cg_err_set(err, CG_EINVAL,
		                  "fetch: items must be an array of at most %d",
		                  CG_FETCH_MAX_ITEMS);
	rc = args_query(args, &q, err);
	if (rc != 0)
		return rc;
	o = (cg_search_opts){&q, &f, NULL, (int)ni,
	                     json_is_true(json_object_get(args, "explain"))};
	v = calloc(ni ? ni : 1, sizeof(*v));
	c = calloc(ni ? ni : 1, sizeof(*c));
	if (v == NULL || c == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "fetch: out of memory");
	for (size_t i = 0; rc == 0 && i < ni; i++) {
		v[i].c = &c[i];
		rc = fetch_item(n, json_array_get(items, i), &v[i], err);
	}
	if (rc == 0)
		rc = fetch_picks(n, &o, v, ni, hits, fu, res, err);
	free(v);
	free(c);
	cg_query_fini(&q);
	return rc;
}

/* --- claims ------------------------------------------------------------ */

struct claims_run {
	const json_t *keys;
	json_t *pages;
};

static int
claims_one(cg_index *idx, void *ctx, cg_err *err)
{
	struct claims_run *r = ctx;

	return cg_search_claims(idx, r->keys, r->pages, err);
}

/* The distinct keys of a claims request (a new array): a key asked twice
 * would be answered twice, so repeating one would multiply the reply. */
static json_t *
distinct_keys(const json_t *keys)
{
	json_t *seen = json_object();
	json_t *out = json_array();
	size_t i;
	const json_t *k;

	bool bad = seen == NULL || out == NULL;

	json_array_foreach(keys, i, k) {
		if (!bad && json_is_string(k) &&
		    json_object_get(seen, json_string_value(k)) == NULL)
			bad = json_object_set_new(seen, json_string_value(k),
			                          json_true()) != 0 ||
			      json_array_append(out, (json_t *)k) != 0;
	}
	json_decref(seen);
	if (bad) { /* a key left out would hide its pages */
		json_decref(out);
		return NULL;
	}
	return out;
}

int
cg_op_claims(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	const json_t *keys = json_object_get(args, "keys");
	struct claims_run r = {NULL, json_array()};
	json_t *uniq = NULL;
	int rc = 0;

	json_object_set_new(res, "pages", r.pages);
	if (!json_is_array(keys) || json_array_size(keys) > CG_CLAIMS_MAX_KEYS)
		return cg_err_set(err, CG_EINVAL,
		                  "claims: keys must be an array of at most %d "
		                  "strings (got %zu)",
		                  CG_CLAIMS_MAX_KEYS, json_array_size(keys));
	uniq = distinct_keys(keys);
	r.keys = uniq;
	if (uniq == NULL || r.pages == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "claims: out of memory");
	for (size_t i = 0; i < cg_node_nsources(n) && rc == 0; i++) {
		cg_err serr;

		if (!cg_node_in_scope(args, cg_node_source_name(n, i)))
			continue;
		cg_err_clear(&serr);
		rc = cg_node_run(cg_node_index(n, i), claims_one, &r, &serr);
		rc = cg_node_source_failed(res, cg_node_index(n, i), rc, &serr,
		                           err);
	}
	json_decref(uniq);
	return rc;
}
