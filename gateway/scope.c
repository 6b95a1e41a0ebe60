/*
 * scope.c - workspace scope to source names (scope.h).  Decisions: a
 * workspace scope and a source list intersect (`--workspace-name acme
 * --source api` is acme's api, not every source of acme plus any api), and
 * the names it produces are always workspace-qualified, so two workspaces
 * that both have a source "docs" are never confused.  A source the
 * caller cannot see (cg_fed_source_visible) is left out of every
 * expansion and every "valid" list, as if the roster did not hold it.
 * It must not send anything to a node or keep state.
 */
#include "gateway/scope.h"

#include <stdbool.h>
#include <string.h>

#include "common/cg_buf.h"

static bool
in_list(const char *const *v, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(v[i]) == len && strncmp(v[i], s, len) == 0)
			return true;
	return false;
}

/* Whether the caller sees a source of node. */
static bool
node_visible(const cg_fed *fed, const cg_fed_node *node)
{
	for (size_t k = 0; k < node->nsources; k++)
		if (cg_fed_source_visible(fed, node, node->sources[k]))
			return true;
	return false;
}

static bool
roster_has_ws(const cg_fed *fed, const cg_fed_node *nodes, size_t n,
              const char *ws)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(nodes[i].workspace, ws) == 0 &&
		    node_visible(fed, &nodes[i]))
			return true;
	return false;
}

static int
unknown_ws(const cg_fed *fed, const cg_fed_node *nodes, size_t n,
           const char *ws, cg_err *err)
{
	cg_buf b;
	int rc;

	cg_buf_init(&b, 8192);
	for (size_t i = 0; i < n; i++) {
		bool seen = !node_visible(fed, &nodes[i]);

		for (size_t k = 0; k < i && !seen; k++)
			seen =
			    node_visible(fed, &nodes[k]) &&
			    strcmp(nodes[k].workspace, nodes[i].workspace) == 0;
		if (!seen)
			(void)cg_buf_printf(&b, "%s%s", b.len ? ", " : "",
			                    nodes[i].workspace);
	}
	rc = cg_err_set(err, CG_EINVAL, "unknown workspace '%s' (valid: %s)",
	                ws, cg_buf_str(&b));
	cg_buf_fini(&b);
	return rc;
}

static void
add_name(json_t *names, const char *ws, const char *src)
{
	json_array_append_new(names, json_sprintf("%s/%s", ws, src));
}

/* Every source of the workspaces the caller can see, qualified. */
static void
all_sources(const cg_fed *fed, const cg_fed_node *nodes, size_t n,
            const char *const *ws, size_t nws, json_t *names)
{
	for (size_t i = 0; i < n; i++) {
		const char *w = nodes[i].workspace;

		if (!in_list(ws, nws, w, strlen(w)))
			continue;
		for (size_t k = 0; k < nodes[i].nsources; k++)
			if (cg_fed_source_visible(fed, &nodes[i],
			                          nodes[i].sources[k]))
				add_name(names, w, nodes[i].sources[k]);
	}
}

/* One source name within the workspaces. */
static int
one_source(const cg_fed *fed, const cg_fed_node *nodes, size_t n,
           const char *const *ws, size_t nws, const char *s, json_t *names,
           cg_err *err)
{
	const char *slash = strchr(s, '/');
	size_t before = json_array_size(names);

	if (slash != NULL) {
		if (!in_list(ws, nws, s, (size_t)(slash - s)))
			return cg_err_set(
			    err, CG_EINVAL,
			    "source '%s' is outside the workspace "
			    "scope",
			    s);
		json_array_append_new(names, json_string(s));
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const char *w = nodes[i].workspace;

		if (!in_list(ws, nws, w, strlen(w)))
			continue;
		for (size_t k = 0; k < nodes[i].nsources; k++)
			if (strcmp(nodes[i].sources[k], s) == 0 &&
			    cg_fed_source_visible(fed, &nodes[i], s))
				add_name(names, w, s);
	}
	if (json_array_size(names) == before)
		return cg_err_set(err, CG_EINVAL,
		                  "no workspace in scope has a source '%s'", s);
	return 0;
}

int
cg_scope_expand(const cg_fed *fed, const char *const *ws, size_t nws,
                const char *const *src, size_t nsrc, json_t *names, cg_err *err)
{
	size_t n;
	const cg_fed_node *nodes = cg_fed_roster(fed, &n);
	int rc = 0;

	if (nws == 0) {
		for (size_t i = 0; i < nsrc; i++)
			json_array_append_new(names, json_string(src[i]));
		return 0;
	}
	for (size_t i = 0; i < nws; i++)
		if (!roster_has_ws(fed, nodes, n, ws[i]))
			return unknown_ws(fed, nodes, n, ws[i], err);
	if (nsrc == 0)
		all_sources(fed, nodes, n, ws, nws, names);
	/* An empty list would mean "everything" to the federation. */
	if (nsrc == 0 && json_array_size(names) == 0)
		return cg_err_set(err, CG_ENOPROV,
		                  "the workspace scope holds no source");
	for (size_t i = 0; rc == 0 && i < nsrc; i++)
		rc = one_source(fed, nodes, n, ws, nws, src[i], names, err);
	return rc;
}
