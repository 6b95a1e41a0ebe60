/*
 * node.c - a node (see node.h): its sources and their indexes, the memo,
 * and the scope, deadline and rebuild helpers every operation uses.
 *
 * What it must not do: know an operation or the wire format (dispatch.c
 * and ops_*.c do), or be shared between threads.
 */
#include "node/node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_analyzer.h"
#include "common/cg_time.h"
#include "node/sources.h"

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
	json_t *sync_failed; /* {source: {code, message}} of the last sync
	                        that failed per source, or NULL */
	json_t *registry;    /* {wiki source: why its repository's corpus
	                        registry cannot be read}, or NULL */
	json_t *memo;        /* derived data kept between requests, or NULL */
	uint64_t memo_sig;   /* what it was derived from */
};

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): each name is stored
 * in n->src, which cg_node_free frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
int
cg_node_new(cg_node **out, const cg_node_opts *opts, cg_err *err)
{
	cg_node *n = calloc(1, sizeof(*n));
	int rc = 0;

	*out = NULL;
	if (n == NULL || (n->name = strdup(opts->name)) == NULL ||
	    (n->src = calloc(opts->nsources ? opts->nsources : 1,
	                     sizeof(*n->src))) == NULL) {
		cg_node_free(n);
		return cg_err_set(err, CG_ENOMEM, "node: out of memory");
	}
	for (size_t i = 0; i < opts->nsources && rc == 0; i++) {
		cg_index_opts io = {opts->cache_dir, &opts->sources[i],
		                    opts->oneshot};
		char *why = NULL;

		if (opts->sources[i].kind == CG_SRC_WIKI &&
		    cg_sources_registry_error(opts->sources[i].repo, &why) != 0)
			rc = CG_ENOMEM;
		if (why != NULL) {
			if (n->registry == NULL)
				n->registry = json_object();
			if (json_object_set_new(n->registry,
			                        opts->sources[i].name,
			                        json_string(why)) != 0)
				rc = CG_ENOMEM;
			free(why);
		}

		n->src[i].name = rc == 0 ? strdup(opts->sources[i].name) : NULL;
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
CG_ANALYZER_STORE_INTO_ARRAY_END

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
	json_decref(n->sync_failed);
	json_decref(n->registry);
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

json_t *
cg_node_generations(cg_node *n)
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

/* --- scope ------------------------------------------------------------ */

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

/* strcmp of a + "/" and b + "/": the order of sources in sort keys. */
static int
source_cmp(const char *a, const char *b)
{
	char ka[512];
	char kb[512];

	(void)snprintf(ka, sizeof(ka), "%s/", a);
	(void)snprintf(kb, sizeof(kb), "%s/", b);
	return strcmp(ka, kb);
}

size_t
cg_node_scope_order(const cg_node *n, const json_t *args, size_t *order)
{
	size_t k = 0;

	for (size_t i = 0; i < n->nsrc; i++)
		if (cg_node_in_scope(args, n->src[i].name))
			order[k++] = i;
	for (size_t i = 1; i < k; i++) { /* insertion sort: a handful */
		size_t v = order[i];
		size_t j = i;

		while (j > 0 && source_cmp(n->src[order[j - 1]].name,
		                           n->src[v].name) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = v;
	}
	return k;
}

/* --- deadline ----------------------------------------------------------- */

void
cg_node_set_deadline(cg_node *n, int64_t deadline_ms)
{
	n->expires_ms = deadline_ms > 0 ? cg_mono_ms() + deadline_ms : 0;
}

bool
cg_node_expired(const cg_node *n)
{
	return n->expires_ms > 0 && cg_mono_ms() >= n->expires_ms;
}

int64_t
cg_node_deadline(const cg_node *n)
{
	return n->expires_ms;
}

/* --- readiness and rebuilds ------------------------------------------- */

/* A source can answer once a first generation exists. */
int
cg_node_ready(cg_index *idx, cg_err *err)
{
	char why[CG_ERR_MSG_MAX];

	if (cg_index_db(idx) != NULL)
		return 0;
	if (cg_index_generation(idx) > 0 && cg_index_open_error(idx)[0])
		return cg_err_set(err, CG_EUNAVAIL,
		                  "source %s: index generation %lld cannot be "
		                  "read: %s",
		                  cg_index_source(idx),
		                  (long long)cg_index_generation(idx),
		                  cg_index_open_error(idx));
	if (cg_index_unbuilt_reason(idx, why, sizeof(why)))
		return cg_err_set(err, CG_EUNAVAIL,
		                  "source %s: not indexed: %s",
		                  cg_index_source(idx), why);
	return cg_err_set(err, CG_EUNAVAIL,
	                  "source %s: index not built yet (first indexing "
	                  "in progress)",
	                  cg_index_source(idx));
}

void
cg_node_set_sync_failed(cg_node *n, json_t *failed)
{
	json_decref(n->sync_failed);
	n->sync_failed = failed;
}

const char *
cg_node_sync_failure(const cg_node *n, const char *source)
{
	const json_t *f = json_object_get(n->sync_failed, source);

	return f != NULL ? json_string_value(json_object_get(f, "message"))
	                 : NULL;
}

const char *
cg_node_registry_error(const cg_node *n, const char *source)
{
	return json_string_value(json_object_get(n->registry, source));
}

void
cg_node_sync_followup(const cg_node *n, const char *source, json_t *fu)
{
	const char *why = cg_node_sync_failure(n, source);
	const char *reg = cg_node_registry_error(n, source);
	char msg[CG_ERR_MSG_MAX + 128];

	if (reg != NULL)
		json_array_append_new(fu,
		                      json_pack("{s:s, s:s, s:s}", "kind",
		                                "registry_unreadable", "source",
		                                source, "message", reg));
	if (why == NULL)
		return;
	(void)snprintf(msg, sizeof(msg),
	               "source %s answers from its last index: its pages "
	               "could not be re-indexed (%s)",
	               source, why);
	json_array_append_new(fu, json_pack("{s:s, s:s, s:s}", "kind",
	                                    "source_not_updated", "source",
	                                    source, "message", msg));
}

int
cg_node_source_failed(json_t *res, cg_index *idx, int rc, const cg_err *serr,
                      cg_err *err)
{
	json_t *failed;

	if (rc == 0)
		return 0;
	if (rc == CG_ENOMEM || rc == CG_EINVAL)
		return cg_err_set(err, rc, "%s", serr->msg);
	failed = json_object_get(res, "failed");
	if (failed == NULL) {
		failed = json_object();
		json_object_set_new(res, "failed", failed);
	}
	json_object_set_new(
	    failed, cg_index_source(idx),
	    json_pack("{s:s, s:s}", "code", cg_code_name(rc), "message",
	              serr->msg[0] ? serr->msg : cg_code_name(rc)));
	return 0;
}

int
cg_node_run(cg_index *idx, cg_node_index_fn fn, void *ctx, cg_err *err)
{
	int rc = cg_node_ready(idx, err);

	if (rc == 0)
		rc = fn(idx, ctx, err);
	if (rc == CG_ECORRUPT) {
		cg_sync_stats st;

		cg_err_clear(err);
		rc = cg_index_rebuild(idx, "corrupt at query", &st, err);
		if (rc == 0)
			rc = fn(idx, ctx, err);
	}
	return rc;
}
