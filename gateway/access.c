/*
 * access.c - the gateway's second check (see access.h): every answer is
 * walked once and whatever names a hidden page is removed.  Pure: no I/O,
 * no allocation beyond jansson's.
 */
#include "gateway/access.h"

#include <stdbool.h>
#include <string.h>

/* An item that holds nothing but a page's address and an error: the node
 * answers not_found alike for a hidden page and a missing one, so keeping
 * it reveals nothing, and dropping only the hidden one would (the caller
 * would see which of two unknown pages exists). */
static bool
error_only(const json_t *o)
{
	static const char *const addr[] = {
	    "index", "workspace", "source", "path", "uri", "error", NULL};
	const char *key;
	const json_t *v;

	if (json_object_get(o, "error") == NULL)
		return false;
	json_object_foreach((json_t *)o, key, v) {
		size_t k = 0;

		while (addr[k] != NULL && strcmp(addr[k], key) != 0)
			k++;
		if (addr[k] == NULL)
			return false;
	}
	return true;
}

static bool
item_hidden(const cg_acl *acl, const json_t *o)
{
	static const char *const keys[] = {"uri", "from", "target_uri",
	                                   "winner", NULL};

	for (size_t k = 0; keys[k] != NULL; k++) {
		const char *u = json_string_value(json_object_get(o, keys[k]));

		if (u != NULL && strncmp(u, "cg://", 5) == 0 &&
		    !cg_acl_allows_uri(acl, u))
			return true;
	}
	return false;
}

static size_t filter_value(const cg_acl *acl, json_t *v, int depth);

/* A conflict is dropped whole when any of its pages is hidden: listing
 * the visible side alone would reveal that a hidden page disagrees. */
static bool
conflict_hidden(const cg_acl *acl, const json_t *o)
{
	const json_t *pages = json_object_get(o, "pages");
	size_t i;
	const json_t *p;

	if (!json_is_array(pages) || json_object_get(o, "winner") == NULL)
		return false;
	json_array_foreach(pages, i, p)
		if (item_hidden(acl, p))
			return true;
	return item_hidden(acl, o);
}

/* NOLINTBEGIN(misc-no-recursion): filter_array and filter_value call
 * each other one level deeper each time, and filter_value stops past
 * depth 32. */
static size_t
filter_array(const cg_acl *acl, json_t *a, int depth)
{
	size_t removed = 0;

	for (size_t i = json_array_size(a); i-- > 0;) {
		json_t *item = json_array_get(a, i);

		if (json_is_object(item) && !error_only(item) &&
		    (item_hidden(acl, item) || conflict_hidden(acl, item))) {
			json_array_remove(a, i);
			removed++;
			continue;
		}
		removed += filter_value(acl, item, depth + 1);
	}
	return removed;
}

static size_t
filter_value(const cg_acl *acl, json_t *v, int depth)
{
	size_t removed = 0;
	const char *key;
	json_t *child;

	if (depth > 32)
		return 0;
	if (json_is_array(v))
		return filter_array(acl, v, depth);
	if (!json_is_object(v))
		return 0;
	json_object_foreach(v, key, child)
		removed += filter_value(acl, child, depth + 1);
	return removed;
}
/* NOLINTEND(misc-no-recursion) */

size_t
cg_access_filter_answer(const cg_acl *acl, json_t *answer)
{
	if (!cg_acl_active(acl))
		return 0;
	return filter_value(acl, answer, 0);
}
