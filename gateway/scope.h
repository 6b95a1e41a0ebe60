/*
 * scope.h - a tool's scope from its "workspace" and "source" arguments:
 * the workspace names (SPEC 4.1: "a workspace, a sub-guild, a corpus, or
 * several") become the workspace-qualified names of their sources, so the
 * federation, which scopes by source name, needs no second notion of
 * scope.  It must not reach the nodes: it reads the roster only.
 *
 * May be included by gateway/ only (api.c reads the arguments with it).
 */
#ifndef CG_SCOPE_H
#define CG_SCOPE_H

#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"
#include "federation/fed.h"

/*
 * Appends to names (a JSON array of strings) the sources a request scopes
 * to, given workspace names ws[0..nws) (none: no workspace scope) and
 * source names src[0..nsrc) ("name" or "workspace/name"):
 *   - no workspace: the sources as given (the federation checks them);
 *   - workspaces, no sources: "ws/source" for every source of each;
 *   - both: each source within the workspaces — a bare name becomes
 *     "ws/name" for every workspace holding it; a qualified one must name
 *     one of the workspaces.
 * CG_EINVAL for an unknown workspace (naming the valid ones), a source no
 * workspace in scope holds, or a qualified source outside the scope.
 */
int cg_scope_expand(const cg_fed *fed, const char *const *ws, size_t nws,
                    const char *const *src, size_t nsrc, json_t *names,
                    cg_err *err);

#endif
