/*
 * workspace.h - a workspace and its sources (SPEC 3.2).
 *
 * A workspace is a directory whose .guild/workspace.json (schema
 * guild.workspace.v1) lists sub-guilds; without a manifest, sub-guilds are
 * the immediate children holding .git/ or .guild/.  A source is one wiki to
 * index: the root wiki ("root") when the workspace root has .guild/wiki/,
 * and each sub-guild whose .guild/wiki/ exists.  Read-only: corpus-gw never
 * writes into a user's .guild/.
 *
 * May be included by conf/ and every layer above it (page, proto, index,
 * node, federation, gateway, cli).
 */
#ifndef CG_WORKSPACE_H
#define CG_WORKSPACE_H

#include <stddef.h>

#include "common/cg_err.h"
#include "conf/source.h"

typedef struct cg_workspace {
	char *name;         /* basename of the root directory */
	char *root;         /* absolute, resolved path */
	int has_manifest;   /* 1 when .guild/workspace.json was read */
	cg_source *sources; /* owned; root first, then sub-guilds by name */
	size_t nsources;
	char **warnings; /* NULL-terminated; manifest entries skipped, with
	                    why (missing path, path outside the root...) */
} cg_workspace;

/*
 * Loads a workspace.  A manifest that does not parse is CG_EPARSE (with the
 * path and reason).  A sub-guild path that is absolute, contains "..", or
 * resolves outside the root is skipped with a warning.  A workspace with no
 * wiki at all is not an error here (nsources == 0): the caller reports
 * "nothing provisioned".
 */
int cg_workspace_load(cg_workspace *ws, const char *dir, cg_err *err);
void cg_workspace_fini(cg_workspace *ws);

/* Appends the corpora registered by repo (.hiivmind/corpus/registry.yaml)
 * as sources: a github corpus at its cache folder (served even before the
 * first fetch, with no pages), a local one at its folder.  A registry that
 * does not parse, a local folder that is missing and a corpus id taken by
 * another source are warnings, not errors. */
int cg_workspace_add_corpora(cg_workspace *ws, const char *repo, cg_err *err);

/* The source named name, or NULL. */
const cg_source *cg_workspace_source(const cg_workspace *ws, const char *name);

#endif
