/*
 * limits.h - the bounds of operation arguments that both sides check: the
 * federation refuses a request outside them before any node works, and a
 * node refuses one that arrives anyway (invalid_input).
 *
 * May be included by proto/ and every layer above it.
 */
#ifndef CG_LIMITS_H
#define CG_LIMITS_H

/* list: items per page and the deepest offset. */
#define CG_LIST_DEFAULT_LIMIT 50
#define CG_LIST_MAX_LIMIT     500
#define CG_LIST_MAX_OFFSET    100000

/* grep: matches returned; bytes of match and context text one answer
 * keeps (a node's reply, then the federation's merge): past it, matches
 * are counted, not kept, and the answer says truncated. */
#define CG_GREP_DEFAULT_MAX 200
#define CG_GREP_MAX_MAX     10000
#define CG_GREP_KEEP_BYTES  (1u << 20)

/* fetch: hits asked of one node at once (the search limit's cap). */
#define CG_FETCH_MAX_ITEMS 500

/* peek: pages asked at once (the tool's uris and a node's items). */
#define CG_PEEK_MAX_ITEMS 100

/* claims: keys asked of one node at once; the federation asks only the
 * keys of its hits, at most the search limit's cap. */
#define CG_CLAIMS_MAX_KEYS 500

/* resolve: names asked at once. */
#define CG_RESOLVE_MAX_NAMES 1000

#endif
