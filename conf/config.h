/*
 * config.h - the gateway's YAML configuration (example: conf/gateway.yaml).
 *
 *   listen: http://127.0.0.1:7700   # where the gateway serves
 *   deadline_ms: 800                 # per query round
 *   cache: /var/cache/corpus-gw      # index cache of embedded nodes
 *   workspaces:                      # served by nodes this process runs
 *     - name: acme                   # (default: the folder's name)
 *       path: ../src/acme            # relative to the config file
 *       spawn: false                 # true: child processes, not threads
 *   nodes:                           # remote nodes, already running
 *     - name: billing-box
 *       url: tcp://10.0.0.5:7801
 *       workspace: acme
 *       sources: [billing]
 *   tokens:                          # access: Authorization: Bearer ...
 *     - name: billing-team
 *       secret_env: CG_TOKEN_BILLING # or secret_file: /path (0600)
 *       allow: ["cg://acme/billing/?*"]
 *       deny: ["cg://acme/billing/?*secret-?*"]
 *
 * Read with the bounded YAML reader of common/cg_yaml.h (no aliases,
 * depth and size capped).  Strict: an unknown key, a missing required key
 * or a value of the wrong type is CG_EINVAL naming the key and the file.
 *
 * May be included by conf/ and every layer above it (page, proto, index,
 * node, federation, gateway, cli).
 */
#ifndef CG_CONFIG_H
#define CG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"

#define CG_CONFIG_MAX_BYTES ((size_t)256 * 1024)
#define CG_CONFIG_MAX_NODES 20000

typedef struct cg_conf_workspace {
	char *name; /* workspace name, default basename(path) */
	char *path; /* absolute */
	bool spawn; /* nodes as child processes */
} cg_conf_workspace;

typedef struct cg_conf_node {
	char *name;
	char *url;       /* nng address */
	char *workspace; /* workspace its sources belong to */
	char **sources;  /* NULL-terminated */
	size_t nsources;
} cg_conf_node;

typedef struct cg_conf_token {
	char *name;
	char *secret;  /* from the environment or a file; never logged */
	json_t *allow; /* array of uri globs, or NULL: everything */
	json_t *deny;  /* array of uri globs, or NULL */
} cg_conf_token;

typedef struct cg_config {
	char *path;      /* the file read */
	char *listen;    /* default http://127.0.0.1:7700 */
	int deadline_ms; /* default 800 */
	char *cache;     /* NULL: the default cache directory */
	cg_conf_workspace *workspaces;
	size_t nworkspaces;
	cg_conf_node *nodes;
	size_t nnodes;
	cg_conf_token *tokens;
	size_t ntokens;
} cg_config;

int cg_config_load(cg_config *c, const char *path, cg_err *err);
void cg_config_fini(cg_config *c);

#endif
