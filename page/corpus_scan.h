/*
 * corpus_scan.h - a hiivmind corpus as a list of pages for the indexer.
 *
 * A corpus source's pages are its index's file entries, not a folder walk:
 * each entry becomes one page at its document's path (cache/corpus.h,
 * cg_corpus_doc_rel), carrying the entry's metadata as an overlay
 * (title, summary, tags, keywords, concepts, category, stale, section
 * entries) that the indexer lays over what the document itself says.  An
 * entry whose document is not here (not fetched, or a source kind this
 * host cannot read) is still a page: "virtual", indexed from its title and
 * summary, and `read` answers not_found for it.
 *
 * Must not: write the index, fetch anything.
 *
 * May be included by page/ and every layer above it (proto, index, node,
 * federation, gateway, cli).
 */
#ifndef CG_CORPUS_SCAN_H
#define CG_CORPUS_SCAN_H

#include <stdbool.h>

#include "common/cg_err.h"
#include "conf/source.h"
#include "page/page.h"
#include "page/scan.h"

/*
 * Lists dir's corpus as scan entries, sorted by rel (relative to dir).
 * *warnings (may be NULL) gets a NULL-terminated list of what was skipped
 * or dangling, for the problems table.  A remote corpus not fetched yet
 * (dir missing) is an empty list with one warning, not an error.  Entry
 * size/mtime fold in the overlay, so an index change re-reads the page.
 */
int cg_corpus_scan(cg_scan *out, const char *dir, bool remote, char ***warnings,
                   cg_err *err);

/* The scan of any source: the wiki walk or the corpus entries. */
int cg_corpus_scan_source(cg_scan *out, const char *repo, const char *wiki,
                          enum cg_source_kind kind, char ***warnings,
                          cg_err *err);

void cg_corpus_scan_warnings_free(char **w);

/* Lays an entry's overlay over a parsed page: its title, category and
 * summary (first line when the page has none) win; tags gain the entry's
 * tags, keywords and concepts; the frontmatter gains `summary`,
 * `section_summaries` (free text) and `corpus` (the whole overlay). */
int cg_corpus_scan_overlay(cg_page *p, const json_t *ov);

/* "# title\n\nsummary\n": the text a virtual page is indexed from. */
char *cg_corpus_scan_virtual_text(const json_t *ov, size_t *len);

#endif
