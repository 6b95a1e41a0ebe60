/*
 * metrics.c - counters behind one mutex (requests are milliseconds apart;
 * contention is not a concern at this scale).  Label values are stored as
 * JSON object keys so they are escaped once, when rendered.  The
 * per-source series are not counters: each scrape asks the nodes (the
 * status tool, under the scraper's policy), so they are as fresh as the
 * scrape and cost one round; a node that does not answer is missing from
 * them (and counted in the outcomes).  Per-node series are shown only as
 * the caller's filter allows (a restricted token does not read the names
 * of nodes it cannot see).
 */
#define _GNU_SOURCE
#include "gateway/metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cg_json.h"
#include "common/cg_version.h"
#include "gateway/api.h"
#include "proto/acl.h"

static const double buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                 0.1,   0.25,   0.5,   1.0,  2.5};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

struct cg_metrics {
	pthread_mutex_t mu;
	json_t *requests; /* "route\tstatus" -> count */
	json_t *outcomes; /* "node\toutcome" -> count */
	json_t *tools;    /* "tool\tiface" -> count */
	unsigned long long hist[NBUCKETS + 1];
	unsigned long long count;
	double sum;
};

cg_metrics *
cg_metrics_new(void)
{
	cg_metrics *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	pthread_mutex_init(&m->mu, NULL);
	m->requests = json_object();
	m->outcomes = json_object();
	m->tools = json_object();
	return m;
}

void
cg_metrics_free(cg_metrics *m)
{
	if (m == NULL)
		return;
	json_decref(m->requests);
	json_decref(m->outcomes);
	json_decref(m->tools);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

/* A short outcome class: ok, timeout, refused, reset, bad_reply, error. */
static const char *
outcome_class(const char *o)
{
	if (strcmp(o, "ok") == 0)
		return "ok";
	if (strncmp(o, "timeout", 7) == 0)
		return "timeout";
	if (strstr(o, "refused") != NULL)
		return "refused";
	if (strstr(o, "reset") != NULL)
		return "reset";
	if (strstr(o, "bad reply") != NULL)
		return "bad_reply";
	return "error";
}

void
cg_metrics_request(cg_metrics *m, const char *route, int status, double seconds,
                   const json_t *answer)
{
	const json_t *nodes =
	    json_object_get(json_object_get(answer, "evidence"), "nodes");
	char key[256];
	size_t i;
	const json_t *n;
	size_t b = 0;

	while (b < NBUCKETS && seconds > buckets[b])
		b++;
	pthread_mutex_lock(&m->mu);
	(void)snprintf(key, sizeof(key), "%s\t%d", route, status);
	cg_json_bump(m->requests, key);
	m->hist[b]++;
	m->count++;
	m->sum += seconds;
	json_array_foreach(nodes, i, n) {
		const char *name =
		    json_string_value(json_object_get(n, "node"));
		const char *o =
		    json_string_value(json_object_get(n, "outcome"));

		(void)snprintf(key, sizeof(key), "%s\t%s", name ? name : "?",
		               outcome_class(o ? o : "error"));
		cg_json_bump(m->outcomes, key);
	}
	pthread_mutex_unlock(&m->mu);
}

void
cg_metrics_tool(cg_metrics *m, const char *tool, const char *iface)
{
	const cg_api_tool *t = tool ? cg_api_find(tool) : NULL;
	char key[128];

	(void)snprintf(key, sizeof(key), "%s\t%s", t ? t->name : "unknown",
	               iface);
	pthread_mutex_lock(&m->mu);
	cg_json_bump(m->tools, key);
	pthread_mutex_unlock(&m->mu);
}

void
cg_metrics_mcp(cg_metrics *m, const char *body, size_t len)
{
	json_t *msg = json_loadb(body, len, 0, NULL);
	const char *method = json_string_value(json_object_get(msg, "method"));

	if (method != NULL && strcmp(method, "tools/call") == 0)
		cg_metrics_tool(m,
		                json_string_value(json_object_get(
		                    json_object_get(msg, "params"), "name")),
		                "mcp");
	json_decref(msg);
}

/* Writes a label value with the escapes Prometheus requires. */
static void
label(cg_buf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' || s[i] == '"')
			(void)cg_buf_putc(out, '\\');
		if (s[i] == '\n') {
			(void)cg_buf_puts(out, "\\n");
			continue;
		}
		(void)cg_buf_putc(out, s[i]);
	}
}

/* The series of obj ("l1\tl2" -> count); with show, only those whose
 * first label (a node) it accepts. */
static void
render_pairs(cg_buf *out, json_t *obj, const char *metric, const char *l1,
             const char *l2, cg_metrics_node_fn show, void *ctx)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		const char *tab = strchr(key, '\t');
		char first[256];

		if (tab == NULL)
			continue;
		(void)snprintf(first, sizeof(first), "%.*s", (int)(tab - key),
		               key);
		if (show != NULL && !show(ctx, first))
			continue;
		(void)cg_buf_printf(out, "%s{%s=\"", metric, l1);
		label(out, key, (size_t)(tab - key));
		(void)cg_buf_printf(out, "\",%s=\"", l2);
		label(out, tab + 1, strlen(tab + 1));
		(void)cg_buf_printf(out, "\"} %lld\n",
		                    (long long)json_integer_value(v));
	}
}

/* --- per source, from a status round ------------------------------------ */

/* Seconds since an ISO 8601 UTC stamp ("2026-11-29T22:05:42Z"), or -1. */
static long long
age_of(const char *stamp, time_t now)
{
	struct tm tm;
	const char *end;

	if (stamp == NULL || stamp[0] == '\0')
		return -1;
	memset(&tm, 0, sizeof(tm));
	end = strptime(stamp, "%Y-%m-%dT%H:%M:%S", &tm);
	if (end == NULL)
		return -1;
	return (long long)(now - timegm(&tm));
}

/* One sample `metric{source="ws/src"} v`. */
static void
sample(cg_buf *out, const char *metric, const char *ws, const char *src,
       long long v)
{
	(void)cg_buf_printf(out, "%s{source=\"", metric);
	label(out, ws, strlen(ws));
	(void)cg_buf_putc(out, '/');
	label(out, src, strlen(src));
	(void)cg_buf_printf(out, "\"} %lld\n", v);
}

static const struct {
	const char *metric;
	const char *field; /* of a source in the status answer */
	const char *help;
} source_series[] = {
    {"corpus_gw_source_pages", "pages", "Pages indexed (visible ones)."},
    {"corpus_gw_source_index_bytes", "db_bytes",
     "Bytes of the source's index database."},
    {"corpus_gw_source_index_age_seconds", "index_age_s",
     "Seconds since the source's index last changed."},
    {"corpus_gw_corpus_cache_age_seconds", NULL,
     "Seconds since a remote corpus's cache was published."},
    {"corpus_gw_corpus_refresh_ok", NULL,
     "1 when a remote corpus's last refresh succeeded, else 0."},
};

/* The value of series k for source s, or -1 when it has none. */
static long long
source_value(size_t k, const json_t *s, time_t now)
{
	const json_t *f = json_object_get(s, "freshness");
	const char *e;

	if (source_series[k].field != NULL) {
		const json_t *v = json_object_get(s, source_series[k].field);

		return json_is_integer(v) ? (long long)json_integer_value(v)
		                          : -1;
	}
	if (!json_is_object(f))
		return -1;
	if (k == 3)
		return age_of(
		    json_string_value(json_object_get(f, "cached_at")), now);
	e = json_string_value(json_object_get(f, "last_error"));
	return e != NULL && e[0] != '\0' ? 0 : 1;
}

static void
render_sources(cg_fed *fed, const cg_acl *acl, cg_buf *out)
{
	json_t *st = NULL;
	cg_err err;
	time_t now = time(NULL);

	cg_err_clear(&err);
	if (fed == NULL ||
	    cg_api_call_as(fed, acl, "status", NULL, &st, &err) != 0)
		return;
	for (size_t k = 0; k < sizeof(source_series) / sizeof(source_series[0]);
	     k++) {
		size_t i;
		size_t j;
		const json_t *n;
		const json_t *s;

		(void)cg_buf_printf(out, "# HELP %s %s\n# TYPE %s gauge\n",
		                    source_series[k].metric,
		                    source_series[k].help,
		                    source_series[k].metric);
		json_array_foreach(json_object_get(st, "nodes"), i, n) {
			const char *ws =
			    json_string_value(json_object_get(n, "workspace"));

			json_array_foreach(json_object_get(n, "sources"), j,
			                   s) {
				const char *src = json_string_value(
				    json_object_get(s, "source"));
				long long v = source_value(k, s, now);

				if (ws != NULL && src != NULL && v >= 0)
					sample(out, source_series[k].metric, ws,
					       src, v);
			}
		}
	}
	json_decref(st);
}

void
cg_metrics_render(cg_metrics *m, cg_fed *fed, const cg_acl *acl, cg_buf *out,
                  cg_metrics_node_fn show, void *ctx)
{
	unsigned long long cum = 0;

	pthread_mutex_lock(&m->mu);
	(void)cg_buf_puts(out, "# HELP corpus_gw_requests_total HTTP "
	                       "requests by route and status.\n"
	                       "# TYPE corpus_gw_requests_total counter\n");
	render_pairs(out, m->requests, "corpus_gw_requests_total", "route",
	             "status", NULL, NULL);
	(void)cg_buf_puts(out, "# HELP corpus_gw_request_seconds Request "
	                       "latency.\n"
	                       "# TYPE corpus_gw_request_seconds histogram\n");
	for (size_t b = 0; b < NBUCKETS; b++) {
		cum += m->hist[b];
		(void)cg_buf_printf(
		    out,
		    "corpus_gw_request_seconds_bucket{le=\"%g\"} "
		    "%llu\n",
		    buckets[b], cum);
	}
	(void)cg_buf_printf(out,
	                    "corpus_gw_request_seconds_bucket{le=\"+Inf\"} "
	                    "%llu\ncorpus_gw_request_seconds_sum %.6f\n"
	                    "corpus_gw_request_seconds_count %llu\n",
	                    m->count, m->sum, m->count);
	(void)cg_buf_puts(out,
	                  "# HELP corpus_gw_tool_requests_total Tool "
	                  "calls by tool and interface.\n"
	                  "# TYPE corpus_gw_tool_requests_total counter\n");
	render_pairs(out, m->tools, "corpus_gw_tool_requests_total", "tool",
	             "interface", NULL, NULL);
	(void)cg_buf_puts(out,
	                  "# HELP corpus_gw_node_outcomes_total "
	                  "Federation round outcomes per node.\n"
	                  "# TYPE corpus_gw_node_outcomes_total counter\n");
	render_pairs(out, m->outcomes, "corpus_gw_node_outcomes_total", "node",
	             "outcome", show, ctx);
	pthread_mutex_unlock(&m->mu);
	render_sources(fed, acl, out);
	(void)cg_buf_puts(out, "# HELP corpus_gw_build_info The corpus-gw "
	                       "version serving.\n"
	                       "# TYPE corpus_gw_build_info gauge\n"
	                       "corpus_gw_build_info{version=\"" CG_VERSION
	                       "\"} 1\n");
}
