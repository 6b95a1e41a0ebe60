/*
 * gateway.h - a roster of nodes behind one federation: the gateway's core,
 * used by `corpus-gw serve` and by the CLI's embedded mode alike.
 *
 * For each configured workspace it runs one node per repository — the root
 * when it has a wiki, each sub-guild with a wiki — either inside this
 * process over nng's inproc:// transport or, with spawn, as child
 * processes (`corpus-gw node`) over ipc://.  Remote nodes from the config
 * are dialled over their URL.  Every request goes through the nng
 * transport (transport.h): there is one search path.
 *
 * May be included by gateway/ and cli/.
 */
#ifndef CG_GATEWAY_H
#define CG_GATEWAY_H

#include <stdbool.h>

#include "common/cg_err.h"
#include "conf/config.h"
#include "federation/fed.h"

typedef struct cg_gateway cg_gateway;

typedef struct cg_gateway_opts {
	const cg_config *config; /* borrowed during cg_gateway_open */
	const char *self_exe;    /* corpus-gw binary for spawn; NULL:
	                            /proc/self/exe */
	bool on_demand;          /* in-process nodes sync only when asked
	                            (a CLI run) */
	bool oneshot;            /* and the process exits after one command:
	                            the indexes read on read-only connections,
	                            so a no-change query writes nothing (not
	                            for a long-lived process: a read-only
	                            wal-index no other process holds costs
	                            every read transaction a re-validation) */
} cg_gateway_opts;

int cg_gateway_open(cg_gateway **out, const cg_gateway_opts *opts, cg_err *err);
void cg_gateway_free(cg_gateway *g);

cg_fed *cg_gateway_fed(cg_gateway *g);

/* Fills cfg (caller runs cg_config_fini) for one workspace directory, as
 * `--workspace DIR [--spawn]` does. */
int cg_config_for_workspace(cg_config *cfg, const char *dir, const char *cache,
                            bool spawn, int deadline_ms, cg_err *err);

#endif
