/*
 * fed_links.c - links and backlinks of a page across the nodes of a
 * workspace, and the settlement of the links that cross nodes (see
 * fed_links.h): a node resolves the links to its own sources and hands
 * over ("remote") those of the form "source/name" naming another; they
 * are resolved here in one resolve round over every node.
 *
 * What it must not do: open an index or read a page file (everything comes
 * from node replies), or report a link as resolved to a page of another
 * workspace.
 */
#include "federation/fed_links.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_json.h"
#include "federation/page_tools_int.h"

#define FOLLOWUPS_MAX 50

/* --- links that cross nodes ---------------------------------------------- */

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

		if (m == NULL || strcmp(cg_fed_entry_ws(f, n), ws) != 0)
			continue;
		m = json_deep_copy(m);
		cg_pt_tag(ws, m);
		if (best == NULL || cg_pt_cmp_match(m, best) < 0) {
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
		if (strcmp(cg_fed_entry_ws(f, n), ws) != 0)
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
	int state = source_state(f, call, ws, cg_json_str(r, "source"));
	char msg[600];

	if (m != NULL) {
		json_object_set_new(lk, "resolved", json_true());
		json_object_set(lk, "source", json_object_get(m, "source"));
		json_object_set(lk, "path", json_object_get(m, "path"));
		json_object_set(lk, "title", json_object_get(m, "title"));
		json_object_set(lk, "match", json_object_get(m, "match"));
		cg_pt_tag(ws, lk);
		json_decref(m);
	} else {
		if (state == 0)
			(void)snprintf(msg, sizeof(msg),
			               "no page named '%.200s' in its source, "
			               "and no source named '%.100s'",
			               cg_json_str(lk, "target"),
			               cg_json_str(r, "source"));
		else if (state < 0)
			(void)snprintf(msg, sizeof(msg),
			               "source %.100s did not answer",
			               cg_json_str(r, "source"));
		else
			(void)snprintf(msg, sizeof(msg),
			               "no page named '%.200s' in source "
			               "%.100s",
			               cg_json_str(r, "name"),
			               cg_json_str(r, "source"));
		json_object_set_new(lk, "reason", json_string(msg));
	}
	json_object_del(lk, "remote");
}

int
cg_fed_links_settle(cg_fed *fed, json_t *const *lists, const char *const *wss,
                    json_t **call, cg_err *err)
{
	json_t *names = json_array();
	json_t *refs = json_array();
	int rc = 0;

	*call = NULL;
	for (size_t l = 0; lists[l] != NULL; l++) {
		size_t i;
		json_t *lk;

		json_array_foreach(lists[l], i, lk) {
			const json_t *r = json_object_get(lk, "remote");

			if (json_is_true(json_object_get(lk, "resolved")))
				cg_pt_tag(wss[l], lk);
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

		rc = cg_fed_call(fed, "resolve", args, NULL, 0, call, err);
		json_decref(args);
	}
	if (rc == 0 && *call != NULL) {
		size_t k;
		json_t *ref;

		json_array_foreach(refs, k, ref) {
			settle(fed, json_object_get(ref, "lk"),
			       cg_json_str(ref, "ws"), *call, k);
		}
	}
	json_decref(names);
	json_decref(refs);
	return rc;
}

void
cg_fed_links_followups(const json_t *links, const char *uri, json_t *fu)
{
	size_t i;
	const json_t *lk;

	json_array_foreach(links, i, lk) {
		bool wiki = strcmp(cg_json_str(lk, "kind"), "wikilink") == 0;
		char msg[900];

		if (json_is_true(json_object_get(lk, "resolved")))
			continue;
		if (json_array_size(fu) > FOLLOWUPS_MAX)
			return;
		if (json_array_size(fu) == FOLLOWUPS_MAX) {
			cg_fed_followup(fu, "unresolved_link", uri,
			                "more unresolved links not listed");
			return;
		}
		(void)snprintf(
		    msg, sizeof(msg), "%s%.300s%s on line %lld: %.400s",
		    wiki ? "[[" : "(", cg_json_str(lk, "target"),
		    wiki ? "]]" : ")",
		    (long long)json_integer_value(json_object_get(lk, "line")),
		    cg_json_str(lk, "reason"));
		cg_fed_followup(fu, "unresolved_link", uri, msg);
	}
}

/* --- links ---------------------------------------------------------------- */

static int
cmp_backlink(const void *pa, const void *pb)
{
	const json_t *a = *(json_t *const *)pa;
	const json_t *b = *(json_t *const *)pb;
	int c = strcmp(cg_json_str(a, "uri"), cg_json_str(b, "uri"));

	if (c != 0)
		return c;
	return (int)(json_integer_value(json_object_get(a, "line")) -
	             json_integer_value(json_object_get(b, "line")));
}

/* Every link to the target from the sources of workspace ws, tagged and
 * sorted, into back. */
static int
backlinks_round(cg_fed *f, const char *ws, const json_t *target, json_t *back,
                struct cg_pt_ev *ev, cg_err *err)
{
	json_t *args = json_pack("{s:O}", "target", (json_t *)target);
	json_t *call = NULL;
	size_t i;
	const json_t *n;
	int rc = cg_fed_call(f, "backlinks", args, NULL, 0, &call, err);

	json_decref(args);
	if (rc != 0)
		return rc;
	cg_pt_ev_add(ev, call);
	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		size_t k;
		json_t *b;

		if (strcmp(cg_fed_entry_ws(f, n), ws) != 0)
			continue;
		json_array_foreach(
		    json_object_get(json_object_get(n, "result"), "backlinks"),
		    k, b) {
			cg_pt_tag(ws, b);
			json_array_append(back, b);
		}
	}
	cg_pt_sort(back, cmp_backlink);
	json_decref(call);
	return 0;
}

int
cg_fed_links(cg_fed *fed, const char *uri, json_t **out, cg_err *err)
{
	json_t *call = NULL;
	json_t *settled = NULL;
	const json_t *ent = NULL;
	const json_t *res;
	json_t *ans = NULL;
	struct cg_pt_ev ev;
	int rc;

	*out = NULL;
	cg_pt_ev_init(&ev);
	rc = cg_pt_page_call(fed, "links", uri, NULL, &call, &ent, err);
	if (rc == 0) {
		const char *ws = cg_fed_entry_ws(fed, ent);
		json_t *lists[2] = {NULL, NULL};
		const char *wss[1] = {ws};

		res = json_object_get(ent, "result");
		cg_pt_ev_add(&ev, call);
		ans = json_deep_copy(json_object_get(res, "page"));
		cg_pt_tag(ws, ans);
		json_object_del(ans, "headings");
		json_object_set(ans, "outgoing",
		                json_object_get(res, "outgoing"));
		json_object_set_new(ans, "backlinks", json_array());
		lists[0] = json_object_get(ans, "outgoing");
		rc = backlinks_round(fed, ws, json_object_get(res, "target"),
		                     json_object_get(ans, "backlinks"), &ev,
		                     err);
		if (rc == 0)
			rc =
			    cg_fed_links_settle(fed, lists, wss, &settled, err);
		cg_pt_ev_add(&ev, settled);
	}
	if (rc == 0) {
		json_t *fu = json_array();

		cg_fed_links_followups(json_object_get(ans, "outgoing"),
		                       cg_json_str(ans, "uri"), fu);
		json_object_set_new(ans, "evidence", cg_pt_ev_json(&ev));
		json_object_set_new(ans, "followups", fu);
		cg_pt_counts(ans);
		*out = ans;
		ans = NULL;
	}
	json_decref(ans);
	json_decref(settled);
	json_decref(call);
	cg_pt_ev_fini(&ev);
	return rc;
}

int
cg_fed_links_json(cg_fed *fed, const json_t *args, json_t **out, cg_err *err)
{
	const char *uri = NULL;
	int rc = cg_pt_arg_str(args, "uri", true, &uri, err);

	*out = NULL;
	return rc ? rc : cg_fed_links(fed, uri, out, err);
}
