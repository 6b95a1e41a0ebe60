/*
 * ops.h - the operations of a node, one handler each, all named
 * cg_op_<operation> and all of type cg_op_fn; node/dispatch.c's table maps
 * the "op" of a request to them.  A handler reads args (an object, or
 * NULL), fills res (a new object it may add members to even when it
 * fails) and returns 0 or a code with err set; dispatch.c has already
 * installed the caller's access policy on every index and opened a read
 * transaction.
 *
 * Every operation answers for the node's sources in the request's scope
 * (args.sources, node.h) and returns items that carry "source" and "path"
 * (relative to the repository root), never a uri: the federation adds the
 * workspace and uris, merges the nodes and cuts (federation/).  Result
 * shapes are in ARCHITECTURE.md.  Malformed arguments are error replies
 * (invalid_input); the bounds shared with the federation are
 * proto/limits.h.
 *
 * The handlers live by family: ops_search.c, ops_page.c, ops_links.c,
 * ops_walk.c, ops_grep.c, ops_corpus.c, ops_suggest.c.
 *
 * May be included by node/ only (dispatch.c and the ops_*.c files): the
 * layers above reach the operations through cg_node_handle (dispatch.h).
 */
#ifndef CG_OPS_H
#define CG_OPS_H

#include <jansson.h>

#include "common/cg_err.h"
#include "node/node.h"

typedef int cg_op_fn(cg_node *n, const json_t *args, json_t *res, cg_err *err);

/*
 * Search (ops_search.c):
 *   sync     {} -> {sources: {name: {generation, rebuilt, files, read,
 *            reparsed, added, deleted, skipped, rebuild_reason?}}}.  One
 *            source that cannot sync keeps its last index and does not
 *            hold the others back; the first failure is the reply.
 *   stats    {q, claims?} -> {stats, per_source: {name: {epoch, nrows,
 *            tot, df, df_phrase, claims?}}}: the query's local statistics
 *            (proto/stats.h), summed and per source, with each source's
 *            epoch (index.h) and, when asked, the hashes of its claim keys
 *            (index/search.h), which the federation caches per epoch.
 *   search   {q, filters, stats, epochs?, limit (20), explain, mode?} ->
 *            {hits[] | candidates[], per_source{name: {candidates, hits}},
 *            followups[], corpora?}: scored with the global stats the
 *            federation summed.  The node's best limit over its sources in
 *            the one hit order (proto/order.h); mode "rank": candidates
 *            {source, path, page, rowid, score, match_rank, updated_at,
 *            confidence} (the query phase), else their hits.  When a
 *            source's epoch is not the one in epochs: {stale: {name:
 *            stats as above}} and nothing else, to be asked again.
 *   fetch    {q, explain, items: [candidates]} -> {hits[], followups[]}:
 *            the hits of candidates this node gave (the fetch phase; a
 *            page gone since is left out), in the items' order.
 *   claims   {keys[]} -> {pages[]}: the pages whose claim key is one of
 *            keys (for the conflict check).
 *   problems {} -> {problems[]}: what the last syncs could not index.
 * An index found corrupt is rebuilt once and the operation retried.
 *
 * Suggestions (ops_suggest.c):
 *   suggest  {words[]} -> {per_source: {name: {word: {df, near: [{w, df,
 *            d}]}}}}: per source in scope, the index's words close to
 *            each (index/suggest.h); nothing under an access policy.
 */
cg_op_fn cg_op_sync;
cg_op_fn cg_op_stats;
cg_op_fn cg_op_search;
cg_op_fn cg_op_fetch;
cg_op_fn cg_op_claims;
cg_op_fn cg_op_problems;
cg_op_fn cg_op_suggest;

/*
 * Pages (ops_page.c):
 *   read {source, path, lines?: [A, B]} (B = 0: to the end) -> the page's
 *        frontmatter, body (or text of the range), indexed facts, sizes.
 *        At most CG_PAGE_MAX_BYTES without a line range (CG_ETOOBIG
 *        suggests one); a line range streams the file and keeps only the
 *        range (itself capped at CG_PAGE_MAX_BYTES).  Lines are file
 *        lines, 1-based, frontmatter counted (as search hits'
 *        line_range).  Invalid UTF-8 is replaced with U+FFFD, NUL bytes
 *        dropped (counted in utf8_fixed).
 *   peek {items: [{source, path}]} -> {pages: [{index, ...facts,
 *        links[]}]}: the items of sources this node holds, in scope.
 * A refused or missing page is an error inside the item (node/pages.h),
 * not an error reply.
 */
cg_op_fn cg_op_read;
cg_op_fn cg_op_peek;

/*
 * Links (ops_links.c), resolved by the rules of node/resolve.h:
 *   links     {source, path} -> {page, outgoing[], target}; target is what
 *             backlinks needs to find the page from any node.
 *   backlinks {target: {source, path, slug, title, aliases, names}}
 *             -> {backlinks[]}: every link of the sources in scope that
 *             resolves to the target.
 *   resolve   {names: [{name, source?}] (at most 1000)}
 *             -> {results: [{matches[]}]}, best first, at most 50 each.
 */
cg_op_fn cg_op_links;
cg_op_fn cg_op_backlinks;
cg_op_fn cg_op_resolve;

/*
 * Walks (ops_walk.c, ops_grep.c); arguments all optional unless said:
 *   list   {prefix, filters, limit 1-500 (50), offset 0-100000 (0)}
 *          -> {items[], total, per_source{}}.  Items are sorted by
 *          "source/path" and the node returns the first offset+limit of
 *          them, so a merge of sorted node streams pages correctly.
 *   map    {prefix, filters, per_category 1-5000 (200)}
 *          -> {sources: [{source, pages, categories: [{category|null,
 *          pages, items: [{path, title}]}]}]}; categories by name (null,
 *          uncategorised, last), items by title then path.
 *   grep   {pattern (required), fixed, case_sensitive, max 1-10000 (200),
 *          prefix, before, after (0-10)} -> {matches[] (first max, sorted
 *          by "source/path" then line, each with before[]/after[]
 *          context {line, text} when asked; at most CG_GREP_KEEP_BYTES of
 *          text kept, the rest counted: bytes_limited), total, files[{source,
 * path, matches}], files_searched, bytes_searched, windowed_lines, skipped[],
 * skipped_total, truncated, deadline_exceeded?, unicode, jit}.  A line on which
 *          the pattern hits a PCRE2 limit fails the op (invalid_input,
 *          naming the file and line).  Reads the page files
 *          (page/scan.h's list), not the index, so it works before the
 *          first index exists; stops at the request's deadline.
 *   status {} -> {sources: [{source, ready, generation, pages, sections,
 *          problems, last_sync, index_age_s, generation_age_s, db_bytes,
 *          corpus?, freshness?, errors[]}]}; never fails for one bad
 *          source: it reports it.
 * Prefix: node/prefix.h.  Counts (total, per-category pages, per-file
 * matches) come with items that name their page, and count only the pages
 * the caller may see.
 */
cg_op_fn cg_op_list;
cg_op_fn cg_op_map;
cg_op_fn cg_op_grep;
cg_op_fn cg_op_status;

/*
 * Corpora (ops_corpus.c): what only corpus sources have.
 *   concept      {targets: [{corpus, concept}], limit (1-20, 3)}
 *                -> {entries: [{corpus, concept, source, path, title,
 *                summary}]}: for each target this node holds, up to limit
 *                pages whose entry lists the concept (visible to the
 *                caller), in path order.
 *   corpus_graph {q?} -> {aliases: [{alias, corpus, concept}] (only those
 *                whose term occurs in q, case-insensitive, when q is
 *                given), bridges: [{from, to, type, note}]
 *                ("corpus:concept"), relationships: [{from, to, type}]
 *                (graph.yaml of each corpus), warnings[]} from the
 *                registry-graph.yaml of every repository that registered
 *                one of this node's corpora, and their graphs.  Dangling
 *                references (a corpus that is not registered) are skipped
 *                and listed in warnings.
 */
cg_op_fn cg_op_concept;
cg_op_fn cg_op_corpus_graph;

#endif
