/*
 * accesslog.h - one access-log line per HTTP request, written through the
 * gateway's logger (cg_log_fn, node/server.h; `serve` sends it to stderr
 * with its other lines, cli/log.c):
 *
 *   TIME info http request method=GET route=/v1/search status=200
 *     ms=3.1 token=billing-team
 *
 * route is the request path without its query string (which may hold what
 * a user searched for), cut at 200 bytes and percent-encoded as a uri
 * part (cg_pct_encode: a control byte, a space, a quote or a backslash
 * is written as %XX), so a hostile path cannot forge a line or a field.  token
 * is the name of the token the request authenticated with, "-" for none; never
 * its secret.
 *
 * May be included by gateway/ only (http.c logs each request).
 */
#ifndef CG_ACCESSLOG_H
#define CG_ACCESSLOG_H

#include "node/server.h"

#define CG_ACCESSLOG_ROUTE_MAX 200

/* Writes the line for one request (log NULL: nothing). */
void cg_accesslog_write(cg_log_fn log, void *ctx, const char *method,
                        const char *route, int status, double ms,
                        const char *token);

#endif
