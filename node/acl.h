/*
 * acl.h - who may see which page: a policy of granted and denied uri globs
 * (SPEC 8).  A page is visible when its uri matches a granted glob (an
 * empty grant list grants everything) and no denied glob.  Globs are
 * fnmatch(3) patterns over the whole uri, cg://<workspace>/<source>/<path>,
 * where '*' also matches '/'.
 *
 * The same check serves every output: the nodes filter with it before the
 * limit (SQL function cg_visible(path) on each index connection, and per
 * item in the tools), and the gateway re-checks every answer
 * (cg_acl_filter_answer) before it leaves.  A hidden page must never be
 * revealed: not by a hit, a snippet, a backlink, a conflict partner, a
 * grep line, a map entry, nor by a count or by "forbidden" versus "not
 * found".
 */
#ifndef CG_ACL_H
#define CG_ACL_H

#include <stdbool.h>

#include <jansson.h>
#include <sqlite3.h>

typedef struct cg_acl {
	const char *workspace; /* for nodes: the workspace of their uris */
	json_t *allow;         /* array of glob strings (owned ref) */
	json_t *deny;          /* array of glob strings (owned ref) */
} cg_acl;

/* Reads {"workspace", "allow":[...], "deny":[...]}; NULL or absent gives
 * an empty policy (everything visible).  Returns 0 or CG_EINVAL. */
int cg_acl_from_json(cg_acl *acl, const json_t *obj);
void cg_acl_fini(cg_acl *acl);
/* As a new JSON object (for a node request). */
json_t *cg_acl_json(const cg_acl *acl, const char *workspace);
/* True when the policy restricts anything. */
bool cg_acl_active(const cg_acl *acl);

bool cg_acl_allows_uri(const cg_acl *acl, const char *uri);
/* The page source/path in acl->workspace. */
bool cg_acl_allows(const cg_acl *acl, const char *source, const char *path);

/* What cg_visible(path) reads at call time: the policy of the request
 * being answered (NULL: everything visible) and the index's source. */
typedef struct cg_acl_ctx {
	const cg_acl *acl;
	const char *source;
} cg_acl_ctx;

/* Registers cg_visible(path) on db. */
int cg_acl_register(sqlite3 *db, const cg_acl_ctx *ctx);

/* Removes from an answer everything about hidden pages: any object in an
 * array whose "uri" (or "from"/"target_uri") is hidden, conflicts whose
 * winner or any page is hidden, and recomputes nothing else (counts are
 * computed by the nodes over visible pages).  Returns the number of items
 * removed (for the log, never for the caller). */
size_t cg_acl_filter_answer(const cg_acl *acl, json_t *answer);

#endif
