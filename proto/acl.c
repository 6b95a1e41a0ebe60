/*
 * acl.c - the one visibility check.  Pure functions over globs and JSON;
 * whether a whole source is hidden is decided on the globs alone (a glob
 * matched against a uri prefix), never by listing pages.
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

/* --- whole sources -------------------------------------------------------- */

/* Steps a glob may take while matching prefixes (a '*' may branch): past
 * it the answer is the cautious one. */
#define GLOB_STEPS 100000

/* The length of the bracket expression at p ("[...]"), or 0 when p does
 * not open one (then '[' is a plain character, as fnmatch reads it). */
static size_t
bracket_len(const char *p)
{
	size_t i = 1;

	if (p[i] == '!' || p[i] == '^')
		i++;
	if (p[i] == ']')
		i++;
	while (p[i] != '\0' && p[i] != ']')
		i++;
	return p[i] == ']' ? i + 1 : 0;
}

/* Whether the one character c matches the pattern element at *p (a
 * character, an escape, '?' or a bracket expression); *p moves past it. */
static bool
element_match(const char **p, char c)
{
	size_t n;

	if (**p == '?') {
		(*p)++;
		return true;
	}
	if (**p == '[' && (n = bracket_len(*p)) > 0) {
		char cls[1100];
		char one[2] = {c, '\0'};

		if (n >= sizeof(cls)) {
			*p += n;
			return true; /* cannot decide: cautious */
		}
		memcpy(cls, *p, n);
		cls[n] = '\0';
		*p += n;
		return fnmatch(cls, one, 0) == 0;
	}
	if (**p == '\\' && (*p)[1] != '\0')
		(*p)++;
	return *(*p)++ == c;
}

/* Whether glob p can match some uri that starts with s (a '*' can take
 * the rest of s, and then anything: true). */
static bool
may_match_below(const char *p, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*p == '\0')
			return false;
		if (*p == '*')
			return true;
		if (!element_match(&p, *s))
			return false;
	}
	return true;
}

/* Whether glob p matches every s + X with X non-empty; *steps bounds the
 * work (out of steps: false, the cautious answer). */
/* NOLINTBEGIN(misc-no-recursion): each call moves p or s one element on,
 * so the depth is at most their lengths (a glob is at most 1024 bytes),
 * and *steps bounds the branching of '*'. */
static bool
matches_all_below(const char *p, const char *s, long *steps)
{
	if (--*steps < 0)
		return false;
	if (*s == '\0') {
		const char *q = p;

		while (*q == '*')
			q++;
		return q != p && *q == '\0';
	}
	if (*p == '\0')
		return false;
	if (*p == '*')
		return matches_all_below(p + 1, s, steps) ||
		       matches_all_below(p, s + 1, steps);
	if (!element_match(&p, *s))
		return false;
	return matches_all_below(p, s + 1, steps);
}
/* NOLINTEND(misc-no-recursion) */

bool
cg_acl_sees_source(const cg_acl *acl, const char *ws, const char *source)
{
	cg_buf b;
	bool seen = true;
	size_t i;
	const json_t *g;

	if (!cg_acl_active(acl))
		return true;
	cg_buf_init(&b, 1 << 16);
	if (cg_buf_printf(&b, "cg://%s/%s/", ws ? ws : "", source) != 0) {
		cg_buf_fini(&b);
		return true;
	}
	if (json_is_array(acl->allow)) {
		seen = false;
		json_array_foreach(acl->allow, i, g)
			seen = seen ||
			       may_match_below(json_string_value(g), b.data);
	}
	json_array_foreach(acl->deny, i, g) {
		long steps = GLOB_STEPS;

		seen = seen &&
		       !matches_all_below(json_string_value(g), b.data, &steps);
	}
	cg_buf_fini(&b);
	return seen;
}
