/*
 * acl.h - who may see which page: a policy of granted and denied uri globs
 * (SPEC 8).  A page is visible when its uri matches a granted glob (an
 * empty grant list grants everything) and no denied glob.  Globs are
 * fnmatch(3) patterns over the whole uri, cg://<workspace>/<source>/<path>,
 * where '*' also matches '/'.
 *
 * The same check serves every output: the nodes filter with it before the
 * limit (SQL function cg_visible(path) on each index connection,
 * index/index.c, and per item in the tools), and the gateway re-checks
 * every answer (gateway/access.h) before it leaves.  The policy travels
 * with every request of a caller (cg_acl_json, args.acl).  A hidden page must
 * never be revealed: not by a hit, a snippet, a backlink, a conflict partner, a
 * grep line, a map entry, nor by a count or by "forbidden" versus "not
 * found". *
 * May be included by proto/ and every layer above it (index, node,
 * federation, gateway, cli).
 */
#ifndef CG_ACL_H
#define CG_ACL_H

#include <stdbool.h>

#include <jansson.h>

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

/* uri as answers carry it, percent-encoded (federation/uri.h): decoded,
 * then matched; a uri that does not decode is not allowed. */
bool cg_acl_allows_uri(const cg_acl *acl, const char *uri);
/* The page source/path in acl->workspace. */
bool cg_acl_allows(const cg_acl *acl, const char *source, const char *path);

/*
 * False when no page of source in workspace ws can be visible: no allow
 * glob can match a uri below cg://ws/source/, or a deny glob matches
 * every one.  Such a source is hidden whole: its name is as unknown to
 * the caller as a source that does not exist (evidence, scope errors,
 * metrics).  The test errs towards true (a glob it cannot decide shows
 * the source; its pages stay filtered one by one), so a source with a
 * visible page is never hidden.
 */
bool cg_acl_sees_source(const cg_acl *acl, const char *ws, const char *source);

#endif
