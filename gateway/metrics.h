/*
 * metrics.h - the gateway's counters, rendered in the Prometheus text
 * format at /metrics: requests by tool and status, a latency histogram,
 * per-node outcomes of the federation rounds, and the build
 * (corpus_gw_build_info{version="x.y.z"} 1).  Thread-safe.
 *
 * May be included by gateway/ only (http.c counts and serves them).
 */
#ifndef CG_METRICS_H
#define CG_METRICS_H

#include <stdbool.h>

#include <jansson.h>

#include "common/cg_buf.h"

typedef struct cg_metrics cg_metrics;

cg_metrics *cg_metrics_new(void);
void cg_metrics_free(cg_metrics *m);

/* One request: its route ("search", "mcp", "healthz"...), HTTP status and
 * duration.  answer (may be NULL) is a tool answer whose
 * evidence.nodes[] outcomes are counted. */
void cg_metrics_request(cg_metrics *m, const char *route, int status,
                        double seconds, const json_t *answer);

/* Whether the series of node (its name) may be shown to the caller whose
 * context ctx is. */
typedef bool (*cg_metrics_node_fn)(void *ctx, const char *node);

/* Appends the exposition text to out; show (NULL: every node) picks the
 * per-node series shown, so a caller never reads the name of a node
 * whose sources it cannot see. */
void cg_metrics_render(cg_metrics *m, cg_buf *out, cg_metrics_node_fn show,
                       void *ctx);

#endif
