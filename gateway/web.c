/*
 * web.c - the search page's routes (web.h): reads a page request's query
 * or form, runs the tools through cg_api_call_as (the JSON API's access-
 * filtered path), puts the HTML of web_html.c into the embedded layout
 * (gateway/web/layout.html) and queues the response with headers that
 * keep the page self-contained: a Content-Security-Policy allowing only
 * this origin's stylesheet and script (no inline script, nothing
 * elsewhere), nosniff, no referrer to another origin (uris travel in query
 * strings; "no-referrer" would make a form post say Origin: null), no framing.
 * What it needs of the connection is read first (cg_web_read), so that the
 * answer can be built on a tool worker (cg_web_build) and queued by http.c.
 *
 * Tokens: with tokens configured, the page's credential is the
 * CG_WEB_COOKIE cookie (else a Bearer header); http.c matches it against the
 * tokens exactly as it matches a Bearer header and hands over the policy.  POST
 * /token sets it from a small form (HttpOnly, so no script reads it;
 * SameSite=Strict, so no other site's link or form sends it; without Secure,
 * since the gateway speaks plain HTTP, so put a TLS proxy in front of a public
 * one). The cookie is not tied to a port: gateways on one host name share it.
 * A call that is not authed gets that form (401) or an asset, and no tool
 * runs for it.
 *
 * It must not decide what a caller may see (the tools and the access
 * filter do), write page text without web_html.c's escaping, or load
 * anything from another origin.
 */
#include "gateway/web.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_err.h"
#include "common/cg_json.h"
#include "common/cg_utf8.h"
#include "gateway/api.h"
#include "page/page.h"

#define CSP                                                         \
	"default-src 'none'; script-src 'self'; style-src 'self'; " \
	"connect-src 'self'; img-src 'self'; form-action 'self'; "  \
	"base-uri 'none'; frame-ancestors 'none'"
#define MAX_TOKEN 512

/* An answer being built: its status, its HTML parts and headers. */
struct reply {
	int status;
	cg_buf title; /* plain text, escaped when filled in */
	cg_buf nav;   /* HTML */
	cg_buf main;  /* HTML */
	char cookie[MAX_TOKEN + 96];
	const char *location;
};

bool
cg_web_owns(const char *url)
{
	return strcmp(url, "/") == 0 || strcmp(url, "/page") == 0 ||
	       strcmp(url, "/token") == 0 || strncmp(url, "/static/", 8) == 0;
}

bool
cg_web_takes_post(const char *url, const char *method)
{
	return strcmp(url, "/token") == 0 && strcmp(method, "POST") == 0;
}

/* --- the query ----------------------------------------------------------- */

/* Every GET argument with a non-empty value: name -> [values]. */
static enum MHD_Result
collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *val)
{
	json_t *q = cls;
	json_t *v = json_object_get(q, key);

	(void)kind;
	if (val == NULL || val[0] == '\0')
		return MHD_YES;
	if (v == NULL) {
		v = json_array();
		if (json_object_set_new(q, key, v) != 0)
			return MHD_NO;
	}
	(void)json_array_append_new(v, json_string(val));
	return MHD_YES;
}

/* The first value of a query argument, or "" (q may be NULL). */
static const char *
arg(const json_t *q, const char *key)
{
	const char *v =
	    json_string_value(json_array_get(json_object_get(q, key), 0));

	return v ? v : "";
}

/* The search tool's arguments from the page's query: source and workspace
 * as lists, limit as an integer when it is one (else the tool says what
 * is wrong), everything else as its first value, unknown names included
 * (the tool names the valid ones). */
static json_t *
search_args(const json_t *q)
{
	json_t *args = json_object();
	const char *key;
	json_t *v;
	char *end = NULL;
	long long n;

	json_object_foreach((json_t *)q, key, v) {
		const char *s = json_string_value(json_array_get(v, 0));

		if (s == NULL)
			continue; /* collect() ran out of memory */
		if (strcmp(key, "source") == 0 ||
		    strcmp(key, "workspace") == 0) {
			(void)json_object_set(args, key, v);
			continue;
		}
		errno = 0;
		n = strtoll(s, &end, 10);
		if (strcmp(key, "limit") == 0 && *end == '\0' && errno == 0)
			(void)json_object_set_new(args, key, json_integer(n));
		else
			(void)json_object_set_new(args, key, json_string(s));
	}
	return args;
}

/* --- the form ------------------------------------------------------------- */

static void
error_box(cg_buf *out, const cg_err *err)
{
	(void)cg_buf_puts(out, "<p class=\"error\" id=\"error\"><strong>");
	cg_web_escape(out, cg_code_name(err->code));
	(void)cg_buf_puts(out, "</strong>: ");
	cg_web_escape(out, err->msg);
	(void)cg_buf_puts(out, "</p>\n");
}

static void
option(cg_buf *out, const char *value, const char *label, const char *cur)
{
	(void)cg_buf_puts(out, "<option value=\"");
	cg_web_escape(out, value);
	(void)cg_buf_printf(out, "\"%s>",
	                    strcmp(value, cur) == 0 ? " selected" : "");
	cg_web_escape(out, label);
	(void)cg_buf_puts(out, "</option>");
}

static void
select_box(cg_buf *out, const char *name, const char *any,
           const char *const *values, const json_t *q)
{
	(void)cg_buf_printf(out, "<select name=\"%s\" aria-label=\"%s\">", name,
	                    name);
	option(out, "", any, arg(q, name));
	for (size_t i = 0; values[i] != NULL; i++)
		option(out, values[i], values[i], arg(q, name));
	(void)cg_buf_puts(out, "</select>\n");
}

static void
text_box(cg_buf *out, const char *name, const char *type, const json_t *q)
{
	(void)cg_buf_printf(out,
	                    "<input type=\"%s\" name=\"%s\" placeholder=\"%s\" "
	                    "aria-label=\"%s\" value=\"",
	                    type, name, name, name);
	cg_web_escape(out, arg(q, name));
	(void)cg_buf_puts(out, "\">\n");
}

/* The sources the caller may search, from the status tool (the same
 * access-filtered path), for the source filter.  Each is named
 * workspace/source, the name the scope takes (gateway/scope.c): two
 * workspaces that both have a source "docs" give two distinct options. */
static void
source_select(cg_buf *out, const cg_web_call *w, const json_t *q)
{
	json_t *st = NULL;
	json_t *names = json_array();
	const char *list[128];
	size_t n = 0;
	size_t i;
	size_t k;
	const json_t *node;
	const json_t *src;
	cg_err err;

	cg_err_clear(&err);
	if (names != NULL &&
	    cg_api_call_as(w->fed, w->acl, "status", NULL, &st, &err) == 0)
		json_array_foreach(json_object_get(st, "nodes"), i, node) {
			json_array_foreach(json_object_get(node, "sources"), k,
			                   src) {
				(void)json_array_append_new(
				    names,
				    json_sprintf("%s/%s",
				                 cg_json_str(node, "workspace"),
				                 cg_json_str(src, "source")));
			}
		}
	json_array_foreach(names, i, src) {
		if (n < 127 && json_is_string(src))
			list[n++] = json_string_value(src);
	}
	list[n] = NULL;
	select_box(out, "source", "every source", list, q);
	json_decref(names);
	json_decref(st);
}

static const char *const confidences[] = {"high", "medium", "low", NULL};

/* The category filter: page/fields.c's categories. */
static void
category_select(cg_buf *out, const json_t *q)
{
	const char *list[16];
	size_t n = 0;

	while (n < 15 && (list[n] = cg_category_at(n)) != NULL)
		n++;
	list[n] = NULL;
	select_box(out, "category", "any category", list, q);
}

static void
search_form(cg_buf *out, const cg_web_call *w, const json_t *q)
{
	(void)cg_buf_puts(out,
	                  "<form id=\"search\" method=\"get\" action=\"/\" "
	                  "role=\"search\">\n<input type=\"search\" name=\"q\" "
	                  "id=\"q\" placeholder=\"Search the wikis\" "
	                  "aria-label=\"query\" autofocus value=\"");
	cg_web_escape(out, arg(q, "q"));
	(void)cg_buf_puts(out, "\">\n<button type=\"submit\">Search</button>\n"
	                       "<div class=\"filters\">\n");
	source_select(out, w, q);
	category_select(out, q);
	select_box(out, "confidence", "any confidence", confidences, q);
	text_box(out, "owner", "text", q);
	text_box(out, "tag", "text", q);
	text_box(out, "updated_since", "date", q);
	(void)cg_buf_puts(out, "</div></form>\n");
}

/* --- the routes ---------------------------------------------------------- */

static void
route_search(const cg_web_call *w, const json_t *q, struct reply *r)
{
	json_t *args = search_args(q);
	json_t *ans = NULL;
	cg_err err;

	cg_err_clear(&err);
	search_form(&r->main, w, q);
	(void)cg_buf_puts(&r->main,
	                  "<section id=\"results\" aria-live=\"polite\">\n");
	(void)cg_buf_puts(&r->title, *arg(q, "q") ? arg(q, "q") : "search");
	if (json_object_size(args) == 0) {
		(void)cg_buf_puts(&r->main, "</section>\n");
		json_decref(args);
		return;
	}
	if (cg_api_call_as(w->fed, w->acl, "search", args, &ans, &err) == 0) {
		cg_web_render_results(&r->main, ans);
	} else {
		r->status = cg_code_http(err.code);
		error_box(&r->main, &err);
	}
	(void)cg_buf_puts(&r->main, "</section>\n");
	json_decref(ans);
	json_decref(args);
}

/* lines "A:B" (1 <= A <= B) into *a, *b; 0 0 when absent or malformed
 * (the lines only mark the hit, they select nothing). */
static void
parse_lines(const char *s, long *a, long *b)
{
	char *end = NULL;

	*a = *b = 0;
	errno = 0;
	*a = strtol(s, &end, 10);
	if (end == s || *end != ':' || errno != 0 || *a < 1) {
		*a = 0;
		return;
	}
	s = end + 1;
	*b = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || *b < *a)
		*a = *b = 0;
}

static void
route_page(const cg_web_call *w, const json_t *q, struct reply *r)
{
	json_t *args = json_pack("{s:s}", "uri", arg(q, "uri"));
	json_t *page = NULL;
	json_t *links = NULL;
	cg_err err;
	long a;
	long b;

	cg_err_clear(&err);
	search_form(&r->main, w, NULL); /* an empty form */
	parse_lines(arg(q, "lines"), &a, &b);
	if (*arg(q, "uri") == '\0') {
		cg_err_set(&err, CG_EINVAL,
		           "'uri' is required: /page?uri=cg://...");
	} else if (cg_api_call_as(w->fed, w->acl, "read", args, &page, &err) ==
	           0) {
		cg_err_clear(&err);
		if (cg_api_call_as(w->fed, w->acl, "links", args, &links,
		                   &err) != 0)
			error_box(&r->main, &err);
		cg_err_clear(&err);
		(void)cg_buf_puts(&r->title, cg_json_str(page, "title"));
		cg_web_render_page(&r->main, page, links, a, b);
	}
	if (err.code != 0) {
		r->status = cg_code_http(err.code);
		(void)cg_buf_puts(&r->title, "not found");
		error_box(&r->main, &err);
	}
	json_decref(links);
	json_decref(page);
	json_decref(args);
}

/* The token form; note: why it is shown again, or NULL. */
static void
token_form(struct reply *r, const char *note)
{
	(void)cg_buf_puts(&r->title, "token");
	(void)cg_buf_puts(&r->main, "<form id=\"token\" class=\"token\" "
	                            "method=\"post\" action=\"/token\">\n"
	                            "<p>This gateway needs a token.</p>\n");
	if (note != NULL) {
		(void)cg_buf_puts(&r->main, "<p class=\"error\" id=\"error\">");
		cg_web_escape(&r->main, note);
		(void)cg_buf_puts(&r->main, "</p>\n");
	}
	(void)cg_buf_puts(
	    &r->main, "<input type=\"password\" name=\"token\" "
	              "aria-label=\"token\" autocomplete=\"current-password\">"
	              "\n<button type=\"submit\">Use token</button>\n"
	              "</form>\n");
}

/* token=VALUE from an application/x-www-form-urlencoded body, decoded
 * (malloc'd), or NULL when absent or not decodable. */
static char *
form_token(const char *body, size_t len)
{
	const char *p = body;
	const char *end = body + len;

	while (p < end) {
		const char *amp = memchr(p, '&', (size_t)(end - p));
		const char *stop = amp ? amp : end;

		if ((size_t)(stop - p) >= 6 && memcmp(p, "token=", 6) == 0) {
			char *v =
			    cg_pct_decode(p + 6, (size_t)(stop - p - 6), true);

			for (char *s = v; s != NULL && *s != '\0'; s++)
				if (*s == '+')
					*s = ' ';
			return v;
		}
		p = stop + 1;
	}
	return NULL;
}

/* A cookie value may hold these bytes only (RFC 6265 cookie-octet). */
static bool
cookie_octets(const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x21 || c > 0x7e || c == '"' || c == ',' || c == ';' ||
		    c == '\\')
			return false;
	}
	return true;
}

static void
route_token(const cg_web_call *w, struct reply *r)
{
	char *t = form_token(w->body, w->len);

	if (!w->tokens) {
		r->status = 400;
		(void)cg_buf_puts(&r->title, "no tokens");
		(void)cg_buf_puts(&r->main, "<p class=\"error\" id=\"error\">"
		                            "This gateway has no tokens: the "
		                            "page needs none.</p>\n");
	} else if (strcmp(w->method, "POST") != 0) {
		token_form(r, NULL);
	} else if (t == NULL || strlen(t) > MAX_TOKEN || !cookie_octets(t)) {
		r->status = 400;
		token_form(r, "A token is printable ASCII without spaces, "
		              "quotes, commas, semicolons or backslashes, at "
		              "most 512 bytes.");
	} else {
		/* Empty: forget it (Max-Age=0). */
		(void)snprintf(r->cookie, sizeof(r->cookie),
		               "%s=%s; Path=/; HttpOnly; SameSite=Strict%s",
		               CG_WEB_COOKIE, t, *t ? "" : "; Max-Age=0");
		r->status = 303;
		r->location = "/";
	}
	free(t);
}

/* --- the response --------------------------------------------------------- */

/* The layout with its slots (<!--title-->, <!--nav-->, <!--main-->) filled,
 * in that order. */
static void
fill_layout(cg_buf *out, const struct reply *r)
{
	const char *s = cg_web_asset_text("layout.html");
	static const char *const slots[] = {"<!--title-->", "<!--nav-->",
	                                    "<!--main-->"};

	for (size_t i = 0; s != NULL && i < 3; i++) {
		const char *at = strstr(s, slots[i]);

		if (at == NULL)
			continue;
		(void)cg_buf_append(out, s, (size_t)(at - s));
		if (i == 0)
			cg_web_escape(out, cg_buf_str(&r->title));
		else
			(void)cg_buf_puts(
			    out, cg_buf_str(i == 1 ? &r->nav : &r->main));
		s = at + strlen(slots[i]);
	}
	(void)cg_buf_puts(out, s ? s : "");
}

/* The response of r (NULL when out of memory); any thread may build one,
 * only the connection's handler queues it. */
static struct MHD_Response *
make_reply(const struct reply *r, const char *type, const char *text,
           size_t len)
{
	struct MHD_Response *m = MHD_create_response_from_buffer(
	    len, (void *)text, MHD_RESPMEM_MUST_COPY);

	if (m == NULL)
		return NULL;
	(void)MHD_add_response_header(m, "Content-Type", type);
	(void)MHD_add_response_header(m, "Cache-Control", "no-store");
	(void)MHD_add_response_header(m, "Content-Security-Policy", CSP);
	(void)MHD_add_response_header(m, "X-Content-Type-Options", "nosniff");
	(void)MHD_add_response_header(m, "Referrer-Policy", "same-origin");
	(void)MHD_add_response_header(m, "X-Frame-Options", "DENY");
	if (r->cookie[0] != '\0')
		(void)MHD_add_response_header(m, "Set-Cookie", r->cookie);
	if (r->location != NULL)
		(void)MHD_add_response_header(m, "Location", r->location);
	return m;
}

/* GET /static/<name>: page.css and search.js only. */
static struct MHD_Response *
serve_asset(struct reply *r, const char *name)
{
	const char *text = NULL;
	const char *type = "text/plain; charset=utf-8";
	size_t n = strlen(name);

	if (n > 4 && strcmp(name + n - 4, ".css") == 0)
		type = "text/css; charset=utf-8";
	else if (n > 3 && strcmp(name + n - 3, ".js") == 0)
		type = "text/javascript; charset=utf-8";
	if (strcmp(type, "text/plain; charset=utf-8") != 0)
		text = cg_web_asset_text(name);
	if (text == NULL) {
		r->status = 404;
		text = "no such asset\n";
		type = "text/plain; charset=utf-8";
	}
	return make_reply(r, type, text, strlen(text));
}

static void
forget_form(cg_buf *nav)
{
	(void)cg_buf_puts(nav, "<form method=\"post\" action=\"/token\" "
	                       "class=\"forget\"><input type=\"hidden\" "
	                       "name=\"token\" value=\"\"><button "
	                       "type=\"submit\">Forget token</button></form>");
}

/* The route's HTML into r (the caller sends it). */
static void
route(const cg_web_call *w, const json_t *q, struct reply *r)
{
	if (strcmp(w->url, "/token") == 0)
		route_token(w, r);
	else if (!w->authed) {
		r->status = 401;
		token_form(r,
		           w->cookie ? "That token was not accepted." : NULL);
	} else if (strcmp(w->url, "/page") == 0)
		route_page(w, q, r);
	else
		route_search(w, q, r);
	if (w->tokens && w->authed)
		forget_form(&r->nav);
}

bool
cg_web_runs_tools(const cg_web_call *w)
{
	return w->authed && strcmp(w->url, "/token") != 0 &&
	       strncmp(w->url, "/static/", 8) != 0;
}

int
cg_web_read(struct MHD_Connection *c, cg_web_call *w)
{
	json_t *q = json_object();

	w->query = NULL;
	w->cookie = MHD_lookup_connection_value(c, MHD_COOKIE_KIND,
	                                        CG_WEB_COOKIE) != NULL;
	if (q == NULL)
		return -1;
	(void)MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect, q);
	w->query = q;
	return 0;
}

struct MHD_Response *
cg_web_build(const cg_web_call *w, int *status)
{
	struct reply r;
	cg_buf html;
	struct MHD_Response *m;

	memset(&r, 0, sizeof(r));
	r.status = 200;
	cg_buf_init(&r.title, 4096);
	cg_buf_init(&r.nav, 4096);
	cg_buf_init(&r.main, CG_WEB_MAX_HTML);
	cg_buf_init(&html, CG_WEB_MAX_HTML + 16384);
	if (strncmp(w->url, "/static/", 8) == 0) {
		m = serve_asset(&r, w->url + 8);
	} else {
		route(w, w->query, &r);
		fill_layout(&html, &r);
		m = make_reply(&r, "text/html; charset=utf-8",
		               cg_buf_str(&html), html.len);
	}
	*status = r.status;
	cg_buf_fini(&html);
	cg_buf_fini(&r.main);
	cg_buf_fini(&r.nav);
	cg_buf_fini(&r.title);
	return m;
}

enum MHD_Result
cg_web_serve(struct MHD_Connection *c, cg_web_call *w, int *status)
{
	struct MHD_Response *m = NULL;
	enum MHD_Result ok = MHD_NO;

	*status = 500;
	if (w->query != NULL || cg_web_read(c, w) == 0)
		m = cg_web_build(w, status);
	if (m != NULL) {
		ok = MHD_queue_response(c, (unsigned)*status, m);
		MHD_destroy_response(m);
	}
	return ok;
}
