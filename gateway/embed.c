/*
 * embed.c - wires a workspace's nodes to a federation in one process.  The
 * transport hands each request to the node's handler; nothing is
 * shortcut, so a request takes the same path it would over nng.
 */
#define _GNU_SOURCE
#include "gateway/embed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cg_fs.h"
#include "node/dispatch.h"
#include "node/node.h"

struct cg_embed {
	cg_workspace ws;
	cg_node **nodes;
	size_t nnodes;
	cg_fed *fed;
};

static void
direct_broadcast(void *ctx, json_t *const *reqs, json_t **replies, cg_err *errs,
                 size_t n, int deadline_ms)
{
	cg_embed *e = ctx;

	for (size_t i = 0; i < n && i < e->nnodes; i++) {
		replies[i] = NULL;
		if (reqs[i] == NULL)
			continue;
		replies[i] = cg_node_handle(e->nodes[i], reqs[i]);
		if (replies[i] == NULL)
			cg_err_set(&errs[i], CG_ENOMEM, "out of memory");
	}
}

static int
open_nodes(cg_embed *e, const char *cache_dir, cg_err *err)
{
	int rc = 0;

	e->nodes =
	    calloc(e->ws.nsources ? e->ws.nsources : 1, sizeof(cg_node *));
	if (e->nodes == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	for (size_t i = 0; i < e->ws.nsources && rc == 0; i++) {
		const cg_source *s = &e->ws.sources[i];
		cg_node_opts o = {s->name, cache_dir, s, 1, 0};

		rc = cg_node_new(&e->nodes[i], &o, err);
		if (rc == 0)
			e->nnodes++;
	}
	return rc;
}

static int
open_fed(cg_embed *e, cg_err *err)
{
	cg_fed_node *fn = calloc(e->nnodes ? e->nnodes : 1, sizeof(*fn));
	const char **names = calloc(e->nnodes ? e->nnodes : 1, sizeof(*names));
	cg_fed_opts o;
	int rc;

	if (fn == NULL || names == NULL) {
		free(fn);
		free(names);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < e->nnodes; i++) {
		names[i] = e->ws.sources[i].name;
		fn[i] = (cg_fed_node){names[i], NULL, &names[i], 1};
	}
	o = (cg_fed_opts){e->ws.name, fn, e->nnodes, direct_broadcast, e, 0};
	rc = cg_fed_new(&e->fed, &o, err);
	free(fn);
	free(names);
	return rc;
}

int
cg_embed_open(cg_embed **out, const char *dir, const char *cache_dir,
              cg_err *err)
{
	cg_embed *e = calloc(1, sizeof(*e));
	int rc;

	*out = NULL;
	if (e == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	rc = cg_workspace_load(&e->ws, dir, err);
	if (rc == 0)
		rc = cg_mkdir_p(cache_dir, err);
	if (rc == 0)
		rc = open_nodes(e, cache_dir, err);
	if (rc == 0)
		rc = open_fed(e, err);
	if (rc != 0) {
		cg_embed_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

void
cg_embed_free(cg_embed *e)
{
	if (e == NULL)
		return;
	cg_fed_free(e->fed);
	for (size_t i = 0; i < e->nnodes; i++)
		cg_node_free(e->nodes[i]);
	free(e->nodes);
	cg_workspace_fini(&e->ws);
	free(e);
}

cg_fed *
cg_embed_fed(cg_embed *e)
{
	return e->fed;
}

const cg_workspace *
cg_embed_workspace(const cg_embed *e)
{
	return &e->ws;
}
