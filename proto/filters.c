/*
 * filters.c - search filters: strict validation and their JSON form in a
 * request (see filters.h).
 */
#include "proto/filters.h"

#include <string.h>

#include "page/page.h"

int
cg_filters_confidence_rank(const char *c)
{
	static const char *const levels[] = {"low", "medium", "high"};

	for (int i = 0; c != NULL && i < 3; i++)
		if (strcmp(c, levels[i]) == 0)
			return i + 1;
	return 0;
}

int
cg_filters_validate(const cg_filters *f, cg_err *err)
{
	if (f->category != NULL && !cg_category_valid(f->category)) {
		const char *sing = cg_category_singular(f->category);

		if (sing != NULL)
			return cg_err_set(err, CG_EINVAL,
			                  "category '%s' is a plural: use "
			                  "'%s' (valid: %s)",
			                  f->category, sing,
			                  cg_category_list());
		return cg_err_set(err, CG_EINVAL,
		                  "unknown category '%s' (valid: %s)",
		                  f->category, cg_category_list());
	}
	if (f->confidence != NULL &&
	    cg_filters_confidence_rank(f->confidence) == 0)
		return cg_err_set(err, CG_EINVAL,
		                  "invalid confidence '%s' (valid: low, "
		                  "medium, high)",
		                  f->confidence);
	if (f->updated_since != NULL && !cg_date_valid(f->updated_since))
		return cg_err_set(err, CG_EINVAL,
		                  "invalid updated_since '%s' (expected a "
		                  "calendar date YYYY-MM-DD)",
		                  f->updated_since);
	if (f->owner != NULL && *f->owner == '\0')
		return cg_err_set(err, CG_EINVAL, "empty owner filter");
	if (f->tag != NULL && *f->tag == '\0')
		return cg_err_set(err, CG_EINVAL, "empty tag filter");
	return 0;
}

bool
cg_filters_any(const cg_filters *f)
{
	return f->category || f->owner || f->confidence || f->updated_since ||
	       f->tag;
}

json_t *
cg_filters_json(const cg_filters *f)
{
	json_t *o = json_object();

	if (f->category)
		json_object_set_new(o, "category", json_string(f->category));
	if (f->owner)
		json_object_set_new(o, "owner", json_string(f->owner));
	if (f->confidence)
		json_object_set_new(o, "confidence",
		                    json_string(f->confidence));
	if (f->updated_since)
		json_object_set_new(o, "updated_since",
		                    json_string(f->updated_since));
	if (f->tag)
		json_object_set_new(o, "tag", json_string(f->tag));
	return o;
}

void
cg_filters_from_json(cg_filters *f, const json_t *obj)
{
	memset(f, 0, sizeof(*f));
	f->category = json_string_value(json_object_get(obj, "category"));
	f->owner = json_string_value(json_object_get(obj, "owner"));
	f->confidence = json_string_value(json_object_get(obj, "confidence"));
	f->updated_since =
	    json_string_value(json_object_get(obj, "updated_since"));
	f->tag = json_string_value(json_object_get(obj, "tag"));
}
