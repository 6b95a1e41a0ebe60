/*
 * node.c - the request handler of a node.  It decodes a request, checks
 * its version and arguments, runs the operation over the node's sources
 * and encodes the reply.  It never trusts a request: unknown operations,
 * wrong versions and malformed arguments get an error reply, and an index
 * found corrupt is rebuilt once before the operation is retried.
 */
#include "node/node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cg_time.h"
#include "index/index.h"
#include "index/search.h"
#include "node/tools_corpus.h"
#include "node/tools_page.h"
#include "node/tools_walk.h"
#include "page/query.h"
#include "proto/acl.h"
#include "proto/wire.h"

struct src {
	char *name;
	cg_index *idx;
};

struct cg_node {
	int64_t expires_ms; /* monotonic ms when the current request's
	                       deadline passes, 0: none */
	char *name;
	struct src *src;
	size_t nsrc;
	json_t *memo;      /* derived data kept between requests, or NULL */
	uint64_t memo_sig; /* what it was derived from */
};

int
cg_node_new(cg_node **out, const cg_node_opts *o, cg_err *err)
{
	cg_node *n = calloc(1, sizeof(*n));
	int rc = 0;

	*out = NULL;
	if (n == NULL || (n->name = strdup(o->name)) == NULL ||
	    (n->src = calloc(o->nsources ? o->nsources : 1, sizeof(*n->src))) ==
	        NULL) {
		cg_node_free(n);
		return cg_err_set(err, CG_ENOMEM, "node: out of memory");
	}
	for (size_t i = 0; i < o->nsources && rc == 0; i++) {
		cg_index_opts io = {o->cache_dir, &o->sources[i]};

		n->src[i].name = strdup(o->sources[i].name);
		if (n->src[i].name == NULL)
			rc = cg_err_set(err, CG_ENOMEM, "node: out of memory");
		else
			rc = cg_index_open(&n->src[i].idx, &io, err);
		n->nsrc++;
	}
	if (rc != 0) {
		cg_node_free(n);
		return rc;
	}
	*out = n;
	return 0;
}

void
cg_node_free(cg_node *n)
{
	if (n == NULL)
		return;
	for (size_t i = 0; i < n->nsrc; i++) {
		free(n->src[i].name);
		cg_index_free(n->src[i].idx);
	}
	free(n->src);
	free(n->name);
	json_decref(n->memo);
	free(n);
}

json_t *
cg_node_memo(cg_node *n, uint64_t sig)
{
	return n->memo != NULL && n->memo_sig == sig ? n->memo : NULL;
}

void
cg_node_memo_set(cg_node *n, uint64_t sig, json_t *v)
{
	json_decref(n->memo);
	n->memo = v;
	n->memo_sig = sig;
}

const char *
cg_node_name(const cg_node *n)
{
	return n->name;
}

size_t
cg_node_nsources(const cg_node *n)
{
	return n->nsrc;
}

const char *
cg_node_source_name(const cg_node *n, size_t i)
{
	return i < n->nsrc ? n->src[i].name : NULL;
}

cg_index *
cg_node_index(cg_node *n, size_t i)
{
	return i < n->nsrc ? n->src[i].idx : NULL;
}

cg_index *
cg_node_find(cg_node *n, const char *name)
{
	for (size_t i = 0; name != NULL && i < n->nsrc; i++)
		if (strcmp(n->src[i].name, name) == 0)
			return n->src[i].idx;
	return NULL;
}

/* --- helpers --------------------------------------------------------- */

/* True when source i is in the request's "sources" scope (all when the
 * argument is absent). */
bool
cg_node_expired(const cg_node *n)
{
	return n->expires_ms > 0 && cg_mono_ms() >= n->expires_ms;
}

bool
cg_node_in_scope(const json_t *args, const char *name)
{
	const json_t *scope = json_object_get(args, "sources");
	size_t i;
	const json_t *s;

	if (!json_is_array(scope))
		return true;
	json_array_foreach(scope, i, s)
		if (json_is_string(s) &&
		    strcmp(json_string_value(s), name) == 0)
			return true;
	return false;
}

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

/* Parses args.q (a string, may be absent) into q. */
static int
args_query(const json_t *args, cg_query *q, cg_err *err)
{
	const json_t *t = json_object_get(args, "q");

	if (t != NULL && !json_is_string(t))
		return cg_err_set(err, CG_EINVAL, "q must be a string");
	return cg_query_parse(q, t ? json_string_value(t) : "", err);
}

/* --- operations ------------------------------------------------------ */

static int
op_sync(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	json_t *per = json_object();
	int first = 0;

	/* One source that cannot sync (a corpus index that does not parse)
	 * keeps its last index and does not hold the others back; the
	 * first failure is the reply. */
	json_object_set_new(res, "sources", per);
	for (size_t i = 0; i < n->nsrc; i++) {
		cg_sync_stats st;
		int rc;

		if (!cg_node_in_scope(args, n->src[i].name))
			continue;
		rc = first == 0 ? cg_index_sync(n->src[i].idx, &st, err)
		                : cg_index_sync(n->src[i].idx, &st, NULL);
		if (rc == 0)
			json_object_set_new(per, n->src[i].name,
			                    sync_json(&st));
		else if (first == 0)
			first = rc;
	}
	return first;
}

/* A source can answer once a first generation exists. */
int
cg_node_ready(cg_index *idx, cg_err *err)
{
	if (cg_index_db(idx) != NULL)
		return 0;
	return cg_err_set(err, CG_EUNAVAIL,
	                  "source %s: index not built yet (first indexing "
	                  "in progress)",
	                  cg_index_source(idx));
}

/* Runs fn on a source; when it reports corruption, rebuilds the index
 * and runs it once more. */
#define WITH_REBUILD(idx, err, call)                                     \
	do {                                                             \
		rc = cg_node_ready((idx), (err));                        \
		if (rc == 0)                                             \
			rc = (call);                                     \
		if (rc == CG_ECORRUPT) {                                 \
			cg_sync_stats rst_;                              \
			cg_err_clear(err);                               \
			rc = cg_index_rebuild((idx), "corrupt at query", \
			                      &rst_, (err));             \
			if (rc == 0)                                     \
				rc = (call);                             \
		}                                                        \
	} while (0)

static int
op_stats(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	cg_query q;
	cg_gstats sum;
	int rc = args_query(args, &q, err);

	if (rc != 0)
		return rc;
	memset(&sum, 0, sizeof(sum));
	sum.nterms = q.n;
	for (size_t i = 0; i < n->nsrc && rc == 0; i++) {
		cg_gstats st;

		if (!cg_node_in_scope(args, n->src[i].name))
			continue;
		WITH_REBUILD(n->src[i].idx, err,
		             cg_search_stats(n->src[i].idx, &q, &st, err));
		if (rc == 0)
			cg_gstats_add(&sum, &st);
	}
	if (rc == 0)
		json_object_set_new(res, "stats", cg_gstats_json(&sum));
	cg_query_fini(&q);
	return rc;
}

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

static int
op_search(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	cg_query q;
	cg_filters f;
	cg_gstats g;
	cg_search_opts o;
	json_t *hits = json_array();
	json_t *per = json_object();
	json_t *fu = json_array();
	int rc = args_query(args, &q, err);

	json_object_set_new(res, "hits", hits);
	json_object_set_new(res, "per_source", per);
	json_object_set_new(res, "followups", fu);
	for (size_t i = 0; i < n->nsrc; i++)
		if (cg_index_kind(n->src[i].idx) != 0 &&
		    cg_node_in_scope(args, n->src[i].name))
			json_object_set_new(res, "corpora", json_true());
	if (rc != 0)
		return rc;
	memset(&g, 0, sizeof(g));
	rc = search_args(args, &q, &f, &g, &o, err);
	for (size_t i = 0; i < n->nsrc && rc == 0; i++) {
		int64_t walked = 0;
		size_t before = json_array_size(hits);
		size_t fu_before = json_array_size(fu);

		if (!cg_node_in_scope(args, n->src[i].name))
			continue;
		WITH_REBUILD(
		    n->src[i].idx, err,
		    cg_search_run(n->src[i].idx, &o, hits, fu, &walked, err));
		for (size_t k = fu_before; k < json_array_size(fu); k++)
			if (json_object_get(json_array_get(fu, k), "source") ==
			    NULL)
				json_object_set_new(
				    json_array_get(fu, k), "source",
				    json_string(n->src[i].name));
		if (rc == 0)
			problem_followups(n->src[i].idx, fu, 20);
		json_object_set_new(
		    per, n->src[i].name,
		    json_pack("{s:I, s:I}", "candidates", (json_int_t)walked,
		              "hits",
		              (json_int_t)(json_array_size(hits) - before)));
	}
	cg_query_fini(&q);
	return rc;
}

static int
op_claims(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	const json_t *keys = json_object_get(args, "keys");
	json_t *pages = json_array();
	int rc = 0;

	json_object_set_new(res, "pages", pages);
	if (!json_is_array(keys))
		return cg_err_set(err, CG_EINVAL,
		                  "claims: keys must be an "
		                  "array of strings");
	for (size_t i = 0; i < n->nsrc && rc == 0; i++)
		if (cg_node_in_scope(args, n->src[i].name))
			WITH_REBUILD(
			    n->src[i].idx, err,
			    cg_search_claims(n->src[i].idx, keys, pages, err));
	return rc;
}

static int
op_problems(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	json_t *all = json_array();

	json_object_set_new(res, "problems", all);
	for (size_t i = 0; i < n->nsrc; i++) {
		json_t *p;
		size_t k;
		json_t *item;

		if (!cg_node_in_scope(args, n->src[i].name))
			continue;
		p = cg_index_problems(n->src[i].idx);
		json_array_foreach(p, k, item) {
			json_object_set_new(item, "source",
			                    json_string(n->src[i].name));
			json_array_append(all, item);
		}
		json_decref(p);
	}
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(cg_node *, const json_t *, json_t *, cg_err *);
} ops[] = {
    {"sync", op_sync},
    {"stats", op_stats},
    {"search", op_search},
    {"claims", op_claims},
    {"problems", op_problems},
    {"read", cg_tool_read},
    {"peek", cg_tool_peek},
    {"links", cg_tool_links},
    {"backlinks", cg_tool_backlinks},
    {"resolve", cg_tool_resolve},
    {"list", cg_walk_list},
    {"map", cg_walk_map},
    {"grep", cg_walk_grep},
    {"status", cg_walk_status},
    {"concept", cg_op_concept},
    {"corpus_graph", cg_op_corpus_graph},
};

/* {source: generation} of every source, after following CURRENT. */
static json_t *
generations(cg_node *n)
{
	json_t *g = json_object();

	for (size_t i = 0; i < n->nsrc; i++) {
		cg_index_refresh(n->src[i].idx);
		json_object_set_new(
		    g, n->src[i].name,
		    json_integer(cg_index_generation(n->src[i].idx)));
	}
	return g;
}

/* Runs an operation under the request's access policy (args.acl): every
 * index answers only about the pages the caller may see. */
static int
run_op(cg_node *n, int (*fn)(cg_node *, const json_t *, json_t *, cg_err *),
       const json_t *args, json_t *res, cg_err *err)
{
	cg_acl acl;
	int rc;

	if (cg_acl_from_json(&acl, json_object_get(args, "acl")) != 0)
		return cg_err_set(err, CG_EINVAL,
		                  "acl must be {workspace, allow: [globs], "
		                  "deny: [globs]}");
	for (size_t i = 0; i < n->nsrc; i++) {
		cg_index_set_acl(n->src[i].idx,
		                 cg_acl_active(&acl) ? &acl : NULL);
		/* One read transaction per request, not one per statement:
		 * a consistent snapshot, and the locks are taken once. */
		if (fn != op_sync && cg_index_db(n->src[i].idx) != NULL)
			(void)sqlite3_exec(cg_index_db(n->src[i].idx), "BEGIN",
			                   NULL, NULL, NULL);
	}
	rc = fn(n, args, res, err);
	for (size_t i = 0; i < n->nsrc; i++) {
		sqlite3 *db = cg_index_db(n->src[i].idx);

		cg_index_set_acl(n->src[i].idx, NULL);
		cg_index_stmts_reset(n->src[i].idx);
		if (db != NULL && !sqlite3_get_autocommit(db))
			(void)sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	}
	cg_acl_fini(&acl);
	return rc;
}

static json_t *
reply_error(const cg_node *n, const json_t *id, int code, const char *msg)
{
	return cg_wire_reply_error(n->name, id, code, msg);
}

json_t *
cg_node_handle(cg_node *n, const json_t *req)
{
	json_t *id = json_object_get(req, "id");
	const json_t *v = json_object_get(req, "v");
	const char *op = json_string_value(json_object_get(req, "op"));
	const json_t *args = json_object_get(req, "args");
	json_t *res;
	cg_err err;
	double t0;
	int rc;

	if (!json_is_object(req))
		return reply_error(n, NULL, CG_EPROTO,
		                   "request is not an object");
	if (!json_is_integer(v) || json_integer_value(v) != CG_PROTO_VERSION)
		return reply_error(n, id, CG_EPROTO,
		                   "unsupported protocol version (this node "
		                   "speaks v1)");
	if (args != NULL && !json_is_object(args))
		return reply_error(n, id, CG_EINVAL, "args must be an object");
	for (size_t i = 0; op != NULL && i < sizeof(ops) / sizeof(ops[0]);
	     i++) {
		if (strcmp(op, ops[i].name) != 0)
			continue;
		json_t *gen = generations(n);
		const json_t *dl = json_object_get(req, "deadline_ms");

		n->expires_ms =
		    json_is_integer(dl) && json_integer_value(dl) > 0
		        ? cg_mono_ms() + json_integer_value(dl)
		        : 0;
		cg_err_clear(&err);
		res = json_object();
		t0 = cg_mono_ms_f();
		rc = run_op(n, ops[i].fn, args, res, &err);
		if (rc != 0) {
			json_decref(res);
			json_decref(gen);
			return reply_error(
			    n, id, rc, err.msg[0] ? err.msg : cg_code_name(rc));
		}
		if (strcmp(op, "sync") == 0) {
			json_decref(gen);
			gen = generations(n);
		}
		/* ms: this node's own handling time, for the evidence. */
		return cg_wire_reply_ok(n->name, id, gen, res,
		                        cg_mono_ms_f() - t0);
	}
	return reply_error(n, id, CG_EINVAL,
	                   "unknown operation (valid: sync, stats, search, "
	                   "claims, problems, read, peek, links, "
	                   "backlinks, resolve, list, map, grep, status)");
}
