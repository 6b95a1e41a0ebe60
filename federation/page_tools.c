/*
 * page_tools.c - what the page tools (fed_page.c: read, peek, resolve;
 * fed_links.c: links and the links that cross nodes) share: the receipt
 * of their rounds, uri tagging, the call about one page, the counts, the
 * order of name matches and argument decoding (see page_tools_int.h).
 * Everything comes from cg_fed_call answers: it must not open an index
 * or read a page file.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "common/cg_json.h"
#include "federation/merge.h"
#include "federation/page_tools_int.h"
#include "federation/uri.h"

/* --- evidence ------------------------------------------------------------ */

void
cg_pt_ev_init(struct cg_pt_ev *e)
{
	e->nodes = json_object();
	e->asked = json_object();
	e->answered = json_object();
}

void
cg_pt_ev_fini(struct cg_pt_ev *e)
{
	json_decref(e->nodes);
	json_decref(e->asked);
	json_decref(e->answered);
}

/* Adds the outcome of one cg_fed_call round. */
void
cg_pt_ev_add(struct cg_pt_ev *e, const json_t *call)
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
			/* Named "ws/source": two workspaces may share a
			 * source name. */
			json_t *q = cg_uri_qname(cg_json_str(n, "workspace"),
			                         json_string_value(s));
			const char *src = json_string_value(q);

			if (src == NULL || !json_is_string(s)) {
				json_decref(q);
				continue;
			}
			json_object_set_new(json_object_get(mine, "sources"),
			                    src, json_true());
			json_object_set_new(e->asked, src, json_true());
			if (ok)
				json_object_set_new(e->answered, src,
				                    json_true());
			json_decref(q);
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

json_t *
cg_pt_ev_json(const struct cg_pt_ev *e)
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

/* Sets err from an item's {"error": {code, message}}; 0 when none. */
int
cg_pt_item_failed(const json_t *item, cg_err *err)
{
	const json_t *e = json_object_get(item, "error");
	int code;

	if (e == NULL)
		return 0;
	code = cg_code_from_name(cg_json_str(e, "code"));
	/* An error with no failure code is a bad reply, never a success. */
	return cg_err_set(err, code != 0 ? code : CG_EPROTO, "%s",
	                  cg_json_str(e, "message"));
}

/* Sets o.workspace and o.uri from ws, o.source and o.path. */
void
cg_pt_tag(const char *ws, json_t *o)
{
	char *uri;

	if (!json_is_string(json_object_get(o, "source")) ||
	    !json_is_string(json_object_get(o, "path")))
		return;
	uri = cg_uri_make(ws, cg_json_str(o, "source"), cg_json_str(o, "path"));
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
int
cg_pt_page_uri(const char *uri, cg_uri *u, char **scope, cg_err *err)
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
		why = cg_json_str(n, "outcome");
		code = cg_code_from_name(cg_json_str(n, "code"));
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

void
cg_pt_counts(json_t *ans)
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

int
cg_pt_page_call(cg_fed *f, const char *op, const char *uri, json_t *extra,
                json_t **call, const json_t **ent, cg_err *err)
{
	cg_uri u;
	char *scope = NULL;
	json_t *args;
	int rc = cg_pt_page_uri(uri, &u, &scope, err);

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
		rc = *ent == NULL ? CG_EUNAVAIL
		                  : cg_pt_item_failed(
		                        json_object_get(*ent, "result"), err);
	}
	json_decref(args);
	free(scope);
	cg_uri_fini(&u);
	return rc;
}

static size_t
depth(const char *p)
{
	size_t n = 0;

	for (; *p != '\0'; p++)
		n += *p == '/';
	return n;
}

/* Order of matches: qualified first, rank, depth, uri. */
int
cg_pt_cmp_match(const json_t *a, const json_t *b)
{
	long long d = json_integer_value(json_object_get(a, "order")) -
	              json_integer_value(json_object_get(b, "order"));

	if (d != 0)
		return d < 0 ? -1 : 1;
	d = json_integer_value(json_object_get(a, "rank")) -
	    json_integer_value(json_object_get(b, "rank"));
	if (d != 0)
		return d < 0 ? -1 : 1;
	d = (long long)depth(cg_json_str(a, "path")) -
	    (long long)depth(cg_json_str(b, "path"));
	if (d != 0)
		return d < 0 ? -1 : 1;
	return strcmp(cg_json_str(a, "uri"), cg_json_str(b, "uri"));
}

int
cg_pt_cmp_match_q(const void *pa, const void *pb)
{
	return cg_pt_cmp_match(*(json_t *const *)pa, *(json_t *const *)pb);
}

/* Sorts a JSON array in place with cmp. */
void
cg_pt_sort(json_t *arr, int (*cmp)(const void *, const void *))
{
	json_t *sorted = cg_merge_slice(arr, cmp, 0, json_array_size(arr));

	if (sorted == NULL)
		return;
	json_array_clear(arr);
	json_array_extend(arr, sorted);
	json_decref(sorted);
}

/* --- arguments ------------------------------------------------------------ */

/* args[key] as a string: NULL when absent and optional, else CG_EINVAL. */
int
cg_pt_arg_str(const json_t *args, const char *key, bool need, const char **v,
              cg_err *err)
{
	const json_t *j = json_object_get(args, key);

	*v = json_string_value(j);
	if (*v == NULL && (need || j != NULL))
		return cg_err_set(err, CG_EINVAL, "%s must be a string%s", key,
		                  need ? " (required)" : "");
	return 0;
}
