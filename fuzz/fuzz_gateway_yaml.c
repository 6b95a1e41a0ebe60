/*
 * fuzz_gateway_yaml.c - libFuzzer target for the gateway config
 * (gateway.yaml, conf/config.c): the bytes written to a file and loaded
 * with cg_config_load, as `corpus-gw serve --config` loads it.  abort()s
 * when a load succeeds with a workspace, node or token missing what the
 * gateway relies on (a name, a path or url, a secret, a positive
 * deadline), when a failure has no message, a message that is not UTF-8 or
 * that does not name the file, or when two loads of the same bytes
 * disagree.
 *
 * The file lives in one temporary directory made once and removed at exit:
 * a fuzz harness, not project code, so the static state is deliberate.  It
 * must not touch anything outside that directory or the network.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_fs.h"
#include "common/cg_utf8.h"
#include "conf/config.h"

static char fuzz_dir[256];
static char fuzz_path[300];

static void
cleanup(void)
{
	if (fuzz_dir[0] != '\0')
		(void)cg_rm_rf(fuzz_dir);
}

static void
open_dir(void)
{
	(void)snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/fuzz-gwyaml-XXXXXX",
	               getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(fuzz_dir) == NULL)
		abort();
	atexit(cleanup);
	(void)snprintf(fuzz_path, sizeof(fuzz_path), "%s/gateway.yaml",
	               fuzz_dir);
}

/* What the gateway dereferences without checking must be there. */
static void
check_config(const cg_config *c)
{
	if (c->path == NULL || c->deadline_ms <= 0)
		abort();
	for (size_t i = 0; i < c->nworkspaces; i++)
		if (c->workspaces[i].name == NULL ||
		    c->workspaces[i].path == NULL)
			abort();
	for (size_t i = 0; i < c->nnodes; i++) {
		if (c->nodes[i].name == NULL || c->nodes[i].url == NULL)
			abort();
		for (size_t k = 0; k < c->nodes[i].nsources; k++)
			if (c->nodes[i].sources[k] == NULL)
				abort();
	}
	for (size_t i = 0; i < c->ntokens; i++)
		if (c->tokens[i].name == NULL || c->tokens[i].secret == NULL)
			abort();
}

static int
load(cg_config *c, cg_err *err)
{
	cg_err_clear(err);
	return cg_config_load(c, fuzz_path, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cg_config a;
	cg_config b;
	cg_err ea;
	cg_err eb;
	int ra;
	int rb;

	if (fuzz_dir[0] == '\0')
		open_dir();
	if (cg_file_write_atomic(fuzz_path, (const char *)data, size, NULL) !=
	    0)
		abort();
	ra = load(&a, &ea);
	rb = load(&b, &eb);
	if (ra != rb)
		abort();
	if (ra == 0) {
		check_config(&a);
		if (a.nworkspaces != b.nworkspaces || a.nnodes != b.nnodes ||
		    a.ntokens != b.ntokens)
			abort();
		cg_config_fini(&a);
		cg_config_fini(&b);
		return 0;
	}
	if (ea.msg[0] == '\0' || strcmp(ea.msg, eb.msg) != 0 ||
	    !cg_utf8_valid(ea.msg, strlen(ea.msg)) ||
	    (strstr(ea.msg, "gateway.yaml") == NULL && ra != CG_ENOMEM))
		abort();
	return 0;
}
