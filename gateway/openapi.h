/*
 * openapi.h - the OpenAPI 3.1 description of the gateway's HTTP routes,
 * served at GET /v1/openapi.json.  The fixed routes (/healthz, /readyz,
 * /metrics, /mcp, /v1/openapi.json) are the file gateway/schema/openapi.json,
 * embedded at build time (schema.h); the /v1/<tool> routes are made from the
 * tool table (api.h) when asked, so a tool, an argument or an answer field
 * cannot be added without the description following.
 *
 * May be included by gateway/ only (http.c serves it).
 */
#ifndef CG_OPENAPI_H
#define CG_OPENAPI_H

#include <jansson.h>

/* The document (new reference), or NULL when memory runs out. */
json_t *cg_openapi_doc(void);

#endif
