/*
 * llms_fetch.h - keeps the llms-txt sources of a published corpus fresh:
 * each source's llms.txt manifest and the pages it lists, fetched over
 * cache/httpc.h and published into the corpus's cache folder the way a
 * git update is (a stage, one renameat2 exchange).
 *
 * A refresh of one corpus (cg_llms_refresh), called by `corpus-gw fetch`
 * with the fetch lock held, after the corpus's own git work:
 * - every llms-txt source of the published config.yaml asks for its
 *   manifest, conditionally (If-None-Match / If-Modified-Since from the
 *   last answer) when a copy is cached; a 200 whose bytes hash to the
 *   recorded sha256 counts as unchanged;
 * - the pages wanted (cache.strategy full: every link; selective: the links
 *   of cache.sections; on-demand: none) are asked all at once on one batch
 *   (at most 6 connections to a host): a page whose manifest line and
 *   validators did not change is asked conditionally (a 304 fetches
 *   nothing), any other page unconditionally; a 200 whose sha256 equals
 *   the cached copy's writes nothing;
 * - only when something changed (a page's bytes, a page gone from the
 *   manifest, the manifest, a validator) is the published folder copied
 *   as hard links into the stage, the changed pages written there
 *   (replaced, never written in place: the inodes are the published
 *   tree's), the pages that left removed, the source's record rewritten,
 *   _cache_meta.json's cached_at moved, and the stage exchanged with the
 *   published folder; a kill at any moment leaves the old or the new
 *   complete set published, and the stage for the next run to remove;
 * - links are resolved by cache/llms_txt.h (http(s) only, the manifest's
 *   host or urls.base_url's, no "..", documents below docs/<source>);
 *   redirects are followed by hand, at most CG_LLMS_REDIRECTS, each
 *   checked by the same rules; a manifest is capped at CG_LLMS_MAX_BYTES,
 *   a page at CG_LLMS_PAGE_MAX; no token or custom header is sent.
 * A manifest that cannot be had fails its source: nothing of it changes,
 * one line says why, and the refresh returns that error (the caller records
 * it: answers then carry the stale note).  A page that cannot be had is one
 * line; its cached copy, if any, stays.
 *
 * What is recorded, per source:
 *   <corpus>/_llms/<sid>.txt    the manifest as last fetched (published)
 *   <corpus>/_llms/<sid>.json   its validators and hash, and per page its
 *                               URL, document, manifest line hash,
 *                               validators and sha256 (published)
 *   .corpus-gw/<id>.llms.json   per source: when the manifest was last
 *                               asked and last changed, pages listed and
 *                               cached, the last outcome (status)
 *
 * Must not: print (problems go to opts->line), index, fetch git, follow a
 * link or redirect the URL rules refuse, write outside the corpus's cache
 * folder, its stage and its status file.
 *
 * May be included by cache/ and every layer above it (conf, page, proto,
 * index, node, federation, gateway, cli); today cache/fetch.c and
 * cache/update.c use it.
 */
#ifndef CG_LLMS_FETCH_H
#define CG_LLMS_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/llms_txt.h" /* CG_LLMS_STATE_DIR */
#include "common/cg_err.h"

#define CG_LLMS_PAGE_MAX  (8u << 20) /* bytes of one page */
#define CG_LLMS_REDIRECTS 5          /* hops followed per request */

typedef struct cg_llms_opts {
	int timeout_ms;      /* per request, redirects included (30 s) */
	int64_t deadline_ms; /* cg_mono_ms() clock; 0: none */
	const char *corpus_id;
	const char *status_path; /* .corpus-gw/<id>.llms.json, or NULL */
	/* One line per problem (no newline), or NULL. */
	void (*line)(void *ud, const char *text);
	void *ud;
} cg_llms_opts;

typedef struct cg_llms_report {
	int sources;  /* llms-txt sources in config.yaml */
	int failed;   /* sources whose manifest could not be had */
	int listed;   /* links in their manifests */
	int wanted;   /* pages their strategies cache */
	int fetched;  /* pages written (new or changed bytes) */
	int kept;     /* pages unchanged (304, or the same sha256) */
	int removed;  /* pages gone from the manifest, deleted */
	int bad;      /* pages that could not be had (a line each) */
	int requests; /* HTTP requests, redirects included */
	int connections;
	uint64_t bytes; /* received, headers included */
	bool published; /* the corpus folder was replaced */
} cg_llms_report;

/* Defaults: 30 s per request, no deadline, no lines. */
void cg_llms_opts_init(cg_llms_opts *o);

/*
 * Refreshes the llms-txt sources of the published corpus at dir, through
 * the stage folder stage (which must not exist; removed on failure).  A
 * corpus without such sources is 0 and asks nothing.  Returns 0, or the
 * first failed source's error (err names it) after publishing what the
 * others brought; CG_EIO and the like when the publish itself failed.
 */
int cg_llms_refresh(const char *dir, const char *stage, const cg_llms_opts *o,
                    cg_llms_report *rep, cg_err *err);

/*
 * Links the cached pages and the record of llms-txt source sid from the
 * published corpus at dir into the stage of a git update (docs/<sid> and
 * _llms/<sid>.*), so a new commit of the corpus keeps them.  Nothing
 * cached is 0.
 */
int cg_llms_carry(const char *dir, const char *stage, const char *sid,
                  cg_err *err);

#endif
