/*
 * llms_page.h - a page of an llms-txt source that its manifest lists but
 * the published cache does not hold (cache.strategy on-demand, a
 * selective source's other sections, a page whose last fetch failed):
 * fetched when a `read` asks for it, within the request's deadline, kept
 * for the next read, then answered from the copy.
 *
 * Where the copy is kept, and why: <cache root>/.corpus-gw/<id>.pages/
 * <sid>/<doc>, beside the corpus's other state, never in the published
 * folder <cache root>/<id>.  That folder is replaced whole by `corpus-gw
 * fetch` (a hard-link stage and one renameat2 exchange, under the fetch
 * lock): a file written into it in place would change inodes a stage
 * shares, could land in the old tree a moment before the exchange throws
 * it away, and would need the fetch lock, which a fetch holds for as long
 * as it runs (longer than any read waits).  The side folder needs no lock:
 * every file is written to a unique temporary name and renamed, so a
 * reader sees the old copy or the new one, never a part.
 *
 * A copy (with its record <doc>.json: URL, manifest line hash, ETag,
 * Last-Modified, when fetched) is served as it is while its URL and
 * manifest line are the cached manifest's and it was fetched after the
 * source's manifest was last asked (the time .corpus-gw/<id>.llms.json was
 * written): each fetch run thus makes the next read ask again,
 * conditionally (a 304 costs no body).  When that ask fails, the older
 * copy is served with a note; with no copy, the failure is the answer.
 * The published folder is not changed: search still says the page is not
 * cached yet, and `corpus-gw fetch` does not know these copies.
 *
 * The rules are the refresh's (cache/llms_fetch.h): the URL and document
 * path come from cg_llms_resolve over the cached manifest; redirects are
 * followed by hand, at most CG_LLMS_REDIRECTS, each checked by
 * cg_llms_redirect; a body over CG_LLMS_PAGE_MAX fails; no token or custom
 * header is sent; invalid UTF-8 is replaced.
 *
 * Must not: write into the published folder or outside <id>.pages, wait
 * past the deadline, print.
 *
 * May be included by cache/ and every layer above it (conf, page, proto,
 * index, node, federation, gateway, cli); today node/ops_page.c (read).
 */
#ifndef CG_LLMS_PAGE_H
#define CG_LLMS_PAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "cache/llms_txt.h"
#include "common/cg_err.h"

/* What became of one on-demand read. */
typedef struct cg_llms_page_info {
	bool listed;     /* rel is a page the source's manifest lists */
	const char *how; /* "fetched", "revalidated" (a 304), "cached" (not
	                    asked) or "stale" (asking failed: note says why) */
	char url[CG_LLMS_URL_MAX + 1];
	char note[CG_ERR_MSG_MAX];
} cg_llms_page_info;

/* Where the copies of corpus id are kept (malloc'd): see above. */
char *cg_llms_pages_dir(const char *cache_root, const char *id);

/*
 * Opens the on-demand copy of rel ("docs/<sid>/<doc>", relative to the
 * published corpus <cache_root>/<id>) read-only into *fd, fetching it
 * first when there is no fresh copy (see above).  deadline_ms is on the
 * cg_mono_ms() clock (0: 30 s from now); nothing waits past it.  Returns
 * 0, or:
 *   CG_ENOTFOUND  info->listed false: rel is not a listed page of an
 *                 llms-txt source (the caller's own "not found" stands);
 *                 or the site answered 404
 *   CG_ETIMEDOUT  the deadline came first ("...timed out" / "deadline")
 *   CG_EUNAVAIL, CG_EPROTO, CG_ETOOBIG, CG_EDENIED  the site is down,
 *                 answered oddly, sent too much, or redirected where the
 *                 rules refuse; err names the URL and says why
 *   CG_EIO, CG_ENOMEM
 */
int cg_llms_page_open(int *fd, const char *cache_root, const char *id,
                      const char *rel, int64_t deadline_ms,
                      cg_llms_page_info *info, cg_err *err);

#endif
