/*
 * wire.h - the node wire codec: bytes off a socket to a request object, and
 * a reply object to bytes.  It decides what a node is willing to parse
 * (size, encoding, nesting, shape) before jansson sees the bytes, so every
 * transport (nng ipc/tcp, a fuzzer, a test) applies the same limits.  It
 * does not know the operations: checking the version, the op and its
 * arguments is cg_node_handle()'s job.
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
 * - Replies are encoded compactly and capped at CG_WIRE_MAX_REPLY.
 */
#ifndef CG_WIRE_H
#define CG_WIRE_H

#include <stddef.h>

#include <jansson.h>

#include "cg_err.h"
#include "node.h"

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

/*
 * The error reply for bytes that cg_wire_decode() refused with err, in the
 * node's reply format.  The request id is echoed when one can still be
 * read (bytes within the size limit that jansson parses into an object
 * with an integer or string "id"); otherwise it is null.  New reference.
 */
json_t *cg_wire_error_reply(const cg_node *n, const void *buf, size_t len,
                            const cg_err *err);

#endif
