/*
 * fed_page.c - read, peek and resolve across the nodes of a workspace:
 * each tool sends its node operation to the nodes holding the sources
 * involved, merges their results, has the links that cross nodes settled
 * (fed_links.c), tags every page with its uri and writes the receipt
 * (evidence, followups).
 *
 * What it must not do: open an index or read a page file (everything comes
 * from node replies), or report a page without its source and path.
 */
#define _GNU_SOURCE
#include "federation/fed_page.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_json.h"
#include "federation/fed_links.h"
#include "federation/page_tools_int.h"
#include "federation/uri.h"
#include "proto/limits.h"

#define PEEK_MAX CG_PEEK_MAX_ITEMS

/* --- read --------------------------------------------------------------- */

int
cg_lines_parse(const char *s, long long *a, long long *b, cg_err *err)
{
	const char *colon = strchr(s, ':');
	char *end = NULL;

	*a = 1;
	*b = 0;
	if (s != colon) {
		if (*s < '0' || *s > '9')
			goto bad;
		*a = strtoll(s, &end, 10);
		if (end == s || end != (colon ? colon : s + strlen(s)))
			goto bad;
	}
	if (colon == NULL)
		*b = *a;
	else if (colon[1] != '\0') {
		if (colon[1] < '0' || colon[1] > '9')
			goto bad;
		*b = strtoll(colon + 1, &end, 10);
		if (end == colon + 1 || *end != '\0' || *b < 1)
			goto bad;
	}
	if (*a < 1 || (*b != 0 && *b < *a))
		goto bad;
	return 0;
bad:
	return cg_err_set(err, CG_EINVAL,
	                  "invalid line range '%.100s' (valid: A:B, A:, :B or "
	                  "A, with 1 <= A <= B)",
	                  s);
}

static void
read_followups(const json_t *ans, json_t *fu)
{
	const char *uri = cg_json_str(ans, "uri");
	char msg[700];

	if (strcmp(cg_json_str(ans, "frontmatter_status"), "lenient") == 0 ||
	    strcmp(cg_json_str(ans, "frontmatter_status"), "broken") == 0) {
		(void)snprintf(msg, sizeof(msg),
		               "frontmatter is not valid YAML (%s): %.500s",
		               cg_json_str(ans, "frontmatter_status"),
		               cg_json_str(ans, "frontmatter_error"));
		cg_fed_followup(fu, "frontmatter", uri, msg);
	}
	if (json_integer_value(json_object_get(ans, "utf8_fixed")) > 0) {
		(void)snprintf(msg, sizeof(msg),
		               "%lld invalid UTF-8 sequence(s) or NUL byte(s) "
		               "replaced in the text returned",
		               (long long)json_integer_value(
		                   json_object_get(ans, "utf8_fixed")));
		cg_fed_followup(fu, "invalid_utf8", uri, msg);
	}
}

/*
 * Sends op {source, path} (plus extra members) to the node of uri and
 * returns its entry (borrowed from *call) in *ent; a page the node
 * refused or did not find is its code.
 */
int
cg_fed_read(cg_fed *fed, const char *uri, const char *lines, json_t **out,
            cg_err *err)
{
	long long a = 0;
	long long b = 0;
	json_t *extra = json_object();
	json_t *call = NULL;
	const json_t *ent = NULL;
	struct cg_pt_ev ev;
	int rc;

	*out = NULL;
	rc = lines ? cg_lines_parse(lines, &a, &b, err) : 0;
	if (lines != NULL && rc == 0)
		json_object_set_new(
		    extra, "lines",
		    json_pack("[I, I]", (json_int_t)a, (json_int_t)b));
	if (rc == 0)
		rc = cg_pt_page_call(fed, "read", uri, extra, &call, &ent, err);
	if (rc == 0) {
		cg_pt_ev_init(&ev);
		cg_pt_ev_add(&ev, call);
		*out = json_deep_copy(json_object_get(ent, "result"));
		cg_pt_tag(cg_fed_entry_ws(fed, ent), *out);
		json_object_set_new(*out, "evidence", cg_pt_ev_json(&ev));
		json_object_set_new(*out, "followups", json_array());
		read_followups(*out, json_object_get(*out, "followups"));
		cg_pt_ev_fini(&ev);
	}
	json_decref(call);
	json_decref(extra);
	return rc;
}

/* --- peek ----------------------------------------------------------------- */

/* items [{source, path, workspace}] and the scope names of the uris. */
static int
peek_items(const cg_fed *f, const char *const *uris, size_t n, json_t *items,
           json_t *scopes, cg_err *err)
{
	for (size_t i = 0; i < n; i++) {
		cg_uri u;
		char *scope = NULL;
		int rc = cg_pt_page_uri(uris[i], &u, &scope, err);

		if (rc != 0)
			return rc;
		json_array_append_new(
		    items,
		    json_pack("{s:s, s:s, s:s}", "source", u.source, "path",
		              u.path, "workspace",
		              u.workspace ? u.workspace : cg_fed_workspace(f)));
		json_object_set_new(scopes, scope, json_true());
		free(scope);
		cg_uri_fini(&u);
	}
	return 0;
}

/* Places each node's pages (tagged) at their index; a page no node
 * returned gets the reason. */
static void
peek_collect(const cg_fed *f, const json_t *call, const json_t *items,
             json_t *pages)
{
	size_t i;
	const json_t *n;
	json_t *p;

	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		size_t k;

		json_array_foreach(
		    json_object_get(json_object_get(n, "result"), "pages"), k,
		    p) {
			size_t at = (size_t)json_integer_value(
			    json_object_get(p, "index"));
			const json_t *it = json_array_get(items, at);

			if (at >= json_array_size(pages) ||
			    strcmp(cg_json_str(it, "workspace"),
			           cg_fed_entry_ws(f, n)) != 0)
				continue;
			json_object_del(p, "index");
			cg_pt_tag(cg_fed_entry_ws(f, n), p);
			json_array_set(pages, at, p);
		}
	}
	json_array_foreach(pages, i, p) {
		char msg[300];

		if (!json_is_null(p))
			continue;
		(void)snprintf(msg, sizeof(msg), "source %.100s did not answer",
		               cg_json_str(json_array_get(items, i), "source"));
		p = json_deep_copy(json_array_get(items, i));
		cg_pt_tag(cg_json_str(p, "workspace"), p);
		json_object_set_new(p, "error",
		                    json_pack("{s:s, s:s}", "code",
		                              cg_code_name(CG_EUNAVAIL),
		                              "message", msg));
		json_array_set_new(pages, i, p);
	}
}

/* The link lists of the pages and their workspaces; the first item
 * error goes to err, its code to *first. */
static void
peek_lists(json_t *pages, json_t **lists, const char **wss, int *first,
           cg_err *err)
{
	size_t i;
	size_t nl = 0;
	json_t *p;

	json_array_foreach(pages, i, p) {
		if (*first == 0)
			*first = cg_pt_item_failed(p, err);
		if (json_object_get(p, "links") == NULL)
			continue;
		wss[nl] = cg_json_str(p, "workspace");
		lists[nl++] = json_object_get(p, "links");
	}
	lists[nl] = NULL;
}

/* Sends peek to the nodes of the scopes. */
static int
peek_call(cg_fed *f, const json_t *items, const json_t *scopes, json_t **call,
          cg_err *err)
{
	const char *sv[PEEK_MAX];
	size_t ns = 0;
	const char *k;
	json_t *v;
	json_t *args = json_pack("{s:O}", "items", (json_t *)items);
	int rc;

	json_object_foreach((json_t *)scopes, k, v) {
		if (ns < PEEK_MAX)
			sv[ns++] = k;
	}
	rc = cg_fed_call(f, "peek", args, sv, ns, call, err);
	json_decref(args);
	return rc;
}

int
cg_fed_peek(cg_fed *fed, const char *const *uris, size_t n, json_t **out,
            cg_err *err)
{
	json_t *items = json_array();
	json_t *scopes = json_object();
	json_t *pages = json_array();
	json_t *call = NULL;
	json_t *settled = NULL;
	json_t *lists[PEEK_MAX + 1];
	const char *wss[PEEK_MAX];
	struct cg_pt_ev ev;
	cg_err ierr;
	int first = 0;
	int rc;

	*out = NULL;
	cg_pt_ev_init(&ev);
	cg_err_clear(&ierr);
	rc = n == 0 || n > PEEK_MAX
	         ? cg_err_set(err, CG_EINVAL,
	                      "peek takes 1 to %d uris (got %zu)", PEEK_MAX, n)
	         : peek_items(fed, uris, n, items, scopes, err);
	if (rc == 0)
		rc = peek_call(fed, items, scopes, &call, err);
	if (rc == 0) {
		cg_pt_ev_add(&ev, call);
		for (size_t i = 0; i < n; i++)
			json_array_append_new(pages, json_null());
		peek_collect(fed, call, items, pages);
		peek_lists(pages, lists, wss, &first, &ierr);
		rc = cg_fed_links_settle(fed, lists, wss, &settled, err);
		cg_pt_ev_add(&ev, settled);
	}
	if (rc == 0) {
		json_t *fu = json_array();
		size_t i;
		json_t *p;

		json_array_foreach(pages, i, p) {
			cg_fed_links_followups(json_object_get(p, "links"),
			                       cg_json_str(p, "uri"), fu);
		}
		*out = json_pack("{s:O, s:o, s:o}", "pages", pages, "evidence",
		                 cg_pt_ev_json(&ev), "followups", fu);
		if (first != 0)
			rc = cg_err_set(err, first, "%s", ierr.msg);
	}
	json_decref(settled);
	json_decref(call);
	json_decref(items);
	json_decref(scopes);
	json_decref(pages);
	cg_pt_ev_fini(&ev);
	return rc;
}

/* --- resolve -------------------------------------------------------------- */

/*
 * The name to look up in text: "[[t#h|x]]", "![[t]]", "t#h" -> "t";
 * *anchor gets the heading part (malloc'd or NULL).  Malloc'd; "" when
 * nothing is left.
 */
static char *
lookup_name(const char *text, char **anchor)
{
	const char *p = text;
	size_t n;
	const char *cut;
	const char *hash;

	*anchor = NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	if (p[0] == '!' && p[1] == '[' && p[2] == '[')
		p++;
	n = strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n >= 4 && strncmp(p, "[[", 2) == 0 &&
	    strncmp(p + n - 2, "]]", 2) == 0) {
		p += 2;
		n -= 4;
	}
	cut = memchr(p, '|', n);
	if (cut != NULL)
		n = (size_t)(cut - p) - (cut > p && cut[-1] == '\\');
	hash = strncmp(p, "cg://", 5) == 0 ? NULL : memchr(p, '#', n);
	if (hash != NULL) {
		*anchor = strndup(hash + 1, n - (size_t)(hash - p) - 1);
		n = (size_t)(hash - p);
	}
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	return strndup(p, n);
}

/* The lookups for name: itself, and its "source/rest" reading; *ws is
 * the workspace a uri names (malloc'd) or NULL for every workspace. */
static int
resolve_items(const char *name, json_t *items, char **ws, cg_err *err)
{
	const char *slash = strchr(name, '/');

	*ws = NULL;
	if (strncmp(name, "cg://", 5) == 0) {
		cg_uri u;
		int rc = cg_uri_parse(&u, name, err);

		if (rc != 0)
			return rc;
		json_array_append_new(items,
		                      json_pack("{s:s, s:s}", "name", u.path,
		                                "source", u.source));
		*ws = u.workspace;
		u.workspace = NULL;
		cg_uri_fini(&u);
		return 0;
	}
	json_array_append_new(items, json_pack("{s:s}", "name", name));
	if (slash != NULL && slash != name && slash[1] != '\0') {
		char *a = strndup(name, (size_t)(slash - name));

		if (a == NULL)
			return cg_err_set(err, CG_ENOMEM, "out of memory");
		json_array_append_new(items, json_pack("{s:s, s:s}", "name",
		                                       slash + 1, "source", a));
		free(a);
	}
	return 0;
}

/* Every match of every node (of workspace ws, or all when NULL),
 * qualified ones ordered first, best first, one per uri. */
static json_t *
resolve_merge(const cg_fed *f, const json_t *call, const json_t *items,
              const char *ws)
{
	json_t *all = json_array();
	json_t *out = json_array();
	json_t *seen = json_object();
	size_t i;
	const json_t *n;
	json_t *m;

	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		size_t k;
		const json_t *r;

		if (ws != NULL && strcmp(ws, cg_fed_entry_ws(f, n)) != 0)
			continue;
		json_array_foreach(
		    json_object_get(json_object_get(n, "result"), "results"), k,
		    r) {
			bool q = json_object_get(json_array_get(items, k),
			                         "source") != NULL;
			size_t j;

			json_array_foreach(json_object_get(r, "matches"), j,
			                   m) {
				json_t *c = json_deep_copy(m);

				json_object_set_new(c, "order",
				                    json_integer(q ? 0 : 1));
				cg_pt_tag(cg_fed_entry_ws(f, n), c);
				json_array_append_new(all, c);
			}
		}
	}
	cg_pt_sort(all, cg_pt_cmp_match_q);
	json_array_foreach(all, i, m) {
		if (json_object_get(seen, cg_json_str(m, "uri")) != NULL)
			continue;
		json_object_set_new(seen, cg_json_str(m, "uri"), json_true());
		json_object_del(m, "order");
		json_object_del(m, "rank");
		json_array_append(out, m);
	}
	json_decref(all);
	json_decref(seen);
	return out;
}

static json_t *
resolve_answer(const char *name, const char *look, const char *anchor,
               json_t *matches, const struct cg_pt_ev *ev)
{
	json_t *ans =
	    json_pack("{s:s, s:s, s:s?, s:o, s:o, s:[]}", "name", name,
	              "lookup", look, "anchor", anchor, "matches", matches,
	              "evidence", cg_pt_ev_json(ev), "followups");

	if (json_array_size(matches) == 0)
		json_object_set_new(
		    ans, "note",
		    json_string("No page has this path, slug, title or "
		                "alias. Names are matched whole (ASCII "
		                "case-insensitive); use query to search the "
		                "words of pages."));
	cg_pt_counts(ans);
	return ans;
}

int
cg_fed_resolve(cg_fed *fed, const char *name, json_t **out, cg_err *err)
{
	char *anchor = NULL;
	char *look = lookup_name(name, &anchor);
	char *ws = NULL;
	json_t *items = json_array();
	json_t *call = NULL;
	struct cg_pt_ev ev;
	int rc;

	*out = NULL;
	cg_pt_ev_init(&ev);
	rc = look == NULL ? cg_err_set(err, CG_ENOMEM, "out of memory")
	     : *look == '\0'
	         ? cg_err_set(err, CG_EINVAL,
	                      "empty name (give a title, slug, alias, path, "
	                      "[[wikilink]] or uri)")
	         : resolve_items(look, items, &ws, err);
	if (rc == 0) {
		json_t *args = json_pack("{s:O}", "names", items);

		rc = cg_fed_call(fed, "resolve", args, NULL, 0, &call, err);
		json_decref(args);
	}
	if (rc == 0) {
		cg_pt_ev_add(&ev, call);
		*out = resolve_answer(name, look, anchor,
		                      resolve_merge(fed, call, items, ws), &ev);
	}
	json_decref(call);
	json_decref(items);
	cg_pt_ev_fini(&ev);
	free(ws);
	free(look);
	free(anchor);
	return rc;
}

/* --- JSON arguments ---------------------------------------------------------
 */

int
cg_fed_read_json(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char *uri = NULL;
	const char *lines = NULL;
	int rc = cg_pt_arg_str(args, "uri", true, &uri, err);

	*out = NULL;
	if (rc == 0)
		rc = cg_pt_arg_str(args, "lines", false, &lines, err);
	return rc ? rc : cg_fed_read(fed, uri, lines, out, err);
}

int
cg_fed_peek_json(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const json_t *u = json_object_get(args, "uris");
	const char *v[PEEK_MAX];
	size_t n = 0;
	int rc;

	*out = NULL;
	if (u == NULL)
		u = json_object_get(args, "uri");
	if (json_is_string(u))
		v[n++] = json_string_value(u);
	for (size_t i = 0; json_is_array(u) && i < json_array_size(u); i++) {
		if (n == PEEK_MAX || !json_is_string(json_array_get(u, i)))
			return cg_err_set(err, CG_EINVAL,
			                  "uris must be 1 to %d strings",
			                  PEEK_MAX);
		v[n++] = json_string_value(json_array_get(u, i));
	}
	rc = cg_fed_peek(fed, v, n, out, err);
	if (*out == NULL)
		return rc;
	cg_err_clear(err); /* a failed page is in the answer */
	return 0;
}

int
cg_fed_resolve_json(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char *name = NULL;
	int rc = cg_pt_arg_str(args, "name", true, &name, err);

	*out = NULL;
	return rc ? rc : cg_fed_resolve(fed, name, out, err);
}
