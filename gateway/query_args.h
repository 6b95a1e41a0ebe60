/*
 * query_args.h - the query parameters of GET /v1/<tool>?... into the
 * tool's JSON arguments: integers and booleans typed by the tool's table
 * (api.h), a list argument repeated into an array, any other argument
 * given once as a string.  Parameters arrive decoded (libmicrohttpd
 * splits the query and percent-decodes each name and value) with their
 * lengths, so a decoded NUL byte is seen: it is refused (CG_EINVAL, a
 * 400), never a value silently cut at the NUL.  Values that are not UTF-8
 * are refused too (jansson strings are UTF-8).
 *
 * It must not validate arguments beyond their type: each tool does that.
 *
 * May be included by gateway/ and fuzz/ (fuzz_http_query.c).
 */
#ifndef CG_QUERY_ARGS_H
#define CG_QUERY_ARGS_H

#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "gateway/api.h"

/*
 * Adds the parameter key (klen bytes) = val (vlen bytes; NULL for a bare
 * "?key", taken as "") to the object args for tool t.  0, or a negative
 * cg_code with err set: CG_EINVAL for a NUL byte, a value of the wrong
 * type, invalid UTF-8 or a non-list argument given twice; CG_ENOMEM.
 */
int cg_query_args_add(json_t *args, const cg_api_tool *t, const char *key,
                      size_t klen, const char *val, size_t vlen, cg_err *err);

#endif
