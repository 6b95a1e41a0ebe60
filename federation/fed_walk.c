/*
 * fed_walk.c - list, map, grep and status across the nodes of a
 * federation (see fed_walk.h for the answers and the prefix rules).
 * Everything here comes from node replies through cg_fed_call: it must
 * not open an index or a page file, must not drop or repeat an item when
 * paging, and must keep every item tagged with its uri and source.
 */
#include "federation/fed_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "common/cg_json.h"
#include "common/cg_utf8.h"
#include "federation/gate.h"
#include "federation/map_plan.h"
#include "federation/merge.h"
#include "federation/uri.h"
#include "page/grep.h"
#include "proto/limits.h"

/* --- small helpers ------------------------------------------------------- */

static int64_t
int_of(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

static char *
concat(const char *a, const char *b, const char *c)
{
	cg_buf s;

	cg_buf_init(&s, 1u << 16);
	if (cg_buf_puts(&s, a) != 0 || cg_buf_puts(&s, b) != 0 ||
	    cg_buf_puts(&s, c) != 0 || cg_buf_puts(&s, "") != 0) {
		cg_buf_fini(&s);
		return NULL;
	}
	return cg_buf_take(&s);
}

static bool
in_list(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static void
followup(json_t *fu, const char *kind, const char *msg)
{
	json_array_append_new(
	    fu, json_pack("{s:s, s:s}", "kind", kind, "message", msg));
}

/* A new object {uri, workspace, ...item} for an item of a node. */
static json_t *
tag_item(const cg_fed *f, const json_t *node, const json_t *item)
{
	const char *ws = cg_fed_entry_ws(f, node);
	char *uri = cg_uri_make(ws, cg_json_str(item, "source"),
	                        cg_json_str(item, "path"));
	json_t *o =
	    json_pack("{s:s, s:s}", "uri", uri ? uri : "", "workspace", ws);

	free(uri);
	if (o != NULL)
		json_object_update(o, (json_t *)item);
	return o;
}

/* --- prefix and scope ---------------------------------------------------- */

struct pscope {
	const char *const *sources; /* scope sent to cg_fed_call */
	size_t nsources;
	const char *one[1]; /* storage of a one-source scope */
	char *named;        /* the source the prefix names, or NULL */
	char *path;         /* path prefix, "" = all */
	bool guessed;       /* named is a first segment: may not be a source */
};

static void
pscope_fini(struct pscope *p)
{
	free(p->named);
	free(p->path);
	memset(p, 0, sizeof(*p));
}

/* "cg://ws/source[/path]": the source (as "source" or "ws/source" for
 * another workspace) and the decoded path. */
static int
pscope_uri(const cg_fed *f, const char *prefix, struct pscope *p, cg_err *err)
{
	const char *s1 = strchr(prefix + 5, '/');
	char *tmp = concat(prefix, s1 && strchr(s1 + 1, '/') ? "" : "/", "");
	cg_uri u;
	int rc;

	if (tmp == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	rc = cg_uri_parse(&u, tmp, err);
	free(tmp);
	if (rc != 0)
		return rc;
	if (strcmp(u.workspace, cg_fed_workspace(f)) == 0)
		p->named = strdup(u.source);
	else
		p->named = concat(u.workspace, "/", u.source);
	p->path = strdup(u.path);
	cg_uri_fini(&u);
	return p->named && p->path
	           ? 0
	           : cg_err_set(err, CG_ENOMEM, "out of memory");
}

/* A first segment that may name a source: "name/rest" or "name". */
static int
pscope_segment(const char *prefix, const char *const *src, size_t nsrc,
               struct pscope *p, cg_err *err)
{
	const char *slash = strchr(prefix, '/');

	p->named =
	    slash ? strndup(prefix, (size_t)(slash - prefix)) : strdup(prefix);
	if (p->named == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	if (nsrc > 0 && !in_list(src, nsrc, p->named)) {
		free(p->named); /* not in the scope asked for: a path */
		p->named = NULL;
		p->path = strdup(prefix);
	} else {
		p->path = strdup(slash ? slash + 1 : "");
		p->guessed = true;
	}
	return p->path ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");
}

static int
pscope_init(const cg_fed *f, const char *prefix, const char *const *src,
            size_t nsrc, struct pscope *p, cg_err *err)
{
	int rc = 0;

	memset(p, 0, sizeof(*p));
	p->sources = src;
	p->nsources = nsrc;
	if (prefix == NULL)
		prefix = "";
	if (!cg_utf8_valid(prefix, strlen(prefix)))
		return cg_err_set(err, CG_EINVAL, "prefix is not valid UTF-8");
	if (*prefix == '/')
		return cg_err_set(err, CG_EINVAL,
		                  "prefix '%.200s' is absolute: give a uri "
		                  "(cg://workspace/source/path), a source "
		                  "name, or a path from the wiki or repository "
		                  "root",
		                  prefix);
	if (strncmp(prefix, "cg://", 5) == 0) {
		rc = pscope_uri(f, prefix, p, err);
		if (rc == 0 && nsrc > 0 && !in_list(src, nsrc, p->named))
			rc = cg_err_set(err, CG_EINVAL,
			                "prefix names source '%s', outside the "
			                "sources asked for",
			                p->named);
	} else if (*prefix != '\0') {
		rc = pscope_segment(prefix, src, nsrc, p, err);
	} else {
		p->path = strdup(prefix);
		if (p->path == NULL)
			rc = cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	if (rc == 0 && p->named != NULL) {
		p->one[0] = p->named;
		p->sources = p->one;
		p->nsources = 1;
	}
	return rc;
}

/* The first segment was not a source after all: a path prefix. */
static int
pscope_fallback(struct pscope *p, const char *prefix, const char *const *src,
                size_t nsrc, cg_err *err)
{
	free(p->named);
	free(p->path);
	p->named = NULL;
	p->guessed = false;
	p->sources = src;
	p->nsources = nsrc;
	p->path = strdup(prefix);
	return p->path ? 0 : cg_err_set(err, CG_ENOMEM, "out of memory");
}

/*
 * Sends op to the nodes the prefix scopes (args gets "prefix": the path
 * part).  A first segment is tried as a source name; when the federation
 * refuses it as unknown (before any node works), it is a path prefix.
 * *scope gets {source, path_prefix}.
 */
static int
walk_call(cg_fed *f, const char *op, json_t *args, const char *prefix,
          const char *const *src, size_t nsrc, json_t **out, json_t **scope,
          cg_err *err)
{
	struct pscope p;
	int rc = pscope_init(f, prefix, src, nsrc, &p, err);

	*out = NULL;
	*scope = NULL;
	if (rc == 0) {
		json_object_set_new(args, "prefix", json_string(p.path));
		rc = cg_fed_call(f, op, args, p.sources, p.nsources, out, err);
	}
	if (rc == CG_EINVAL && p.guessed) {
		cg_err_clear(err);
		rc = pscope_fallback(&p, prefix, src, nsrc, err);
		if (rc == 0) {
			json_object_set_new(args, "prefix",
			                    json_string(p.path));
			rc = cg_fed_call(f, op, args, p.sources, p.nsources,
			                 out, err);
		}
	}
	if (rc == 0)
		*scope = json_pack("{s:o, s:s}", "source",
		                   p.named ? json_string(p.named) : json_null(),
		                   "path_prefix", p.path);
	pscope_fini(&p);
	return rc;
}

/* --- evidence --------------------------------------------------------------
 */

/* {sources_asked, sources_answered, nodes[{node, sources, outcome}],
 * degraded} of a cg_fed_call answer, every source named "ws/source"
 * (cg_uri_qname); a followup per silent node. */
static json_t *
walk_evidence(const json_t *call, json_t *fu)
{
	json_t *asked = json_array();
	json_t *answered = json_array();
	json_t *nodes = json_array();
	const json_t *n;
	size_t i;

	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		json_t *srcs = cg_uri_qnames(cg_json_str(n, "workspace"),
		                             json_object_get(n, "sources"));
		bool ok = json_object_get(n, "result") != NULL;

		json_array_extend(asked, srcs);
		if (ok)
			json_array_extend(answered, srcs);
		json_array_append_new(
		    nodes, json_pack("{s:s, s:o, s:s}", "node",
		                     cg_json_str(n, "node"), "sources", srcs,
		                     "outcome", cg_json_str(n, "outcome")));
		if (!ok) {
			char msg[600];

			(void)snprintf(msg, sizeof(msg),
			               "node %s did not answer (%s): its "
			               "sources are missing from this answer",
			               cg_json_str(n, "node"),
			               cg_json_str(n, "outcome"));
			followup(fu, "node", msg);
		}
	}
	return json_pack("{s:o, s:o, s:o, s:O}", "sources_asked", asked,
	                 "sources_answered", answered, "nodes", nodes,
	                 "degraded", json_object_get(call, "degraded"));
}

/* --- sorting ---------------------------------------------------------------
 */

static int
cmp_uri_line(const void *pa, const void *pb)
{
	const json_t *a = *(const json_t *const *)pa;
	const json_t *b = *(const json_t *const *)pb;
	int c = strcmp(cg_json_str(a, "uri"), cg_json_str(b, "uri"));
	int64_t la = int_of(a, "line");
	int64_t lb = int_of(b, "line");

	if (c != 0)
		return c;
	return la < lb ? -1 : la > lb;
}

/* Every item of result[key] of every node that answered, tagged. */
static json_t *
gather(const cg_fed *f, const json_t *call, const char *key)
{
	json_t *all = json_array();
	const json_t *n;
	size_t i;

	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		const json_t *it;
		size_t k;

		json_array_foreach(
		    json_object_get(json_object_get(n, "result"), key), k, it)
			json_array_append_new(all, tag_item(f, n, it));
	}
	return all;
}

static int64_t
sum_of(const json_t *call, const char *key)
{
	const json_t *n;
	size_t i;
	int64_t s = 0;

	json_array_foreach(json_object_get(call, "nodes"), i, n)
		s += int_of(json_object_get(n, "result"), key);
	return s;
}

/* --- list ------------------------------------------------------------------
 */

static json_t *
list_args(const cg_list_req *r, int limit)
{
	return json_pack("{s:o, s:i, s:i}", "filters",
	                 cg_filters_json(&r->filters), "limit", limit, "offset",
	                 r->offset);
}

static json_t *
list_answer(const cg_list_req *r, int limit, json_t *call, json_t *scope,
            json_t *items)
{
	json_t *fu = json_array();
	json_t *ev = walk_evidence(call, fu);
	int64_t total = sum_of(call, "total");
	int64_t next = (int64_t)r->offset + limit;
	json_t *as = json_array();

	json_array_append_new(
	    as,
	    json_string(
	        "sorted by uri; the prefix is a string prefix of the path from the "
	        "repository root or from the wiki folder"));
	if (r->limit == 0)
		json_array_append_new(as, json_string("limit defaulted to 50"));
	if (next < total) {
		char msg[160];

		(void)snprintf(msg, sizeof(msg),
		               "%lld more page(s): list again with --offset "
		               "%lld",
		               (long long)(total - next), (long long)next);
		followup(fu, "more", msg);
	} else if (total == 0) {
		followup(fu, "empty",
		         "no page under this prefix and filters; `map` shows "
		         "the sources and categories there are");
	}
	return json_pack(
	    "{s:s, s:o, s:o, s:i, s:i, s:I, s:o, s:o, s:o, s:o, "
	    "s:o}",
	    "prefix", r->prefix ? r->prefix : "", "scope", scope, "filters",
	    cg_filters_json(&r->filters), "limit", limit, "offset", r->offset,
	    "total", (json_int_t)total, "next_offset",
	    next < total ? json_integer(next) : json_null(), "items", items,
	    "evidence", ev, "assumptions", as, "followups", fu);
}

int
cg_fed_list(cg_fed *fed, const cg_list_req *req, json_t **out, cg_err *err)
{
	int limit = req->limit == 0 ? CG_LIST_DEFAULT_LIMIT : req->limit;
	json_t *call = NULL;
	json_t *scope = NULL;
	json_t *args;
	json_t *all;
	json_t *items;
	int rc;

	*out = NULL;
	if (limit < 1 || limit > CG_LIST_MAX_LIMIT || req->offset < 0 ||
	    req->offset > CG_LIST_MAX_OFFSET)
		return cg_err_set(err, CG_EINVAL,
		                  "limit must be 1-%d and offset 0-%d",
		                  CG_LIST_MAX_LIMIT, CG_LIST_MAX_OFFSET);
	rc = cg_filters_validate(&req->filters, err);
	if (rc != 0)
		return rc;
	args = list_args(req, limit);
	rc = walk_call(fed, "list", args, req->prefix, req->sources,
	               req->nsources, &call, &scope, err);
	json_decref(args);
	if (rc != 0)
		return rc;
	all = gather(fed, call, "items");
	items = cg_merge_slice(all, cmp_uri_line, (size_t)req->offset,
	                       (size_t)limit);
	json_decref(all);
	*out = items ? list_answer(req, limit, call, scope, items) : NULL;
	json_decref(call);
	if (*out == NULL)
		return cg_err_set(err, CG_ENOMEM, "list: out of memory");
	return 0;
}

/* --- map --------------------------------------------------------------------
 */

/* The sources of every node that answered, each with its workspace: the
 * planner's input. */
static json_t *
map_sources(const cg_fed *f, const json_t *call)
{
	json_t *all = json_array();
	const json_t *n;
	size_t i;

	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		const json_t *s;
		size_t k;

		json_array_foreach(
		    json_object_get(json_object_get(n, "result"), "sources"), k,
		    s) {
			json_t *c = json_copy((json_t *)s);

			json_object_set_new(c, "workspace",
			                    json_string(cg_fed_entry_ws(f, n)));
			json_array_append_new(all, c);
		}
	}
	return all;
}

static json_t *
map_answer(const cg_map_req *r, int budget, json_t *call, json_t *scope,
           json_t *body)
{
	json_t *fu = json_array();
	json_t *ev = walk_evidence(call, fu);
	json_t *as = json_array();
	json_t *head;

	json_array_append_new(
	    as,
	    json_string(
	        "budget counts characters (code points) of the text form, the "
	        "\"… N more\" lines included"));
	if (r->budget == 0)
		json_array_append_new(as,
		                      json_string("budget defaulted to 4000"));
	if (int_of(body, "pages_omitted") > 0)
		followup(fu, "more",
		         "pages were left out: raise --budget, narrow with a "
		         "prefix, or `list` the category");
	head = json_pack("{s:s, s:o, s:o, s:i}", "prefix",
	                 r->prefix ? r->prefix : "", "scope", scope, "filters",
	                 cg_filters_json(&r->filters), "budget", budget);
	json_object_update(head, body);
	json_decref(body);
	json_object_set_new(head, "evidence", ev);
	json_object_set_new(head, "assumptions", as);
	json_object_set_new(head, "followups", fu);
	return head;
}

int
cg_fed_map(cg_fed *fed, const cg_map_req *req, json_t **out, cg_err *err)
{
	int budget = req->budget == 0 ? CG_MAP_DEFAULT_BUDGET : req->budget;
	int per = budget / 7 + 1 < 5000 ? budget / 7 + 1 : 5000;
	json_t *call = NULL;
	json_t *scope = NULL;
	json_t *args;
	json_t *sources;
	json_t *body;
	int rc;

	*out = NULL;
	if (budget < CG_MAP_MIN_BUDGET || budget > CG_MAP_MAX_BUDGET)
		return cg_err_set(err, CG_EINVAL, "budget must be %d-%d",
		                  CG_MAP_MIN_BUDGET, CG_MAP_MAX_BUDGET);
	rc = cg_filters_validate(&req->filters, err);
	if (rc != 0)
		return rc;
	args = json_pack("{s:o, s:i}", "filters",
	                 cg_filters_json(&req->filters), "per_category", per);
	rc = walk_call(fed, "map", args, req->prefix, req->sources,
	               req->nsources, &call, &scope, err);
	json_decref(args);
	if (rc != 0)
		return rc;
	sources = map_sources(fed, call);
	body = sources ? cg_map_plan(sources, budget) : NULL;
	if (body != NULL)
		*out = map_answer(req, budget, call, scope, body);
	else
		json_decref(scope);
	json_decref(sources);
	json_decref(call);
	if (*out == NULL)
		return cg_err_set(err, CG_ENOMEM, "map: out of memory");
	return 0;
}

/* --- grep ------------------------------------------------------------------
 */

static int
grep_check(const cg_grep_req *r, int max, cg_err *err)
{
	cg_grep_opts o = {r->pattern, r->fixed, r->case_sensitive, 0, r->before,
	                  r->after,   0};
	cg_grep *g = NULL;
	int rc;

	if (max < 1 || max > CG_GREP_MAX_MAX)
		return cg_err_set(err, CG_EINVAL, "max must be 1-%d",
		                  CG_GREP_MAX_MAX);
	rc = cg_grep_new(&g, &o, err);
	cg_grep_free(g);
	return rc;
}

static json_t *
grep_assumptions(const cg_grep_req *r, const json_t *call)
{
	json_t *as = json_array();
	const json_t *n;
	size_t i;
	bool unicode = true;

	json_array_foreach(json_object_get(call, "nodes"), i, n)
		if (json_is_false(json_object_get(json_object_get(n, "result"),
		                                  "unicode")))
			unicode = false;
	json_array_append_new(
	    as,
	    json_string(
	        "the page files were read (not the index): every page, also those "
	        "too large to index; binary files and symlinks are skipped"));
	json_array_append_new(
	    as, json_string(r->fixed ? "literal match"
	                             : "PCRE2 regular expression (Perl "
	                               "syntax, Unicode \\w \\d \\b)"));
	if (!r->case_sensitive)
		json_array_append_new(
		    as, json_string(unicode ? "case-insensitive (Unicode "
		                              "simple case folding)"
		                            : "case-insensitive for ASCII "
		                              "only"));
	json_array_append_new(
	    as, json_string(
	            "lines over 1 MiB are examined in overlapping windows"));
	return as;
}

/* Bytes of text one kept match holds: its line and its context. */
static size_t
match_bytes(const json_t *m)
{
	static const char *const ctx[] = {"before", "after"};
	size_t n = strlen(cg_json_str(m, "text"));

	for (size_t k = 0; k < 2; k++) {
		const json_t *c;
		size_t i;

		json_array_foreach(json_object_get(m, ctx[k]), i, c)
			n += strlen(cg_json_str(c, "text"));
	}
	return n;
}

/* Cuts the merged matches at CG_GREP_KEEP_BYTES of text (the nodes each
 * kept as much); true when any was cut or a node cut its own. */
static bool
keep_bytes(json_t *matches, const json_t *call)
{
	const json_t *n;
	size_t kept = 0;
	size_t i;
	bool cut = false;

	for (i = 0; i < json_array_size(matches); i++) {
		kept += match_bytes(json_array_get(matches, i));
		if (kept > CG_GREP_KEEP_BYTES)
			break;
	}
	while (json_array_size(matches) > i) {
		json_array_remove(matches, json_array_size(matches) - 1);
		cut = true;
	}
	json_array_foreach(json_object_get(call, "nodes"), i, n)
		if (json_is_true(json_object_get(json_object_get(n, "result"),
		                                 "bytes_limited")))
			cut = true;
	return cut;
}

static json_t *
grep_answer(cg_fed *f, const cg_grep_req *r, int max, json_t *call,
            json_t *scope, json_t *matches)
{
	bool limited = keep_bytes(matches, call);
	json_t *fu = json_array();
	json_t *ev = walk_evidence(call, fu);
	json_t *files = gather(f, call, "files");
	json_t *skipped = gather(f, call, "skipped");
	json_t *file;
	size_t i;
	int64_t total = 0;
	json_t *o;

	json_array_foreach(files, i, file)
		total += int_of(file, "matches");
	if (limited)
		followup(fu, "bytes_limited",
		         "matches were left out to keep the answer under its "
		         "size limit: narrow the pattern or prefix, or ask for "
		         "less context");
	else if (total > (int64_t)json_array_size(matches))
		followup(fu, "more",
		         "more matching lines than returned: raise --max or "
		         "narrow the pattern or prefix");
	if (sum_of(call, "skipped_total") > 0)
		followup(fu, "skipped",
		         "some files were not searched (see skipped)");
	o = json_pack("{s:s, s:b, s:b, s:i, s:s, s:o, s:o, s:I, s:I, s:b}",
	              "pattern", r->pattern, "fixed", r->fixed,
	              "case_sensitive", r->case_sensitive, "max", max, "prefix",
	              r->prefix ? r->prefix : "", "scope", scope, "matches",
	              matches, "total", (json_int_t)total, "files_with_matches",
	              (json_int_t)json_array_size(files), "truncated",
	              limited || total > (int64_t)json_array_size(matches));
	if (limited)
		json_object_set_new(o, "bytes_limited", json_true());
	if (r->before > 0 || r->after > 0) {
		json_object_set_new(o, "before", json_integer(r->before));
		json_object_set_new(o, "after", json_integer(r->after));
	}
	json_object_set_new(o, "files_searched",
	                    json_integer(sum_of(call, "files_searched")));
	json_object_set_new(o, "bytes_searched",
	                    json_integer(sum_of(call, "bytes_searched")));
	json_object_set_new(o, "windowed_lines",
	                    json_integer(sum_of(call, "windowed_lines")));
	json_object_set_new(o, "skipped", skipped);
	json_object_set_new(o, "skipped_total",
	                    json_integer(sum_of(call, "skipped_total")));
	json_object_set_new(o, "evidence", ev);
	json_object_set_new(o, "assumptions", grep_assumptions(r, call));
	json_object_set_new(o, "followups", fu);
	json_decref(files);
	return o;
}

int
cg_fed_grep(cg_fed *fed, const cg_grep_req *req, json_t **out, cg_err *err)
{
	int max = req->max == 0 ? CG_GREP_DEFAULT_MAX : req->max;
	json_t *call = NULL;
	json_t *scope = NULL;
	json_t *args;
	json_t *all;
	json_t *matches;
	int rc;

	*out = NULL;
	rc = grep_check(req, max, err);
	if (rc == 0)
		rc = cg_gate_enter(cg_fed_grep_gate(fed), err);
	if (rc != 0)
		return rc;
	args = json_pack("{s:s, s:b, s:b, s:i}", "pattern", req->pattern,
	                 "fixed", req->fixed, "case_sensitive",
	                 req->case_sensitive, "max", max);
	if (args != NULL && (req->before > 0 || req->after > 0)) {
		json_object_set_new(args, "before", json_integer(req->before));
		json_object_set_new(args, "after", json_integer(req->after));
	}
	rc = walk_call(fed, "grep", args, req->prefix, req->sources,
	               req->nsources, &call, &scope, err);
	json_decref(args);
	if (rc != 0) {
		cg_gate_leave(cg_fed_grep_gate(fed));
		return rc;
	}
	all = gather(fed, call, "matches");
	matches = cg_merge_slice(all, cmp_uri_line, 0, (size_t)max);
	json_decref(all);
	*out =
	    matches ? grep_answer(fed, req, max, call, scope, matches) : NULL;
	json_decref(call);
	cg_gate_leave(cg_fed_grep_gate(fed));
	if (*out == NULL)
		return cg_err_set(err, CG_ENOMEM, "grep: out of memory");
	return 0;
}

/* --- status ----------------------------------------------------------------
 */

static void
status_totals(json_t *tot, const json_t *s, json_t *fu)
{
	static const char *const keys[] = {"pages", "sections", "problems",
	                                   "db_bytes"};
	char msg[300];

	json_object_set_new(tot, "sources",
	                    json_integer(int_of(tot, "sources") + 1));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (int_of(s, keys[i]) > 0)
			json_object_set_new(tot, keys[i],
			                    json_integer(int_of(tot, keys[i]) +
			                                 int_of(s, keys[i])));
	if (!json_is_true(json_object_get(s, "ready"))) {
		(void)snprintf(msg, sizeof(msg),
		               "source %s has no index yet: run `corpus-gw "
		               "index`",
		               cg_json_str(s, "source"));
		followup(fu, "index", msg);
	} else if (int_of(s, "problems") > 0) {
		(void)snprintf(msg, sizeof(msg),
		               "source %s: %lld file(s) could not be indexed "
		               "(search followups list them)",
		               cg_json_str(s, "source"),
		               (long long)int_of(s, "problems"));
		followup(fu, "problems", msg);
	}
}

int
cg_fed_status(cg_fed *fed, const char *const *sources, size_t nsources,
              json_t **out, cg_err *err)
{
	json_t *call = NULL;
	json_t *nodes = json_array();
	json_t *fu = json_array();
	json_t *tot =
	    json_pack("{s:i, s:i, s:i, s:i, s:i}", "sources", 0, "pages", 0,
	              "sections", 0, "problems", 0, "db_bytes", 0);
	const json_t *n;
	size_t i;
	int rc =
	    cg_fed_call(fed, "status", NULL, sources, nsources, &call, err);

	*out = NULL;
	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		json_t *srcs =
		    json_object_get(json_object_get(n, "result"), "sources");
		const json_t *s;
		size_t k;

		json_array_foreach(srcs, k, s)
			status_totals(tot, s, fu);
		json_array_append_new(
		    nodes, json_pack("{s:s, s:s, s:s, s:O}", "node",
		                     cg_json_str(n, "node"), "workspace",
		                     cg_fed_entry_ws(fed, n), "outcome",
		                     cg_json_str(n, "outcome"), "sources",
		                     srcs ? srcs : json_array()));
	}
	if (rc == 0)
		*out = json_pack("{s:s, s:o, s:o, s:o, s:o}", "workspace",
		                 cg_fed_workspace(fed), "nodes", nodes,
		                 "totals", tot, "evidence",
		                 walk_evidence(call, fu), "followups", fu);
	else {
		json_decref(nodes);
		json_decref(tot);
		json_decref(fu);
	}
	json_decref(call);
	if (rc == 0 && *out == NULL)
		return cg_err_set(err, CG_ENOMEM, "status: out of memory");
	return rc;
}
