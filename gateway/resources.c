/*
 * resources.c - MCP resources over the list and read tools (resources.h).
 * Decisions: a resource is a page, its uri the page's cg:// uri, its name
 * "<source>/<path>", its title the page's title, its type text/markdown;
 * the text read is the page file as stored (frontmatter block and body),
 * what `corpus-gw read` prints.  The cursor is the decimal offset of the
 * next page in the list tool's uri order: opaque to clients, checked when
 * it comes back.  Any failure to read a page by uri (absent, hidden,
 * outside a source, malformed) is CG_ENOTFOUND with one wording, so an
 * error never tells a hidden page from a missing one.  It must not know
 * JSON-RPC or HTTP.
 */
#include "gateway/resources.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "common/cg_json.h"
#include "gateway/api.h"
#include "gateway/render.h"

#define MIME "text/markdown"

static int
parse_cursor(const json_t *params, int *offset, cg_err *err)
{
	const json_t *c = json_object_get(params, "cursor");
	const char *s = json_string_value(c);
	char *end = NULL;
	long v;

	*offset = 0;
	if (c == NULL || json_is_null(c))
		return 0;
	if (s == NULL || *s == '\0')
		return cg_err_set(err, CG_EINVAL, "invalid cursor");
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 0 || v > 100000)
		return cg_err_set(err, CG_EINVAL, "invalid cursor");
	*offset = (int)v;
	return 0;
}

static json_t *
resource_of(const json_t *item)
{
	json_t *r =
	    json_pack("{s:s, s:s++, s:s}", "uri", cg_json_str(item, "uri"),
	              "name", cg_json_str(item, "source"), "/",
	              cg_json_str(item, "path"), "mimeType", MIME);

	if (r != NULL && *cg_json_str(item, "title"))
		json_object_set_new(r, "title",
		                    json_string(cg_json_str(item, "title")));
	return r;
}

int
cg_resources_list(cg_fed *fed, const struct cg_acl *acl, const json_t *params,
                  json_t **result, cg_err *err)
{
	json_t *args = NULL;
	json_t *ans = NULL;
	json_t *list;
	const json_t *next;
	const json_t *item;
	size_t i;
	int offset;
	int rc = parse_cursor(params, &offset, err);

	*result = NULL;
	if (rc != 0)
		return rc;
	args = json_pack("{s:i, s:i}", "limit", CG_RESOURCES_PAGE, "offset",
	                 offset);
	rc = args ? cg_api_call_as(fed, acl, "list", args, &ans, err)
	          : cg_err_set(err, CG_ENOMEM, "out of memory");
	json_decref(args);
	if (rc != 0)
		return rc;
	list = json_array();
	json_array_foreach(json_object_get(ans, "items"), i, item)
		json_array_append_new(list, resource_of(item));
	*result = json_pack("{s:o}", "resources", list);
	next = json_object_get(ans, "next_offset");
	if (*result != NULL && json_is_integer(next))
		json_object_set_new(
		    *result, "nextCursor",
		    json_sprintf("%lld", (long long)json_integer_value(next)));
	json_decref(ans);
	return *result ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");
}

json_t *
cg_resources_templates(void)
{
	return json_pack(
	    "{s:[{s:s, s:s, s:s, s:s, s:s}]}", "resourceTemplates",
	    "uriTemplate", CG_RESOURCES_TEMPLATE, "name", "page", "title",
	    "A wiki or corpus page", "description",
	    "A page by its uri, as search hits and resources/list give it: "
	    "cg://<workspace>/<source>/<path from the repository root>",
	    "mimeType", MIME);
}

int
cg_resources_read(cg_fed *fed, const struct cg_acl *acl, const json_t *params,
                  json_t **result, cg_err *err)
{
	const char *uri = json_string_value(json_object_get(params, "uri"));
	const cg_render_opts ro = {false, false};
	json_t *ans = NULL;
	json_t *args;
	cg_err rerr;
	cg_buf text;
	int rc;

	*result = NULL;
	if (uri == NULL)
		return cg_err_set(err, CG_EINVAL, "'uri' must be a string");
	if (strncmp(uri, "cg://", 5) != 0)
		return cg_err_set(err, CG_ENOTFOUND, "Resource not found");
	args = json_pack("{s:s}", "uri", uri);
	cg_err_clear(&rerr);
	rc = args ? cg_api_call_as(fed, acl, "read", args, &ans, &rerr)
	          : CG_ENOMEM;
	json_decref(args);
	if (rc == CG_ENOMEM || rc == CG_ETIMEDOUT || rc == CG_EUNAVAIL)
		return cg_err_set(err, rc, "%s", rerr.msg);
	if (rc != 0)
		return cg_err_set(err, CG_ENOTFOUND, "Resource not found");
	cg_buf_init(&text, 64u << 20);
	cg_render_read(&text, ans, &ro);
	*result = json_pack("{s:[{s:s, s:s, s:s%}]}", "contents", "uri", uri,
	                    "mimeType", MIME, "text",
	                    text.data ? text.data : "", text.len);
	cg_buf_fini(&text);
	json_decref(ans);
	return *result ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");
}
