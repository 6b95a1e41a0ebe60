/*
 * web.h - the search page for people at GET /: a query box and filters,
 * hits tagged by source with snippets and line ranges, conflicts side by
 * side with the winner and the rule, and a page view with its links and
 * backlinks.  Every answer comes from the tool table through
 * cg_api_call_as, the code path of the JSON API, so a page the caller's
 * token may not see never reaches the browser.  The HTML is rendered on
 * the server (the basic search works without JavaScript); the stylesheet,
 * the script and the layout are the files under gateway/web/, embedded at
 * build time (cmake/embed-json.cmake), so the page loads nothing from
 * elsewhere.
 *
 * Routes (cg_web_owns):
 *   GET  /                   the form; with q or a filter, the results
 *   GET  /page?uri=U[&lines=A:B]   a page, its links and backlinks
 *   GET  /static/<name>      page.css, search.js
 *   GET  /token              the token form
 *   POST /token              token=SECRET sets the CG_WEB_COOKIE cookie
 *                            (empty: forgets it), then 303 to /
 * A browser presents its token as that cookie (HttpOnly, SameSite=Strict,
 * Path=/), set by the small form the page shows when the gateway has
 * tokens (a program may send "Authorization: Bearer" instead); the JSON
 * API keeps taking only the header.
 *
 * May be included by gateway/ (http.c routes to it) and the tests.
 */
#ifndef CG_WEB_H
#define CG_WEB_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>
#include <microhttpd.h>

#include "common/cg_buf.h"
#include "federation/fed.h"
#include "proto/acl.h"

/* The cookie that carries a browser's token (a cookie-octet string). */
#define CG_WEB_COOKIE "cg_token"

/* The most HTML rendered into one answer; past it the rest is cut (the
 * text is escaped, so a cut never opens markup; the nodes cap a page's
 * size well below this). */
#define CG_WEB_MAX_HTML (32u << 20)

/* One page request, screened by http.c. */
typedef struct cg_web_call {
	cg_fed *fed;        /* the roster's federation */
	const cg_acl *acl;  /* the caller's policy (NULL: everything) */
	bool authed;        /* no tokens configured, or the cookie matched */
	bool tokens;        /* the gateway has tokens (offer the token form) */
	const char *method; /* "GET", "HEAD" or "POST" */
	const char *url;    /* the path, without the query */
	const char *body;   /* the request body ("" for a GET) */
	size_t len;
	json_t *query; /* the GET arguments, name -> [values]: NULL
	                  until cg_web_read (the caller frees it) */
	bool cookie;   /* it came with a CG_WEB_COOKIE cookie */
} cg_web_call;

/* True for the page's routes (above). */
bool cg_web_owns(const char *url);

/* True when method on url is a POST the page takes (POST /token). */
bool cg_web_takes_post(const char *url, const char *method);

/* Answers one page request; *status gets the HTTP status it queued.  An
 * unauthenticated call (authed false) gets the token form or an asset,
 * never an answer of a tool.  Reads w's query and cookie from c first
 * unless cg_web_read already has (w->query not NULL). */
enum MHD_Result cg_web_serve(struct MHD_Connection *c, cg_web_call *w,
                             int *status);

/* The same in two steps, so that the tools can run off the HTTP thread:
 * cg_web_read (on the connection's thread) fills w->query and w->cookie
 * from c (0, or -1 when out of memory); cg_web_build (any thread; reads
 * nothing of a connection) returns the response to queue, or NULL when
 * out of memory, with its status in *status.  cg_web_runs_tools says
 * whether building w's answer asks the nodes (an authenticated page; not
 * an asset or the token form). */
int cg_web_read(struct MHD_Connection *c, cg_web_call *w);
struct MHD_Response *cg_web_build(const cg_web_call *w, int *status);
bool cg_web_runs_tools(const cg_web_call *w);

/* The text of gateway/web/<name> ("page.css"), embedded at build time
 * (static storage), or NULL. */
const char *cg_web_asset_text(const char *name);

/* --- rendering (web_html.c), pure functions of the tools' answers ------ */

/* Appends s with & < > " ' escaped: safe as element text and inside a
 * quoted attribute value.  NULL appends nothing. */
void cg_web_escape(cg_buf *out, const char *s);

/* Appends s as a URL query value: every byte but A-Z a-z 0-9 - . _ ~
 * percent-encoded (so also safe inside an attribute). */
void cg_web_query_value(cg_buf *out, const char *s);

/* Appends the results of a search answer (the tool's JSON): a summary,
 * the conflicts side by side, the hits, the note and the followups. */
void cg_web_render_results(cg_buf *out, const json_t *ans);

/* Appends the page view of a read answer and a links answer (links may be
 * NULL); lines a..b (1-based, 0 0 for none) are marked as the hit. */
void cg_web_render_page(cg_buf *out, const json_t *read, const json_t *links,
                        long a, long b);

#endif
