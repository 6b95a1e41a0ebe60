/*
 * fuzz_request.c - libFuzzer target for the node's request path: bytes to
 * cg_wire_decode(), and a decoded request to cg_node_handle() of a node
 * over a tiny workspace, then the reply through cg_wire_encode() and back.
 * A refused request must give an encodable error reply.  abort()s when a
 * reply is missing, not an object, lacks "node"/"ok", or does not survive
 * the encode-decode round trip.
 *
 * The workspace (three pages, one sub-guild) and the node are created once
 * in a temporary directory and removed at exit: a fuzz harness, not
 * project code, so the static state is deliberate.  It must not touch
 * anything outside that directory or the network.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_fs.h"
#include "node/dispatch.h"
#include "node/node.h"
#include "proto/wire.h"

static cg_node *fuzz_node;
static char fuzz_dir[256];

static void
cleanup(void)
{
	cg_node_free(fuzz_node);
	fuzz_node = NULL;
	if (fuzz_dir[0] != '\0')
		(void)cg_rm_rf(fuzz_dir);
}

static void
put(const char *rel, const char *text)
{
	char path[512];
	char *slash;

	(void)snprintf(path, sizeof(path), "%s/%s", fuzz_dir, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	if (cg_mkdir_p(path, NULL) != 0)
		abort();
	*slash = '/';
	if (cg_file_write_atomic(path, text, strlen(text), NULL) != 0)
		abort();
}

static void
make_workspace(void)
{
	put("ws/.guild/wiki/concepts/harbour.md",
	    "---\ntype: concept\ntags: [sea, port]\nclaim: harbour-depth\n"
	    "---\n# Harbour\n\nThe harbour is 12 m deep. [[tides]]\n");
	put("ws/.guild/wiki/concepts/tides.md",
	    "---\ntype: concept\nclaim: harbour-depth\nupdated_at: "
	    "2026-02-01\n---\n# Tides\n\nThe harbour is 14 m deep at high "
	    "tide. 网关 café\n");
	put("ws/sub/.guild/wiki/entities/ship.md",
	    "---\ntype: entity\n---\n# Ship\n\nA ship in the harbour.\n");
	put("ws/.guild/wiki/concepts/bad.md", "---\ntype: [unclosed\n---\n"
	                                      "# Bad\n\nBroken frontmatter.\n");
}

static void
open_node(void)
{
	char ws[300];
	char cache[300];
	char wiki[400];
	char sub_repo[400];
	char sub_wiki[500];
	cg_source src[2];
	cg_node_opts o;
	json_t *req;
	json_t *reply;

	(void)snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/fuzz-request-XXXXXX",
	               getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(fuzz_dir) == NULL)
		abort();
	atexit(cleanup);
	make_workspace();
	(void)snprintf(ws, sizeof(ws), "%s/ws", fuzz_dir);
	(void)snprintf(cache, sizeof(cache), "%s/cache", fuzz_dir);
	(void)snprintf(wiki, sizeof(wiki), "%s/.guild/wiki", ws);
	(void)snprintf(sub_repo, sizeof(sub_repo), "%s/sub", ws);
	(void)snprintf(sub_wiki, sizeof(sub_wiki), "%s/.guild/wiki", sub_repo);
	src[0] = (cg_source){.name = "root", .repo = ws, .wiki = wiki};
	src[1] = (cg_source){.name = "sub", .repo = sub_repo, .wiki = sub_wiki};
	o = (cg_node_opts){"fuzz", cache, src, 2, 0};
	if (cg_mkdir_p(cache, NULL) != 0 || cg_node_new(&fuzz_node, &o, NULL))
		abort();
	req = json_pack("{s:i, s:i, s:s}", "v", 1, "id", 0, "op", "sync");
	reply = cg_node_handle(fuzz_node, req);
	if (!json_is_true(json_object_get(reply, "ok")))
		abort();
	json_decref(req);
	json_decref(reply);
}

/* The reply must be an object with node and ok, and survive the codec. */
static void
check_reply(const json_t *reply)
{
	char *buf = NULL;
	size_t len = 0;
	json_t *back = NULL;
	int rc;

	if (!json_is_object(reply) ||
	    !json_is_string(json_object_get(reply, "node")) ||
	    !json_is_boolean(json_object_get(reply, "ok")))
		abort();
	rc = cg_wire_encode(reply, &buf, &len, NULL);
	if (rc != 0)
		abort();
	back = json_loadb(buf, len, 0, NULL);
	if (back == NULL || !json_equal(back, reply))
		abort();
	json_decref(back);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *req = NULL;
	json_t *reply;
	cg_err err;

	if (fuzz_node == NULL)
		open_node();
	cg_err_clear(&err);
	if (cg_wire_decode(data, size, &req, &err) == 0) {
		if (req == NULL || !json_is_object(req))
			abort();
		reply = cg_node_handle(fuzz_node, req);
	} else {
		if (req != NULL || err.code == 0 || err.msg[0] == '\0')
			abort();
		reply = cg_wire_reply_refused(cg_node_name(fuzz_node), data,
		                              size, &err);
	}
	check_reply(reply);
	json_decref(reply);
	json_decref(req);
	return 0;
}
