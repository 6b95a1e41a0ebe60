/*
 * fed_page.c - read, peek, links and resolve across the nodes of a
 * workspace: each tool sends its node operation (node/tools_page.h) to the
 * nodes holding the sources involved, merges their results, resolves the
 * "source/name" links that cross nodes, tags every page with its uri and
 * writes the receipt (evidence, followups).
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

#include "common/cg_buf.h"
#include "federation/uri.h"

#define FOLLOWUPS_MAX 50
#define PEEK_MAX      100

/* --- evidence ------------------------------------------------------------ */

/* What the rounds of one tool asked and heard, for the receipt. */
struct ev {
	json_t *nodes;    /* node name -> {sources: {}, outcome} */
	json_t *asked;    /* source -> true */
	json_t *answered; /* source -> true */
};

static void
ev_init(struct ev *e)
{
	e->nodes = json_object();
	e->asked = json_object();
	e->answered = json_object();
}

static void
ev_fini(struct ev *e)
{
	json_decref(e->nodes);
	json_decref(e->asked);
	json_decref(e->answered);
}

/* Adds the outcome of one cg_fed_call round. */
static void
ev_add(struct ev *e, const json_t *call)
{
	size_t i;
	size_t k;
	const json_t *n;
	const json_t *s;

	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		const char *name =
		    json_string_value(json_object_get(n, "node"));
		const char *out =
		    json_string_value(json_object_get(n, "outcome"));
		bool ok = json_object_get(n, "result") != NULL;
		json_t *mine = json_object_get(e->nodes, name ? name : "?");

		if (mine == NULL) {
			mine = json_pack("{s:{}, s:s}", "sources", "outcome",
			                 "ok");
			json_object_set_new(e->nodes, name ? name : "?", mine);
		}
		if (!ok)
			json_object_set_new(
			    mine, "outcome",
			    json_string(out ? out : "no reply"));
		json_array_foreach(json_object_get(n, "sources"), k, s) {
			const char *src = json_string_value(s);

			if (src == NULL)
				continue;
			json_object_set_new(json_object_get(mine, "sources"),
			                    src, json_true());
			json_object_set_new(e->asked, src, json_true());
			if (ok)
				json_object_set_new(e->answered, src,
				                    json_true());
		}
	}
}

static json_t *
keys_of(const json_t *set)
{
	json_t *a = json_array();
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)set, k, v) {
		json_array_append_new(a, json_string(k));
	}
	return a;
}

static json_t *
ev_json(const struct ev *e)
{
	json_t *nodes = json_array();
	const char *k;
	json_t *v;
	int degraded = 0;

	json_object_foreach(e->nodes, k, v) {
		const char *out =
		    json_string_value(json_object_get(v, "outcome"));

		degraded |= out == NULL || strcmp(out, "ok") != 0;
		json_array_append_new(
		    nodes, json_pack("{s:s, s:o, s:O}", "node", k, "sources",
		                     keys_of(json_object_get(v, "sources")),
		                     "outcome", json_object_get(v, "outcome")));
	}
	return json_pack("{s:o, s:o, s:o, s:b}", "sources_asked",
	                 keys_of(e->asked), "sources_answered",
	                 keys_of(e->answered), "nodes", nodes, "degraded",
	                 degraded);
}

/* --- small helpers ------------------------------------------------------ */

static const char *
str(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

/* The error code named name ("denied" -> CG_EDENIED). */
static int
code_of(const char *name)
{
	for (int c = CG_ERR; c >= CG_EPROTO; c--)
		if (name != NULL && strcmp(cg_code_name(c), name) == 0)
			return c;
	return CG_ERR;
}

/* Sets err from an item's {"error": {code, message}}; 0 when none. */
static int
item_failed(const json_t *item, cg_err *err)
{
	const json_t *e = json_object_get(item, "error");

	if (e == NULL)
		return 0;
	return cg_err_set(err, code_of(str(e, "code")), "%s",
	                  str(e, "message"));
}

/* The workspace of a node entry of a cg_fed_call answer: its "workspace"
 * when the federation reports one, else the default workspace. */
static const char *
entry_ws(const cg_fed *f, const json_t *entry)
{
	const char *ws = json_string_value(json_object_get(entry, "workspace"));

	return ws ? ws : cg_fed_workspace(f);
}

/* Sets o.workspace and o.uri from ws, o.source and o.path. */
static void
tag(const char *ws, json_t *o)
{
	char *uri;

	if (!json_is_string(json_object_get(o, "source")) ||
	    !json_is_string(json_object_get(o, "path")))
		return;
	uri = cg_uri_make(ws, str(o, "source"), str(o, "path"));
	if (uri != NULL)
		json_object_set_new(o, "uri", json_string(uri));
	json_object_set_new(o, "workspace", json_string(ws));
	free(uri);
}

/*
 * Parses a page uri; *scope gets the scope name that selects its node:
 * "workspace/source" when the uri names a workspace, else "source"
 * (malloc'd).  An unknown one is reported by cg_fed_call.
 */
static int
page_uri(const char *uri, cg_uri *u, char **scope, cg_err *err)
{
	int rc = cg_uri_parse(u, uri, err);
	cg_buf b;

	*scope = NULL;
	if (rc != 0)
		return rc;
	cg_buf_init(&b, 8192);
	if (u->workspace != NULL)
		(void)cg_buf_printf(&b, "%s/", u->workspace);
	(void)cg_buf_puts(&b, u->source);
	*scope = cg_buf_take(&b);
	if (*scope == NULL) {
		cg_uri_fini(u);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	return 0;
}

/* The entry of the first node of a call that answered, or NULL with err
 * set to why none did. */
static const json_t *
only_entry(const json_t *call, const char *source, cg_err *err)
{
	size_t i;
	const json_t *n;
	const char *why = "no node serves it";

	int code = CG_EUNAVAIL;

	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		if (json_object_get(n, "result") != NULL)
			return n;
		why = str(n, "outcome");
		code = cg_code_from_name(str(n, "code"));
	}
	/* The node's own refusal (not found, too big...) is the answer;
	 * only a node that did not answer is "unavailable". */
	if (code == CG_ENOTFOUND || code == CG_EDENIED || code == CG_ETOOBIG ||
	    code == CG_EINVAL)
		cg_err_set(err, code, "%s", why);
	else
		cg_err_set(err, CG_EUNAVAIL, "source %s did not answer: %s",
		           source, why);
	return NULL;
}

static void
add_followup(json_t *fu, const char *kind, const char *uri, const char *msg)
{
	json_array_append_new(fu, json_pack("{s:s, s:s?, s:s}", "kind", kind,
	                                    "uri", uri, "message", msg));
}

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

void
cg_fed_page_counts(json_t *ans)
{
	const json_t *out = json_object_get(ans, "outgoing");
	json_t *c = json_object();
	size_t i;
	const json_t *lk;
	json_int_t res = 0;

	if (out != NULL) {
		json_array_foreach(out, i, lk) {
			res += json_is_true(json_object_get(lk, "resolved"));
		}
		json_object_set_new(
		    c, "outgoing",
		    json_integer((json_int_t)json_array_size(out)));
		json_object_set_new(c, "resolved", json_integer(res));
		json_object_set_new(
		    c, "unresolved",
		    json_integer((json_int_t)json_array_size(out) - res));
	}
	if (json_object_get(ans, "backlinks") != NULL)
		json_object_set_new(c, "backlinks",
		                    json_integer((json_int_t)json_array_size(
		                        json_object_get(ans, "backlinks"))));
	if (json_object_get(ans, "matches") != NULL)
		json_object_set_new(c, "matches",
		                    json_integer((json_int_t)json_array_size(
		                        json_object_get(ans, "matches"))));
	json_object_set_new(ans, "counts", c);
}

/* --- read --------------------------------------------------------------- */

static void
read_followups(const json_t *ans, json_t *fu)
{
	const char *uri = str(ans, "uri");
	char msg[700];

	if (strcmp(str(ans, "frontmatter_status"), "lenient") == 0 ||
	    strcmp(str(ans, "frontmatter_status"), "broken") == 0) {
		(void)snprintf(msg, sizeof(msg),
		               "frontmatter is not valid YAML (%s): %.500s",
		               str(ans, "frontmatter_status"),
		               str(ans, "frontmatter_error"));
		add_followup(fu, "frontmatter", uri, msg);
	}
	if (json_integer_value(json_object_get(ans, "utf8_fixed")) > 0) {
		(void)snprintf(msg, sizeof(msg),
		               "%lld invalid UTF-8 sequence(s) or NUL byte(s) "
		               "replaced in the text returned",
		               (long long)json_integer_value(
		                   json_object_get(ans, "utf8_fixed")));
		add_followup(fu, "invalid_utf8", uri, msg);
	}
}

/*
 * Sends op {source, path} (plus extra members) to the node of uri and
 * returns its entry (borrowed from *call) in *ent; a page the node
 * refused or did not find is its code.
 */
static int
page_call(cg_fed *f, const char *op, const char *uri, json_t *extra,
          json_t **call, const json_t **ent, cg_err *err)
{
	cg_uri u;
	char *scope = NULL;
	json_t *args;
	int rc = page_uri(uri, &u, &scope, err);

	*call = NULL;
	*ent = NULL;
	if (rc != 0)
		return rc;
	args = json_pack("{s:s, s:s}", "source", u.source, "path", u.path);
	if (extra != NULL)
		json_object_update(args, extra);
	rc =
	    cg_fed_call(f, op, args, (const char *const *)&scope, 1, call, err);
	if (rc == 0) {
		*ent = only_entry(*call, scope, err);
		rc = *ent == NULL
		         ? CG_EUNAVAIL
		         : item_failed(json_object_get(*ent, "result"), err);
	}
	json_decref(args);
	free(scope);
	cg_uri_fini(&u);
	return rc;
}

int
cg_fed_read(cg_fed *f, const char *uri, const char *lines, json_t **out,
            cg_err *err)
{
	long long a = 0;
	long long b = 0;
	json_t *extra = json_object();
	json_t *call = NULL;
	const json_t *ent = NULL;
	struct ev ev;
	int rc;

	*out = NULL;
	rc = lines ? cg_lines_parse(lines, &a, &b, err) : 0;
	if (lines != NULL && rc == 0)
		json_object_set_new(
		    extra, "lines",
		    json_pack("[I, I]", (json_int_t)a, (json_int_t)b));
	if (rc == 0)
		rc = page_call(f, "read", uri, extra, &call, &ent, err);
	if (rc == 0) {
		ev_init(&ev);
		ev_add(&ev, call);
		*out = json_deep_copy(json_object_get(ent, "result"));
		tag(entry_ws(f, ent), *out);
		json_object_set_new(*out, "evidence", ev_json(&ev));
		json_object_set_new(*out, "followups", json_array());
		read_followups(*out, json_object_get(*out, "followups"));
		ev_fini(&ev);
	}
	json_decref(call);
	json_decref(extra);
	return rc;
}

/* --- links that cross nodes ------------------------------------------------
 */

/* Depth of a path (its "/" count), for ordering matches. */
static size_t
depth(const char *p)
{
	size_t n = 0;

	for (; *p != '\0'; p++)
		n += *p == '/';
	return n;
}

/* Order of matches: qualified first, rank, depth, uri. */
static int
cmp_match(const json_t *a, const json_t *b)
{
	long long d = json_integer_value(json_object_get(a, "order")) -
	              json_integer_value(json_object_get(b, "order"));

	if (d != 0)
		return d < 0 ? -1 : 1;
	d = json_integer_value(json_object_get(a, "rank")) -
	    json_integer_value(json_object_get(b, "rank"));
	if (d != 0)
		return d < 0 ? -1 : 1;
	d = (long long)depth(str(a, "path")) - (long long)depth(str(b, "path"));
	if (d != 0)
		return d < 0 ? -1 : 1;
	return strcmp(str(a, "uri"), str(b, "uri"));
}

static int
cmp_match_q(const void *pa, const void *pb)
{
	return cmp_match(*(json_t *const *)pa, *(json_t *const *)pb);
}

/* Sorts a JSON array in place with cmp. */
static void
sort_array(json_t *arr, int (*cmp)(const void *, const void *))
{
	size_t n = json_array_size(arr);
	json_t **v = calloc(n ? n : 1, sizeof(*v));

	if (v == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof(*v), cmp);
	json_array_clear(arr);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
}

/* The best match (a new, tagged object) of item k over the nodes of
 * workspace ws in a resolve call, or NULL. */
static json_t *
best_match(const cg_fed *f, const json_t *call, size_t k, const char *ws)
{
	json_t *best = NULL;
	size_t i;
	const json_t *n;

	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		const json_t *r = json_array_get(
		    json_object_get(json_object_get(n, "result"), "results"),
		    k);
		json_t *m = json_array_get(json_object_get(r, "matches"), 0);

		if (m == NULL || strcmp(entry_ws(f, n), ws) != 0)
			continue;
		m = json_deep_copy(m);
		tag(ws, m);
		if (best == NULL || cmp_match(m, best) < 0) {
			json_decref(best);
			best = m;
		} else {
			json_decref(m);
		}
	}
	return best;
}

/* How source src of workspace ws fared in a call: 0 unknown, 1
 * answered, -1 silent. */
static int
source_state(const cg_fed *f, const json_t *call, const char *ws,
             const char *src)
{
	size_t i;
	size_t k;
	const json_t *n;
	const json_t *s;

	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		if (strcmp(entry_ws(f, n), ws) != 0)
			continue;
		json_array_foreach(json_object_get(n, "sources"), k, s) {
			if (strcmp(json_string_value(s), src) == 0)
				return json_object_get(n, "result") ? 1 : -1;
		}
	}
	return 0;
}

/* Settles one link that its node handed over ("remote"). */
static void
settle(const cg_fed *f, json_t *lk, const char *ws, const json_t *call,
       size_t k)
{
	const json_t *r = json_object_get(lk, "remote");
	json_t *m = best_match(f, call, k, ws);
	int state = source_state(f, call, ws, str(r, "source"));
	char msg[600];

	if (m != NULL) {
		json_object_set_new(lk, "resolved", json_true());
		json_object_set(lk, "source", json_object_get(m, "source"));
		json_object_set(lk, "path", json_object_get(m, "path"));
		json_object_set(lk, "title", json_object_get(m, "title"));
		json_object_set(lk, "match", json_object_get(m, "match"));
		tag(ws, lk);
		json_decref(m);
	} else {
		if (state == 0)
			(void)snprintf(msg, sizeof(msg),
			               "no page named '%.200s' in its source, "
			               "and no source named '%.100s'",
			               str(lk, "target"), str(r, "source"));
		else if (state < 0)
			(void)snprintf(msg, sizeof(msg),
			               "source %.100s did not answer",
			               str(r, "source"));
		else
			(void)snprintf(msg, sizeof(msg),
			               "no page named '%.200s' in source "
			               "%.100s",
			               str(r, "name"), str(r, "source"));
		json_object_set_new(lk, "reason", json_string(msg));
	}
	json_object_del(lk, "remote");
}

/*
 * Tags the resolved links of every array in lists (NULL-ended; wss[l]
 * is the workspace of list l's page) and resolves their "remote" links
 * in one round over all nodes.
 */
static int
resolve_remote(cg_fed *f, json_t *const *lists, const char *const *wss,
               struct ev *ev, cg_err *err)
{
	json_t *names = json_array();
	json_t *refs = json_array();
	json_t *call = NULL;
	int rc = 0;

	for (size_t l = 0; lists[l] != NULL; l++) {
		size_t i;
		json_t *lk;

		json_array_foreach(lists[l], i, lk) {
			const json_t *r = json_object_get(lk, "remote");

			if (json_is_true(json_object_get(lk, "resolved")))
				tag(wss[l], lk);
			if (r == NULL)
				continue;
			json_array_append(names, (json_t *)r);
			json_array_append_new(
			    refs,
			    json_pack("{s:O, s:s}", "lk", lk, "ws", wss[l]));
		}
	}
	if (json_array_size(names) > 0) {
		json_t *args = json_pack("{s:O}", "names", names);

		rc = cg_fed_call(f, "resolve", args, NULL, 0, &call, err);
		json_decref(args);
	}
	if (rc == 0 && call != NULL) {
		size_t k;
		json_t *ref;

		ev_add(ev, call);
		json_array_foreach(refs, k, ref) {
			settle(f, json_object_get(ref, "lk"), str(ref, "ws"),
			       call, k);
		}
	}
	json_decref(call);
	json_decref(names);
	json_decref(refs);
	return rc;
}

/* A followup per unresolved link of the page (uri). */
static void
link_followups(const json_t *links, const char *uri, json_t *fu)
{
	size_t i;
	const json_t *lk;

	json_array_foreach(links, i, lk) {
		bool wiki = strcmp(str(lk, "kind"), "wikilink") == 0;
		char msg[900];

		if (json_is_true(json_object_get(lk, "resolved")))
			continue;
		if (json_array_size(fu) > FOLLOWUPS_MAX)
			return;
		if (json_array_size(fu) == FOLLOWUPS_MAX) {
			add_followup(fu, "unresolved_link", uri,
			             "more unresolved links not listed");
			return;
		}
		(void)snprintf(
		    msg, sizeof(msg), "%s%.300s%s on line %lld: %.400s",
		    wiki ? "[[" : "(", str(lk, "target"), wiki ? "]]" : ")",
		    (long long)json_integer_value(json_object_get(lk, "line")),
		    str(lk, "reason"));
		add_followup(fu, "unresolved_link", uri, msg);
	}
}

/* --- links ---------------------------------------------------------------- */

static int
cmp_backlink(const void *pa, const void *pb)
{
	const json_t *a = *(json_t *const *)pa;
	const json_t *b = *(json_t *const *)pb;
	int c = strcmp(str(a, "uri"), str(b, "uri"));

	if (c != 0)
		return c;
	return (int)(json_integer_value(json_object_get(a, "line")) -
	             json_integer_value(json_object_get(b, "line")));
}

/* Every link to the target from the sources of workspace ws, tagged and
 * sorted, into back. */
static int
backlinks_round(cg_fed *f, const char *ws, const json_t *target, json_t *back,
                struct ev *ev, cg_err *err)
{
	json_t *args = json_pack("{s:O}", "target", (json_t *)target);
	json_t *call = NULL;
	size_t i;
	const json_t *n;
	int rc = cg_fed_call(f, "backlinks", args, NULL, 0, &call, err);

	json_decref(args);
	if (rc != 0)
		return rc;
	ev_add(ev, call);
	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		size_t k;
		json_t *b;

		if (strcmp(entry_ws(f, n), ws) != 0)
			continue;
		json_array_foreach(
		    json_object_get(json_object_get(n, "result"), "backlinks"),
		    k, b) {
			tag(ws, b);
			json_array_append(back, b);
		}
	}
	sort_array(back, cmp_backlink);
	json_decref(call);
	return 0;
}

int
cg_fed_links(cg_fed *f, const char *uri, json_t **out, cg_err *err)
{
	json_t *call = NULL;
	const json_t *ent = NULL;
	const json_t *res;
	json_t *ans = NULL;
	struct ev ev;
	int rc;

	*out = NULL;
	ev_init(&ev);
	rc = page_call(f, "links", uri, NULL, &call, &ent, err);
	if (rc == 0) {
		const char *ws = entry_ws(f, ent);
		json_t *lists[2] = {NULL, NULL};
		const char *wss[1] = {ws};

		res = json_object_get(ent, "result");
		ev_add(&ev, call);
		ans = json_deep_copy(json_object_get(res, "page"));
		tag(ws, ans);
		json_object_del(ans, "headings");
		json_object_set(ans, "outgoing",
		                json_object_get(res, "outgoing"));
		json_object_set_new(ans, "backlinks", json_array());
		lists[0] = json_object_get(ans, "outgoing");
		rc = backlinks_round(f, ws, json_object_get(res, "target"),
		                     json_object_get(ans, "backlinks"), &ev,
		                     err);
		if (rc == 0)
			rc = resolve_remote(f, lists, wss, &ev, err);
	}
	if (rc == 0) {
		json_t *fu = json_array();

		link_followups(json_object_get(ans, "outgoing"),
		               str(ans, "uri"), fu);
		json_object_set_new(ans, "evidence", ev_json(&ev));
		json_object_set_new(ans, "followups", fu);
		cg_fed_page_counts(ans);
		*out = ans;
		ans = NULL;
	}
	json_decref(ans);
	json_decref(call);
	ev_fini(&ev);
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
		int rc = page_uri(uris[i], &u, &scope, err);

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
			    strcmp(str(it, "workspace"), entry_ws(f, n)) != 0)
				continue;
			json_object_del(p, "index");
			tag(entry_ws(f, n), p);
			json_array_set(pages, at, p);
		}
	}
	json_array_foreach(pages, i, p) {
		char msg[300];

		if (!json_is_null(p))
			continue;
		(void)snprintf(msg, sizeof(msg), "source %.100s did not answer",
		               str(json_array_get(items, i), "source"));
		p = json_deep_copy(json_array_get(items, i));
		tag(str(p, "workspace"), p);
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
			*first = item_failed(p, err);
		if (json_object_get(p, "links") == NULL)
			continue;
		wss[nl] = str(p, "workspace");
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
cg_fed_peek(cg_fed *f, const char *const *uris, size_t n, json_t **out,
            cg_err *err)
{
	json_t *items = json_array();
	json_t *scopes = json_object();
	json_t *pages = json_array();
	json_t *call = NULL;
	json_t *lists[PEEK_MAX + 1];
	const char *wss[PEEK_MAX];
	struct ev ev;
	cg_err ierr;
	int first = 0;
	int rc;

	*out = NULL;
	ev_init(&ev);
	cg_err_clear(&ierr);
	rc = n == 0 || n > PEEK_MAX
	         ? cg_err_set(err, CG_EINVAL,
	                      "peek takes 1 to %d uris (got %zu)", PEEK_MAX, n)
	         : peek_items(f, uris, n, items, scopes, err);
	if (rc == 0)
		rc = peek_call(f, items, scopes, &call, err);
	if (rc == 0) {
		ev_add(&ev, call);
		for (size_t i = 0; i < n; i++)
			json_array_append_new(pages, json_null());
		peek_collect(f, call, items, pages);
		peek_lists(pages, lists, wss, &first, &ierr);
		rc = resolve_remote(f, lists, wss, &ev, err);
	}
	if (rc == 0) {
		json_t *fu = json_array();
		size_t i;
		json_t *p;

		json_array_foreach(pages, i, p) {
			link_followups(json_object_get(p, "links"),
			               str(p, "uri"), fu);
		}
		*out = json_pack("{s:O, s:o, s:o}", "pages", pages, "evidence",
		                 ev_json(&ev), "followups", fu);
		if (first != 0)
			rc = cg_err_set(err, first, "%s", ierr.msg);
	}
	json_decref(call);
	json_decref(items);
	json_decref(scopes);
	json_decref(pages);
	ev_fini(&ev);
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

		if (ws != NULL && strcmp(ws, entry_ws(f, n)) != 0)
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
				tag(entry_ws(f, n), c);
				json_array_append_new(all, c);
			}
		}
	}
	sort_array(all, cmp_match_q);
	json_array_foreach(all, i, m) {
		if (json_object_get(seen, str(m, "uri")) != NULL)
			continue;
		json_object_set_new(seen, str(m, "uri"), json_true());
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
               json_t *matches, const struct ev *ev)
{
	json_t *ans =
	    json_pack("{s:s, s:s, s:s?, s:o, s:o, s:[]}", "name", name,
	              "lookup", look, "anchor", anchor, "matches", matches,
	              "evidence", ev_json(ev), "followups");

	if (json_array_size(matches) == 0)
		json_object_set_new(
		    ans, "note",
		    json_string("No page has this path, slug, title or "
		                "alias. Names are matched whole (ASCII "
		                "case-insensitive); use query to search the "
		                "words of pages."));
	cg_fed_page_counts(ans);
	return ans;
}

int
cg_fed_resolve(cg_fed *f, const char *name, json_t **out, cg_err *err)
{
	char *anchor = NULL;
	char *look = lookup_name(name, &anchor);
	char *ws = NULL;
	json_t *items = json_array();
	json_t *call = NULL;
	struct ev ev;
	int rc;

	*out = NULL;
	ev_init(&ev);
	rc = look == NULL ? cg_err_set(err, CG_ENOMEM, "out of memory")
	     : *look == '\0'
	         ? cg_err_set(err, CG_EINVAL,
	                      "empty name (give a title, slug, alias, path, "
	                      "[[wikilink]] or uri)")
	         : resolve_items(look, items, &ws, err);
	if (rc == 0) {
		json_t *args = json_pack("{s:O}", "names", items);

		rc = cg_fed_call(f, "resolve", args, NULL, 0, &call, err);
		json_decref(args);
	}
	if (rc == 0) {
		ev_add(&ev, call);
		*out = resolve_answer(name, look, anchor,
		                      resolve_merge(f, call, items, ws), &ev);
	}
	json_decref(call);
	json_decref(items);
	ev_fini(&ev);
	free(ws);
	free(look);
	free(anchor);
	return rc;
}

/* --- JSON arguments ---------------------------------------------------------
 */

/* args[key] as a string: NULL when absent and optional, else CG_EINVAL. */
static int
arg_str(const json_t *args, const char *key, bool need, const char **v,
        cg_err *err)
{
	const json_t *j = json_object_get(args, key);

	*v = json_string_value(j);
	if (*v == NULL && (need || j != NULL))
		return cg_err_set(err, CG_EINVAL, "%s must be a string%s", key,
		                  need ? " (required)" : "");
	return 0;
}

int
cg_fed_read_json(cg_fed *f, const json_t *args, json_t **out, cg_err *err)
{
	const char *uri = NULL;
	const char *lines = NULL;
	int rc = arg_str(args, "uri", true, &uri, err);

	*out = NULL;
	if (rc == 0)
		rc = arg_str(args, "lines", false, &lines, err);
	return rc ? rc : cg_fed_read(f, uri, lines, out, err);
}

int
cg_fed_peek_json(cg_fed *f, const json_t *args, json_t **out, cg_err *err)
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
	rc = cg_fed_peek(f, v, n, out, err);
	if (*out == NULL)
		return rc;
	cg_err_clear(err); /* a failed page is in the answer */
	return 0;
}

int
cg_fed_links_json(cg_fed *f, const json_t *args, json_t **out, cg_err *err)
{
	const char *uri = NULL;
	int rc = arg_str(args, "uri", true, &uri, err);

	*out = NULL;
	return rc ? rc : cg_fed_links(f, uri, out, err);
}

int
cg_fed_resolve_json(cg_fed *f, const json_t *args, json_t **out, cg_err *err)
{
	const char *name = NULL;
	int rc = arg_str(args, "name", true, &name, err);

	*out = NULL;
	return rc ? rc : cg_fed_resolve(f, name, out, err);
}
