/*
 * api_body.h - the arguments of POST /v1/<tool>: a JSON object body, the
 * same arguments GET takes in its query string (api.h decodes those).
 *
 * The body is at most CG_HTTP_MAX_BODY bytes (http.c answers 413 past it,
 * before reading it when Content-Length says so) and must be declared
 * "Content-Type: application/json" (a charset parameter, utf-8 only, is
 * allowed), else 415 before any body byte is read.  A body that is not
 * JSON, holds a NUL or a duplicate key, or is not an object is
 * invalid_input (400) saying which.
 *
 * May be included by gateway/ only (http.c).
 */
#ifndef CG_API_BODY_H
#define CG_API_BODY_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"

/* Whether a Content-Type header value (NULL: none) declares JSON. */
bool cg_api_body_type_ok(const char *content_type);

/* The arguments object of a body (new reference in *args). */
int cg_api_body_args(const char *body, size_t len, json_t **args, cg_err *err);

#endif
