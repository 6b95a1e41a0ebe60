/*
 * dispatch.h - answering one request of the node protocol: the envelope
 * checks, the operation table, and what holds for every operation (the
 * caller's access policy, one read snapshot, the generations reported).
 *
 * Requests and replies are JSON objects (proto/wire.h), so the same
 * handler serves an in-process caller, nng inproc, ipc and tcp alike:
 *
 *   request  {"v":1, "id":N, "op":"search", "deadline_ms":N?,
 *             "args":{...}}
 *   reply    {"v":1, "id":N, "node":"name", "ok":true,
 *             "generation":{...}, "result":{...}, "ms":T}
 *            {"v":1, "id":N, "node":"name", "ok":false,
 *             "error":{"code":"invalid_input", "message":"..."}}
 *
 * The operations and their arguments are node/ops.h.
 *
 * May be included by node/ and the layers above it (gateway, cli), and by
 * tests and fuzz targets.  Must not: decode bytes (proto/wire.h does) or
 * hold a node between requests.
 */
#ifndef CG_DISPATCH_H
#define CG_DISPATCH_H

#include <stdbool.h>

#include <jansson.h>

#include "node/node.h"

/* Handles one request (borrowed) on n; returns a new reply object, never
 * NULL except on allocation failure.  It never trusts a request: a wrong
 * version, an unknown operation or malformed arguments get an error
 * reply. */
json_t *cg_node_handle(cg_node *n, const json_t *req);

/* Whether req's operation reads the page files themselves (grep): a
 * server answers it apart from the index lookups (server.h).  False for
 * an unknown operation. */
bool cg_node_op_scans_files(const json_t *req);

#endif
