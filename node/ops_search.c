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
#include <stdio.h>
#include <string.h>

#include "index/search.h"
#include "node/ops.h"
#include "page/query.h"
#include "proto/acl.h"

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
	 * keeps its last index and does not hold the others back; the
	 * first failure is the reply. */
	json_object_set_new(res, "sources", per);
	for (size_t i = 0; i < cg_node_nsources(n); i++) {
		const char *name = cg_node_source_name(n, i);
		cg_index *idx = cg_node_index(n, i);
		cg_sync_stats st;
		int rc;

		if (!cg_node_in_scope(args, name))
			continue;
		rc = first == 0 ? cg_index_sync(idx, &st, err)
		                : cg_index_sync(idx, &st, NULL);
		if (rc == 0)
			json_object_set_new(per, name, sync_json(&st));
		else if (first == 0)
			first = rc;
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
	cg_gstats st; /* one source's statistics */
};

static int
stats_one(cg_index *idx, void *ctx, cg_err *err)
{
	struct stats_run *r = ctx;

	return cg_search_stats(idx, r->q, &r->st, err);
}

int
cg_op_stats(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	cg_query q;
	cg_gstats sum;
	struct stats_run r = {&q, {0}};
	int rc = args_query(args, &q, err);

	if (rc != 0)
		return rc;
	memset(&sum, 0, sizeof(sum));
	sum.nterms = q.n;
	for (size_t i = 0; i < cg_node_nsources(n) && rc == 0; i++) {
		if (!cg_node_in_scope(args, cg_node_source_name(n, i)))
			continue;
		rc = cg_node_run(cg_node_index(n, i), stats_one, &r, err);
		if (rc == 0)
			cg_gstats_add(&sum, &r.st);
	}
	if (rc == 0)
		json_object_set_new(res, "stats", cg_gstats_json(&sum));
	cg_query_fini(&q);
	return rc;
}

/* --- search ------------------------------------------------------------ */

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

struct search_run {
	const cg_search_opts *o;
	json_t *hits;
	json_t *fu;     /* followups */
	int64_t walked; /* candidates of the current source */
};

static int
search_one(cg_index *idx, void *ctx, cg_err *err)
{
	struct search_run *r = ctx;

	return cg_search_run(idx, r->o, r->hits, r->fu, &r->walked, err);
}

/* Searches source i into r, adds its followups and its per_source line. */
static int
search_source(cg_node *n, size_t i, struct search_run *r, json_t *per,
              cg_err *err)
{
	const char *name = cg_node_source_name(n, i);
	cg_index *idx = cg_node_index(n, i);
	size_t before = json_array_size(r->hits);
	size_t fu_before = json_array_size(r->fu);
	int rc;

	r->walked = 0;
	rc = cg_node_run(idx, search_one, r, err);
	for (size_t k = fu_before; k < json_array_size(r->fu); k++)
		if (json_object_get(json_array_get(r->fu, k), "source") == NULL)
			json_object_set_new(json_array_get(r->fu, k), "source",
			                    json_string(name));
	if (rc == 0)
		problem_followups(idx, r->fu, 20);
	json_object_set_new(
	    per, name,
	    json_pack("{s:I, s:I}", "candidates", (json_int_t)r->walked, "hits",
	              (json_int_t)(json_array_size(r->hits) - before)));
	return rc;
}

int
cg_op_search(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	cg_query q;
	cg_filters f;
	cg_gstats g;
	cg_search_opts o;
	json_t *per = json_object();
	struct search_run r = {&o, json_array(), json_array(), 0};
	int rc = args_query(args, &q, err);

	json_object_set_new(res, "hits", r.hits);
	json_object_set_new(res, "per_source", per);
	json_object_set_new(res, "followups", r.fu);
	for (size_t i = 0; i < cg_node_nsources(n); i++)
		if (cg_index_kind(cg_node_index(n, i)) != 0 &&
		    cg_node_in_scope(args, cg_node_source_name(n, i)))
			json_object_set_new(res, "corpora", json_true());
	if (rc != 0)
		return rc;
	memset(&g, 0, sizeof(g));
	rc = search_args(args, &q, &f, &g, &o, err);
	for (size_t i = 0; i < cg_node_nsources(n) && rc == 0; i++)
		if (cg_node_in_scope(args, cg_node_source_name(n, i)))
			rc = search_source(n, i, &r, per, err);
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

int
cg_op_claims(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	struct claims_run r = {json_object_get(args, "keys"), json_array()};
	int rc = 0;

	json_object_set_new(res, "pages", r.pages);
	if (!json_is_array(r.keys))
		return cg_err_set(err, CG_EINVAL,
		                  "claims: keys must be an "
		                  "array of strings");
	for (size_t i = 0; i < cg_node_nsources(n) && rc == 0; i++)
		if (cg_node_in_scope(args, cg_node_source_name(n, i)))
			rc = cg_node_run(cg_node_index(n, i), claims_one, &r,
			                 err);
	return rc;
}
