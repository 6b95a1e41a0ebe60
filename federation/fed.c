/*
 * fed.c - the federation core: the roster of nodes, caller views, one
 * round (a request to every node in scope, each node's result or why
 * there is none), cg_fed_call on top of it, uri tagging and sync.  Owns
 * no index: everything it knows comes from node replies, so the same code
 * serves the embedded CLI and the gateway.  It must not wait on a node
 * past the round's deadline, and must not know a transport (the roster's
 * broadcast function sends).  The search (fed_search.c) and the tools
 * (fed_page.c, fed_links.c, fed_walk.c, fed_corpus.c) are built on it.
 * A view scopes to the sources its caller can see (proto/acl.h,
 * cg_acl_sees_source): a hidden source is neither asked nor named, in
 * answers or in errors, exactly like one that does not exist.
 */
#include "federation/fed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "common/cg_time.h"
#include "federation/fed_int.h"
#include "federation/uri.h"
#include "proto/acl.h"
#include "proto/wire.h"

int
cg_fed_new(cg_fed **out, const cg_fed_opts *opts, cg_err *err)
{
	cg_fed *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (f == NULL)
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	f->workspace = strdup(opts->workspace);
	f->nodes = calloc(opts->nnodes ? opts->nnodes : 1, sizeof(*f->nodes));
	f->strs = json_array();
	if (f->workspace == NULL || f->nodes == NULL || f->strs == NULL) {
		cg_fed_free(f);
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	}
	for (size_t i = 0; i < opts->nnodes; i++) {
		json_t *names = json_array();
		const char **v =
		    calloc(opts->nodes[i].nsources + 1, sizeof(*v));
		json_t *nm = json_string(opts->nodes[i].name);
		json_t *ws = json_string(opts->nodes[i].workspace
		                             ? opts->nodes[i].workspace
		                             : opts->workspace);

		/* Every string is handed to f->strs before it is checked,
		 * each append tried even after one failed (a failed append
		 * frees its value; a skipped one would leak it), so
		 * cg_fed_free releases what this node got so far. */
		int bad = json_array_append_new(f->strs, nm) != 0;

		bad |= json_array_append_new(f->strs, ws) != 0;
		bad |= json_array_append_new(f->strs, names) != 0;
		bad |= nm == NULL || ws == NULL || names == NULL || v == NULL;

		f->nodes[i].workspace = json_string_value(ws);
		for (size_t k = 0; !bad && k < opts->nodes[i].nsources; k++) {
			json_t *s = json_string(opts->nodes[i].sources[k]);

			bad = json_array_append_new(names, s) != 0;
			v[k] = json_string_value(s);
		}
		f->nodes[i].name = json_string_value(nm);
		f->nodes[i].sources = v;
		f->nodes[i].nsources = v ? opts->nodes[i].nsources : 0;
		if (bad) {
			f->nnodes = i + 1;
			cg_fed_free(f);
			return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
		}
	}
	f->nnodes = opts->nnodes;
	f->broadcast = opts->broadcast;
	f->ctx = opts->ctx;
	f->deadline_ms = opts->deadline_ms > 0 ? opts->deadline_ms : 800;
	f->stats = cg_fed_stats_new();
	if (f->stats == NULL ||
	    cg_gate_new(&f->grep_gate, "grep", CG_GREP_SLOTS, CG_GREP_QUEUE,
	                CG_GREP_WAIT_MS, NULL) != 0) {
		cg_fed_free(f);
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	}
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

cg_gate *
cg_fed_grep_gate(const cg_fed *fed)
{
	return fed->grep_gate;
}

void
cg_fed_free(cg_fed *fed)
{
	if (fed == NULL)
		return;
	if (fed->is_view) {
		free(fed);
		return;
	}
	for (size_t i = 0; fed->nodes != NULL && i < fed->nnodes; i++)
		free((void *)fed->nodes[i].sources);
	free(fed->nodes);
	json_decref(fed->strs);
	free(fed->workspace);
	cg_fed_stats_free(fed->stats);
	cg_gate_free(fed->grep_gate);
	free(fed);
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

bool
cg_fed_source_visible(const cg_fed *fed, const cg_fed_node *n,
                      const char *source)
{
	return cg_acl_sees_source(fed->acl, n->workspace, source);
}

static bool
node_has(const cg_fed *f, const cg_fed_node *n, const char *want)
{
	for (size_t k = 0; k < n->nsources; k++)
		if (scope_match(n, n->sources[k], want) &&
		    cg_fed_source_visible(f, n, n->sources[k]))
			return true;
	return false;
}

static void
valid_sources(const cg_fed *f, cg_buf *b)
{
	for (size_t i = 0; i < f->nnodes; i++)
		for (size_t k = 0; k < f->nodes[i].nsources; k++)
			if (cg_fed_source_visible(f, &f->nodes[i],
			                          f->nodes[i].sources[k]))
				(void)cg_buf_printf(b, "%s%s/%s",
				                    b->len ? ", " : "",
				                    f->nodes[i].workspace,
				                    f->nodes[i].sources[k]);
}

int
cg_fed_scope(const cg_fed *f, const char *const *sources, size_t nsources,
             json_t **scope, cg_err *err)
{
	for (size_t s = 0; s < nsources; s++) {
		bool found = false;

		for (size_t i = 0; i < f->nnodes && !found; i++)
			found = node_has(f, &f->nodes[i], sources[s]);
		if (!found) {
			cg_buf b;
			int rc;

			cg_buf_init(&b, 8192);
			valid_sources(f, &b);
			rc = cg_err_set(err, CG_EINVAL,
			                "unknown source '%s' (valid: %s)",
			                sources[s], cg_buf_str(&b));
			cg_buf_fini(&b);
			return rc;
		}
	}
	for (size_t i = 0; i < f->nnodes; i++) {
		json_t *a = json_array();

		for (size_t k = 0; k < f->nodes[i].nsources; k++) {
			/* A source the caller cannot see is not asked: its
			 * name must not reach the evidence. */
			bool in = nsources == 0 &&
			          cg_fed_source_visible(f, &f->nodes[i],
			                                f->nodes[i].sources[k]);

			for (size_t s = 0; s < nsources && !in; s++)
				in = scope_match(&f->nodes[i],
				                 f->nodes[i].sources[k],
				                 sources[s]) &&
				     cg_fed_source_visible(
				         f, &f->nodes[i],
				         f->nodes[i].sources[k]);
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

void
cg_fed_round_fini(struct cg_fed_round *r)
{
	for (size_t i = 0; i < r->n; i++) {
		/* Defensive: either array may be missing after a failed
		 * allocation in cg_fed_round_run. */
		json_decref(r->reqs ? r->reqs[i] : NULL);
		json_decref(r->replies ? r->replies[i] : NULL);
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

int
cg_fed_round_run(cg_fed *f, struct cg_fed_round *r, const char *op,
                 const json_t *args, json_t *const *scope, cg_err *err)
{
	r->n = f->nnodes;
	r->reqs = calloc(r->n ? r->n : 1, sizeof(json_t *));
	r->replies = calloc(r->n ? r->n : 1, sizeof(json_t *));
	r->errs = calloc(r->n ? r->n : 1, sizeof(*r->errs));
	if (r->reqs == NULL || r->replies == NULL || r->errs == NULL)
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	for (size_t i = 0; i < r->n; i++) {
		json_t *a;

		if (scope[i] == NULL)
			continue;
		/* A request short of its scope or its access policy would
		 * be answered for every source or every page: none is sent
		 * rather than one that lost a part. */
		a = json_deep_copy(args);
		if (a == NULL || json_object_set(a, "sources", scope[i]) != 0 ||
		    (r->extra != NULL && r->extra[i] != NULL &&
		     json_object_update(a, r->extra[i]) != 0) ||
		    (cg_acl_active(f->acl) &&
		     json_object_set_new(
		         a, "acl",
		         cg_acl_json(f->acl, f->nodes[i].workspace)) != 0)) {
			json_decref(a);
			return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
		}
		r->reqs[i] = cg_wire_request(
		    (int64_t)atomic_fetch_add(&f->next_id, 1) + 1, op,
		    op_deadline(f, op), a);
		if (r->reqs[i] == NULL)
			return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	}
	r->ms = cg_mono_ms_f();
	f->broadcast(f->ctx, r->reqs, r->replies, r->errs, r->n,
	             op_deadline(f, op));
	r->ms = cg_mono_ms_f() - r->ms;
	return 0;
}

const json_t *
cg_fed_round_result(const struct cg_fed_round *r, size_t i, int *code,
                    const char **msg)
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

/* Adds workspace and uri to an item a node returned (source + path). */
int
cg_fed_tag(json_t *item, const char *ws)
{
	char *uri =
	    cg_uri_make(ws, json_string_value(json_object_get(item, "source")),
	                json_string_value(json_object_get(item, "path")));
	int rc;

	if (uri == NULL) /* not an item without its uri (a wrong answer) */
		return CG_ENOMEM;
	rc = json_object_set_new(item, "uri", json_string(uri));
	free(uri);
	rc |= json_object_set_new(item, "workspace", json_string(ws));
	return rc != 0 ? CG_ENOMEM : 0;
}

const char *
cg_fed_entry_ws(const cg_fed *fed, const json_t *entry)
{
	const char *ws = json_string_value(json_object_get(entry, "workspace"));

	return ws ? ws : fed->workspace;
}

void
cg_fed_followup(json_t *fu, const char *kind, const char *uri, const char *msg)
{
	json_array_append_new(fu, json_pack("{s:s, s:s?, s:s}", "kind", kind,
	                                    "uri", uri, "message", msg));
}

/* --- sync --------------------------------------------------------------- */

int
cg_fed_sync(cg_fed *fed, json_t **out, cg_err *err)
{
	struct cg_fed_round r = {0};
	json_t **scope =
	    calloc(fed->nnodes ? fed->nnodes : 1, sizeof(json_t *));
	json_t *args = json_object();
	int rc;

	*out = NULL;
	if (scope == NULL) {
		json_decref(args);
		return cg_err_set(err, CG_ENOMEM, "fed: out of memory");
	}
	if (fed->nnodes == 0) {
		json_decref(args);
		free(scope);
		return cg_err_set(err, CG_ENOPROV,
		                  "nothing provisioned to index: no wiki "
		                  "found (expected .guild/wiki/ in the "
		                  "workspace or its sub-guilds)");
	}
	rc = cg_fed_scope(fed, NULL, 0, scope, err);
	if (rc == 0)
		rc = cg_fed_round_run(fed, &r, "sync", args, scope, err);
	if (rc == 0) {
		*out = json_object();
		for (size_t i = 0; i < r.n; i++) {
			int code;
			const char *msg;
			const json_t *res =
			    cg_fed_round_result(&r, i, &code, &msg);

			if (res != NULL)
				json_object_update(
				    *out, json_object_get(res, "sources"));
			else if (code != 0 && rc == 0)
				rc = cg_err_set(err, code, "node %s: %s",
				                fed->nodes[i].name, msg);
		}
	}
	cg_fed_round_fini(&r);
	json_decref(args);
	for (size_t i = 0; i < fed->nnodes; i++)
		json_decref(scope[i]);
	free(scope);
	return rc;
}

/* --- call ----------------------------------------------------------------- */

const cg_fed_node *
cg_fed_roster(const cg_fed *fed, size_t *n)
{
	*n = fed->nnodes;
	return fed->nodes;
}

const char *
cg_fed_workspace(const cg_fed *fed)
{
	return fed->workspace;
}

/* Adds node i's outcome (and result) to the answer of cg_fed_call. */
static int
call_collect(const cg_fed *f, const struct cg_fed_round *r, size_t i,
             json_t *const *scope, json_t *nodes, cg_err *err)
{
	int code;
	const char *msg;
	const json_t *res;
	json_t *n;

	if (scope[i] == NULL)
		return 0;
	res = cg_fed_round_result(r, i, &code, &msg);
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
cg_fed_call(cg_fed *fed, const char *op, const json_t *args,
            const char *const *sources, size_t nsources, json_t **out,
            cg_err *err)
{
	struct cg_fed_round r = {0};
	json_t **scope =
	    calloc(fed->nnodes ? fed->nnodes : 1, sizeof(json_t *));
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
	rc = fed->nnodes == 0
	         ? cg_err_set(err, CG_ENOPROV,
	                      "nothing provisioned: no wiki found (expected "
	                      ".guild/wiki/ in the workspace or its "
	                      "sub-guilds)")
	         : cg_fed_scope(fed, sources, nsources, scope, err);
	if (rc == 0)
		rc = cg_fed_round_run(fed, &r, op, args ? args : empty, scope,
		                      err);
	for (size_t i = 0; rc == 0 && i < r.n; i++)
		rc = call_collect(fed, &r, i, scope, nodes, err);
	if (rc == 0) {
		size_t i;
		const json_t *n;

		json_array_foreach(nodes, i, n)
			degraded |= json_object_get(n, "result") == NULL;
		*out = json_pack("{s:O, s:b}", "nodes", nodes, "degraded",
		                 degraded);
	}
	cg_fed_round_fini(&r);
	json_decref(nodes);
	json_decref(empty);
	for (size_t i = 0; i < fed->nnodes; i++)
		json_decref(scope[i]);
	free(scope);
	return rc;
}
