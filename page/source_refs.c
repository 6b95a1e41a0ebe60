/*
 * raw.c - source_refs resolution.  Reads only metadata.json files under
 * <repo>/.guild/raw/sources/, capped at 256 KB each; tolerates
 * `checksum: "sha256:<hex>"` for checksum_sha256.
 */
#include "page/source_refs.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_fs.h"

#define RAW_META_MAX ((size_t)256 * 1024)

static int
is_slug(const char *s)
{
	if (*s == '\0' || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 0;
	for (; *s; s++)
		if (*s == '/' || *s == '\\' || *s == ' ')
			return 0;
	return 1;
}

static void
copy_str(json_t *out, const char *key, const json_t *meta, const char *from)
{
	const json_t *v = json_object_get(meta, from);

	if (json_is_string(v))
		json_object_set(out, key, (json_t *)v);
}

static json_t *
from_metadata(const char *ref, const json_t *meta)
{
	json_t *out = json_pack("{s:s, s:s}", "ref", ref, "kind", "raw");
	const json_t *ck = json_object_get(meta, "checksum");

	copy_str(out, "slug", meta, "slug");
	copy_str(out, "source_type", meta, "source_type");
	copy_str(out, "url", meta, "url");
	copy_str(out, "path", meta, "path");
	copy_str(out, "original_file", meta, "original_file");
	copy_str(out, "checksum_sha256", meta, "checksum_sha256");
	copy_str(out, "captured_at", meta, "captured_at");
	copy_str(out, "captured_by", meta, "captured_by");
	if (json_object_get(out, "checksum_sha256") == NULL &&
	    json_is_string(ck)) {
		const char *c = json_string_value(ck);

		if (strncmp(c, "sha256:", 7) == 0)
			c += 7;
		json_object_set_new(out, "checksum_sha256", json_string(c));
	}
	json_object_set_new(out, "raw_path_missing", json_false());
	return out;
}

static json_t *
resolve_slug(const char *repo, const char *page, const char *ref,
             json_t *followups)
{
	char rel[1024];
	char *path;
	char *text = NULL;
	size_t len = 0;
	json_t *meta = NULL;
	json_t *out;

	(void)snprintf(rel, sizeof(rel), ".guild/raw/sources/%s/metadata.json",
	               ref);
	path = cg_path_join(repo, rel);
	if (path != NULL &&
	    cg_file_read(path, RAW_META_MAX, &text, &len, NULL) == 0)
		meta = json_loadb(text, len, 0, NULL);
	free(text);
	free(path);
	if (json_is_object(meta)) {
		out = from_metadata(ref, meta);
		json_decref(meta);
		return out;
	}
	json_decref(meta);
	if (followups != NULL)
		json_array_append_new(
		    followups, json_pack("{s:s, s:s, s:s+++}", "kind",
		                         "raw_missing", "path", page, "message",
		                         "source_refs: no readable ", rel,
		                         " for ", "this page"));
	return json_pack("{s:s, s:s, s:s, s:b}", "ref", ref, "kind", "raw",
	                 "slug", ref, "raw_path_missing", 1);
}

static json_t *
resolve_path(const char *repo, const char *ref)
{
	struct stat st;
	char *abs = NULL;
	int exists = 0;

	if (ref[0] != '/' && strstr(ref, "..") == NULL) {
		abs = cg_path_join(repo, ref);
		exists = abs != NULL && lstat(abs, &st) == 0;
	}
	free(abs);
	return json_pack("{s:s, s:s, s:s, s:b}", "ref", ref, "kind", "path",
	                 "path", ref, "exists", exists);
}

json_t *
cg_raw_resolve(const char *repo, const char *page, const json_t *refs,
               json_t *followups)
{
	json_t *out = json_array();
	size_t i;
	const json_t *r;

	json_array_foreach(refs, i, r) {
		const char *ref = json_string_value(r);

		if (ref == NULL || *ref == '\0')
			continue;
		if (is_slug(ref) && strstr(ref, ".md") == NULL)
			json_array_append_new(
			    out, resolve_slug(repo, page, ref, followups));
		else
			json_array_append_new(out, resolve_path(repo, ref));
	}
	return out;
}
