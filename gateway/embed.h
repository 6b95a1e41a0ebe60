/*
 * embed.h - a workspace served in-process: one node per repository of the
 * workspace (the root when it has a wiki, each sub-guild with a wiki) and
 * a federation over them, the nodes called directly (no nng).  Used by
 * unit tests and benchmarks that measure search without the transport;
 * the CLI and the gateway use gateway.h, which goes through nng.
 *
 * May be included by gateway/ and, outside the product, by tests and
 * benchmarks; cli/ uses gateway.h.
 */
#ifndef CG_EMBED_H
#define CG_EMBED_H

#include "common/cg_err.h"
#include "conf/workspace.h"
#include "federation/fed.h"

typedef struct cg_embed cg_embed;

/* Opens the workspace at dir with indexes under cache_dir. */
int cg_embed_open(cg_embed **out, const char *dir, const char *cache_dir,
                  cg_err *err);
void cg_embed_free(cg_embed *e);

cg_fed *cg_embed_fed(cg_embed *e);
const cg_workspace *cg_embed_workspace(const cg_embed *e);

#endif
