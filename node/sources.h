/*
 * sources.h - what a node service serves: the sources of the workspace at
 * a root (conf/workspace.h: its wiki, its sub-guilds' wikis and the
 * corpora they register), or sources a caller names itself (the gateway's
 * in-process nodes, a test).
 *
 * May be included by node/ only (server.c, node.c).  Must not: open an
 * index or log (the workspace's warnings stay in ws->warnings for the
 * caller).
 */
#ifndef CG_SOURCES_H
#define CG_SOURCES_H

#include <stddef.h>

#include "common/cg_err.h"
#include "conf/source.h"
#include "conf/workspace.h"

/*
 * Fills ws (zeroed by the caller; cg_workspace_fini frees it, also after a
 * failure): with copies of sources when nsources > 0 (the workspace named
 * name, or after the first source, rooted at its repository), else with
 * cg_workspace_load(root).  CG_EINVAL without root or sources, CG_ENOPROV
 * when the workspace has no wiki at all.
 */
int cg_sources_load(cg_workspace *ws, const char *root,
                    const cg_source *sources, size_t nsources, const char *name,
                    cg_err *err);

/* Why the corpus registry of the repository repo
 * (.hiivmind/corpus/registry.yaml) cannot be read — "<path>: <why>; its
 * corpora are not served", malloc'd into *why — or NULL when it reads or
 * there is none.  The workspace loader then serves the repository without
 * its corpora; the node says so in its answers (node.h).  Returns 0, or
 * CG_ENOMEM when it cannot tell (out of memory is not an unreadable
 * registry). */
int cg_sources_registry_error(const char *repo, char **why);

#endif
