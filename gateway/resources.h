/*
 * resources.h - the pages as MCP resources, so a client can attach a page
 * to a conversation: resources/list (every page the caller may see, in uri
 * order, CG_RESOURCES_PAGE at a time with an opaque cursor),
 * resources/templates/list (the cg:// uri template) and resources/read
 * (a page's text by its cg:// uri).  Everything goes through the tool
 * table (api.h) under the caller's access rule, so a page the caller may
 * not see is listed nowhere and reads exactly like a missing one.  It
 * must not speak JSON-RPC (mcp.c frames results and errors).
 *
 * May be included by gateway/ only (mcp.c).
 */
#ifndef CG_RESOURCES_H
#define CG_RESOURCES_H

#include <jansson.h>

#include "common/cg_err.h"
#include "federation/fed.h"

#define CG_RESOURCES_PAGE     100 /* resources per resources/list */
#define CG_RESOURCES_TEMPLATE "cg://{workspace}/{source}/{+path}"

struct cg_acl;

/* The result of resources/list for params (its "cursor", when given, is
 * one a previous answer returned: CG_EINVAL otherwise).  The listing
 * covers the first 100,000 pages (the list tool's offset cap); the last
 * page of it has no nextCursor. */
int cg_resources_list(cg_fed *fed, const struct cg_acl *acl,
                      const json_t *params, json_t **result, cg_err *err);

/* The result of resources/templates/list (new reference). */
json_t *cg_resources_templates(void);

/* The result of resources/read for params {uri}: CG_EINVAL when uri is
 * missing or not a string, CG_ENOTFOUND for a page that does not exist,
 * is hidden from the caller or is not a page (one message for all). */
int cg_resources_read(cg_fed *fed, const struct cg_acl *acl,
                      const json_t *params, json_t **result, cg_err *err);

#endif
