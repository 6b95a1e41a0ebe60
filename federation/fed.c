/*
 * fed.c - fan-out, merge and the receipt.  Owns no index: everything it
 * knows comes from node replies, so the same code serves the embedded CLI
 * and the gateway.  It must not wait on a node past the deadline, drop a
 * conflicting page, or let one source's size crowd another out (every
 * source returns its own top hits; the merge ranks them on global scores).
 */
#include "federation/fed.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "common/cg_time.h"
#include "federation/conflict.h"
#include "federation/fed_corpus.h"
#include "page/query.h"
#include "proto/acl.h"
#include "proto/stats.h"
#include "proto/wire.h"

#define FED_DEFAULT_LIMIT 20
#define FED_MAX_LIMIT     500

struct cg_fed {
	char *workspace;
	cg_fed_node *nodes; /* names and sources point into strs */
	size_t nnodes;
	cg_fed_broadcast_fn broadcast;
	void *ctx;
	int deadline_ms;
	json_t *strs;         /* owns every string of nodes[] */
	atomic_llong next_id; /* request ids; broadcasts run concurrently */
	const cg_acl *acl;    /* a view's access policy, sent to every node */
	int is_view;          /* shares everything above with its base */
};

/* One round: per node, the reply's result or why there is none. */
struct round {
	json_t **reqs;
	json_t **replies;
	cg_err *errs;
	size_t n;
	double ms; /* wall time of the broadcast */
};

int
cg_fed_new(cg_fed **out, const cg_fed_opts *o, cg_err *err)
{
	cg_fed *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (f == NULL)
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	f->workspace = strdup(o->workspace);
	f->nodes = calloc(o->nnodes ? o->nnodes : 1, sizeof(*f->nodes));
	f->strs = json_array();
	if (f->workspace == NULL || f->nodes == NULL || f->strs == NULL) {
		cg_fed_free(f);
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	}
	for (size_t i = 0; i < o->nnodes; i++) {
		json_t *names = json_array();
		const char **v = calloc(o->nodes[i].nsources + 1, sizeof(*v));
		json_t *nm = json_string(o->nodes[i].name);
		json_t *ws =
		    json_string(o->nodes[i].workspace ? o->nodes[i].workspace
		                                      : o->workspace);

		json_array_append_new(f->strs, nm);
		json_array_append_new(f->strs, ws);
		f->nodes[i].workspace = json_string_value(ws);
		json_array_append_new(f->strs, names);
		for (size_t k = 0; v != NULL && k < o->nodes[i].nsources; k++) {
			json_t *s = json_string(o->nodes[i].sources[k]);

			json_array_append_new(names, s);
			v[k] = json_string_value(s);
		}
		f->nodes[i].name = json_string_value(nm);
		f->nodes[i].sources = v;
		f->nodes[i].nsources = v ? o->nodes[i].nsources : 0;
	}
	f->nnodes = o->nnodes;
	f->broadcast = o->broadcast;
	f->ctx = o->ctx;
	f->deadline_ms = o->deadline_ms > 0 ? o->deadline_ms : 800;
	*out = f;
	return 0;
}

int
cg_fed_view_new(cg_fed **out, const cg_fed *base, const cg_acl *acl,
                cg_err *err)
{
	cg_fed *v = malloc(sizeof(*v));

	*out = NULL;
	if (v == NULL)
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	memcpy(v, base, sizeof(*v));
	atomic_init(&v->next_id, 0);
	v->acl = acl;
	v->is_view = 1;
	*out = v;
	return 0;
}

void
cg_fed_free(cg_fed *f)
{
	if (f == NULL)
		return;
	if (f->is_view) {
		free(f);
		return;
	}
	for (size_t i = 0; f->nodes != NULL && i < f->nnodes; i++)
		free((void *)f->nodes[i].sources);
	free(f->nodes);
	json_decref(f->strs);
	free(f->workspace);
	free(f);
}

/* --- scope ------------------------------------------------------------ */

/* True when scope name want ("source" or "workspace/source") names
 * source src of node n. */
static bool
scope_match(const cg_fed_node *n, const char *src, const char *want)
{
	const char *slash = strchr(want, '/');
	size_t lw;

	if (slash == NULL)
		return strcmp(src, want) == 0;
	lw = (size_t)(slash - want);
	return strlen(n->workspace) == lw &&
	       strncmp(n->workspace, want, lw) == 0 &&
	       strcmp(src, slash + 1) == 0;
}

static bool
node_has(const cg_fed_node *n, const char *want)
{
	for (size_t k = 0; k < n->nsources; k++)
		if (scope_match(n, n->sources[k], want))
			return true;
	return false;
}

static void
valid_sources(const cg_fed *f, cg_buf *b)
{
	for (size_t i = 0; i < f->nnodes; i++)
		for (size_t k = 0; k < f->nodes[i].nsources; k++)
			(void)cg_buf_printf(b, "%s%s/%s", b->len ? ", " : "",
			                    f->nodes[i].workspace,
			                    f->nodes[i].sources[k]);
}

/* Per node: a new array of the sources in scope, or NULL to skip it. */
static int
resolve_scope(const cg_fed *f, const cg_search_req *r, json_t **scope,
              cg_err *err)
{
	for (size_t s = 0; s < r->nsources; s++) {
		bool found = false;

		for (size_t i = 0; i < f->nnodes && !found; i++)
			found = node_has(&f->nodes[i], r->sources[s]);
		if (!found) {
			cg_buf b;
			int rc;

			cg_buf_init(&b, 8192);
			valid_sources(f, &b);
			rc = cg_err_set(err, CG_EINVAL,
			                "unknown source '%s' (valid: %s)",
			                r->sources[s], cg_buf_str(&b));
			cg_buf_fini(&b);
			return rc;
		}
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		json_t *a = json_array();

		for (size_t k = 0; k < f->nodes[i].nsources; k++) {
			bool in = r->nsources == 0;

			for (size_t s = 0; s < r->nsources && !in; s++)
				in = scope_match(&f->nodes[i],
				                 f->nodes[i].sources[k],
				                 r->sources[s]);
			if (in)
				json_array_append_new(
				    a, json_string(f->nodes[i].sources[k]));
		}
		if (json_array_size(a) == 0) {
			json_decref(a);
			a = NULL;
		}
		scope[i] = a;
	}
	return 0;
}

/* --- rounds ------------------------------------------------------------ */

static void
round_fini(struct round *r)
{
	for (size_t i = 0; i < r->n; i++) {
		json_decref(r->reqs[i]);
		json_decref(r->replies[i]);
	}
	free(r->reqs);
	free(r->replies);
	free(r->errs);
}

/* The deadline of a round: a query round gets the configured one (well
 * under a second); grep reads every page file and sync may index a whole
 * wiki, so they get longer ones (they are not interactive queries). */
static int
op_deadline(const cg_fed *f, const char *op)
{
	if (strcmp(op, "sync") == 0)
		return CG_FED_SYNC_DEADLINE_MS;
	if (strcmp(op, "grep") == 0 && f->deadline_ms < CG_FED_GREP_DEADLINE_MS)
		return CG_FED_GREP_DEADLINE_MS;
	return f->deadline_ms;
}

/* Sends op with args (borrowed; "sources" set per node from scope) to
 * every node in scope. */
static int
round_run(cg_fed *f, struct round *r, const char *op, const json_t *args,
          json_t *const *scope, cg_err *err)
{
	r->n = f->nnodes;
	r->reqs = calloc(r->n ? r->n : 1, sizeof(*r->reqs));
	r->replies = calloc(r->n ? r->n : 1, sizeof(*r->replies));
	r->errs = calloc(r->n ? r->n : 1, sizeof(*r->errs));
	if (r->reqs == NULL || r->replies == NULL || r->errs == NULL)
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	for (size_t i = 0; i < r->n; i++) {
		json_t *a;

		if (scope[i] == NULL)
			continue;
		a = json_deep_copy(args);
		json_object_set(a, "sources", scope[i]);
		if (cg_acl_active(f->acl))
			json_object_set_new(
			    a, "acl",
			    cg_acl_json(f->acl, f->nodes[i].workspace));
		r->reqs[i] = cg_wire_request(
		    (int64_t)atomic_fetch_add(&f->next_id, 1) + 1, op,
		    op_deadline(f, op), a);
	}
	r->ms = cg_mono_ms_f();
	f->broadcast(f->ctx, r->reqs, r->replies, r->errs, r->n,
	             op_deadline(f, op));
	r->ms = cg_mono_ms_f() - r->ms;
	return 0;
}

/* The result of node i, or NULL; records the outcome in nodes_out. */
static const json_t *
round_result(const struct round *r, size_t i, int *code, const char **msg)
{
	const json_t *rep = r->replies[i];

	*code = 0;
	*msg = "ok";
	if (r->reqs[i] == NULL)
		return NULL;
	if (rep == NULL) {
		*code = r->errs[i].code ? r->errs[i].code : CG_EUNAVAIL;
		*msg = r->errs[i].msg[0] ? r->errs[i].msg : "no reply";
		return NULL;
	}
	if (json_is_true(json_object_get(rep, "ok")) &&
	    json_is_object(json_object_get(rep, "result")))
		return json_object_get(rep, "result");
	/* An error reply: the node's own code and words. */
	*code = cg_code_from_name(json_string_value(
	    json_object_get(json_object_get(rep, "error"), "code")));
	*msg = json_string_value(
	    json_object_get(json_object_get(rep, "error"), "message"));
	if (*msg == NULL) {
		*code = CG_EPROTO;
		*msg = "bad reply";
	}
	return NULL;
}

/* --- search ------------------------------------------------------------ */

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
account(struct search_ctx *c, const struct round *r, const char *op)
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

static int
stats_round(struct search_ctx *c, cg_gstats *g, cg_err *err)
{
	struct round r = {0};
	json_t *args = json_pack("{s:s}", "q", c->req->text);
	int rc = round_run(c->f, &r, "stats", args, c->scope, err);

	memset(g, 0, sizeof(*g));
	g->nterms = c->q.n;
	for (size_t i = 0; rc == 0 && i < r.n; i++) {
		int code;
		const char *msg;
		const json_t *res = round_result(&r, i, &code, &msg);
		cg_gstats s;

		if (code == CG_EINVAL) {
			rc = cg_err_set(err, CG_EINVAL, "%s", msg);
			break;
		}
		retire(c, i, code, msg);
		if (res != NULL &&
		    cg_gstats_from_json(&s, json_object_get(res, "stats"),
		                        c->q.n) == 0)
			cg_gstats_add(g, &s);
	}
	if (rc == 0)
		account(c, &r, "stats");
	json_decref(args);
	round_fini(&r);
	return rc;
}

/* Adds workspace and uri to an item a node returned (source + path). */
void
cg_fed_tag(json_t *h, const char *ws)
{
	char uri[4096];

	(void)snprintf(uri, sizeof(uri), "cg://%s/%s/%s", ws,
	               json_string_value(json_object_get(h, "source")),
	               json_string_value(json_object_get(h, "path")));
	json_object_set_new(h, "uri", json_string(uri));
	json_object_set_new(h, "workspace", json_string(ws));
}

static void
tag_item(const cg_fed *f, size_t node, json_t *h)
{
	cg_fed_tag(h, f->nodes[node].workspace);
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
		tag_item(c->f, node, h);
		json_array_append(hits, h);
	}
	if (json_is_true(json_object_get(res, "corpora")))
		c->corpora = true;
	json_array_foreach(json_object_get(res, "followups"), k, h) {
		if (json_is_string(json_object_get(h, "path")) &&
		    json_is_string(json_object_get(h, "source")))
			tag_item(c->f, node, h);
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
	struct round r = {0};
	json_t *args = json_pack("{s:s, s:o, s:i, s:b}", "q", c->req->text,
	                         "filters", cg_filters_json(&c->req->filters),
	                         "limit", c->limit, "explain", c->req->explain);
	int rc;

	if (c->q.n > 0)
		json_object_set_new(args, "stats", cg_gstats_json(g));
	rc = round_run(c->f, &r, "search", args, c->scope, err);
	for (size_t i = 0; rc == 0 && i < r.n; i++) {
		int code;
		const char *msg;
		const json_t *res = round_result(&r, i, &code, &msg);

		if (code == CG_EINVAL) {
			rc = cg_err_set(err, CG_EINVAL, "%s", msg);
			break;
		}
		retire(c, i, code, msg);
		if (res != NULL)
			take_search_result(c, i, res, hits);
	}
	if (rc == 0)
		account(c, &r, "search");
	json_decref(args);
	round_fini(&r);
	return rc;
}

static double
num(const json_t *h, const char *k)
{
	return json_number_value(json_object_get(h, k));
}

static const char *
s_of(const json_t *h, const char *k)
{
	const char *s = json_string_value(json_object_get(h, k));

	return s ? s : "";
}

static int
conf_rank(const char *c)
{
	return strcmp(c, "high") == 0     ? 3
	       : strcmp(c, "medium") == 0 ? 2
	       : strcmp(c, "low") == 0    ? 1
	                                  : 0;
}

/* SPEC 4.1 order: class, score, updated_at, confidence; uri last. */
static int
cmp_hits(const void *pa, const void *pb)
{
	const json_t *a = *(json_t *const *)pa;
	const json_t *b = *(json_t *const *)pb;
	double d;
	int c;

	d = num(b, "match_rank") - num(a, "match_rank");
	if (d != 0)
		return d > 0 ? 1 : -1;
	d = num(b, "score") - num(a, "score");
	if (d > 1e-9 || d < -1e-9)
		return d > 0 ? 1 : -1;
	c = strcmp(s_of(b, "updated_at"), s_of(a, "updated_at"));
	if (c != 0)
		return c;
	c = conf_rank(s_of(b, "confidence")) - conf_rank(s_of(a, "confidence"));
	if (c != 0)
		return c;
	return strcmp(s_of(a, "uri"), s_of(b, "uri"));
}

/* Sorts and cuts to the limit; returns a new array. */
static json_t *
merge(json_t *hits, int limit)
{
	size_t n = json_array_size(hits);
	json_t **v = calloc(n ? n : 1, sizeof(*v));
	json_t *out = json_array();

	for (size_t i = 0; v != NULL && i < n; i++)
		v[i] = json_array_get(hits, i);
	if (v != NULL)
		qsort(v, n, sizeof(*v), cmp_hits);
	for (size_t i = 0; v != NULL && i < n && i < (size_t)limit; i++)
		json_array_append(out, v[i]);
	free(v);
	return out;
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
	rc = resolve_scope(c->f, r, c->scope, err);
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
	struct round r = {0};
	json_t *args = json_object();
	int rc = round_run(c->f, &r, "sync", args, c->scope, err);

	for (size_t i = 0; rc == 0 && i < r.n; i++) {
		int code;
		const char *msg;

		const json_t *res = round_result(&r, i, &code, &msg);

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
	round_fini(&r);
	return rc;
}

/* Every page (in scope) sharing a claim key with a hit, tagged. */
static json_t *
claims_round(struct search_ctx *c, const json_t *hits)
{
	json_t *keys = json_array();
	json_t *pages = json_array();
	struct round r = {0};
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
	if (round_run(c->f, &r, "claims", args, c->scope, NULL) == 0) {
		for (i = 0; i < r.n; i++) {
			int code;
			const char *msg;
			const json_t *res = round_result(&r, i, &code, &msg);
			size_t k;
			json_t *p;

			retire(c, i, code, msg);
			json_array_foreach(json_object_get(res, "pages"), k,
			                   p) {
				tag_item(c->f, i, p);
				json_array_append(pages, p);
			}
		}
		account(c, &r, "claims");
	}
	json_decref(args);
	round_fini(&r);
	return pages;
}

static void
add_followup(json_t *fu, const char *kind, const char *uri, const char *msg)
{
	json_array_append_new(fu, json_pack("{s:s, s:s?, s:s}", "kind", kind,
	                                    "uri", uri, "message", msg));
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
		               s_of(cf, "title"), s_of(cf, "winner"),
		               s_of(cf, "resolution"));
		add_followup(fu, "conflict", s_of(cf, "winner"), msg);
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
		degraded |= strcmp(s_of(v, "outcome"), "ok") != 0;
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
cg_fed_search(cg_fed *f, const cg_search_req *req, json_t **out, cg_err *err)
{
	struct search_ctx c;
	cg_gstats g;
	json_t *all = json_array();
	json_t *hits = NULL;
	json_t *graph = NULL;
	int rc;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	c.f = f;
	c.req = req;
	rc = fed_search_prepare(&c, err);
	if (rc == 0 && req->sync)
		rc = fed_sync_scope(&c, err);
	if (rc == 0 && c.q.n > 0)
		rc = stats_round(&c, &g, err);
	if (rc == 0 && !c.no_terms)
		rc = search_round(&c, &g, all, err);
	if (rc == 0 && c.corpora)
		cg_fed_corpus_route(f, req, all, &graph);
	if (rc == 0) {
		hits = merge(all, c.limit);
		*out = fed_answer(&c, hits, err);
		if (*out == NULL)
			rc = cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	}
	if (rc == 0 && c.corpora)
		json_object_set_new(
		    *out, "related",
		    cg_fed_corpus_related(f, req, graph,
		                          json_object_get(*out, "hits")));
	json_decref(graph);
	json_decref(hits);
	json_decref(all);
	fed_search_fini(&c);
	return rc;
}

int
cg_fed_sync(cg_fed *f, json_t **out, cg_err *err)
{
	cg_search_req req = {0};
	struct search_ctx c;
	struct round r = {0};
	json_t *args = json_object();
	int rc;

	*out = NULL;
	memset(&c, 0, sizeof(c));
	c.f = f;
	c.req = &req;
	c.scope = calloc(f->nnodes ? f->nnodes : 1, sizeof(json_t *));
	if (c.scope == NULL) {
		json_decref(args);
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	}
	if (f->nnodes == 0) {
		json_decref(args);
		free(c.scope);
		return cg_err_set(err, CG_ENOPROV,
		                  "nothing provisioned to index: no wiki "
		                  "found (expected .guild/wiki/ in the "
		                  "workspace or its sub-guilds)");
	}
	rc = resolve_scope(f, &req, c.scope, err);
	if (rc == 0)
		rc = round_run(f, &r, "sync", args, c.scope, err);
	if (rc == 0) {
		*out = json_object();
		for (size_t i = 0; i < r.n; i++) {
			int code;
			const char *msg;
			const json_t *res = round_result(&r, i, &code, &msg);

			if (res != NULL)
				json_object_update(
				    *out, json_object_get(res, "sources"));
			else if (code != 0 && rc == 0)
				rc = cg_err_set(err, code, "node %s: %s",
				                f->nodes[i].name, msg);
		}
	}
	round_fini(&r);
	json_decref(args);
	for (size_t i = 0; i < f->nnodes; i++)
		json_decref(c.scope[i]);
	free(c.scope);
	return rc;
}

const char *
cg_fed_workspace(const cg_fed *f)
{
	return f->workspace;
}

/* Adds node i's outcome (and result) to the answer of cg_fed_call. */
static int
call_collect(const cg_fed *f, const struct round *r, size_t i,
             json_t *const *scope, json_t *nodes, cg_err *err)
{
	int code;
	const char *msg;
	const json_t *res;
	json_t *n;

	if (scope[i] == NULL)
		return 0;
	res = round_result(r, i, &code, &msg);
	if (code == CG_EINVAL)
		return cg_err_set(err, CG_EINVAL, "%s", msg);
	n = json_pack("{s:s, s:s, s:O, s:s}", "node", f->nodes[i].name,
	              "workspace", f->nodes[i].workspace, "sources", scope[i],
	              "outcome", msg);
	if (code != 0)
		json_object_set_new(n, "code", json_string(cg_code_name(code)));
	if (res != NULL)
		json_object_set(n, "result", (json_t *)res);
	json_array_append_new(nodes, n);
	return 0;
}

int
cg_fed_call(cg_fed *f, const char *op, const json_t *args,
            const char *const *sources, size_t nsources, json_t **out,
            cg_err *err)
{
	cg_search_req req = {0};
	struct round r = {0};
	json_t **scope = calloc(f->nnodes ? f->nnodes : 1, sizeof(*scope));
	json_t *nodes = json_array();
	json_t *empty = json_object();
	int degraded = 0;
	int rc;

	*out = NULL;
	if (scope == NULL) {
		json_decref(nodes);
		json_decref(empty);
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	}
	req.sources = sources;
	req.nsources = nsources;
	rc = f->nnodes == 0
	         ? cg_err_set(err, CG_ENOPROV,
	                      "nothing provisioned: no wiki found (expected "
	                      ".guild/wiki/ in the workspace or its "
	                      "sub-guilds)")
	         : resolve_scope(f, &req, scope, err);
	if (rc == 0)
		rc = round_run(f, &r, op, args ? args : empty, scope, err);
	for (size_t i = 0; rc == 0 && i < r.n; i++)
		rc = call_collect(f, &r, i, scope, nodes, err);
	if (rc == 0) {
		size_t i;
		const json_t *n;

		json_array_foreach(nodes, i, n)
			degraded |= json_object_get(n, "result") == NULL;
		*out = json_pack("{s:O, s:b}", "nodes", nodes, "degraded",
		                 degraded);
	}
	round_fini(&r);
	json_decref(nodes);
	json_decref(empty);
	for (size_t i = 0; i < f->nnodes; i++)
		json_decref(scope[i]);
	free(scope);
	return rc;
}
