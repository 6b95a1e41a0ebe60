/*
 * dispatch.c - cg_node_handle (see dispatch.h): checks the envelope, finds
 * the operation, installs the caller's access policy (args.acl) on every
 * index and opens one read transaction per index for the whole request,
 * runs the handler (node/ops.h) and encodes the reply.
 *
 * What it must not do: look into an operation's arguments beyond "acl"
 * and the scope, or leave a policy or a transaction behind after the
 * request.
 */
#include "node/dispatch.h"

#include <stdbool.h>
#include <string.h>

#include "common/cg_time.h"
#include "node/ops.h"
#include "proto/acl.h"
#include "proto/wire.h"

/* The operations.  writes: the operation changes the indexes (sync), so
 * it runs outside a read transaction and the reply reports the
 * generations after it; every other one runs inside one read transaction
 * per index (a consistent snapshot, the locks taken once).  scans: it
 * reads the page files themselves, for as long as they take (grep). */
static const struct op {
	const char *name;
	cg_op_fn *fn;
	bool writes;
	bool scans;
} ops[] = {
    {"sync", cg_op_sync, true, false},
    {"stats", cg_op_stats, false, false},
    {"search", cg_op_search, false, false},
    {"fetch", cg_op_fetch, false, false},
    {"claims", cg_op_claims, false, false},
    {"suggest", cg_op_suggest, false, false},
    {"problems", cg_op_problems, false, false},
    {"read", cg_op_read, false, false},
    {"peek", cg_op_peek, false, false},
    {"links", cg_op_links, false, false},
    {"backlinks", cg_op_backlinks, false, false},
    {"resolve", cg_op_resolve, false, false},
    {"list", cg_op_list, false, false},
    {"map", cg_op_map, false, false},
    {"grep", cg_op_grep, false, true},
    {"status", cg_op_status, false, false},
    {"concept", cg_op_concept, false, false},
    {"corpus_graph", cg_op_corpus_graph, false, false},
};

static const struct op *
find_op(const char *name)
{
	for (size_t i = 0; name != NULL && i < sizeof(ops) / sizeof(ops[0]);
	     i++)
		if (strcmp(name, ops[i].name) == 0)
			return &ops[i];
	return NULL;
}

bool
cg_node_op_scans_files(const json_t *req)
{
	const struct op *op =
	    find_op(json_string_value(json_object_get(req, "op")));

	return op != NULL && op->scans;
}

/* Runs an operation under the request's access policy (args.acl): every
 * index answers only about the pages the caller may see. */
static int
run_op(cg_node *n, const struct op *op, const json_t *args, json_t *res,
       cg_err *err)
{
	cg_acl acl;
	int rc;

	if (cg_acl_from_json(&acl, json_object_get(args, "acl")) != 0)
		return cg_err_set(err, CG_EINVAL,
		                  "acl must be {workspace, allow: [globs], "
		                  "deny: [globs]}");
	for (size_t i = 0; i < cg_node_nsources(n); i++) {
		cg_index *idx = cg_node_index(n, i);

		cg_index_set_acl(idx, cg_acl_active(&acl) ? &acl : NULL);
		if (!op->writes && cg_index_db(idx) != NULL)
			(void)cg_index_exec(idx, "BEGIN");
	}
	rc = op->fn(n, args, res, err);
	for (size_t i = 0; i < cg_node_nsources(n); i++) {
		cg_index *idx = cg_node_index(n, i);
		sqlite3 *db = cg_index_db(idx);

		cg_index_set_acl(idx, NULL);
		cg_index_stmts_reset(idx);
		if (db != NULL && !sqlite3_get_autocommit(db))
			(void)cg_index_exec(idx, "COMMIT");
	}
	cg_acl_fini(&acl);
	return rc;
}

/* Answers a request whose envelope passed: runs op and builds the reply
 * with the generations the answer came from. */
static json_t *
answer(cg_node *n, const struct op *op, const json_t *req)
{
	const json_t *id = json_object_get(req, "id");
	const json_t *dl = json_object_get(req, "deadline_ms");
	json_t *gen = cg_node_generations(n);
	json_t *res = json_object();
	cg_err err;
	double t0;
	int rc;

	cg_node_set_deadline(n,
	                     json_is_integer(dl) ? json_integer_value(dl) : 0);
	cg_err_clear(&err);
	t0 = cg_mono_ms_f();
	rc = run_op(n, op, json_object_get(req, "args"), res, &err);
	if (rc != 0) {
		json_decref(res);
		json_decref(gen);
		return cg_wire_reply_error(cg_node_name(n), id, rc,
		                           err.msg[0] ? err.msg
		                                      : cg_code_name(rc));
	}
	if (op->writes) { /* new generations */
		json_decref(gen);
		gen = cg_node_generations(n);
	}
	/* ms: this node's own handling time, for the evidence. */
	return cg_wire_reply_ok(cg_node_name(n), id, gen, res,
	                        cg_mono_ms_f() - t0);
}

json_t *
cg_node_handle(cg_node *n, const json_t *req)
{
	const json_t *id = json_object_get(req, "id");
	const json_t *v = json_object_get(req, "v");
	const json_t *args = json_object_get(req, "args");
	const struct op *op;

	if (!json_is_object(req))
		return cg_wire_reply_error(cg_node_name(n), NULL, CG_EPROTO,
		                           "request is not an object");
	if (!json_is_integer(v) || json_integer_value(v) != CG_PROTO_VERSION)
		return cg_wire_reply_error(cg_node_name(n), id, CG_EPROTO,
		                           "unsupported protocol version (this "
		                           "node speaks v1)");
	if (args != NULL && !json_is_object(args))
		return cg_wire_reply_error(cg_node_name(n), id, CG_EINVAL,
		                           "args must be an object");
	op = find_op(json_string_value(json_object_get(req, "op")));
	if (op == NULL)
		return cg_wire_reply_error(
		    cg_node_name(n), id, CG_EINVAL,
		    "unknown operation (valid: sync, stats, search, fetch, claims, "
		    "problems, read, peek, links, backlinks, resolve, list, "
		    "map, grep, status)");
	return answer(n, op, req);
}
