/*
 * corpus.h - where a registered corpus lives and what is recorded about
 * it: the cache layout of SPEC 3.3, `_cache_meta.json`, corpus-gw's own
 * freshness state, and a corpus folder loaded for indexing.
 *
 * Layout under a registering repository R:
 *
 *   R/.hiivmind/corpus/registry.yaml             the registry (read only)
 *   R/.hiivmind/corpus/registry-graph.yaml       bridges and aliases
 *   R/.hiivmind/corpus/cache/<id>/               a remote corpus, published
 *       config.yaml index.yaml index.md graph.yaml   the corpus files
 *       docs/<source_id>/...                     each source's docs_root
 *       _cache_meta.json                         SPEC 3.3, exactly
 *   R/.hiivmind/corpus/cache/.corpus-gw/         corpus-gw's own files
 *       lock                                     flock: one fetch at a time
 *       <id>.json                                freshness state (below)
 *       git/<id>/corpus.git, git/<id>/src-<sid>.git   bare repositories
 *       stage-<id>-<pid>/                        a build before publish
 *
 * A local corpus (registry source.type local) is read in place: its
 * documents are found through config.yaml (self sources at docs_root,
 * local sources at path, both inside the corpus folder).
 *
 * Must not: fetch, probe, index.
 *
 * May be included by cache/ and every layer above it (conf, page, proto,
 * index, node, federation, gateway, cli).
 */
#ifndef CG_CORPUS_H
#define CG_CORPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "cache/hiivmind.h"
#include "common/cg_err.h"

#define CG_CORPUS_DIR   "docs" /* folder of the sources' documents */
#define CG_CORPUS_STATE ".corpus-gw"
#define CG_CORPUS_META  "_cache_meta.json"

/* Paths of one registering repository (malloc'd; NULL on ENOMEM). */
char *cg_corpus_registry_path(const char *repo); /* .../registry.yaml */
char *cg_corpus_reggraph_path(const char *repo); /* .../registry-graph.yaml */
char *cg_corpus_cache_root(const char *repo);    /* .../corpus/cache */
/* <cache root>/<id>, <cache root>/.corpus-gw/<id>.json */
char *cg_corpus_cache_dir(const char *cache_root, const char *id);
char *cg_corpus_state_path(const char *cache_root, const char *id);
/* <cache root>/.corpus-gw/<id><ext>: a corpus's other state files (the
 * llms-txt status "<id>.llms.json", on-demand pages "<id>.pages"). */
char *cg_corpus_state_file(const char *cache_root, const char *id,
                           const char *ext);

/* Loads R/.hiivmind/corpus/registry.yaml.  No registry: 0 with an empty
 * registry (r->n == 0).  A registry that does not parse: CG_EPARSE. */
int cg_corpus_registry_load(cg_hm_registry *r, const char *repo, cg_err *err);

/* _cache_meta.json (SPEC 3.3). */
typedef struct cg_cache_meta {
	char corpus_id[128];
	char source_repo[256];
	char source_ref[256];
	char cached_at[32]; /* 2026-11-29T22:05:42Z */
	char cached_commit_sha[41];
	double ttl_days;
} cg_cache_meta;

/* 0 when read; CG_ENOTFOUND when absent; CG_EPARSE when not the format. */
int cg_cache_meta_read(cg_cache_meta *m, const char *dir, cg_err *err);
/* Writes dir/_cache_meta.json atomically. */
int cg_cache_meta_write(const cg_cache_meta *m, const char *dir, cg_err *err);
/* Seconds since cached_at, or -1 when it does not parse. */
long cg_cache_meta_age(const cg_cache_meta *m, time_t now);

/*
 * corpus-gw's freshness state of one corpus (.corpus-gw/<id>.json).  An
 * advisory record, never fsync'd: a crash may lose it, which costs one
 * more probe and nothing else.  Its checked_at has a second, cheaper
 * form: a probe that leaves the record as it was (same etag and remote
 * commit, no error) only sets the file's mtime (cg_corpus_state_touch: no
 * write, no rename, no fsync), and cg_corpus_state_read reads checked_at
 * as the later of the stamp in the file and its mtime when the record
 * holds no error (a record with an error was written when the error
 * happened, which is no successful probe).
 */
typedef struct cg_corpus_state {
	char etag[256];       /* of the last 200 answer */
	char remote_sha[41];  /* what the remote said last, or "" */
	char checked_at[32];  /* the last probe that answered */
	char last_error[512]; /* the last failed refresh, or "" */
	char last_error_at[32];
} cg_corpus_state;

/* Missing or unreadable: an empty state (never an error). */
void cg_corpus_state_read(cg_corpus_state *s, const char *path);
int cg_corpus_state_write(const cg_corpus_state *s, const char *path,
                          cg_err *err);
/* Records a probe at t that changed nothing else in the record at path
 * (which must exist: CG_ENOTFOUND, else CG_EIO): its mtime becomes t. */
int cg_corpus_state_touch(const char *path, time_t t, cg_err *err);
/* True when a and b say the same apart from checked_at: a probe that
 * finds b as a was needs only cg_corpus_state_touch. */
bool cg_corpus_state_same(const cg_corpus_state *a, const cg_corpus_state *b);

/* "2026-11-29T22:05:42Z" for t. */
void cg_utc_stamp(char out[32], time_t t);

/*
 * The freshness note of SPEC 4.4 for a published remote corpus, into out:
 * "indexed at abc1234, source is now at def5678" when the remote moved and
 * the cache could not follow; "last refresh failed at T: why" when the last
 * refresh failed; "" when fresh.  Returns true when there is a note (the
 * corpus is stale).
 */
bool cg_corpus_note(const cg_cache_meta *m, const cg_corpus_state *s, char *out,
                    size_t n);

/* Reads and parses dir/config.yaml into *cfg (cg_hm_config_fini it when
 * 0); absent, unreadable or damaged is its error (callers that only need
 * the sources treat any error as "none"). */
int cg_corpus_config_read(cg_hm_config *cfg, const char *dir, cg_err *err);

/* A corpus folder parsed for indexing. */
typedef struct cg_corpus {
	char *dir;   /* the corpus folder (config.yaml, index.*) */
	bool remote; /* a published cache: documents in docs/<sid> */
	cg_hm_config config;
	cg_hm_index index;
	cg_hm_graph graph; /* empty when there is no graph.yaml */
	bool has_config, has_graph;
	char **warnings; /* NULL-terminated: every file's warnings,
	                    prefixed with the file name */
} cg_corpus;

/* Reads dir's config.yaml, index.yaml (else index.md with the tier
 * indexes it links, "index-<section>.md": their entries join the index,
 * an id already read is kept once, and a tier that is missing or does
 * not parse is a warning naming it, the rest still read), graph.yaml, and
 * for a remote corpus each llms-txt source's cached manifest: a link whose
 * document (docs/<sid>/<doc>) no file entry of that source names becomes
 * an entry (id "<sid>:<doc>", the link's title, its note as summary, its
 * section as category), and every such entry carries the page's URL.  No
 * index at all is CG_ENOTFOUND; a file that does not parse is its error
 * (config.yaml and graph.yaml are optional: their absence or damage is a
 * warning). */
int cg_corpus_load(cg_corpus *c, const char *dir, bool remote, cg_err *err);
void cg_corpus_fini(cg_corpus *c);

/* The document of file entry e, relative to c->dir, into a malloc'd
 * string ("docs/<sid>/<path>" for a remote corpus; "<docs_root>/<path>"
 * for a local self source, "<path>/<entry path>" for a local source
 * whose path is inside the corpus folder); NULL when the entry's source
 * has no documents here (*why says why, static). */
char *cg_corpus_doc_rel(const cg_corpus *c, const cg_hm_entry *e,
                        const char **why);

#endif
