/*
 * web_html.c - the search page's HTML from the tools' answers (web.h):
 * the escaping every piece of page text goes through, the results of a
 * search (hits tagged by source, snippets with their matched words
 * marked, line ranges, conflicts side by side with the winner and the
 * rule) and the page view (its lines numbered, its links and backlinks).
 *
 * Invariant: every string that came from an answer (so from a page file,
 * a node or a caller) reaches the output through cg_web_escape,
 * cg_web_query_value or snippet(); the only markup written as is are the
 * literals of this file.  It must not call a tool, decide what a caller
 * may see (the answers are already filtered) or write anything but HTML.
 */
#include <stdio.h>
#include <string.h>

#include "common/cg_json.h"
#include "gateway/web.h"

/* The first n bytes of s, escaped (cg_web_escape). */
static void
escape_n(cg_buf *out, const char *s, size_t n)
{
	const char *run = s;
	const char *end = s + n;

	for (; s < end; s++) {
		const char *e = NULL;

		switch (*s) {
		case '&':
			e = "&amp;";
			break;
		case '<':
			e = "&lt;";
			break;
		case '>':
			e = "&gt;";
			break;
		case '"':
			e = "&quot;";
			break;
		case '\'':
			e = "&#39;";
			break;
		default:
			continue;
		}
		(void)cg_buf_append(out, run, (size_t)(s - run));
		(void)cg_buf_puts(out, e);
		run = s + 1;
	}
	(void)cg_buf_append(out, run, (size_t)(end - run));
}

void
cg_web_escape(cg_buf *out, const char *s)
{
	if (s != NULL)
		escape_n(out, s, strlen(s));
}

void
cg_web_query_value(cg_buf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s != NULL && *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~') {
			(void)cg_buf_putc(out, (char)c);
			continue;
		}
		(void)cg_buf_putc(out, '%');
		(void)cg_buf_putc(out, hex[c >> 4]);
		(void)cg_buf_putc(out, hex[c & 15]);
	}
}

/* A snippet: escaped, the matched words (between "**" marks, as the
 * search writes them) inside <mark>; a mark left open is closed. */
static void
snippet(cg_buf *out, const char *s)
{
	int open = 0;
	const char *mark = strstr(s, "**");

	while (mark != NULL) {
		escape_n(out, s, (size_t)(mark - s));
		(void)cg_buf_puts(out, open ? "</mark>" : "<mark>");
		open = !open;
		s = mark + 2;
		mark = strstr(s, "**");
	}
	cg_web_escape(out, s);
	if (open)
		(void)cg_buf_puts(out, "</mark>");
}

/* href of a page view: /page?uri=U, with &lines=A:B#LA when a > 0. */
static void
page_href(cg_buf *out, const char *uri, long a, long b)
{
	(void)cg_buf_puts(out, "/page?uri=");
	cg_web_query_value(out, uri);
	if (a > 0)
		(void)cg_buf_printf(out, "&amp;lines=%ld:%ld#L%ld", a, b, a);
}

/* A source badge: the source, with its workspace as a tooltip. */
static void
source_tag(cg_buf *out, const json_t *o)
{
	(void)cg_buf_puts(out, "<span class=\"source\" title=\"");
	cg_web_escape(out, cg_json_str(o, "workspace"));
	(void)cg_buf_puts(out, "\">");
	cg_web_escape(out, cg_json_str(o, "source"));
	(void)cg_buf_puts(out, "</span>");
}

/* " · key value" for each present string field. */
static void
meta(cg_buf *out, const json_t *o, const char *const *keys)
{
	for (size_t i = 0; keys[i] != NULL; i += 2) {
		const char *v = cg_json_str(o, keys[i]);

		if (*v == '\0')
			continue;
		(void)cg_buf_printf(out, " <span class=\"%s\">%s%s", keys[i],
		                    keys[i + 1], *keys[i + 1] ? " " : "");
		cg_web_escape(out, v);
		(void)cg_buf_puts(out, "</span>");
	}
}

static const char *const hit_meta[] = {"category",   "",           "match",
                                       "match",      "confidence", "confidence",
                                       "updated_at", "updated",    NULL};

static void
line_range(const json_t *o, long *a, long *b)
{
	const json_t *r = json_object_get(o, "line_range");

	*a = (long)json_integer_value(json_array_get(r, 0));
	*b = (long)json_integer_value(json_array_get(r, 1));
}

static void
render_hit(cg_buf *out, const json_t *h)
{
	long a;
	long b;

	line_range(h, &a, &b);
	(void)cg_buf_puts(out, "<li class=\"hit\"><a class=\"title\" href=\"");
	page_href(out, cg_json_str(h, "uri"), a, b);
	(void)cg_buf_puts(out, "\">");
	cg_web_escape(out, cg_json_str(h, "title"));
	(void)cg_buf_puts(out, "</a> ");
	source_tag(out, h);
	if (a > 0)
		(void)cg_buf_printf(out,
		                    " <span class=\"lines\">lines "
		                    "%ld&ndash;%ld</span>",
		                    a, b);
	(void)cg_buf_puts(out, "<div class=\"meta\">");
	meta(out, h, hit_meta);
	if (json_is_true(json_object_get(h, "stale")))
		(void)cg_buf_puts(out, " <span class=\"stale\">stale</span>");
	(void)cg_buf_puts(out, "</div>");
	if (*cg_json_str(h, "snippet") != '\0') {
		(void)cg_buf_puts(out, "<p class=\"snippet\">");
		snippet(out, cg_json_str(h, "snippet"));
		(void)cg_buf_puts(out, "</p>");
	}
	(void)cg_buf_puts(out, "<p class=\"uri\">");
	cg_web_escape(out, cg_json_str(h, "uri"));
	(void)cg_buf_puts(out, "</p></li>\n");
}

static const json_t *
hit_of(const json_t *hits, const char *uri)
{
	size_t i;
	const json_t *h;

	json_array_foreach(hits, i, h) {
		if (strcmp(cg_json_str(h, "uri"), uri) == 0)
			return h;
	}
	return NULL;
}

/* One page of a conflict, as a column: the hit it is (title, source,
 * snippet) when it is one, its date and confidence, the winner marked. */
static void
conflict_page(cg_buf *out, const json_t *p, const json_t *hits,
              const char *winner)
{
	const char *uri = cg_json_str(p, "uri");
	const json_t *h = hit_of(hits, uri);
	int wins = strcmp(uri, winner) == 0;
	static const char *const page_meta[] = {
	    "updated_at", "updated", "confidence", "confidence", NULL};

	(void)cg_buf_printf(out, "<div class=\"side%s\">",
	                    wins ? " winner" : "");
	if (wins)
		(void)cg_buf_puts(out, "<p class=\"verdict\">winner</p>");
	(void)cg_buf_puts(out, "<a href=\"");
	page_href(out, uri, 0, 0);
	(void)cg_buf_puts(out, "\">");
	cg_web_escape(out, h ? cg_json_str(h, "title") : uri);
	(void)cg_buf_puts(out, "</a> ");
	if (h != NULL)
		source_tag(out, h);
	(void)cg_buf_puts(out, "<div class=\"meta\">");
	meta(out, p, page_meta);
	(void)cg_buf_puts(out, "</div>");
	if (h != NULL && *cg_json_str(h, "snippet") != '\0') {
		(void)cg_buf_puts(out, "<p class=\"snippet\">");
		snippet(out, cg_json_str(h, "snippet"));
		(void)cg_buf_puts(out, "</p>");
	}
	(void)cg_buf_puts(out, "</div>");
}

static void
render_conflicts(cg_buf *out, const json_t *conflicts, const json_t *hits)
{
	size_t i;
	size_t k;
	const json_t *c;
	const json_t *p;

	if (json_array_size(conflicts) == 0)
		return;
	(void)cg_buf_puts(out, "<section class=\"conflicts\" id=\"conflicts\">"
	                       "<h2>Conflicts</h2>\n");
	json_array_foreach(conflicts, i, c) {
		(void)cg_buf_puts(out, "<div class=\"conflict\"><h3>");
		cg_web_escape(out, cg_json_str(c, "title"));
		(void)cg_buf_puts(out, "</h3><div class=\"sides\">");
		json_array_foreach(json_object_get(c, "pages"), k, p)
			conflict_page(out, p, hits, cg_json_str(c, "winner"));
		(void)cg_buf_puts(out, "</div><p class=\"rule\">rule: ");
		cg_web_escape(out, cg_json_str(c, "resolution"));
		(void)cg_buf_puts(out, "</p></div>\n");
	}
	(void)cg_buf_puts(out, "</section>\n");
}

static void
render_followups(cg_buf *out, const json_t *followups)
{
	size_t i;
	const json_t *f;

	if (json_array_size(followups) == 0)
		return;
	(void)cg_buf_puts(out, "<ul class=\"followups\">");
	json_array_foreach(followups, i, f) {
		(void)cg_buf_puts(out, "<li>");
		cg_web_escape(out, cg_json_str(f, "message"));
		(void)cg_buf_puts(out, "</li>");
	}
	(void)cg_buf_puts(out, "</ul>\n");
}

void
cg_web_render_results(cg_buf *out, const json_t *ans)
{
	const json_t *hits = json_object_get(ans, "hits");
	const json_t *ev = json_object_get(ans, "evidence");
	size_t n = json_array_size(hits);
	size_t i;
	const json_t *h;

	(void)cg_buf_printf(out, "<p class=\"summary\" id=\"summary\">%zu %s",
	                    n, n == 1 ? "hit" : "hits");
	if (json_is_true(json_object_get(ev, "degraded")))
		(void)cg_buf_puts(out, " (a node did not answer: partial)");
	(void)cg_buf_puts(out, "</p>\n");
	render_conflicts(out, json_object_get(ans, "conflicts"), hits);
	if (n > 0) {
		(void)cg_buf_puts(out, "<ol class=\"hits\" id=\"hits\">\n");
		json_array_foreach(hits, i, h)
			render_hit(out, h);
		(void)cg_buf_puts(out, "</ol>\n");
	}
	if (*cg_json_str(ans, "note") != '\0') {
		(void)cg_buf_puts(out, "<p class=\"note\">");
		cg_web_escape(out, cg_json_str(ans, "note"));
		(void)cg_buf_puts(out, "</p>\n");
	}
	render_followups(out, json_object_get(ans, "followups"));
}

/* --- the page view -------------------------------------------------------
 */

/* Lines of text as <li value=N id=LN>, numbered from first; the ones in
 * a..b get class "hit".  Returns the number after the last line. */
static long
render_lines(cg_buf *out, const char *text, long first, const char *cls, long a,
             long b)
{
	long n = first;
	const char *s = text;

	while (*s != '\0') {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		int hit = a > 0 && n >= a && n <= b;

		(void)cg_buf_printf(out, "<li value=\"%ld\" id=\"L%ld\"", n, n);
		if (hit || cls != NULL)
			(void)cg_buf_printf(
			    out, " class=\"%s%s%s\"", cls ? cls : "",
			    hit && cls ? " " : "", hit ? "hit" : "");
		(void)cg_buf_puts(out, ">");
		escape_n(out, s, len);
		(void)cg_buf_puts(out, "</li>\n");
		n++;
		s += len;
		if (*s == '\n')
			s++;
	}
	return n;
}

/* A link of the page view: to the page it names (at line a when a > 0),
 * its title (else its target), its source and the line it is on. */
static void
link_item(cg_buf *out, const json_t *l, long a, long line)
{
	const char *title = cg_json_str(l, "title");

	(void)cg_buf_puts(out, "<li><a href=\"");
	page_href(out, cg_json_str(l, "uri"), a, a);
	(void)cg_buf_puts(out, "\">");
	cg_web_escape(out, *title ? title : cg_json_str(l, "target"));
	(void)cg_buf_puts(out, "</a> ");
	source_tag(out, l);
	(void)cg_buf_printf(out, " <span class=\"line\">line %ld</span></li>\n",
	                    line);
}

static void
render_links(cg_buf *out, const json_t *links)
{
	size_t i;
	const json_t *l;
	const json_t *back = json_object_get(links, "backlinks");

	(void)cg_buf_puts(out, "<aside class=\"links\"><h2>Links</h2>"
	                       "<ul id=\"outgoing\">\n");
	json_array_foreach(json_object_get(links, "outgoing"), i, l) {
		long line =
		    (long)json_integer_value(json_object_get(l, "line"));

		if (json_is_true(json_object_get(l, "resolved"))) {
			link_item(out, l, 0, line);
			continue;
		}
		(void)cg_buf_puts(out, "<li class=\"unresolved\">");
		cg_web_escape(out, cg_json_str(l, "target"));
		(void)cg_buf_printf(out,
		                    " <span class=\"line\">line %ld, "
		                    "unresolved</span></li>\n",
		                    line);
	}
	(void)cg_buf_puts(out,
	                  "</ul><h2>Backlinks</h2><ul id=\"backlinks\">\n");
	json_array_foreach(back, i, l) {
		long line =
		    (long)json_integer_value(json_object_get(l, "line"));

		link_item(out, l, line, line);
	}
	if (json_array_size(back) == 0)
		(void)cg_buf_puts(out, "<li class=\"none\">none</li>");
	(void)cg_buf_puts(out, "</ul></aside>\n");
}

static const char *const page_meta[] = {
    "category",   "",           "owner",      "owner",
    "confidence", "confidence", "updated_at", "updated",
    "expires_at", "expires",    NULL};

void
cg_web_render_page(cg_buf *out, const json_t *read, const json_t *links, long a,
                   long b)
{
	long body_line =
	    (long)json_integer_value(json_object_get(read, "body_line"));
	long n;
	size_t i;
	const json_t *t;

	(void)cg_buf_puts(out, "<div class=\"view\"><article class=\"page\" "
	                       "id=\"page\"><h1>");
	cg_web_escape(out, cg_json_str(read, "title"));
	(void)cg_buf_puts(out, "</h1><div class=\"meta\">");
	source_tag(out, read);
	meta(out, read, page_meta);
	json_array_foreach(json_object_get(read, "tags"), i, t) {
		(void)cg_buf_puts(out, " <span class=\"tag\">#");
		cg_web_escape(out, json_string_value(t));
		(void)cg_buf_puts(out, "</span>");
	}
	(void)cg_buf_puts(out, "</div><p class=\"uri\">");
	cg_web_escape(out, cg_json_str(read, "uri"));
	(void)cg_buf_puts(out, "</p><ol class=\"text\" id=\"text\">\n");
	n = render_lines(out, cg_json_str(read, "frontmatter_raw"), 1, "fm", a,
	                 b);
	if (body_line > 0)
		n = body_line;
	(void)render_lines(out, cg_json_str(read, "body"), n, NULL, a, b);
	(void)cg_buf_puts(out, "</ol></article>\n");
	if (links != NULL)
		render_links(out, links);
	(void)cg_buf_puts(out, "</div>\n");
}
