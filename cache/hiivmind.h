/*
 * hiivmind.h - the hiivmind corpus formats (SPEC 3.3), parsed into C
 * structs: the project registry (.hiivmind/corpus/registry.yaml), a
 * corpus's config.yaml, index.yaml (v2) or index.md (v1), graph.yaml, and
 * the project-level registry-graph.yaml.
 *
 * Parsing only: nothing here touches the network, the cache or an index.
 * YAML is read with the bounded event-API reader of common/cg_yaml.h
 * (aliases refused, depth and node count capped), never with a recursive
 * walk of a libyaml document.  Implemented in cache/hiivmind.c (registry,
 * config, shared helpers), cache/hiivmind_index.c (index.yaml, index.md,
 * checks) and cache/hiivmind_graph.c (graph, registry-graph); the private
 * helpers are in cache/hiivmind_int.h.
 *
 * Decisions a caller must know:
 * - A file that is not YAML, or whose top level is not a mapping, is
 *   CG_EPARSE with the line.  Over CG_HM_MAX_BYTES is CG_ETOOBIG.  YAML the
 *   reader refuses as hostile (an alias, nesting past 64 levels, more than
 *   2,000,000 nodes) is CG_EPARSE too.  Out of memory is CG_ENOMEM.  On any
 *   failure *out is left zeroed (its _fini is still safe to call).
 * - One bad item never fails a file: an item missing a required field, with
 *   an unsafe id, or of the wrong shape is skipped and a line is appended to
 *   `warnings` ("corpora[3]: no id; skipped").  Warnings are capped at
 *   CG_HM_MAX_WARNINGS (the last one says how many more).
 * - Ids (corpus ids, source ids, concept ids) must match [A-Za-z0-9._-]+
 *   (at most 255 bytes) and not be "." or "..": they become folder names
 *   and uri segments.  A second item with an id already taken (corpora,
 *   sources, concepts, index entries) is skipped with a warning.
 * - A YAML string holding a NUL byte (a "\0" escape) counts as absent, so
 *   an id or path with one skips its item.
 * - Strings are valid UTF-8 (the YAML reader guarantees it; index.md is
 *   sanitised, invalid sequences become U+FFFD and NUL bytes are dropped).
 * - Lists of strings (tags, keywords, concepts) are NULL-terminated arrays,
 *   never NULL themselves; a scalar where a list is expected is a list of
 *   one; integer items are kept as their decimal text (`tags: [2024]`);
 *   empty strings and other non-string items are skipped.
 * - Item order is file order (jansson keeps mapping keys in insertion
 *   order, so concepts and aliases come out as written).
 *
 * May be included by cache/ and every layer above it (conf, page, proto,
 * index, node, federation, gateway, cli).
 */
#ifndef CG_HIIVMIND_H
#define CG_HIIVMIND_H

#include <stddef.h>

#include "common/cg_err.h"

#define CG_HM_MAX_BYTES    (16u << 20)
#define CG_HM_MAX_WARNINGS 50

enum cg_hm_source_type {
	CG_HM_GITHUB = 1, /* registry source.type: github */
	CG_HM_LOCAL = 2,  /* registry source.type: local */
};

/* One corpora[] item of registry.yaml. */
typedef struct cg_hm_reg_corpus {
	char *id;
	enum cg_hm_source_type type;
	char *repo;     /* github: "owner/name" (both parts ids); local: NULL */
	char *ref;      /* github: branch/tag ([A-Za-z0-9._/-], no ".."),
	                   default "main"; local: NULL */
	char *path;     /* github: subfolder of the repo, normalised like
	                   docs_root, or NULL for the root; local: the
	                   corpus folder as written (relative or absolute) */
	char *strategy; /* cache.strategy as written, or NULL */
	long ttl_s;     /* cache.ttl ("7d", "12h", "30m", "90s", a bare
	                   number = days); default 7 days */
} cg_hm_reg_corpus;

typedef struct cg_hm_registry {
	cg_hm_reg_corpus *v;
	size_t n;
	char **warnings; /* NULL-terminated, never NULL */
} cg_hm_registry;

/*
 * What an llms-txt source caches ahead of time (cache.strategy): every
 * page the manifest lists, the pages of cache.sections, or none (a `read`
 * fetches a page).  Absent is full; `cache.enabled: false` is on-demand;
 * a value this does not know is warned and taken as on-demand (nothing
 * is fetched that the config did not ask for).
 */
enum cg_hm_strategy {
	CG_HM_FULL = 0,
	CG_HM_SELECTIVE = 1,
	CG_HM_ON_DEMAND = 2,
};

/* One sources[] item of config.yaml. */
typedef struct cg_hm_source {
	char *id;
	char *type;            /* "git", "self", "local", "web", ...
	                          (required) */
	char *repo_owner;      /* git; an id when present, or NULL */
	char *repo_name;       /* git; an id when present, or NULL */
	char *repo_url;        /* as written, or NULL */
	char *branch;          /* validated like a registry ref; default
	                          "main" for git, else NULL when absent */
	char *docs_root;       /* normalised: no leading "./" or "/", no
	                          trailing "/"; "" for the root; a root with
	                          ".." or a NUL is refused (item skipped) */
	char *path;            /* local sources: path as written, or NULL */
	char *last_commit_sha; /* 40 hex, lowercased, or NULL (anything
	                          else is warned and dropped) */
	/* llms-txt sources (a site's llms.txt manifest of Markdown pages;
	 * an llms-txt item without manifest.url is skipped, warned): */
	char *manifest_url; /* manifest.url as written (cache/llms_txt.h
	                       checks it) */
	char *last_hash;    /* manifest.last_hash ("sha256:<hex>"), or NULL */
	char *base_url;     /* urls.base_url, or NULL (the manifest's
	                       folder) */
	char *suffix;       /* urls.suffix (".md"), or NULL (none) */
	enum cg_hm_strategy strategy; /* cache.strategy (below) */
	char **sections; /* cache.sections (selective), never NULL */
} cg_hm_source;

typedef struct cg_hm_config {
	char *name;         /* corpus.name, or NULL (warned) */
	char *display_name; /* or NULL */
	char **keywords;    /* corpus.keywords */
	cg_hm_source *sources;
	size_t nsources;
	char **warnings;
} cg_hm_config;

/* One entry of index.yaml (v2) or one line of index.md (v1). */
typedef struct cg_hm_entry {
	char *id;       /* "source:path", or "parent#anchor" for sections
	                   (as written; unique within the index) */
	char *source;   /* source id (from `source`, else before ':') */
	char *path;     /* document path inside the source's docs_root
	                   (from `path`, else after ':' and, for sections,
	                   before the last '#'); a path with a ".."
	                   component, a leading "/", a NUL, a backslash, or
	                   no file name is refused (entry skipped) */
	char *title;    /* never NULL: falls back to the path's file name */
	char *summary;  /* or NULL */
	char *category; /* or NULL */
	char *url;      /* llms-txt sources: the page's URL (set by
	                   cg_corpus_load from the manifest and config), or
	                   NULL */
	char **tags;
	char **keywords;
	char **concepts;
	int stale;         /* stale: true (or the text "true") */
	char *stale_since; /* as written, or NULL */
	/* Section entries (tier: section, or a `parent` and no tier): */
	int is_section;
	char *parent;      /* id of the file entry (else the id before '#') */
	char *anchor;      /* (else the id after the last '#'); a section
	                      without parent or anchor is skipped */
	int heading_level; /* 1-6, else 0 */
	int line_start, line_end; /* line_range, 1-based inclusive; 0 when
	                             absent or invalid */
} cg_hm_entry;

typedef struct cg_hm_index {
	int version;    /* 2 for index.yaml, 1 for index.md */
	cg_hm_entry *v; /* file entries and section entries, in file order */
	size_t n;
	char **warnings;
	char **tiers; /* v1: the tier indexes it links (below); NULL-terminated,
	                 never NULL after cg_hm_index_parse_v1; NULL for v2 */
} cg_hm_index;

/* Tier indexes one v1 index may link (more are warned and left out). */
#define CG_HM_MAX_TIERS 256

typedef struct cg_hm_concept {
	char *id;
	char *label;       /* or NULL */
	char *description; /* or NULL */
	char **tags;
} cg_hm_concept;

/* A typed relationship of graph.yaml, or a bridge of registry-graph.yaml
 * (then the corpus fields are set). */
typedef struct cg_hm_link {
	char *from_corpus; /* bridges only; NULL in graph.yaml */
	char *from;        /* concept id */
	char *to_corpus;   /* bridges only */
	char *to;
	char *type; /* includes, extends, depends-on, see-also,
	               contrast-with (others kept as written, warned;
	               a link without a type is skipped) */
	char *note; /* `note`, or NULL */
} cg_hm_link;

typedef struct cg_hm_graph {
	cg_hm_concept *concepts; /* the `concepts` mapping (a list of items
	                            with `id` is tolerated) */
	size_t nconcepts;
	cg_hm_link *rels; /* relationships whose ends are both concepts of
	                     this graph; dangling ones are warned, skipped */
	size_t nrels;
	char **warnings;
} cg_hm_graph;

typedef struct cg_hm_target {
	char *corpus;
	char *concept;
} cg_hm_target;

typedef struct cg_hm_alias {
	char *term;            /* the query term as written */
	cg_hm_target *targets; /* {corpus, concept} items (or
	                          "corpus:concept" strings); bad ones are
	                          warned and skipped, an alias left with none
	                          is skipped */
	size_t ntargets;
} cg_hm_alias;

/* Whether a bridge's corpora and concepts exist is the caller's check:
 * this parser only refuses references that are not "corpus:concept". */
typedef struct cg_hm_reggraph {
	cg_hm_link *bridges; /* concept_a/concept_b "corpus:concept" split */
	size_t nbridges;
	cg_hm_alias *aliases;
	size_t naliases;
	char **warnings;
} cg_hm_reggraph;

int cg_hm_registry_parse(cg_hm_registry *out, const char *text, size_t len,
                         cg_err *err);
/* A cache ttl: digits and an optional unit w, d, h, m or s (either case;
 * no unit means days), blanks around allowed, at most ten years.  Sets
 * *out in seconds; CG_EINVAL otherwise.  The registry uses 7 days (with a
 * warning) for a ttl this refuses, and for an integer out of range. */
int cg_hm_ttl_parse(const char *s, long *out);
void cg_hm_registry_fini(cg_hm_registry *r);

int cg_hm_config_parse(cg_hm_config *out, const char *text, size_t len,
                       cg_err *err);
void cg_hm_config_fini(cg_hm_config *c);
/* The source with this id, or NULL. */
const cg_hm_source *cg_hm_config_source(const cg_hm_config *c, const char *id);

/* index.yaml (v2): entries[] (file and section entries). */
int cg_hm_index_parse_v2(cg_hm_index *out, const char *text, size_t len,
                         cg_err *err);
/* index.md (v1): lines "- **Title** `source:path` - description" (the
 * description may be absent; a trailing "⚡ GREP ..." hint is dropped);
 * the nearest "## " heading above becomes the category.
 * Details: the bullet is "- " or "* " at column 0 (indented bullets are
 * description continuations upstream); the separator may be "-", an en or
 * em dash or ':'; the category is the heading text ASCII-lowercased ("###"
 * headings do not change it); lines inside ``` or ~~~ fences are ignored;
 * a line that matches but whose reference is unsafe is skipped with a
 * warning naming the line; other lines are ignored silently.  Invalid
 * UTF-8 is replaced (one warning), never an error.
 * Tiered corpora (hiivmind's `render.strategy: tiered`): a Markdown link
 * "[Title](index-<section>.md)" (also "./index-...", "<...>", with a
 * "#anchor" or a title) outside fences names a tier index, a file of the
 * same format next to index.md; its file name (an id: no '/') goes to
 * `tiers`, each once.  Reading them is the caller's (cache/corpus.c). */
int cg_hm_index_parse_v1(cg_hm_index *out, const char *text, size_t len,
                         cg_err *err);
/* Moves the entries of from whose id ix does not hold into ix, in order
 * (an entry pinned in two tiers is kept once); from is left empty (its
 * warnings and tiers stay).  On CG_ENOMEM each entry is in one of the
 * two (both stay safe to _fini). */
int cg_hm_index_merge(cg_hm_index *ix, cg_hm_index *from);
void cg_hm_index_fini(cg_hm_index *ix);
/* Appends a copy of file entry e (id and title required; lists may be
 * NULL) to ix, which may be empty (zeroed).  Ids are not checked: the
 * caller keeps them unique.  CG_ENOMEM leaves ix as it was. */
int cg_hm_index_add(cg_hm_index *ix, const cg_hm_entry *e);

int cg_hm_graph_parse(cg_hm_graph *out, const char *text, size_t len,
                      cg_err *err);
void cg_hm_graph_fini(cg_hm_graph *g);
const cg_hm_concept *cg_hm_graph_concept(const cg_hm_graph *g, const char *id);

int cg_hm_reggraph_parse(cg_hm_reggraph *out, const char *text, size_t len,
                         cg_err *err);
void cg_hm_reggraph_fini(cg_hm_reggraph *rg);

/* Cross-file checks, appended to ix->warnings: entries whose source is not
 * in the config, entry concepts the graph does not define (either may be
 * NULL to skip that check).  Never removes entries.  ix must come from
 * cg_hm_index_parse_v1/_v2 (its warnings array is reused, and the cap
 * still holds).  Returns CG_ENOMEM when a warning or a check was lost to
 * memory (the warnings are then short: a caller that shows them fails),
 * else 0. */
int cg_hm_check(cg_hm_index *ix, const cg_hm_config *c, const cg_hm_graph *g);

#endif
