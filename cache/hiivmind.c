/*
 * hiivmind.c - parses the hiivmind project registry (registry.yaml) and a
 * corpus's config.yaml into the structs of hiivmind.h, and holds the
 * helpers hiivmind_index.c and hiivmind_graph.c share (hiivmind_int.h).
 *
 * YAML goes through cg_yaml_load (bounded event reader, aliases within caps);
 * the jansson tree it returns is walked with loops, never recursion over input
 * structure.  One bad item is skipped with a warning, never a failed file.
 * Nothing here touches the network, the cache or an index.
 */
#include "cache/hiivmind.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cache/hiivmind_int.h"
#include "common/cg_buf.h"
#include "common/cg_str.h"
#include "common/cg_utf8.h"
#include "common/cg_yaml.h"

#define TTL_DEFAULT_S (7L * 86400L)
#define TTL_MAX_S     (3650L * 86400L) /* ten years, fits a 32-bit long */

/* -------------------------------------------------------------- context */

void
cg_hmi_init(struct cg_hmi *h, cg_err *err)
{
	memset(h, 0, sizeof(*h));
	h->err = err;
}

void
cg_hmi_fini(struct cg_hmi *h)
{
	for (size_t i = 0; i < h->nwarn; i++)
		free(h->warn[i]);
	h->nwarn = 0;
	h->more = 0;
	free(h->spare);
	h->spare = NULL;
	json_decref(h->seen);
	h->seen = NULL;
}

int
cg_hmi_nomem(struct cg_hmi *h)
{
	if (h->rc == 0)
		h->rc =
		    cg_err_set(h->err, CG_ENOMEM, "hiivmind: out of memory");
	return h->rc;
}

void
cg_hmi_warn(struct cg_hmi *h, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (h->nwarn == CG_HM_MAX_WARNINGS - 1) {
		h->more++;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	h->warn[h->nwarn] = strdup(line);
	if (h->warn[h->nwarn] == NULL) {
		cg_hmi_nomem(h);
		return;
	}
	h->nwarn++;
}

char **
cg_hmi_warn_take(struct cg_hmi *h)
{
	char **v = h->spare;
	char line[64];

	if (v == NULL)
		v = calloc(CG_HM_MAX_WARNINGS + 1, sizeof(*v));
	if (v == NULL) {
		cg_hmi_nomem(h);
		return NULL;
	}
	h->spare = NULL;
	memset(v, 0, (CG_HM_MAX_WARNINGS + 1) * sizeof(*v));
	memcpy(v, h->warn, h->nwarn * sizeof(*v));
	if (h->more > 0) {
		/* Lost (not fatal) if this one copy cannot be made. */
		(void)snprintf(line, sizeof(line),
		               "%zu more warnings not shown", h->more);
		v[h->nwarn] = strdup(line);
	}
	h->nwarn = 0;
	h->more = 0;
	return v;
}

void
cg_hmi_warn_adopt(struct cg_hmi *h, char **warnings)
{
	if (warnings == NULL)
		return;
	for (size_t i = 0; warnings[i] != NULL; i++) {
		if (i < CG_HM_MAX_WARNINGS - 1) {
			h->warn[h->nwarn++] = warnings[i];
			continue;
		}
		/* Only the overflow line written by cg_hmi_warn_take. */
		h->more += strtoull(warnings[i], NULL, 10);
		free(warnings[i]);
	}
	h->spare = warnings;
}

/* ----------------------------------------------------------- utilities */

int
cg_hmi_load(const char *what, const char *text, size_t len, json_t **root,
            cg_err *err)
{
	cg_err why;
	int rc;

	*root = NULL;
	if (len > CG_HM_MAX_BYTES)
		return cg_err_set(err, CG_ETOOBIG,
		                  "%s: %zu bytes, over the %u-byte limit", what,
		                  len, CG_HM_MAX_BYTES);
	if (text == NULL && len > 0)
		return cg_err_set(err, CG_EINVAL, "%s: no text", what);
	cg_err_clear(&why);
	rc = cg_yaml_load(text != NULL ? text : "", len, CG_HM_MAX_BYTES,
	                  CG_HMI_MAX_NODES, root, &why);
	if (rc == 0)
		return 0;
	/* Aliases, depth and node caps are refusals of hostile YAML. */
	if (rc != CG_ENOMEM)
		rc = CG_EPARSE;
	return cg_err_set(err, rc, "%s: %s", what,
	                  why.msg[0] != '\0' ? why.msg : "not YAML");
}

char *
cg_hmi_dupn(struct cg_hmi *h, const char *s, size_t n)
{
	char *d;

	if (s == NULL)
		return NULL;
	d = malloc(n + 1);
	if (d == NULL) {
		cg_hmi_nomem(h);
		return NULL;
	}
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *
cg_hmi_dup(struct cg_hmi *h, const char *s)
{
	return s != NULL ? cg_hmi_dupn(h, s, strlen(s)) : NULL;
}

const char *
cg_hmi_text(const json_t *v)
{
	const char *s;

	if (!json_is_string(v))
		return NULL;
	s = json_string_value(v);
	return strlen(s) == json_string_length(v) ? s : NULL;
}

const char *
cg_hmi_str(const json_t *obj, const char *key)
{
	return cg_hmi_text(json_object_get(obj, key));
}

char *
cg_hmi_opt(struct cg_hmi *h, const json_t *obj, const char *key)
{
	return cg_hmi_dup(h, cg_hmi_str(obj, key));
}

/* A list item's text: a non-empty string, or an integer as decimal. */
static const char *
item_text(const json_t *v, char *num, size_t cap)
{
	const char *s = cg_hmi_text(v);

	if (s != NULL)
		return s[0] != '\0' ? s : NULL;
	if (!json_is_integer(v))
		return NULL;
	(void)snprintf(num, cap, "%" JSON_INTEGER_FORMAT,
	               json_integer_value(v));
	return num;
}

char **
cg_hmi_strlist(struct cg_hmi *h, const json_t *v)
{
	size_t n = json_is_array(v) ? json_array_size(v) : 1;
	char **l = calloc(n + 1, sizeof(*l));
	size_t k = 0;
	char num[32];

	if (l == NULL) {
		cg_hmi_nomem(h);
		return NULL;
	}
	for (size_t i = 0; i < n && h->rc == 0; i++) {
		const json_t *it = json_is_array(v) ? json_array_get(v, i) : v;
		const char *s = item_text(it, num, sizeof(num));

		if (s != NULL && (l[k] = cg_hmi_dup(h, s)) != NULL)
			k++;
	}
	return l;
}

static bool
id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool
cg_hmi_safe_id(const char *s, size_t n)
{
	if (s == NULL || n == 0 || n > 255)
		return false;
	if (s[0] == '.' && (n == 1 || (n == 2 && s[1] == '.')))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!id_char(s[i]))
			return false;
	return true;
}

bool
cg_hmi_safe_relpath(const char *s, size_t n)
{
	size_t start = 0;

	if (s == NULL || n == 0 || n > 4096 || s[0] == '/' ||
	    memchr(s, '\0', n) != NULL || memchr(s, '\\', n) != NULL)
		return false;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '/')
			continue;
		if (i - start == 2 && s[start] == '.' && s[start + 1] == '.')
			return false;
		if (i < n)
			start = i + 1;
	}
	/* The last component names a file: not empty, not ".". */
	return start < n && !(n - start == 1 && s[start] == '.');
}

const char *
cg_hmi_q(char *out, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;
	size_t k = cg_utf8_clip(s, n, CG_HMI_QMAX - 4);

	for (size_t i = 0; i < k; i++) {
		unsigned char c = (unsigned char)s[i];

		out[i] = (char)(c < 0x20 || c == 0x7f ? '?' : c);
	}
	if (k < n) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = '\0';
	return out;
}

bool
cg_hmi_seen(const struct cg_hmi *h, const char *id)
{
	return h->seen != NULL && json_object_get(h->seen, id) != NULL;
}

void
cg_hmi_mark(struct cg_hmi *h, const char *id)
{
	if (h->seen == NULL)
		h->seen = json_object();
	if (h->seen == NULL || json_object_set_new(h->seen, id, json_true()))
		cg_hmi_nomem(h);
}

int
cg_hmi_finish(struct cg_hmi *h, json_t *root, char ***warnings)
{
	int rc;

	json_decref(root);
	if (h->rc == 0)
		*warnings = cg_hmi_warn_take(h);
	rc = h->rc;
	cg_hmi_fini(h);
	return rc;
}

void *
cg_hmi_alloc_items(struct cg_hmi *h, const json_t *list, const char *name,
                   size_t size)
{
	size_t n = json_is_array(list) ? json_array_size(list) : 0;
	void *v;

	if (list != NULL && !json_is_null(list) && !json_is_array(list))
		cg_hmi_warn(h, "%s: not a list; ignored", name);
	v = calloc(n > 0 ? n : 1, size);
	if (v == NULL)
		cg_hmi_nomem(h);
	return v;
}

/* The id of list[i] when it can be used; warns and returns NULL if not. */
static const char *
usable_id(struct cg_hmi *h, const char *list, size_t i, const json_t *it)
{
	const char *id = cg_hmi_str(it, "id");
	char q[CG_HMI_QMAX];

	if (!json_is_object(it)) {
		cg_hmi_warn(h, "%s[%zu]: not a mapping; skipped", list, i);
		return NULL;
	}
	if (id == NULL || id[0] == '\0') {
		cg_hmi_warn(h, "%s[%zu]: no id (or not text); skipped", list,
		            i);
		return NULL;
	}
	if (!cg_hmi_safe_id(id, strlen(id))) {
		cg_hmi_warn(
		    h, "%s[%zu]: id \"%s\" is not [A-Za-z0-9._-]+; skipped",
		    list, i, cg_hmi_q(q, id));
		return NULL;
	}
	if (cg_hmi_seen(h, id)) {
		cg_hmi_warn(h, "%s[%zu]: duplicate id \"%s\"; skipped", list, i,
		            cg_hmi_q(q, id));
		return NULL;
	}
	return id;
}

/* A git branch or tag: [A-Za-z0-9._/-], no "..", no leading '-' or '/',
 * no trailing '/', at most 255 bytes. */
static bool
safe_ref(const char *s, size_t n)
{
	if (n == 0 || n > 255 || s[0] == '-' || s[0] == '/' || s[n - 1] == '/')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!id_char(s[i]) && s[i] != '/')
			return false;
		if (i > 0 && s[i] == '.' && s[i - 1] == '.')
			return false;
	}
	return true;
}

static bool
any_text(const char *s, size_t n)
{
	return n > 0;
}

/*
 * obj[key] checked with ok: absent or null leaves *out NULL; a string that
 * passes is copied; anything else is warned.  Returns false when warned.
 */
static bool
checked(struct cg_hmi *h, const json_t *obj, const char *key, const char *where,
        bool (*ok)(const char *, size_t), char **out)
{
	const json_t *v = json_object_get(obj, key);
	const char *s = cg_hmi_text(v);
	char q[CG_HMI_QMAX];

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return true;
	if (s == NULL || !ok(s, strlen(s))) {
		cg_hmi_warn(h, "%s: %s \"%s\" is not valid; skipped", where,
		            key, cg_hmi_q(q, s != NULL ? s : "(not text)"));
		return false;
	}
	*out = cg_hmi_dup(h, s);
	return true;
}

/*
 * A folder inside a repository, normalised: empty and "." components are
 * dropped ("./docs/" is "docs", "." is "").  NULL with *refused set for a
 * ".." component or a backslash; NULL alone when memory ran out.
 */
static char *
norm_dir(struct cg_hmi *h, const char *s, bool *refused)
{
	size_t n = strlen(s);
	size_t start = 0;
	char *d;
	cg_buf b;

	*refused = n > 4096 || memchr(s, '\\', n) != NULL;
	cg_buf_init(&b, 4096);
	for (size_t i = 0; i <= n && !*refused && h->rc == 0; i++) {
		size_t len = i - start;

		if (i < n && s[i] != '/')
			continue;
		if (len == 2 && s[start] == '.' && s[start + 1] == '.')
			*refused = true;
		else if (len > 0 && !(len == 1 && s[start] == '.') &&
		         ((b.len > 0 && cg_buf_putc(&b, '/') != 0) ||
		          cg_buf_append(&b, s + start, len) != 0))
			cg_hmi_nomem(h);
		start = i + 1;
	}
	if (*refused || h->rc != 0) {
		cg_buf_fini(&b);
		return NULL;
	}
	d = cg_buf_take(&b);
	if (d == NULL)
		cg_hmi_nomem(h);
	return d;
}

/* obj[key] as a folder (see norm_dir); absent or null is "". */
static bool
dir_field(struct cg_hmi *h, const json_t *obj, const char *key,
          const char *where, char **out)
{
	const json_t *v = json_object_get(obj, key);
	const char *s = cg_hmi_text(v);
	bool refused = false;
	char q[CG_HMI_QMAX];

	*out = NULL;
	if (v == NULL || json_is_null(v))
		s = "";
	if (s != NULL)
		*out = norm_dir(h, s, &refused);
	if (s == NULL || refused) {
		cg_hmi_warn(h,
		            "%s: %s \"%s\" is not a folder inside the "
		            "repository; skipped",
		            where, key,
		            cg_hmi_q(q, s != NULL ? s : "(not text)"));
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- ttl */

int
cg_hm_ttl_parse(const char *s, long *out)
{
	static const char units[] = "wdhms";
	static const long mult[] = {7L * 86400L, 86400L, 3600L, 60L, 1L};
	size_t n = s != NULL ? strlen(s) : 0;
	size_t i = 0;
	long v = 0;
	long m = 86400L;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == n || s[i] < '0' || s[i] > '9')
		return CG_EINVAL;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (TTL_MAX_S - (s[i] - '0')) / 10)
			return CG_EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	if (i < n) {
		const char *u = strchr(units, s[i] | 0x20);

		if (u == NULL || i + 1 != n)
			return CG_EINVAL;
		m = mult[u - units];
	}
	if (v > TTL_MAX_S / m)
		return CG_EINVAL;
	*out = v * m;
	return 0;
}

/* cache.ttl of a registry item: a string, a number of days, or absent. */
static long
reg_ttl(struct cg_hmi *h, const json_t *cache, const char *where)
{
	const json_t *v = json_object_get(cache, "ttl");
	const char *s = cg_hmi_text(v);
	long ttl;
	char q[CG_HMI_QMAX];

	if (v == NULL || json_is_null(v))
		return TTL_DEFAULT_S;
	if (json_is_integer(v) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) <= TTL_MAX_S / 86400L)
		return (long)json_integer_value(v) * 86400L;
	if (s != NULL && cg_hm_ttl_parse(s, &ttl) == 0)
		return ttl;
	if (s == NULL)
		s = json_is_integer(v) ? "(out of range)" : "(not text)";
	cg_hmi_warn(h,
	            "%s: cache.ttl \"%s\" is not like 7d, 12h, 30m, 90s or a "
	            "number of days; using 7d",
	            where, cg_hmi_q(q, s));
	return TTL_DEFAULT_S;
}

/* ------------------------------------------------------------ registry */

static void
reg_corpus_free(cg_hm_reg_corpus *c)
{
	free(c->id);
	free(c->repo);
	free(c->ref);
	free(c->path);
	free(c->strategy);
}

/* "owner/name", each part an id. */
static bool
safe_repo(const char *s, size_t n)
{
	const char *slash = memchr(s, '/', n);

	return slash != NULL && cg_hmi_safe_id(s, (size_t)(slash - s)) &&
	       cg_hmi_safe_id(slash + 1, n - (size_t)(slash - s) - 1);
}

static bool
reg_github(struct cg_hmi *h, cg_hm_reg_corpus *c, const json_t *src,
           const char *where)
{
	c->type = CG_HM_GITHUB;
	if (!checked(h, src, "repo", where, safe_repo, &c->repo) ||
	    !checked(h, src, "ref", where, safe_ref, &c->ref) ||
	    !dir_field(h, src, "path", where, &c->path))
		return false;
	if (c->repo == NULL) {
		cg_hmi_warn(h, "%s: source.repo is missing; skipped", where);
		return false;
	}
	if (c->ref == NULL)
		c->ref = cg_hmi_dup(h, "main");
	if (c->path != NULL && c->path[0] == '\0') {
		free(c->path);
		c->path = NULL;
	}
	return true;
}

static bool
reg_local(struct cg_hmi *h, cg_hm_reg_corpus *c, const json_t *src,
          const char *where)
{
	c->type = CG_HM_LOCAL;
	if (!checked(h, src, "path", where, any_text, &c->path))
		return false;
	if (c->path == NULL) {
		cg_hmi_warn(h, "%s: source.path is missing; skipped", where);
		return false;
	}
	return true;
}

static void
reg_item(struct cg_hmi *h, cg_hm_registry *r, size_t i, const json_t *it)
{
	const char *id = usable_id(h, "corpora", i, it);
	const json_t *src = json_object_get(it, "source");
	const json_t *cache = json_object_get(it, "cache");
	const char *type = cg_hmi_str(src, "type");
	cg_hm_reg_corpus c;
	char where[CG_HMI_WHERE];
	char q[CG_HMI_QMAX];
	bool ok = false;

	if (id == NULL)
		return;
	memset(&c, 0, sizeof(c));
	(void)snprintf(where, sizeof(where), "corpora[%zu] (\"%s\")", i,
	               cg_hmi_q(q, id));
	if (type != NULL && strcmp(type, "github") == 0)
		ok = reg_github(h, &c, src, where);
	else if (type != NULL && strcmp(type, "local") == 0)
		ok = reg_local(h, &c, src, where);
	else
		cg_hmi_warn(h,
		            "%s: source.type must be github or local; skipped",
		            where);
	if (ok) {
		c.id = cg_hmi_dup(h, id);
		c.strategy = cg_hmi_opt(h, cache, "strategy");
		c.ttl_s = reg_ttl(h, cache, where);
		cg_hmi_mark(h, id);
	}
	if (!ok || h->rc != 0) {
		reg_corpus_free(&c);
		return;
	}
	r->v[r->n++] = c;
}

int
cg_hm_registry_parse(cg_hm_registry *out, const char *text, size_t len,
                     cg_err *err)
{
	struct cg_hmi h;
	json_t *root;
	const json_t *list;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cg_hmi_load("registry.yaml", text, len, &root, err);
	if (rc != 0)
		return rc;
	cg_hmi_init(&h, err);
	list = json_object_get(root, "corpora");
	out->v = cg_hmi_alloc_items(&h, list, "corpora", sizeof(*out->v));
	for (size_t i = 0; h.rc == 0 && i < json_array_size(list); i++)
		reg_item(&h, out, i, json_array_get(list, i));
	rc = cg_hmi_finish(&h, root, &out->warnings);
	if (rc != 0)
		cg_hm_registry_fini(out);
	return rc;
}

void
cg_hm_registry_fini(cg_hm_registry *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->n; i++)
		reg_corpus_free(&r->v[i]);
	free(r->v);
	cg_strv_free(r->warnings);
	memset(r, 0, sizeof(*r));
}

/* -------------------------------------------------------------- config */

static void
source_free(cg_hm_source *s)
{
	free(s->id);
	free(s->type);
	free(s->repo_owner);
	free(s->repo_name);
	free(s->repo_url);
	free(s->branch);
	free(s->docs_root);
	free(s->path);
	free(s->last_commit_sha);
	free(s->manifest_url);
	free(s->last_hash);
	free(s->base_url);
	free(s->suffix);
	cg_strv_free(s->sections);
}

/* last_commit_sha: 40 hex digits, kept lowercased; anything else is
 * warned and dropped (the source is still usable). */
static char *
source_sha(struct cg_hmi *h, const json_t *it, const char *where)
{
	const json_t *v = json_object_get(it, "last_commit_sha");
	const char *s = cg_hmi_text(v);
	char q[CG_HMI_QMAX];
	char *d;

	if (v == NULL || json_is_null(v))
		return NULL;
	if (s == NULL || strlen(s) != 40 ||
	    strspn(s, "0123456789abcdefABCDEF") != 40) {
		cg_hmi_warn(h,
		            "%s: last_commit_sha \"%s\" is not 40 hex digits; "
		            "ignored",
		            where, cg_hmi_q(q, s != NULL ? s : "(not text)"));
		return NULL;
	}
	d = cg_hmi_dup(h, s);
	for (size_t i = 0; d != NULL && d[i] != '\0'; i++)
		if (d[i] >= 'A' && d[i] <= 'F')
			d[i] = (char)(d[i] - 'A' + 'a');
	return d;
}

/* cache.strategy and cache.enabled of an llms-txt source. */
static enum cg_hm_strategy
llms_strategy(struct cg_hmi *h, const json_t *cache, const char *where)
{
	const json_t *en = json_object_get(cache, "enabled");
	const char *st = cg_hmi_str(cache, "strategy");
	char q[CG_HMI_QMAX];

	if (json_is_false(en))
		return CG_HM_ON_DEMAND;
	if (st == NULL || strcmp(st, "full") == 0)
		return CG_HM_FULL;
	if (strcmp(st, "selective") == 0)
		return CG_HM_SELECTIVE;
	if (strcmp(st, "on-demand") == 0)
		return CG_HM_ON_DEMAND;
	cg_hmi_warn(h,
	            "%s: cache.strategy \"%s\" is not full, selective or "
	            "on-demand; nothing is cached ahead (on-demand)",
	            where, cg_hmi_q(q, st));
	return CG_HM_ON_DEMAND;
}

/* The llms-txt fields (manifest, urls, cache); false (warned) when the
 * item must be skipped: it names no manifest. */
static bool
llms_fill(struct cg_hmi *h, cg_hm_source *s, const json_t *it,
          const char *where)
{
	const json_t *man = json_object_get(it, "manifest");
	const json_t *urls = json_object_get(it, "urls");
	const json_t *cache = json_object_get(it, "cache");

	s->manifest_url = cg_hmi_opt(h, man, "url");
	if (s->manifest_url == NULL || s->manifest_url[0] == '\0') {
		cg_hmi_warn(h, "%s: manifest.url is missing; skipped", where);
		return false;
	}
	s->last_hash = cg_hmi_opt(h, man, "last_hash");
	s->base_url = cg_hmi_opt(h, urls, "base_url");
	s->suffix = cg_hmi_opt(h, urls, "suffix");
	s->strategy = llms_strategy(h, cache, where);
	s->sections = cg_hmi_strlist(h, json_object_get(cache, "sections"));
	if (s->strategy == CG_HM_SELECTIVE && s->sections != NULL &&
	    s->sections[0] == NULL)
		cg_hmi_warn(h,
		            "%s: cache.strategy is selective but "
		            "cache.sections is empty: nothing is cached ahead",
		            where);
	return true;
}

/* Fills s from item it; false (warned) when the item must be skipped. */
static bool
source_fill(struct cg_hmi *h, cg_hm_source *s, const json_t *it,
            const char *where)
{
	if (!checked(h, it, "repo_owner", where, cg_hmi_safe_id,
	             &s->repo_owner) ||
	    !checked(h, it, "repo_name", where, cg_hmi_safe_id,
	             &s->repo_name) ||
	    !checked(h, it, "branch", where, safe_ref, &s->branch) ||
	    !checked(h, it, "path", where, any_text, &s->path) ||
	    !dir_field(h, it, "docs_root", where, &s->docs_root))
		return false;
	if (s->branch == NULL && strcmp(s->type, "git") == 0)
		s->branch = cg_hmi_dup(h, "main");
	s->repo_url = cg_hmi_opt(h, it, "repo_url");
	s->last_commit_sha = source_sha(h, it, where);
	if (strcmp(s->type, "llms-txt") == 0)
		return llms_fill(h, s, it, where);
	s->sections = cg_hmi_strlist(h, NULL);
	return true;
}

static void
config_source(struct cg_hmi *h, cg_hm_config *c, size_t i, const json_t *it)
{
	const char *id = usable_id(h, "sources", i, it);
	const char *type = cg_hmi_str(it, "type");
	char where[CG_HMI_WHERE];
	char q[CG_HMI_QMAX];
	cg_hm_source s;
	bool ok;

	if (id == NULL)
		return;
	(void)snprintf(where, sizeof(where), "sources[%zu] (\"%s\")", i,
	               cg_hmi_q(q, id));
	if (type == NULL || type[0] == '\0') {
		cg_hmi_warn(h, "%s: no type; skipped", where);
		return;
	}
	memset(&s, 0, sizeof(s));
	s.id = cg_hmi_dup(h, id);
	s.type = cg_hmi_dup(h, type);
	ok = h->rc == 0 && source_fill(h, &s, it, where);
	if (ok)
		cg_hmi_mark(h, id);
	if (!ok || h->rc != 0) {
		source_free(&s);
		return;
	}
	c->sources[c->nsources++] = s;
}

int
cg_hm_config_parse(cg_hm_config *out, const char *text, size_t len, cg_err *err)
{
	struct cg_hmi h;
	json_t *root;
	const json_t *corpus;
	const json_t *list;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cg_hmi_load("config.yaml", text, len, &root, err);
	if (rc != 0)
		return rc;
	cg_hmi_init(&h, err);
	corpus = json_object_get(root, "corpus");
	out->name = cg_hmi_opt(&h, corpus, "name");
	if (out->name == NULL)
		cg_hmi_warn(&h, "corpus.name: missing or not text");
	out->display_name = cg_hmi_opt(&h, corpus, "display_name");
	out->keywords = cg_hmi_strlist(&h, json_object_get(corpus, "keywords"));
	list = json_object_get(root, "sources");
	out->sources =
	    cg_hmi_alloc_items(&h, list, "sources", sizeof(*out->sources));
	for (size_t i = 0; h.rc == 0 && i < json_array_size(list); i++)
		config_source(&h, out, i, json_array_get(list, i));
	rc = cg_hmi_finish(&h, root, &out->warnings);
	if (rc != 0)
		cg_hm_config_fini(out);
	return rc;
}

void
cg_hm_config_fini(cg_hm_config *c)
{
	if (c == NULL)
		return;
	free(c->name);
	free(c->display_name);
	cg_strv_free(c->keywords);
	for (size_t i = 0; i < c->nsources; i++)
		source_free(&c->sources[i]);
	free(c->sources);
	cg_strv_free(c->warnings);
	memset(c, 0, sizeof(*c));
}

const cg_hm_source *
cg_hm_config_source(const cg_hm_config *c, const char *id)
{
	if (c == NULL || id == NULL)
		return NULL;
	for (size_t i = 0; i < c->nsources; i++)
		if (strcmp(c->sources[i].id, id) == 0)
			return &c->sources[i];
	return NULL;
}
