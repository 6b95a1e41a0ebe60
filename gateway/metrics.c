/*
 * metrics.c - counters behind one mutex (requests are milliseconds apart;
 * contention is not a concern at this scale).  Label values are stored as
 * JSON object keys so they are escaped once, when rendered.  Per-node
 * series are shown only as the caller's filter allows (a restricted token
 * does not read the names of nodes it cannot see).
 */
#include "gateway/metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_version.h"

static const double buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                 0.1,   0.25,   0.5,   1.0,  2.5};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

struct cg_metrics {
	pthread_mutex_t mu;
	json_t *requests; /* "route\tstatus" -> count */
	json_t *outcomes; /* "node\toutcome" -> count */
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
	return m;
}

void
cg_metrics_free(cg_metrics *m)
{
	if (m == NULL)
		return;
	json_decref(m->requests);
	json_decref(m->outcomes);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

static void
bump(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (v == NULL)
		json_object_set_new(obj, key, json_integer(1));
	else
		json_integer_set(v, json_integer_value(v) + 1);
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
	bump(m->requests, key);
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
		bump(m->outcomes, key);
	}
	pthread_mutex_unlock(&m->mu);
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

void
cg_metrics_render(cg_metrics *m, cg_buf *out, cg_metrics_node_fn show,
                  void *ctx)
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
	                  "# HELP corpus_gw_node_outcomes_total "
	                  "Federation round outcomes per node.\n"
	                  "# TYPE corpus_gw_node_outcomes_total counter\n");
	render_pairs(out, m->outcomes, "corpus_gw_node_outcomes_total", "node",
	             "outcome", show, ctx);
	pthread_mutex_unlock(&m->mu);
	(void)cg_buf_puts(out, "# HELP corpus_gw_build_info The corpus-gw "
	                       "version serving.\n"
	                       "# TYPE corpus_gw_build_info gauge\n"
	                       "corpus_gw_build_info{version=\"" CG_VERSION
	                       "\"} 1\n");
}
