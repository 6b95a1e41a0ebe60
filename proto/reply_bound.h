/*
 * reply_bound.h - what a node's reply to one request may hold, derived
 * from the request itself: its length, the number of JSON tokens in it,
 * and the length of the result's item array (hits at most the limit sent
 * times the sources asked, fetched hits and peeked pages at most the items
 * asked, resolve results at most the names asked...).  nng authenticates
 * no node, so the federation's transport checks every reply against the
 * bound of its own request: the length and the tokens on the raw bytes,
 * before jansson builds anything (a cheap scan, no allocation), the item
 * array after parsing and before anything is merged.  A reply outside its
 * bound is a "bad reply", like one that is not JSON.
 *
 * The bounds are generous for an honest node (a hit may carry a large
 * frontmatter: the token budget is per reply, not per item) and tight for
 * a hostile one (two million empty hits are refused before parsing).  Ops
 * whose reply is not sized by the request (read, backlinks, map, status,
 * sync, problems, links, corpus_graph) keep only the one reply cap,
 * CG_WIRE_MAX_REPLY, and a token budget of the same order.
 *
 * May be included by proto/ and every layer above it (the federation's
 * transport uses it).  It must not do I/O.
 */
#ifndef CG_REPLY_BOUND_H
#define CG_REPLY_BOUND_H

#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"

/* Tokens: every '{', '[', ',' and ':' outside strings (about two per
 * member or element); an empty object costs jansson a hash table, so the
 * tokens, not the bytes, bound the memory a parse takes. */
#define CG_REPLY_TOKENS_BASE     262144u /* followups, per_source, failed */
#define CG_REPLY_TOKENS_PER_ITEM 1024u   /* budget per item asked */
#define CG_REPLY_TOKENS_DEFAULT  (4u << 20)
/* Bytes: a search reply's per-hit allowance (a hit carries frontmatter,
 * capped at 256 KiB, escaped) over a base; capped at CG_WIRE_MAX_REPLY. */
#define CG_REPLY_BYTES_BASE     (1u << 20)
#define CG_REPLY_BYTES_PER_ITEM (512u << 10)

typedef struct cg_reply_bound {
	const char *op;   /* the request's op (borrowed) */
	size_t bytes;     /* the message length at most */
	size_t tokens;    /* structural tokens at most */
	const char *list; /* the result array bounded by items, or NULL */
	const char *alt;  /* a second such array ("candidates"), or NULL */
	size_t items;     /* elements of list (and alt) at most */
} cg_reply_bound;

/* The bound of the reply to req, a request built by cg_wire_request
 * (borrowed; only its op and args are read). */
void cg_reply_bound_of(cg_reply_bound *b, const json_t *req);

/* The checks made on the raw reply before it is parsed: at most b->bytes
 * bytes, starting with '{' (after white space), at most b->tokens tokens.
 * 0, or CG_EPROTO "bad reply: ..." saying which. */
int cg_reply_bound_bytes(const cg_reply_bound *b, const void *buf, size_t len,
                         cg_err *err);

/* The check made on the parsed reply: the result's list (and alt) hold
 * at most b->items elements.  0 or CG_EPROTO "bad reply: ...". */
int cg_reply_bound_items(const cg_reply_bound *b, const json_t *reply,
                         cg_err *err);

#endif
