/*
 * cghostile_node.h - a hostile node for tests: a REP socket on
 * tcp://127.0.0.1:0 that speaks just enough of the node protocol for a
 * gateway to reach the round under attack (honest-looking statistics for
 * every source it is asked about, an empty result to every other op) and
 * answers that round's op with what a hostile or broken node sends: a
 * huge hit array, one hit holding a huge array, junk bytes, a reply
 * after a delay, a reply to another request.  Nothing in nng
 * authenticates a node, so the gateway must survive every one of them;
 * tests use the fixture through the real gateway and federation code
 * (`corpus-gw query --config`, `serve --config`), never a mock of them.
 *
 * It must not read the request beyond the envelope, the op and the
 * arguments it echoes (sources, the query's term count), and must never
 * answer the attacked op honestly: a test that sees "ok" from it has
 * found a bug.  The honest neighbour (cgt_honest_*) is the real node a
 * test sets beside it, and cgt_hostile_config the gateway.yaml naming
 * both.  Include after cgtest.h.
 */
#ifndef CG_HOSTILE_NODE_H
#define CG_HOSTILE_NODE_H

#include <stddef.h>

#include "cgproc.h"

enum cgt_hostile_mode {
	CGT_HOSTILE_HITS,     /* n empty objects as the hits ({} each) */
	CGT_HOSTILE_FAT_HIT,  /* one hit whose "tags" holds n empty objects */
	CGT_HOSTILE_JUNK,     /* n bytes of '1' (one long number run) */
	CGT_HOSTILE_SLOW,     /* an empty, well-formed result after delay_ms */
	CGT_HOSTILE_WRONG_ID, /* a well-formed reply to another request id */
};

typedef struct cgt_hostile_opts {
	enum cgt_hostile_mode mode;
	const char *op; /* the op attacked (NULL: "search") */
	size_t n;       /* HITS, FAT_HIT: values; JUNK: bytes */
	int delay_ms;   /* SLOW: how long before the reply */
} cgt_hostile_opts;

typedef struct cgt_hostile cgt_hostile;

/* Starts the node (its own thread); fails the test when it cannot
 * listen. */
cgt_hostile *cgt_hostile_start(const cgt_hostile_opts *opts);

/* Its URL, tcp://127.0.0.1:PORT (borrowed). */
const char *cgt_hostile_url(const cgt_hostile *h);

/* How many times the attacked op was answered. */
int cgt_hostile_attacks(const cgt_hostile *h);

/* Stops the thread and closes the socket; NULL-safe. */
void cgt_hostile_stop(cgt_hostile *h);

/* The real node beside a hostile one, under a test's directory tmp:
 * tmp/acme holds npages pages .guild/wiki/concepts/qNN.md (frontmatter
 * fm, each about the quokka), indexed in tmp/cache by `corpus-gw node
 * --source root --name acme/root --listen tcp://127.0.0.1:0`, its stderr
 * in tmp/node.log.  Paths and url malloc'd. */
typedef struct cgt_honest {
	char *ws;       /* tmp/acme */
	char *cache;    /* tmp/cache */
	char *log;      /* tmp/node.log */
	char *url;      /* the node's tcp:// URL */
	cgt_proc *node; /* NULL once stopped */
} cgt_honest;

/* Writes the pages and starts the node (returns once it listens, maybe
 * before its first index); fails the test when it does not start. */
void cgt_honest_start(cgt_honest *h, const char *tmp, int npages,
                      const char *fm);

/* Stops the node (asserts a clean exit within 10 s times the slowdown)
 * and frees the paths; leaves tmp to the test. */
void cgt_honest_stop(cgt_honest *h);

/* tmp/gateway.yaml: deadline_ms (when > 0), the honest node as acme/root
 * (source root) and the hostile h as acme/<name> (source name), both in
 * workspace acme. */
void cgt_hostile_config(const char *tmp, const cgt_honest *real,
                        const char *evil_url, const char *name,
                        int deadline_ms);

#endif
