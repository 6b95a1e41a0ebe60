/*
 * acl.c - the one visibility check.  Pure functions over globs and JSON.
 */
#include "proto/acl.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "common/cg_err.h"
#include "common/cg_utf8.h"

static int
globs_ok(const json_t *a)
{
	size_t i;
	const json_t *g;

	if (a == NULL || json_is_null(a))
		return 1;
	if (!json_is_array(a) || json_array_size(a) > 256)
		return 0;
	json_array_foreach(a, i, g)
		if (!json_is_string(g) || json_string_length(g) > 1024)
			return 0;
	return 1;
}

int
cg_acl_from_json(cg_acl *acl, const json_t *obj)
{
	const json_t *allow = json_object_get(obj, "allow");
	const json_t *deny = json_object_get(obj, "deny");

	acl->workspace = json_string_value(json_object_get(obj, "workspace"));
	acl->allow = NULL;
	acl->deny = NULL;
	if (obj != NULL && !json_is_object(obj))
		return CG_EINVAL;
	if (!globs_ok(allow) || !globs_ok(deny))
		return CG_EINVAL;
	if (json_is_array(allow))
		acl->allow = json_incref((json_t *)allow);
	if (json_is_array(deny))
		acl->deny = json_incref((json_t *)deny);
	return 0;
}

void
cg_acl_fini(cg_acl *acl)
{
	if (acl == NULL)
		return;
	json_decref(acl->allow);
	json_decref(acl->deny);
	acl->allow = acl->deny = NULL;
}

json_t *
cg_acl_json(const cg_acl *acl, const char *workspace)
{
	return json_pack("{s:s, s:O, s:O}", "workspace", workspace, "allow",
	                 acl->allow ? acl->allow : json_null(), "deny",
	                 acl->deny ? acl->deny : json_null());
}

bool
cg_acl_active(const cg_acl *acl)
{
	return acl != NULL &&
	       (json_array_size(acl->allow) > 0 ||
	        json_array_size(acl->deny) > 0 || json_is_array(acl->allow));
}

static bool
any_match(const json_t *globs, const char *uri)
{
	size_t i;
	const json_t *g;

	json_array_foreach(globs, i, g)
		if (fnmatch(json_string_value(g), uri, 0) == 0)
			return true;
	return false;
}

/* The rule over a uri as the patterns are written: not percent-encoded. */
static bool
allows_raw(const cg_acl *acl, const char *uri)
{
	if (json_is_array(acl->allow) && !any_match(acl->allow, uri))
		return false;
	return !any_match(acl->deny, uri);
}

bool
cg_acl_allows_uri(const cg_acl *acl, const char *uri)
{
	char *raw;
	bool ok;

	if (acl == NULL)
		return true;
	if (uri == NULL)
		return false;
	/* Answers carry encoded uris (federation/uri.h); one that does not
	 * decode is hidden. */
	raw = cg_pct_decode(uri, strlen(uri), true);
	ok = raw != NULL && allows_raw(acl, raw);
	free(raw);
	return ok;
}

bool
cg_acl_allows(const cg_acl *acl, const char *source, const char *path)
{
	cg_buf b;
	bool ok;

	if (!cg_acl_active(acl))
		return true;
	if (source == NULL || path == NULL)
		return false;
	cg_buf_init(&b, 1 << 16);
	if (cg_buf_printf(&b, "cg://%s/%s/%s",
	                  acl->workspace ? acl->workspace : "", source,
	                  path) != 0) {
		cg_buf_fini(&b);
		return false;
	}
	ok = allows_raw(acl, b.data);
	cg_buf_fini(&b);
	return ok;
}
