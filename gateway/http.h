/*
 * http.h - the gateway's HTTP endpoint (libmicrohttpd): the JSON API
 * (/v1/<tool>), MCP (/mcp), /healthz and /metrics.
 *
 * nng 1.5.2's own HTTP server is not used: it has unpatched defects
 * (FACTS.md).  Here every connection has a timeout, the number of
 * connections is limited, headers are bounded by a per-connection memory
 * limit and bodies by a size cap; Host and Origin are checked against DNS
 * rebinding.  Without tokens the endpoint binds to loopback only.
 */
#ifndef CG_HTTP_H
#define CG_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "cg_err.h"
#include "fed.h"

#define CG_HTTP_MAX_BODY (1u << 20)
#define CG_HTTP_CONN_LIMIT 256
#define CG_HTTP_TIMEOUT_S 10
#define CG_HTTP_THREADS 4
#define CG_HTTP_MEMORY_LIMIT (64u * 1024) /* per connection: headers */

typedef struct cg_http cg_http;

typedef struct cg_http_opts {
	const char *listen;	/* "http://127.0.0.1:7700"; port 0 allowed */
	cg_fed *fed;		/* borrowed; must outlive the server */
	bool tokens_configured; /* required to bind beyond loopback */
	const char *const *allowed_origins; /* NULL-terminated extra origins */
} cg_http_opts;

int cg_http_new(cg_http **out, const cg_http_opts *opts, cg_err *err);
void cg_http_free(cg_http *h);

/* "http://127.0.0.1:PORT" as actually bound; borrowed. */
const char *cg_http_url(const cg_http *h);

#endif
