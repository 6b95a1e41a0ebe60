/*
 * metrics.h - the gateway's counters, rendered in the Prometheus text
 * format at /metrics: requests by tool and status, a latency histogram,
 * requests per tool and interface, per-node outcomes of the federation
 * rounds, pages, index bytes and freshness per source (from a status
 * round at each scrape), and the build (corpus_gw_build_info{version=
 * "x.y.z"} 1).  Thread-safe.
 *
 * May be included by gateway/ only (http.c counts and serves them).
 */
#ifndef CG_METRICS_H
#define CG_METRICS_H

#include <stdbool.h>

#include <jansson.h>

#include "common/cg_buf.h"
#include "federation/fed.h"

typedef struct cg_metrics cg_metrics;

cg_metrics *cg_metrics_new(void);
void cg_metrics_free(cg_metrics *m);

/* One request: its route ("search", "mcp", "healthz"...), HTTP status and
 * duration.  answer (may be NULL) is a tool answer whose
 * evidence.nodes[] outcomes are counted. */
void cg_metrics_request(cg_metrics *m, const char *route, int status,
                        double seconds, const json_t *answer);

/* One tool call: tool (a name of the tool table; anything else counts as
 * "unknown", so a caller cannot grow the label set) over iface ("http",
 * "mcp"). */
void cg_metrics_tool(cg_metrics *m, const char *tool, const char *iface);

/* Counts the tool of an MCP message (a tools/call), if it is one. */
void cg_metrics_mcp(cg_metrics *m, const char *body, size_t len);

/* Whether the series of node (its name) may be shown to the caller whose
 * context ctx is. */
typedef bool (*cg_metrics_node_fn)(void *ctx, const char *node);

/*
 * Appends the exposition text to out: the counters, then what a status
 * round over fed answers for a caller with policy acl (NULL: everything):
 * pages, index bytes and index age per source, and for each remote
 * corpus the age of its cache and the outcome of its last refresh.  A
 * restricted caller (cg_acl_active) gets only the sources it may read
 * (the nodes leave out a source with nothing visible) and only their
 * visible page counts; show (NULL: every node) picks the per-node series
 * shown, so a caller never reads the name of a node whose sources it
 * cannot see.
 */
struct cg_acl;
void cg_metrics_render(cg_metrics *m, cg_fed *fed, const struct cg_acl *acl,
                       cg_buf *out, cg_metrics_node_fn show, void *ctx);

#endif
