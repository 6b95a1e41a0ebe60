/*
 * config.c - loads and validates the gateway configuration.  It reads one
 * capped file and never follows a symlink for it; relative workspace paths
 * are resolved against the config file's folder.
 */
#define _GNU_SOURCE
#include "conf/config.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/cg_args.h"
#include "common/cg_fs.h"
#include "common/cg_json.h"
#include "common/cg_yaml.h"

/* Unknown keys are errors, naming the file and the valid keys. */
static int
check_keys(const json_t *obj, const char *const *valid, const char *where,
           const char *file, cg_err *err)
{
	char what[96];
	cg_err e;
	int rc;

	cg_err_clear(&e);
	(void)snprintf(what, sizeof(what), "key in %s", where);
	rc = cg_args_check(obj, valid, what, &e);
	return rc ? cg_err_set(err, rc, "%s: %s", file, e.msg) : 0;
}

static int
get_str(const json_t *obj, const char *key, bool required, char **out,
        const char *file, cg_err *err)
{
	const json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (v == NULL || json_is_null(v)) {
		if (required)
			return cg_err_set(err, CG_EINVAL,
			                  "%s: '%s' is required", file, key);
		return 0;
	}
	if (!json_is_string(v) || *json_string_value(v) == '\0')
		return cg_err_set(err, CG_EINVAL,
		                  "%s: '%s' must be a non-empty string", file,
		                  key);
	*out = strdup(json_string_value(v));
	return *out ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");
}

/* path made absolute against the config file's folder. */
static char *
resolve_path(const char *file, const char *path)
{
	char *copy;
	char *dir;
	char *joined;
	char *real;

	if (path[0] == '/')
		return strdup(path);
	copy = strdup(file);
	if (copy == NULL)
		return NULL;
	dir = dirname(copy);
	joined = cg_path_join(dir, path);
	free(copy);
	if (joined == NULL)
		return NULL;
	real = realpath(joined, NULL);
	if (real == NULL)
		return joined; /* reported when the workspace is opened */
	free(joined);
	return real;
}

static int
load_workspace(cg_conf_workspace *w, const json_t *o, const char *file,
               cg_err *err)
{
	static const char *const keys[] = {"name", "path", "spawn", NULL};
	const json_t *spawn = json_object_get(o, "spawn");
	char *path = NULL;
	int rc;

	if (!json_is_object(o))
		return cg_err_set(err, CG_EINVAL,
		                  "%s: each workspace must be a mapping", file);
	rc = check_keys(o, keys, "a workspace", file, err);
	if (rc == 0)
		rc = get_str(o, "path", true, &path, file, err);
	if (rc == 0)
		rc = get_str(o, "name", false, &w->name, file, err);
	if (rc == 0 && spawn != NULL && !json_is_boolean(spawn))
		rc = cg_err_set(err, CG_EINVAL,
		                "%s: 'spawn' must be true or false", file);
	if (rc == 0) {
		w->spawn = json_is_true(spawn);
		w->path = resolve_path(file, path);
		if (w->path == NULL)
			rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	if (rc == 0 && w->name == NULL) {
		char *copy = strdup(w->path);

		w->name = copy ? strdup(basename(copy)) : NULL;
		free(copy);
	}
	free(path);
	return rc;
}

static int
load_node(cg_conf_node *n, const json_t *o, const char *file, cg_err *err)
{
	static const char *const keys[] = {"name", "url", "workspace",
	                                   "sources", NULL};
	const json_t *src = json_object_get(o, "sources");
	size_t i;
	const json_t *s;
	int rc;

	if (!json_is_object(o))
		return cg_err_set(err, CG_EINVAL,
		                  "%s: each node must be a mapping", file);
	rc = check_keys(o, keys, "a node", file, err);
	if (rc == 0)
		rc = get_str(o, "name", true, &n->name, file, err);
	if (rc == 0)
		rc = get_str(o, "url", true, &n->url, file, err);
	if (rc == 0)
		rc = get_str(o, "workspace", true, &n->workspace, file, err);
	if (rc == 0 && (!json_is_array(src) || json_array_size(src) == 0))
		rc = cg_err_set(err, CG_EINVAL,
		                "%s: node '%s' needs 'sources', a list of the "
		                "source names it serves",
		                file, n->name);
	if (rc != 0)
		return rc;
	n->sources = calloc(json_array_size(src) + 1, sizeof(char *));
	if (n->sources == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	json_array_foreach(src, i, s) {
		if (!json_is_string(s))
			return cg_err_set(err, CG_EINVAL,
			                  "%s: node '%s': sources must be "
			                  "strings",
			                  file, n->name);
		n->sources[n->nsources] = strdup(json_string_value(s));
		if (n->sources[n->nsources++] == NULL)
			return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	return 0;
}

/* A secret from the environment or a file: one line, trailing newline and
 * spaces dropped.  Its value never appears in a message. */
static int
load_secret(cg_conf_token *t, const json_t *o, const char *file, cg_err *err)
{
	const char *env = cg_json_str_or_null(o, "secret_env");
	const char *path = cg_json_str_or_null(o, "secret_file");
	char *text = NULL;
	size_t n;

	if ((env == NULL) == (path == NULL))
		return cg_err_set(err, CG_EINVAL,
		                  "%s: token '%s' needs exactly one of "
		                  "secret_env or secret_file",
		                  file, t->name);
	if (env != NULL) {
		const char *v = getenv(env);

		if (v == NULL || *v == '\0')
			return cg_err_set(err, CG_EINVAL,
			                  "%s: token '%s': environment "
			                  "variable %s is not set",
			                  file, t->name, env);
		text = strdup(v);
	} else if (cg_file_read(path, 4096, &text, NULL, NULL) != 0) {
		return cg_err_set(err, CG_EINVAL,
		                  "%s: token '%s': cannot read secret_file %s",
		                  file, t->name, path);
	}
	if (text == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	n = strlen(text);
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' ||
	                 text[n - 1] == ' '))
		text[--n] = '\0';
	if (n < 16) {
		free(text);
		return cg_err_set(err, CG_EINVAL,
		                  "%s: token '%s': secret shorter than 16 "
		                  "characters",
		                  file, t->name);
	}
	t->secret = text;
	return 0;
}

static int
load_globs(const json_t *o, const char *key, json_t **out, const char *file,
           cg_err *err)
{
	const json_t *a = json_object_get(o, key);
	size_t i;
	const json_t *g;

	*out = NULL;
	if (a == NULL)
		return 0;
	if (!json_is_array(a))
		return cg_err_set(err, CG_EINVAL,
		                  "%s: '%s' must be a list of uri globs", file,
		                  key);
	json_array_foreach(a, i, g)
		if (!json_is_string(g))
			return cg_err_set(err, CG_EINVAL,
			                  "%s: '%s' must hold strings", file,
			                  key);
	*out = json_incref((json_t *)a);
	return 0;
}

static int
load_token(cg_conf_token *t, const json_t *o, const char *file, cg_err *err)
{
	static const char *const keys[] = {"name",  "secret_env", "secret_file",
	                                   "allow", "deny",       NULL};
	int rc;

	if (!json_is_object(o))
		return cg_err_set(err, CG_EINVAL,
		                  "%s: each token must be a mapping", file);
	rc = check_keys(o, keys, "a token", file, err);
	if (rc == 0)
		rc = get_str(o, "name", true, &t->name, file, err);
	if (rc == 0)
		rc = load_secret(t, o, file, err);
	if (rc == 0)
		rc = load_globs(o, "allow", &t->allow, file, err);
	if (rc == 0)
		rc = load_globs(o, "deny", &t->deny, file, err);
	return rc;
}

static int
load_tokens(cg_config *c, const json_t *root, cg_err *err)
{
	const json_t *tokens = json_object_get(root, "tokens");
	size_t i;
	const json_t *o;
	int rc = 0;

	if (tokens == NULL)
		return 0;
	if (!json_is_array(tokens))
		return cg_err_set(err, CG_EINVAL, "%s: 'tokens' must be a list",
		                  c->path);
	c->tokens = calloc(json_array_size(tokens) + 1, sizeof(*c->tokens));
	if (c->tokens == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	json_array_foreach(tokens, i, o) {
		if (rc == 0)
			rc = load_token(&c->tokens[i], o, c->path, err);
		c->ntokens++;
	}
	return rc;
}

static int
load_lists(cg_config *c, const json_t *root, cg_err *err)
{
	const json_t *ws = json_object_get(root, "workspaces");
	const json_t *nodes = json_object_get(root, "nodes");
	size_t i;
	const json_t *o;
	int rc = 0;

	if ((ws && !json_is_array(ws)) || (nodes && !json_is_array(nodes)))
		return cg_err_set(err, CG_EINVAL,
		                  "%s: 'workspaces' and 'nodes' must be lists",
		                  c->path);
	c->workspaces = calloc(json_array_size(ws) + 1, sizeof(*c->workspaces));
	c->nodes = calloc(json_array_size(nodes) + 1, sizeof(*c->nodes));
	if (c->workspaces == NULL || c->nodes == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	json_array_foreach(ws, i, o) {
		if (rc == 0)
			rc = load_workspace(&c->workspaces[i], o, c->path, err);
		c->nworkspaces++;
	}
	json_array_foreach(nodes, i, o) {
		if (rc == 0)
			rc = load_node(&c->nodes[i], o, c->path, err);
		c->nnodes++;
	}
	if (rc == 0 && c->nworkspaces + c->nnodes == 0)
		rc = cg_err_set(err, CG_EINVAL,
		                "%s: nothing to serve: give 'workspaces' or "
		                "'nodes'",
		                c->path);
	return rc;
}

static int
load_root(cg_config *c, const json_t *root, cg_err *err)
{
	static const char *const keys[] = {
	    "listen", "deadline_ms", "cache", "workspaces",
	    "nodes",  "tokens",      NULL};
	const json_t *dl = json_object_get(root, "deadline_ms");
	int rc = check_keys(root, keys, "the top level", c->path, err);

	if (rc == 0)
		rc = get_str(root, "listen", false, &c->listen, c->path, err);
	if (rc == 0 && c->listen == NULL &&
	    (c->listen = strdup("http://127.0.0.1:7700")) == NULL)
		rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	if (rc == 0)
		rc = get_str(root, "cache", false, &c->cache, c->path, err);
	c->deadline_ms = 800;
	if (rc == 0 && dl != NULL) {
		if (!json_is_integer(dl) || json_integer_value(dl) < 1 ||
		    json_integer_value(dl) > 60000)
			rc = cg_err_set(err, CG_EINVAL,
			                "%s: 'deadline_ms' must be an integer "
			                "from 1 to 60000",
			                c->path);
		else
			c->deadline_ms = (int)json_integer_value(dl);
	}
	if (rc == 0)
		rc = load_lists(c, root, err);
	if (rc == 0)
		rc = load_tokens(c, root, err);
	return rc;
}

int
cg_config_load(cg_config *c, const char *path, cg_err *err)
{
	char *text = NULL;
	size_t len = 0;
	json_t *root = NULL;
	cg_err yerr;
	int rc;

	memset(c, 0, sizeof(*c));
	c->path = strdup(path);
	if (c->path == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	rc = cg_file_read(path, CG_CONFIG_MAX_BYTES, &text, &len, err);
	if (rc != 0) {
		cg_config_fini(c);
		return rc == CG_ENOTFOUND ? CG_EINVAL : rc;
	}
	cg_err_clear(&yerr);
	if (cg_yaml_load(text, len, CG_CONFIG_MAX_BYTES, CG_CONFIG_MAX_NODES,
	                 &root, &yerr) != 0) {
		rc = cg_err_set(err, CG_EINVAL, "%s: not valid YAML: %s", path,
		                yerr.msg[0] ? yerr.msg : "unreadable");
	} else {
		rc = load_root(c, root, err);
	}
	json_decref(root);
	free(text);
	if (rc != 0)
		cg_config_fini(c);
	return rc;
}

void
cg_config_fini(cg_config *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; c->workspaces && i < c->nworkspaces; i++) {
		free(c->workspaces[i].name);
		free(c->workspaces[i].path);
	}
	for (size_t i = 0; c->nodes && i < c->nnodes; i++) {
		free(c->nodes[i].name);
		free(c->nodes[i].url);
		free(c->nodes[i].workspace);
		for (size_t k = 0; k < c->nodes[i].nsources; k++)
			free(c->nodes[i].sources[k]);
		free(c->nodes[i].sources);
	}
	for (size_t i = 0; c->tokens && i < c->ntokens; i++) {
		free(c->tokens[i].name);
		if (c->tokens[i].secret != NULL)
			memset(c->tokens[i].secret, 0,
			       strlen(c->tokens[i].secret));
		free(c->tokens[i].secret);
		json_decref(c->tokens[i].allow);
		json_decref(c->tokens[i].deny);
	}
	free(c->tokens);
	free(c->workspaces);
	free(c->nodes);
	free(c->path);
	free(c->listen);
	free(c->cache);
	memset(c, 0, sizeof(*c));
}
