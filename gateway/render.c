/*
 * render.c - the compact text of every tool's answer (render.h).  The CLI
 * prints it and MCP sends it as a tool result's `text`, so an agent pays
 * for a few lines per hit instead of the pretty JSON of the whole answer
 * (bench/mcp-text measures the ratio).
 *
 * Decisions:
 * - A search hit is two or three lines: "N. Title · facts", its uri with
 *   the line range (what corpus_read takes), then the snippet.  The facts
 *   are the category, confidence, date, owner and the warnings (EXPIRED,
 *   STALE); the match class is shown only when it is weak (some words, a
 *   frontmatter-only match, an alias), or with explain.
 * - A conflict names its pages by hit number ("#1 wins vs #2") when they
 *   are hits, by uri (with its date and confidence, when it has them)
 *   otherwise; the rule that settled it is said once in the header when
 *   every conflict shares it; a followup of
 *   kind "conflict" is not repeated when the conflicts are listed (the
 *   header says to run a lint pass, which is all it adds).
 * - A snippet is cut to SNIPPET_MAX characters on one line: with 20 hits
 *   the snippets are most of the text, and the page is one corpus_read
 *   away (bench/mcp-text measures the text against the whole answer).
 * - Colour marks matched words (the snippet's **marks**, toggled pair by
 *   pair) and titles; without colour the marks are dropped.
 * It must not print (the caller decides where text goes) or reach into
 * anything but the answer it is given.
 */
#include "gateway/render.h"

#include <stdlib.h>
#include <string.h>

#include "common/cg_json.h"
#include "page/token.h"

#define BOLD  "\033[1m"
#define MATCH "\033[1;31m"
#define PATH  "\033[35m"
#define RESET "\033[0m"

#define SNIPPET_MAX 60 /* characters of a hit's snippet shown */

static long long
num(const json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

/* The string at o[k], or dflt when absent or empty. */
static const char *
str_or(const json_t *o, const char *k, const char *dflt)
{
	const char *s = cg_json_str(o, k);

	return *s ? s : dflt;
}

static void
title(cg_buf *out, const char *t, const cg_render_opts *o)
{
	(void)cg_buf_printf(out, "%s%s%s", o->color ? BOLD : "", t,
	                    o->color ? RESET : "");
}

/* A snippet on one line: whitespace runs become one space, and it stops
 * after SNIPPET_MAX characters (code points) with an ellipsis, at the end
 * of a grapheme cluster (never between a Thai consonant and its marks).  With
 * colour each **mark** pair becomes colour on, colour off; without, the
 * marks are dropped (a reader knows the words it asked for, and an agent
 * pays for every character). */
static void
snippet(cg_buf *out, const char *s, const cg_render_opts *o)
{
	bool on = false;
	bool space = false;
	size_t shown = 0;
	size_t n = strlen(s);

	for (const char *p = s; *p; p++) {
		bool lead = ((unsigned char)*p & 0xC0) != 0x80;

		if (p[0] == '*' && p[1] == '*') {
			if (space && o->color) /* the space before the colour */
				(void)cg_buf_putc(out, ' ');
			shown += space && o->color;
			space = space && !o->color;
			if (o->color)
				(void)cg_buf_puts(out, on ? RESET : MATCH);
			on = !on;
			p++;
			continue;
		}
		if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') {
			space = shown > 0;
			continue;
		}
		if (lead && shown >= SNIPPET_MAX &&
		    !cg_token_joins(s, (size_t)(p - s), n)) {
			(void)cg_buf_puts(out, "\xe2\x80\xa6");
			break;
		}
		if (space)
			(void)cg_buf_putc(out, ' ');
		shown += space;
		space = false;
		(void)cg_buf_putc(out, *p);
		shown += lead;
	}
	if (on && o->color)
		(void)cg_buf_puts(out, RESET);
}

static void
followup_lines(cg_buf *out, const json_t *fu, const char *skip_kind)
{
	size_t i;
	const json_t *f;
	bool head = false;

	json_array_foreach(fu, i, f) {
		if (skip_kind && strcmp(cg_json_str(f, "kind"), skip_kind) == 0)
			continue;
		if (!head)
			(void)cg_buf_puts(out, "\nFollowups:\n");
		head = true;
		(void)cg_buf_printf(
		    out, "- [%s] %s%s%s\n", cg_json_str(f, "kind"),
		    cg_json_str(f, "message"),
		    *cg_json_str(f, "uri") ? " " : "", cg_json_str(f, "uri"));
	}
}

/* The nodes of the answer's evidence that did not answer. */
static void
silent_nodes(cg_buf *out, const json_t *ans)
{
	const json_t *nodes =
	    json_object_get(json_object_get(ans, "evidence"), "nodes");
	size_t i;
	const json_t *n;

	json_array_foreach(nodes, i, n)
		if (strcmp(cg_json_str(n, "outcome"), "ok") != 0)
			(void)cg_buf_printf(out, "  node %s: %s\n",
			                    cg_json_str(n, "node"),
			                    cg_json_str(n, "outcome"));
}

/* The non-ok nodes and the followups, as the page tools end. */
static void
receipt(cg_buf *out, const json_t *ans)
{
	silent_nodes(out, ans);
	followup_lines(out, json_object_get(ans, "followups"), NULL);
}

/* --- search --------------------------------------------------------------- */

/* The match class when it says the hit is weak (or always with explain). */
static const char *
match_note(const char *m, bool explain)
{
	if (strcmp(m, "some") == 0)
		return "some words match";
	if (strcmp(m, "forms") == 0)
		return "other word forms";
	if (strcmp(m, "frontmatter") == 0)
		return "frontmatter-only match";
	if (strcmp(m, "alias") == 0)
		return "via an alias";
	return explain && *m ? m : NULL;
}

static void
hit_facts(cg_buf *out, const json_t *h, const cg_render_opts *o)
{
	const char *m = match_note(cg_json_str(h, "match"), o->explain);

	(void)cg_buf_printf(out, " · %s",
	                    str_or(h, "category", "uncategorised"));
	if (*cg_json_str(h, "confidence"))
		(void)cg_buf_printf(out, " · %s confidence",
		                    cg_json_str(h, "confidence"));
	if (*cg_json_str(h, "updated_at"))
		(void)cg_buf_printf(out, " · %s", cg_json_str(h, "updated_at"));
	if (*cg_json_str(h, "owner"))
		(void)cg_buf_printf(out, " · owner %s",
		                    cg_json_str(h, "owner"));
	if (json_is_true(json_object_get(h, "expired")))
		(void)cg_buf_printf(out, " · EXPIRED %s",
		                    cg_json_str(h, "expires_at"));
	if (json_is_true(json_object_get(h, "stale")))
		(void)cg_buf_puts(out, " · STALE entry");
	if (m != NULL)
		(void)cg_buf_printf(out, " · %s", m);
}

static void
render_hit(cg_buf *out, size_t i, const json_t *h, const cg_render_opts *o)
{
	const json_t *lr = json_object_get(h, "line_range");
	const char *snip = cg_json_str(h, "snippet");

	(void)cg_buf_printf(out, "%zu. ", i + 1);
	title(out, cg_json_str(h, "title"), o);
	hit_facts(out, h, o);
	(void)cg_buf_printf(out, "\n   %s", cg_json_str(h, "uri"));
	if (json_array_size(lr) == 2)
		(void)cg_buf_printf(
		    out, ":%lld-%lld",
		    (long long)json_integer_value(json_array_get(lr, 0)),
		    (long long)json_integer_value(json_array_get(lr, 1)));
	(void)cg_buf_putc(out, '\n');
	if (json_object_get(h, "freshness") != NULL)
		(void)cg_buf_printf(
		    out, "   note: %s\n",
		    cg_json_str(json_object_get(h, "freshness"), "note"));
	if (*snip) {
		(void)cg_buf_puts(out, "   ");
		snippet(out, snip, o);
		(void)cg_buf_putc(out, '\n');
	}
	if (o->explain)
		(void)cg_buf_printf(
		    out, "   score %.4f\n",
		    json_number_value(json_object_get(h, "score")));
}

/* Entries bridged from the hits' concepts (SPEC 4.3). */
static void
render_related(cg_buf *out, const json_t *related)
{
	const json_t *g;
	size_t i;

	json_array_foreach(related, i, g) {
		const json_t *b = json_object_get(g, "bridge");
		const json_t *e;
		size_t k;

		if (json_array_size(json_object_get(g, "entries")) == 0)
			continue;
		(void)cg_buf_printf(
		    out, "\nRelated via %s -> %s (%s)%s%s:\n",
		    cg_json_str(b, "from"), cg_json_str(b, "to"),
		    cg_json_str(b, "type"), *cg_json_str(b, "note") ? ": " : "",
		    cg_json_str(b, "note"));
		json_array_foreach(json_object_get(g, "entries"), k, e)
			(void)cg_buf_printf(out, "- %s  %s\n",
			                    cg_json_str(e, "title"),
			                    cg_json_str(e, "uri"));
	}
}

/* 1-based number of the hit with uri, 0 when it is not a hit. */
static size_t
hit_number(const json_t *hits, const char *uri)
{
	size_t i;
	const json_t *h;

	json_array_foreach(hits, i, h)
		if (strcmp(cg_json_str(h, "uri"), uri) == 0)
			return i + 1;
	return 0;
}

/* The resolution every conflict shares, or NULL when they differ. */
static const char *
shared_rule(const json_t *conflicts)
{
	const char *rule = NULL;
	size_t i;
	const json_t *c;

	json_array_foreach(conflicts, i, c) {
		if (rule != NULL &&
		    strcmp(rule, cg_json_str(c, "resolution")) != 0)
			return NULL;
		rule = cg_json_str(c, "resolution");
	}
	return rule;
}

/* One conflict: its pages by hit number, or by uri (with the date and
 * confidence it has) when not a hit; the winner marked; its rule unless
 * the header gave the one they all share. */
static void
render_conflict(cg_buf *out, const json_t *c, const json_t *hits, bool rule)
{
	size_t k;
	const json_t *p;

	(void)cg_buf_printf(out, "- \"%s\": ", cg_json_str(c, "title"));
	json_array_foreach(json_object_get(c, "pages"), k, p) {
		const char *uri = cg_json_str(p, "uri");
		size_t n = hit_number(hits, uri);

		if (k > 0)
			(void)cg_buf_puts(out, " vs ");
		if (n > 0)
			(void)cg_buf_printf(out, "#%zu", n);
		else
			(void)cg_buf_puts(out, uri);
		if (n == 0 && (*cg_json_str(p, "updated_at") ||
		               *cg_json_str(p, "confidence")))
			(void)cg_buf_printf(out, " (%s, %s)",
			                    str_or(p, "updated_at", "undated"),
			                    str_or(p, "confidence", "-"));
		if (strcmp(uri, cg_json_str(c, "winner")) == 0)
			(void)cg_buf_puts(out, " wins");
	}
	if (rule)
		(void)cg_buf_printf(out, ": %s", cg_json_str(c, "resolution"));
	(void)cg_buf_putc(out, '\n');
}

static void
render_conflicts(cg_buf *out, const json_t *conflicts, const json_t *hits)
{
	const char *rule = shared_rule(conflicts);
	size_t i;
	const json_t *c;

	if (json_array_size(conflicts) == 0)
		return;
	(void)cg_buf_puts(out, "\nConflicts (both shown; run a wiki lint "
	                       "pass)");
	if (rule != NULL)
		(void)cg_buf_printf(out, ", each settled by: %s", rule);
	(void)cg_buf_puts(out, ":\n");
	json_array_foreach(conflicts, i, c)
		render_conflict(out, c, hits, rule == NULL);
}

static void
render_evidence(cg_buf *out, const json_t *ans)
{
	const json_t *ev = json_object_get(ans, "evidence");

	(void)cg_buf_printf(
	    out, "\n%lld hit(s) · %lld section(s) walked in %zu source(s)\n",
	    num(ev, "hits_returned"), num(ev, "candidates_walked"),
	    json_array_size(json_object_get(ev, "sources_asked")));
	silent_nodes(out, ans);
}

void
cg_render_search(cg_buf *out, const json_t *ans, const cg_render_opts *o)
{
	const json_t *hits = json_object_get(ans, "hits");
	const json_t *conflicts = json_object_get(ans, "conflicts");
	size_t i;
	const json_t *h;
	char *ev;

	json_array_foreach(hits, i, h)
		render_hit(out, i, h, o);
	if (json_array_size(hits) == 0 ||
	    json_array_size(json_object_get(ans, "suggestions")) > 0)
		(void)cg_buf_printf(out, "%s\n", cg_json_str(ans, "note"));
	render_related(out, json_object_get(ans, "related"));
	render_conflicts(out, conflicts, hits);
	followup_lines(out, json_object_get(ans, "followups"),
	               json_array_size(conflicts) > 0 ? "conflict" : NULL);
	render_evidence(out, ans);
	if (!o->explain)
		return;
	ev = json_dumps(json_object_get(ans, "evidence"),
	                JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (ev != NULL)
		(void)cg_buf_printf(out, "%s\n", ev);
	free(ev);
}

/* --- page tools ----------------------------------------------------------- */

static void
put_string(cg_buf *out, const json_t *s)
{
	if (json_is_string(s))
		(void)cg_buf_append(out, json_string_value(s),
		                    json_string_length(s));
}

void
cg_render_read(cg_buf *out, const json_t *ans, const cg_render_opts *o)
{
	const json_t *t = json_object_get(ans, "text");

	(void)o;
	if (t != NULL) {
		put_string(out, t);
		return;
	}
	put_string(out, json_object_get(ans, "frontmatter_raw"));
	put_string(out, json_object_get(ans, "body"));
}

static void
render_link(cg_buf *out, const json_t *lk)
{
	bool wiki = strcmp(cg_json_str(lk, "kind"), "wikilink") == 0;

	(void)cg_buf_printf(
	    out, "  line %-5lld %s%s%s%s%s%s%s", num(lk, "line"),
	    wiki ? "[[" : "(", cg_json_str(lk, "target"),
	    *cg_json_str(lk, "anchor") ? "#" : "", cg_json_str(lk, "anchor"),
	    wiki && *cg_json_str(lk, "text") ? "|" : "",
	    wiki ? cg_json_str(lk, "text") : "", wiki ? "]]" : ")");
	if (json_is_true(json_object_get(lk, "resolved")))
		(void)cg_buf_printf(out, "  -> %s (%s)\n",
		                    cg_json_str(lk, "uri"),
		                    cg_json_str(lk, "match"));
	else
		(void)cg_buf_printf(out, "  unresolved: %s\n",
		                    cg_json_str(lk, "reason"));
}

void
cg_render_links(cg_buf *out, const json_t *ans, const cg_render_opts *o)
{
	const json_t *c = json_object_get(ans, "counts");
	size_t i;
	const json_t *v;

	title(out, cg_json_str(ans, "title"), o);
	(void)cg_buf_printf(out,
	                    "\n%s\n\nOutgoing links (%lld, %lld "
	                    "unresolved):\n",
	                    cg_json_str(ans, "uri"), num(c, "outgoing"),
	                    num(c, "unresolved"));
	json_array_foreach(json_object_get(ans, "outgoing"), i, v)
		render_link(out, v);
	(void)cg_buf_printf(out, "\nBacklinks (%lld):\n", num(c, "backlinks"));
	json_array_foreach(json_object_get(ans, "backlinks"), i, v) {
		bool wiki = strcmp(cg_json_str(v, "kind"), "wikilink") == 0;

		(void)cg_buf_printf(out, "  %s line %lld  %s%s%s  (%s)\n",
		                    cg_json_str(v, "uri"), num(v, "line"),
		                    wiki ? "[[" : "(", cg_json_str(v, "target"),
		                    wiki ? "]]" : ")", cg_json_str(v, "title"));
	}
	receipt(out, ans);
}

static void
render_peek_page(cg_buf *out, const json_t *p, const cg_render_opts *o)
{
	size_t i;
	const json_t *v;

	if (json_object_get(p, "error") != NULL) {
		(void)cg_buf_printf(
		    out, "%s\n  error: %s\n\n", cg_json_str(p, "uri"),
		    cg_json_str(json_object_get(p, "error"), "message"));
		return;
	}
	title(out, cg_json_str(p, "title"), o);
	(void)cg_buf_printf(out, "\n  %s\n  %s", cg_json_str(p, "uri"),
	                    str_or(p, "category", "uncategorised"));
	json_array_foreach(json_object_get(p, "tags"), i, v)
		(void)cg_buf_printf(out, "%s%s", i == 0 ? " · tags: " : ", ",
		                    json_string_value(v));
	(void)cg_buf_printf(out, " · %lld lines\n", num(p, "nlines"));
	if (*cg_json_str(p, "first_line"))
		(void)cg_buf_printf(out, "  first line: %s\n",
		                    cg_json_str(p, "first_line"));
	json_array_foreach(json_object_get(p, "headings"), i, v) {
		long long level = num(v, "level");

		if (level < 1 || level > 6)
			level = 1;
		(void)cg_buf_printf(out, "  %*s%.*s %s (line %lld)\n",
		                    (int)(2 * (level - 1)), "", (int)level,
		                    "######", cg_json_str(v, "text"),
		                    num(v, "line"));
	}
	json_array_foreach(json_object_get(p, "links"), i, v)
		render_link(out, v);
	(void)cg_buf_putc(out, '\n');
}

void
cg_render_peek(cg_buf *out, const json_t *ans, const cg_render_opts *o)
{
	size_t i;
	const json_t *p;

	json_array_foreach(json_object_get(ans, "pages"), i, p)
		render_peek_page(out, p, o);
	receipt(out, ans);
}

void
cg_render_resolve(cg_buf *out, const json_t *ans, const cg_render_opts *o)
{
	size_t i;
	const json_t *m;

	(void)o;
	if (json_array_size(json_object_get(ans, "matches")) == 0)
		(void)cg_buf_printf(out, "no page matches '%s'. %s\n",
		                    cg_json_str(ans, "lookup"),
		                    cg_json_str(ans, "note"));
	json_array_foreach(json_object_get(ans, "matches"), i, m)
		(void)cg_buf_printf(
		    out, "%-6s %s  %s\n", cg_json_str(m, "match"),
		    cg_json_str(m, "uri"), cg_json_str(m, "title"));
	receipt(out, ans);
}

/* --- walk tools ----------------------------------------------------------- */

/* The followups of the walk tools: kind and message. */
static void
walk_followups(cg_buf *out, const json_t *ans)
{
	const json_t *f;
	size_t i;

	json_array_foreach(json_object_get(ans, "followups"), i, f)
		(void)cg_buf_printf(out, "- [%s] %s\n", cg_json_str(f, "kind"),
		                    cg_json_str(f, "message"));
}

void
cg_render_list(cg_buf *out, const json_t *ans, const cg_render_opts *o)
{
	const json_t *items = json_object_get(ans, "items");
	const json_t *it;
	size_t i;

	json_array_foreach(items, i, it) {
		(void)cg_buf_printf(out, "%s\n    ", cg_json_str(it, "uri"));
		title(out, cg_json_str(it, "title"), o);
		(void)cg_buf_printf(out, " · %s",
		                    str_or(it, "category", "uncategorised"));
		if (*cg_json_str(it, "confidence"))
			(void)cg_buf_printf(out, " · %s",
			                    cg_json_str(it, "confidence"));
		if (*cg_json_str(it, "updated_at"))
			(void)cg_buf_printf(out, " · updated %s",
			                    cg_json_str(it, "updated_at"));
		(void)cg_buf_putc(out, '\n');
	}
	if (json_array_size(items) == 0)
		(void)cg_buf_puts(out, "no pages\n");
	else
		(void)cg_buf_printf(
		    out, "\npages %lld-%lld of %lld", num(ans, "offset") + 1,
		    num(ans, "offset") + (long long)json_array_size(items),
		    num(ans, "total"));
	if (json_is_integer(json_object_get(ans, "next_offset")))
		(void)cg_buf_printf(out, "; next: --offset %lld",
		                    num(ans, "next_offset"));
	(void)cg_buf_putc(out, '\n');
	walk_followups(out, ans);
}

void
cg_render_map(cg_buf *out, const json_t *ans, const cg_render_opts *o)
{
	(void)o;
	(void)cg_buf_puts(out, str_or(ans, "text", "no pages\n"));
}

/* A match's context lines (key "before" or "after"), as ripgrep shows
 * them: "source/path-N- text". */
static void
grep_context(cg_buf *out, const json_t *m, const char *key,
             const cg_render_opts *o)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(m, key), i, c)
		(void)cg_buf_printf(
		    out, "%s%s/%s-%lld-%s %s\n", o->color ? PATH : "",
		    cg_json_str(m, "source"), cg_json_str(m, "path"),
		    num(c, "line"), o->color ? RESET : "",
		    cg_json_str(c, "text"));
}

void
cg_render_grep(cg_buf *out, const json_t *ans, const cg_render_opts *o)
{
	const json_t *m;
	size_t i;

	json_array_foreach(json_object_get(ans, "matches"), i, m) {
		grep_context(out, m, "before", o);
		(void)cg_buf_printf(
		    out, "%s%s/%s:%lld:%s %s\n", o->color ? PATH : "",
		    cg_json_str(m, "source"), cg_json_str(m, "path"),
		    num(m, "line"), o->color ? RESET : "",
		    cg_json_str(m, "text"));
		grep_context(out, m, "after", o);
	}
	(void)cg_buf_printf(out,
	                    "\n%lld matching line(s) in %lld file(s); %lld "
	                    "file(s) searched",
	                    num(ans, "total"), num(ans, "files_with_matches"),
	                    num(ans, "files_searched"));
	if (json_is_true(json_object_get(ans, "truncated")))
		(void)cg_buf_printf(
		    out, "; first %zu shown (truncated)",
		    json_array_size(json_object_get(ans, "matches")));
	(void)cg_buf_putc(out, '\n');
	json_array_foreach(json_object_get(ans, "skipped"), i, m)
		(void)cg_buf_printf(
		    out, "skipped %s/%s: %s\n", cg_json_str(m, "source"),
		    cg_json_str(m, "path"), cg_json_str(m, "reason"));
	walk_followups(out, ans);
}

/* A corpus: local, or remote with its cached commit and freshness. */
static void
render_freshness(cg_buf *out, const json_t *src)
{
	const json_t *f = json_object_get(src, "freshness");

	if (json_object_get(src, "corpus") == NULL)
		return;
	(void)cg_buf_printf(out, "    corpus (%s)", cg_json_str(src, "corpus"));
	if (f != NULL && *cg_json_str(f, "cached_commit") == '\0')
		(void)cg_buf_puts(out, ": not fetched yet (corpus-gw fetch)");
	else if (f != NULL)
		(void)cg_buf_printf(out, ": cached %.7s at %s",
		                    cg_json_str(f, "cached_commit"),
		                    cg_json_str(f, "cached_at"));
	if (f != NULL && *cg_json_str(f, "note"))
		(void)cg_buf_printf(out, "; %s", cg_json_str(f, "note"));
	(void)cg_buf_putc(out, '\n');
}

/* A remote corpus's llms-txt sources, one line each. */
static void
render_llms(cg_buf *out, const json_t *src)
{
	const char *sid;
	json_t *s;

	json_object_foreach(json_object_get(src, "llms"), sid, s)
		(void)cg_buf_printf(
		    out,
		    "    llms-txt %s: manifest asked %s, changed %s; %lld of "
		    "%lld pages cached; last outcome: %s\n",
		    sid, str_or(s, "manifest_checked_at", "never"),
		    str_or(s, "manifest_changed_at", "never"), num(s, "cached"),
		    num(s, "listed"), str_or(s, "outcome", "unknown"));
}

static void
render_source_status(cg_buf *out, const json_t *src)
{
	const json_t *e;
	size_t i;

	(void)cg_buf_printf(out, "  %s: generation %lld",
	                    cg_json_str(src, "source"), num(src, "generation"));
	if (json_is_true(json_object_get(src, "ready")))
		(void)cg_buf_printf(
		    out,
		    ", %lld pages, %lld sections, %lld problems, db %lld "
		    "KiB\n    last sync %s (%lld s ago), generation "
		    "written %lld s ago\n",
		    num(src, "pages"), num(src, "sections"),
		    num(src, "problems"), (num(src, "db_bytes") + 1023) / 1024,
		    str_or(src, "last_sync", "never"), num(src, "index_age_s"),
		    num(src, "generation_age_s"));
	else
		(void)cg_buf_puts(out, ", not indexed\n");
	render_freshness(out, src);
	render_llms(out, src);
	json_array_foreach(json_object_get(src, "errors"), i, e)
		(void)cg_buf_printf(out, "    error: %s\n",
		                    json_string_value(e));
}

void
cg_render_status(cg_buf *out, const json_t *ans, const cg_render_opts *o)
{
	const json_t *n;
	size_t i;

	(void)o;
	(void)cg_buf_printf(out, "workspace %s\n",
	                    cg_json_str(ans, "workspace"));
	json_array_foreach(json_object_get(ans, "nodes"), i, n) {
		const json_t *src;
		size_t k;

		(void)cg_buf_printf(out, "node %s: %s\n",
		                    cg_json_str(n, "node"),
		                    cg_json_str(n, "outcome"));
		json_array_foreach(json_object_get(n, "sources"), k, src)
			render_source_status(out, src);
	}
	walk_followups(out, ans);
}

/* --- index ---------------------------------------------------------------- */

void
cg_render_sync(cg_buf *out, const json_t *report)
{
	const char *src;
	json_t *s;

	json_object_foreach((json_t *)report, src, s) {
		(void)cg_buf_printf(
		    out,
		    "%-20s generation %lld: %lld files, %lld re-indexed, "
		    "%lld added, %lld deleted, %lld skipped",
		    src, num(s, "generation"), num(s, "files"),
		    num(s, "reparsed"), num(s, "added"), num(s, "deleted"),
		    num(s, "skipped"));
		if (json_is_string(json_object_get(s, "rebuild_reason")))
			(void)cg_buf_printf(out, " (rebuilt: %s)",
			                    cg_json_str(s, "rebuild_reason"));
		(void)cg_buf_putc(out, '\n');
	}
}
