/*
 * wire.h - the node protocol's envelope: the version, the size limits,
 * requests and replies as JSON objects, and their bytes.  It decides what
 * a node is willing to parse (size, encoding, nesting, shape) before
 * jansson sees the bytes, so every transport (nng ipc/tcp, a fuzzer, a
 * test) applies the same limits, and what a reply must look like before
 * the federation reads it.  It does not know the operations: checking the
 * op and its arguments is the node's job (node/dispatch.h).
 *
 *   request  {"v":1, "id":N, "op":OP, "deadline_ms":N, "args":{...}}
 *   reply    {"v":1, "id":N, "node":NAME, "ok":true, "generation":{...},
 *             "result":{...}, "ms":T}
 *            {"v":1, "id":N, "node":NAME, "ok":false,
 *             "error":{"code":"invalid_input", "message":"..."}}
 *
 * May be included by proto/ and every layer above it (node, federation,
 * gateway, cli).
 *
 * Decisions:
 * - A request is at most CG_WIRE_MAX_REQUEST bytes (CG_ETOOBIG above);
 *   the nng socket's receive limit is set higher (server.h) so that a
 *   request between the two limits still gets an error reply, and anything
 *   larger is dropped by nng without being buffered.
 * - The bytes must be valid UTF-8, nest at most CG_WIRE_MAX_DEPTH levels
 *   (checked by a scan before parsing, so jansson never recurses deeply),
 *   parse as one JSON object without duplicate keys, and carry an "id"
 *   that is absent, null, an integer or a string (it is echoed in the
 *   reply).  Every other input is CG_EPARSE with a message saying why.
 * - Replies are encoded compactly and capped at CG_WIRE_MAX_REPLY, the one
 *   reply cap: a node never sends more, and the federation's sockets
 *   refuse more.
 */
#ifndef CG_WIRE_H
#define CG_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/cg_err.h"

#define CG_PROTO_VERSION    1
#define CG_WIRE_MAX_REQUEST (1u << 20) /* 1 MiB */
#define CG_WIRE_MAX_REPLY   (16u << 20)
#define CG_WIRE_MAX_DEPTH   32

/*
 * Decodes one request.  On success *req is a new reference to a JSON
 * object; on failure *req is NULL and err says why (CG_ETOOBIG, CG_EPARSE).
 */
int cg_wire_decode(const void *buf, size_t len, json_t **req, cg_err *err);

/*
 * Encodes a reply (an object) compactly into a malloc'd buffer the caller
 * frees with free(); *len excludes the terminating NUL that is added.
 * CG_ETOOBIG when the text would exceed CG_WIRE_MAX_REPLY.
 */
int cg_wire_encode(const json_t *msg, char **buf, size_t *len, cg_err *err);

/* A request (new reference); args is stolen. */
json_t *cg_wire_request(int64_t id, const char *op, int deadline_ms,
                        json_t *args);

/* A success reply from node (new reference); gen and res are stolen; ms is
 * the node's own handling time. */
json_t *cg_wire_reply_ok(const char *node, const json_t *id, json_t *gen,
                         json_t *res, double ms);

/* An error reply from node (new reference): code is a negative cg_code,
 * id (borrowed, may be NULL) is echoed. */
json_t *cg_wire_reply_error(const char *node, const json_t *id, int code,
                            const char *msg);

/*
 * The error reply for bytes that cg_wire_decode() refused with err.  The
 * request id is echoed when one can still be read (bytes within the size
 * limit that jansson parses into an object with an integer or string
 * "id"); otherwise it is null.  New reference.
 */
json_t *cg_wire_reply_refused(const char *node, const void *buf, size_t len,
                              const cg_err *err);

/*
 * Decodes the reply to request id: a new reference to an object with that
 * id and a boolean "ok", else NULL and err is CG_EPROTO "bad reply".
 */
json_t *cg_wire_decode_reply(const void *buf, size_t len, int64_t id,
                             cg_err *err);

#endif
