/*
 * sources.c - the sources a node service serves (see sources.h).
 *
 * What it must not do: serve a workspace without a wiki (that is "nothing
 * provisioned"), or keep a pointer into the caller's sources.
 */
#define _GNU_SOURCE
#include "node/sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/corpus.h"
#include "cache/hiivmind.h"

/* Fills ws from explicit sources, as cg_workspace_load() would. */
static int
take_sources(cg_workspace *ws, const cg_source *sources, size_t nsources,
             const char *name, cg_err *err)
{
	ws->sources = calloc(nsources, sizeof(*ws->sources));
	if (ws->sources == NULL)
		return cg_err_set(err, CG_ENOMEM, "node: out of memory");
	for (size_t i = 0; i < nsources; i++) {
		cg_source *d = &ws->sources[ws->nsources++];

		if (cg_source_copy(d, &sources[i]) != 0)
			return cg_err_set(err, CG_ENOMEM,
			                  "node: out of memory");
	}
	ws->name = strdup(name ? name : sources[0].name);
	ws->root = strdup(sources[0].repo);
	if (ws->name == NULL || ws->root == NULL)
		return cg_err_set(err, CG_ENOMEM, "node: out of memory");
	return 0;
}

int
cg_sources_load(cg_workspace *ws, const char *root, const cg_source *sources,
                size_t nsources, const char *name, cg_err *err)
{
	int rc;

	if (sources != NULL && nsources > 0)
		return take_sources(ws, sources, nsources, name, err);
	if (root == NULL)
		return cg_err_set(err, CG_EINVAL,
		                  "node: a workspace root or sources are "
		                  "needed");
	rc = cg_workspace_load(ws, root, err);
	if (rc == 0 && ws->nsources == 0)
		rc = cg_err_set(err, CG_ENOPROV,
		                "nothing provisioned: no .guild/wiki in %s or "
		                "its sub-guilds",
		                ws->root);
	return rc;
}

int
cg_sources_registry_error(const char *repo, char **why)
{
	cg_hm_registry reg;
	char *path = NULL;
	char *msg = NULL;
	cg_err e;
	int rc;

	*why = NULL;
	cg_err_clear(&e);
	rc = cg_corpus_registry_load(&reg, repo, &e);
	cg_hm_registry_fini(&reg);
	if (rc == 0 || rc == CG_ENOMEM)
		return rc;
	path = cg_corpus_registry_path(repo);
	/* The parser names the file by its base name; the path says more. */
	if (asprintf(&msg, "%s: %s; its corpora are not served",
	             path != NULL ? path : repo,
	             strncmp(e.msg, "registry.yaml: ", 15) == 0 ? e.msg + 15
	                                                        : e.msg) < 0)
		msg = NULL;
	free(path);
	*why = msg;
	return msg != NULL ? 0 : CG_ENOMEM;
}
