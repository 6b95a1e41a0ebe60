/*
 * workspace.c - finds the wikis of a workspace (SPEC 3.2): from the
 * manifest .guild/workspace.json when there is one, else from the
 * immediate children that hold .git or .guild.
 *
 * It only reads: it must never write into a user's .guild/.  It must not
 * follow a sub-guild out of the workspace root: absolute paths, ".."
 * components and paths (or wikis) whose real path leaves the root's real
 * path are skipped with a warning, never an error.
 */
#include "conf/workspace.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cache/corpus.h"
#include "common/cg_analyzer.h"
#include "common/cg_fs.h"
#include "common/cg_json.h"
#include "common/cg_str.h"
#include "common/cg_vec.h"

#define MANIFEST_MAX (1u << 20)
#define SCHEMA       "guild.workspace.v1"
/* More sub-guilds than any real workspace; the rest are not read. */
#define MAX_SUB_GUILDS 4096

/* The workspace being built, with the capacities of its vectors and the
 * names already claimed (for "first wins"). */
struct build {
	cg_workspace *ws;
	size_t cap_src;
	char **seen;
	size_t nseen;
	size_t cap_seen;
};

static int ws_warn(cg_workspace *ws, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends a warning; the list stays NULL-terminated (a handful at most,
 * so it is counted rather than tracked). */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the copy is stored
 * in ws->warnings, which cg_workspace_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
ws_warn(cg_workspace *ws, const char *fmt, ...)
{
	size_t n = 0;
	char msg[512];
	va_list ap;
	char **v;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	while (ws->warnings != NULL && ws->warnings[n] != NULL)
		n++;
	v = realloc(ws->warnings, (n + 2) * sizeof(*v));
	if (v == NULL)
		return CG_ENOMEM;
	ws->warnings = v;
	v[n] = strdup(msg);
	v[n + 1] = NULL;
	return v[n] ? 0 : CG_ENOMEM;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

static bool
seen(const struct build *b, const char *name)
{
	for (size_t i = 0; i < b->nseen; i++)
		if (strcmp(b->seen[i], name) == 0)
			return true;
	return false;
}

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the copy is stored
 * in b->seen, freed with the build. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
claim(struct build *b, const char *name)
{
	char *s = strdup(name);

	if (s == NULL || cg_vec_reserve((void **)&b->seen, &b->cap_seen,
	                                b->nseen, sizeof(char *)) != 0) {
		free(s);
		return CG_ENOMEM;
	}
	b->seen[b->nseen++] = s;
	return 0;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* True when path is root or below it (both real paths). */
static bool
within(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(root, path, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

static bool
is_dir_follow(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Takes repo and wiki (even on failure); copies the rest. */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the copies are
 * stored in ws->sources, which cg_workspace_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
add_source(struct build *b, const char *name, char *repo, char *wiki,
           const char *kind, const char *remote)
{
	cg_workspace *ws = b->ws;
	cg_source *s;

	if (cg_vec_reserve((void **)&ws->sources, &b->cap_src, ws->nsources,
	                   sizeof(*s)) != 0) {
		free(repo);
		free(wiki);
		return CG_ENOMEM;
	}
	s = &ws->sources[ws->nsources++];
	memset(s, 0, sizeof(*s));
	s->repo = repo;
	s->wiki = wiki;
	s->name = strdup(name);
	s->guild_kind = kind ? strdup(kind) : NULL;
	s->remote = remote ? strdup(remote) : NULL;
	if (s->name == NULL || (kind && s->guild_kind == NULL) ||
	    (remote && s->remote == NULL))
		return CG_ENOMEM;
	return seen(b, name) ? 0 : claim(b, name);
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* The real path of <repo>/.guild/wiki into *wiki, or NULL when it is not
 * a directory.  A wiki that resolves outside the root is refused with a
 * warning: then 1 is returned. */
static int
find_wiki(struct build *b, const char *name, const char *repo, char **wiki)
{
	char *path = cg_path_join(repo, ".guild/wiki");
	char *real;

	*wiki = NULL;
	if (path == NULL)
		return CG_ENOMEM;
	real = cg_realpath(path);
	free(path);
	if (real == NULL && errno == ENOMEM)
		return CG_ENOMEM; /* not "no wiki": the source would vanish */
	if (real == NULL || !is_dir_follow(real)) {
		free(real);
		return 0;
	}
	if (!within(b->ws->root, real)) {
		free(real);
		if (ws_warn(
		        b->ws,
		        "%.100s: .guild/wiki resolves outside the workspace "
		        "root; skipped",
		        name) != 0)
			return CG_ENOMEM;
		return 1;
	}
	*wiki = real;
	return 0;
}

/* Adds a sub-guild at the real path repo (taken) when it has a wiki. */
static int
add_sub_guild(struct build *b, const char *name, char *repo, const char *kind,
              const char *remote, bool expect_wiki)
{
	char *wiki = NULL;
	int rc = find_wiki(b, name, repo, &wiki);

	if (rc > 0)
		rc = 0; /* refused and reported */
	else if (rc == 0 && wiki == NULL && expect_wiki)
		rc = ws_warn(b->ws,
		             "sub-guild '%.100s': no .guild/wiki, nothing to "
		             "index",
		             name);
	if (rc != 0 || wiki == NULL) {
		free(repo);
		return rc;
	}
	return add_source(b, name, repo, wiki, kind, remote);
}

static bool
has_dotdot(const char *path)
{
	const char *p = path;

	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
		while (*p == '/')
			p++;
	}
	return false;
}

/* A name usable as a source name: no path separators or control
 * characters, not "." or "..". */
static bool
name_ok(const char *name)
{
	if (name[0] == '\0' || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0 || strlen(name) > 255)
		return false;
	for (const char *p = name; *p != '\0'; p++)
		if (*p == '/' || *p == '\\' || (unsigned char)*p < 0x20)
			return false;
	return true;
}

/* Checks a manifest path and resolves it under the root: NULL (with a
 * warning in *rc's place) when it is refused. */
static int
resolve_path(struct build *b, const char *name, const char *path, char **out)
{
	char *joined;
	char *real;

	*out = NULL;
	if (path == NULL || path[0] == '\0')
		return ws_warn(b->ws, "sub-guild '%.100s': no path; skipped",
		               name);
	if (path[0] == '/')
		return ws_warn(b->ws,
		               "sub-guild '%.100s': path '%.200s' is absolute; "
		               "skipped",
		               name, path);
	if (has_dotdot(path))
		return ws_warn(b->ws,
		               "sub-guild '%.100s': path '%.200s' contains "
		               "'..'; skipped",
		               name, path);
	joined = cg_path_join(b->ws->root, path);
	if (joined == NULL)
		return CG_ENOMEM;
	real = cg_realpath(joined);
	free(joined);
	if (real == NULL && errno == ENOMEM)
		return CG_ENOMEM;
	if (real == NULL || !is_dir_follow(real)) {
		free(real);
		return ws_warn(b->ws,
		               "sub-guild '%.100s': path '%.200s' is not a "
		               "directory; skipped",
		               name, path);
	}
	if (strcmp(real, b->ws->root) == 0) {
		free(real);
		return ws_warn(b->ws,
		               "sub-guild '%.100s': path '%.200s' is the "
		               "workspace root itself; skipped",
		               name, path);
	}
	if (!within(b->ws->root, real)) {
		free(real);
		return ws_warn(b->ws,
		               "sub-guild '%.100s': path '%.200s' resolves "
		               "outside the workspace root; skipped",
		               name, path);
	}
	*out = real;
	return 0;
}

/* One sub_guilds[] entry. */
static int
manifest_entry(struct build *b, size_t i, const json_t *e)
{
	const char *name = cg_json_str_or_null(e, "name");
	char *real = NULL;
	int rc;

	if (!json_is_object(e))
		return ws_warn(b->ws, "sub_guilds[%zu]: not an object; skipped",
		               i);
	if (name == NULL || name[0] == '\0')
		return ws_warn(b->ws, "sub_guilds[%zu]: no name; skipped", i);
	if (!name_ok(name))
		return ws_warn(
		    b->ws, "sub_guilds[%zu]: invalid name '%.100s'; skipped", i,
		    name);
	if (seen(b, name))
		return ws_warn(b->ws,
		               "sub-guild '%.100s': duplicate name; the first "
		               "is kept",
		               name);
	rc = claim(b, name);
	if (rc == 0)
		rc = resolve_path(b, name, cg_json_str_or_null(e, "path"),
		                  &real);
	if (rc != 0 || real == NULL)
		return rc;
	return add_sub_guild(b, name, real, cg_json_str_or_null(e, "kind"),
	                     cg_json_str_or_null(e, "remote"),
	                     !json_is_false(json_object_get(e, "has_wiki")));
}

/* The root's own wiki, as source "root". */
static int
add_root(struct build *b)
{
	char *wiki = NULL;
	char *repo;
	int rc = find_wiki(b, "root", b->ws->root, &wiki);

	if (rc != 0 || wiki == NULL)
		return rc > 0 ? 0 : rc;
	repo = strdup(b->ws->root);
	if (repo == NULL) {
		free(wiki);
		return CG_ENOMEM;
	}
	return add_source(b, "root", repo, wiki, NULL, NULL);
}

static int
read_manifest_object(struct build *b, const json_t *m)
{
	const char *schema = cg_json_str_or_null(m, "schema");
	const json_t *rw = json_object_get(m, "root_wiki");
	const json_t *subs = json_object_get(m, "sub_guilds");
	const json_t *e;
	size_t i;
	int rc = 0;

	if (schema == NULL)
		rc =
		    ws_warn(b->ws, "workspace.json: no schema (expected " SCHEMA
		                   "); read anyway");
	else if (strcmp(schema, SCHEMA) != 0)
		rc = ws_warn(b->ws,
		             "workspace.json: schema '%.100s' is not " SCHEMA
		             "; read anyway",
		             schema);
	if (rc == 0 && rw != NULL && !json_is_boolean(rw))
		rc = ws_warn(b->ws,
		             "workspace.json: root_wiki is not a boolean; "
		             "taken as true");
	if (rc == 0 && !json_is_false(rw))
		rc = add_root(b);
	if (rc == 0 && subs != NULL && !json_is_array(subs))
		rc = ws_warn(b->ws,
		             "workspace.json: sub_guilds is not an array; "
		             "ignored");
	if (!json_is_array(subs))
		return rc;
	json_array_foreach(subs, i, e) {
		if (rc == 0 && i == MAX_SUB_GUILDS)
			rc = ws_warn(b->ws,
			             "workspace.json: more than %d "
			             "sub-guilds; the rest are ignored",
			             MAX_SUB_GUILDS);
		if (rc == 0 && i < MAX_SUB_GUILDS)
			rc = manifest_entry(b, i, e);
	}
	return rc;
}

/* Reads the manifest; *found is 0 when there is none. */
static int
read_manifest(struct build *b, int *found, cg_err *err)
{
	char *path = cg_path_join(b->ws->root, ".guild/workspace.json");
	char *text = NULL;
	size_t len = 0;
	json_error_t jerr;
	json_t *m;
	cg_err rerr;
	int rc;

	*found = 0;
	if (path == NULL)
		return cg_err_set(err, CG_ENOMEM, "workspace: out of memory");
	cg_err_clear(&rerr);
	rc = cg_file_read(path, MANIFEST_MAX, &text, &len, &rerr);
	if (rc == CG_ENOTFOUND) {
		free(path);
		return 0;
	}
	if (rc != 0) {
		free(path);
		return cg_err_set(err, rc, "%s", rerr.msg);
	}
	*found = 1;
	m = json_loadb(text, len, 0, &jerr);
	free(text);
	if (m == NULL || !json_is_object(m)) {
		rc = m == NULL
		         ? cg_err_set(err, CG_EPARSE, "%s:%d:%d: %s", path,
		                      jerr.line, jerr.column, jerr.text)
		         : cg_err_set(err, CG_EPARSE, "%s: not a JSON object",
		                      path);
		json_decref(m);
		free(path);
		return rc;
	}
	free(path);
	rc = read_manifest_object(b, m);
	json_decref(m);
	return rc;
}

/* Whether a child directory is a guild repository (not hidden, not a
 * symlink, holding .git (file or directory) or .guild/): 1 yes, 0 no,
 * CG_ENOMEM when it cannot tell. */
static int
is_guild_child(const char *child)
{
	struct stat st;
	char *git = cg_path_join(child, ".git");
	char *guild = cg_path_join(child, ".guild");
	int yes = CG_ENOMEM;

	if (git != NULL && guild != NULL)
		yes = lstat(git, &st) == 0 || cg_is_dir(guild);
	free(git);
	free(guild);
	return yes;
}

/* One directory entry of the root, in detection mode. */
static int
detect_child(struct build *b, const char *name)
{
	char *child;
	int guild;

	if (name[0] == '.' || !name_ok(name))
		return 0;
	child = cg_path_join(b->ws->root, name);
	if (child == NULL)
		return CG_ENOMEM;
	guild = cg_is_dir(child) ? is_guild_child(child) : 0;
	if (guild <= 0 || b->ws->nsources >= MAX_SUB_GUILDS) {
		free(child);
		return guild < 0 ? guild : 0;
	}
	if (seen(b, name)) {
		free(child);
		return ws_warn(b->ws, "%.100s: the name is reserved; skipped",
		               name);
	}
	return add_sub_guild(b, name, child, NULL, NULL, false);
}

/* Without a manifest: the root wiki and the guild children. */
static int
detect(struct build *b, cg_err *err)
{
	DIR *d;
	struct dirent *de;
	int rc = add_root(b);

	if (rc != 0)
		return rc;
	d = opendir(b->ws->root);
	if (d == NULL)
		return cg_err_set(err, CG_EIO, "%s: %s", b->ws->root,
		                  cg_strerror(errno).s);
	while (rc == 0) {
		de = readdir(d);
		if (de == NULL)
			break;
		rc = detect_child(b, de->d_name);
	}
	closedir(d);
	return rc;
}

static int
cmp_source(const void *a, const void *b)
{
	return strcmp(((const cg_source *)a)->name,
	              ((const cg_source *)b)->name);
}

static int
set_root(cg_workspace *ws, const char *dir, cg_err *err)
{
	const char *base;

	ws->root = cg_realpath(dir);
	if (ws->root == NULL)
		return cg_err_set(err, errno == ENOENT ? CG_ENOTFOUND : CG_EIO,
		                  "%s: %s", dir, cg_strerror(errno).s);
	if (!is_dir_follow(ws->root))
		return cg_err_set(err, CG_EINVAL, "%s: not a directory", dir);
	base = strrchr(ws->root, '/');
	ws->name = strdup(base && base[1] != '\0' ? base + 1 : ws->root);
	ws->warnings = calloc(1, sizeof(char *));
	if (ws->name == NULL || ws->warnings == NULL)
		return cg_err_set(err, CG_ENOMEM, "workspace: out of memory");
	return 0;
}

/* --- corpora -------------------------------------------------------- */

/* The folder of corpus c registered by repo (malloc'd) into *out, or
 * NULL with a warning when a local corpus's folder is missing; CG_ENOMEM
 * when it cannot tell. */
static int
corpus_dir(cg_workspace *ws, const char *repo, const cg_hm_reg_corpus *c,
           char **out)
{
	char *root;
	char *p;
	char *real;
	int rc = 0;

	*out = NULL;
	if (c->type == CG_HM_GITHUB) {
		root = cg_corpus_cache_root(repo);
		p = root ? cg_corpus_cache_dir(root, c->id) : NULL;
		free(root);
		*out = p;
		return p ? 0 : CG_ENOMEM;
	}
	p = c->path[0] == '/' ? strdup(c->path) : cg_path_join(repo, c->path);
	if (p == NULL)
		return CG_ENOMEM;
	real = cg_realpath(p);
	if (real == NULL && errno == ENOMEM)
		rc = CG_ENOMEM; /* not "missing": the corpus would vanish */
	else if (real == NULL || !is_dir_follow(real))
		rc = ws_warn(ws,
		             "corpus '%.100s': local folder %.200s is "
		             "missing; not served",
		             c->id, p);
	else
		*out = real;
	if (*out == NULL)
		free(real);
	free(p);
	return rc;
}

static int
add_corpus(cg_workspace *ws, const char *repo, const cg_hm_reg_corpus *c)
{
	cg_source *v;
	cg_source *s;
	char *dir;
	int rc;

	if (cg_workspace_source(ws, c->id) != NULL ||
	    strcmp(c->id, "root") == 0)
		return ws_warn(ws,
		               "corpus '%.100s' of %.200s: the name is "
		               "taken by another source; not served",
		               c->id, repo);
	rc = corpus_dir(ws, repo, c, &dir);
	if (rc != 0 || dir == NULL)
		return rc;
	v = realloc(ws->sources, (ws->nsources + 1) * sizeof(*v));
	if (v == NULL) {
		free(dir);
		return CG_ENOMEM;
	}
	ws->sources = v;
	s = &ws->sources[ws->nsources++];
	memset(s, 0, sizeof(*s));
	s->name = strdup(c->id);
	s->repo = dir;
	s->wiki = strdup(dir);
	s->registrar = strdup(repo);
	s->kind = c->type == CG_HM_GITHUB ? CG_SRC_CORPUS_REMOTE
	                                  : CG_SRC_CORPUS_LOCAL;
	return s->name && s->wiki && s->registrar ? 0 : CG_ENOMEM;
}

int
cg_workspace_add_corpora(cg_workspace *ws, const char *repo, cg_err *err)
{
	cg_hm_registry reg;
	cg_err le;
	int rc = 0;

	cg_err_clear(&le);
	rc = cg_corpus_registry_load(&reg, repo, &le);
	if (rc == CG_ENOMEM) /* not unreadable: its corpora would vanish */
		return cg_err_set(err, rc, "%s", le.msg);
	if (rc != 0)
		return ws_warn(ws, "%.300s; its corpora are not served", le.msg)
		           ? cg_err_set(err, CG_ENOMEM, "out of memory")
		           : 0;
	for (size_t i = 0; reg.warnings[i] != NULL && rc == 0; i++)
		rc = ws_warn(ws, "registry of %.200s: %.250s", repo,
		             reg.warnings[i]);
	for (size_t i = 0; i < reg.n && rc == 0; i++)
		rc = add_corpus(ws, repo, &reg.v[i]);
	cg_hm_registry_fini(&reg);
	return rc ? cg_err_set(err, CG_ENOMEM, "out of memory") : 0;
}

/* The corpora of the root and of every repository with a wiki. */
static int
add_all_corpora(cg_workspace *ws, cg_err *err)
{
	size_t nwiki = ws->nsources;
	int rc = cg_workspace_add_corpora(ws, ws->root, err);

	for (size_t i = 0; i < nwiki && rc == 0; i++) {
		char *repo;
		bool dup = strcmp(ws->sources[i].repo, ws->root) == 0;

		for (size_t j = 0; j < i && !dup; j++)
			dup = strcmp(ws->sources[j].repo,
			             ws->sources[i].repo) == 0;
		if (dup)
			continue;
		repo = strdup(ws->sources[i].repo); /* sources may move */
		if (repo == NULL)
			return cg_err_set(err, CG_ENOMEM, "out of memory");
		rc = cg_workspace_add_corpora(ws, repo, err);
		free(repo);
	}
	return rc;
}

int
cg_workspace_load(cg_workspace *ws, const char *dir, cg_err *err)
{
	struct build b;
	size_t first;
	int rc;

	memset(ws, 0, sizeof(*ws));
	memset(&b, 0, sizeof(b));
	b.ws = ws;
	rc = set_root(ws, dir, err);
	/* "root" names the root wiki: no sub-guild may take it. */
	if (rc == 0)
		rc = claim(&b, "root");
	if (rc == 0)
		rc = read_manifest(&b, &ws->has_manifest, err);
	if (rc == 0 && !ws->has_manifest)
		rc = detect(&b, err);
	for (size_t i = 0; i < b.nseen; i++)
		free(b.seen[i]);
	free(b.seen);
	if (rc != 0) {
		cg_workspace_fini(ws);
		return cg_err_set(err, rc, "workspace %s: out of memory", dir);
	}
	/* Root first, then the sub-guilds by name. */
	first = ws->nsources > 0 && strcmp(ws->sources[0].name, "root") == 0;
	if (ws->nsources > first)
		qsort(ws->sources + first, ws->nsources - first,
		      sizeof(cg_source), cmp_source);
	/* Then the corpora, in registry order. */
	rc = add_all_corpora(ws, err);
	if (rc != 0)
		cg_workspace_fini(ws);
	return rc;
}

void
cg_workspace_fini(cg_workspace *ws)
{
	if (ws == NULL)
		return;
	for (size_t i = 0; i < ws->nsources; i++) {
		cg_source_fini(&ws->sources[i]);
	}
	free(ws->sources);
	cg_strv_free(ws->warnings);
	free(ws->name);
	free(ws->root);
	memset(ws, 0, sizeof(*ws));
}

const cg_source *
cg_workspace_source(const cg_workspace *ws, const char *name)
{
	if (ws == NULL || name == NULL)
		return NULL;
	for (size_t i = 0; i < ws->nsources; i++)
		if (strcmp(ws->sources[i].name, name) == 0)
			return &ws->sources[i];
	return NULL;
}
