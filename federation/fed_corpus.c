/*
 * fed_corpus.c - aliases route and boost, bridges add related entries
 * (see fed_corpus.h).  Built on cg_fed_call: the nodes answer `concept`
 * and `corpus_graph` under the caller's scope and access rule.  It must
 * not know the search's internals (rounds, statistics): the search hands
 * it the hits and the query.
 */
#include "federation/fed_corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_json.h"

#define ROUTED_PER_TARGET 3
#define MAX_BRIDGED       2
/* Bridges looked at for MAX_BRIDGED groups: a bridge to a concept no
 * entry carries gives an empty group, which must not take a slot. */
#define BRIDGE_CANDIDATES 8
#define RELATED_PER       3

/* Merges every node's result[key] arrays into one new array. */
static json_t *
gather(const json_t *call, const char *key)
{
	json_t *out = json_array();
	const json_t *n;
	size_t i;

	json_array_foreach(json_object_get(call, "nodes"), i, n)
		json_array_extend(
		    out, json_object_get(json_object_get(n, "result"), key));
	return out;
}

static json_t *
call_op(cg_fed *f, const cg_corpus_query *q, const char *op, json_t *args)
{
	json_t *out = NULL;
	cg_err e;

	cg_err_clear(&e);
	if (cg_fed_call(f, op, args, q->sources, q->nsources, &out, &e) != 0)
		out = NULL;
	json_decref(args);
	return out;
}

/* True when hit h belongs to corpus:concept. */
static bool
in_concept(const json_t *h, const char *corpus, const char *concept)
{
	const json_t *c = json_object_get(h, "corpus");
	const json_t *k;
	size_t i;

	if (c == NULL || strcmp(cg_json_str(h, "source"), corpus) != 0)
		return false;
	json_array_foreach(json_object_get(c, "concepts"), i, k)
		if (json_is_string(k) &&
		    strcmp(json_string_value(k), concept) == 0)
			return true;
	return false;
}

static bool
has_hit(const json_t *hits, const char *source, const char *path)
{
	const json_t *h;
	size_t i;

	json_array_foreach(hits, i, h) {
		const char *s = json_string_value(json_object_get(h, "source"));
		const char *p = json_string_value(json_object_get(h, "path"));

		if (s && p && strcmp(s, source) == 0 && strcmp(p, path) == 0)
			return true;
	}
	return false;
}

/* The entries of targets (a new array of {corpus, concept}), uri set. */
static json_t *
entries_of(cg_fed *f, const cg_corpus_query *q, json_t *targets, int limit)
{
	json_t *call = call_op(
	    f, q, "concept",
	    json_pack("{s:o, s:i}", "targets", targets, "limit", limit));
	json_t *out = json_array();
	const json_t *n;
	size_t i;

	json_array_foreach(json_object_get(call, "nodes"), i, n) {
		const char *ws =
		    json_string_value(json_object_get(n, "workspace"));
		const json_t *e;
		size_t k;

		json_array_foreach(
		    json_object_get(json_object_get(n, "result"), "entries"), k,
		    e) {
			json_t *c = json_deep_copy(e);

			cg_fed_tag(c, ws ? ws : "");
			json_array_append_new(out, c);
		}
	}
	json_decref(call);
	return out;
}

static void
boost(json_t *hits, const json_t *alias)
{
	const char *corpus =
	    json_string_value(json_object_get(alias, "corpus"));
	const char *concept =
	    json_string_value(json_object_get(alias, "concept"));
	json_t *h;
	size_t i;

	json_array_foreach(hits, i, h) {
		if (!corpus || !concept || !in_concept(h, corpus, concept) ||
		    json_object_get(h, "alias") != NULL)
			continue;
		json_object_set_new(
		    h, "score",
		    json_real(2 *
		              json_number_value(json_object_get(h, "score"))));
		json_object_set(h, "alias", json_object_get(alias, "alias"));
	}
}

/* A routed entry as a hit of class "alias". */
static json_t *
routed_hit(const json_t *e, const char *alias)
{
	json_t *h = json_deep_copy(e);

	json_object_set_new(h, "match", json_string("alias"));
	json_object_set_new(h, "match_rank", json_integer(2));
	json_object_set_new(h, "score", json_real(0));
	json_object_set_new(h, "alias", json_string(alias));
	json_object_set(h, "snippet", json_object_get(e, "summary"));
	json_object_set_new(h, "corpus",
	                    json_pack("{s:O, s:[O]}", "summary",
	                              json_object_get(e, "summary")
	                                  ? json_object_get(e, "summary")
	                                  : json_null(),
	                              "concepts",
	                              json_object_get(e, "concept")));
	json_object_del(h, "summary");
	json_object_del(h, "concept");
	return h;
}

/* The alias term that targets corpus:concept (aliases of one query). */
static const char *
alias_of(const json_t *aliases, const json_t *entry)
{
	const char *c = json_string_value(json_object_get(entry, "corpus"));
	const char *k = json_string_value(json_object_get(entry, "concept"));
	const json_t *a;
	size_t i;

	json_array_foreach(aliases, i, a) {
		const char *ac =
		    json_string_value(json_object_get(a, "corpus"));
		const char *ak =
		    json_string_value(json_object_get(a, "concept"));

		if (c && k && ac && ak && strcmp(c, ac) == 0 &&
		    strcmp(k, ak) == 0)
			return json_string_value(json_object_get(a, "alias"));
	}
	return "";
}

/* Adds the entries of every alias target that are not hits yet, in one
 * concept round. */
static void
route(cg_fed *f, const cg_corpus_query *q, const json_t *aliases, json_t *hits)
{
	json_t *targets = json_array();
	json_t *es;
	const json_t *a;
	size_t i;

	json_array_foreach(aliases, i, a)
		json_array_append_new(
		    targets, json_pack("{s:O, s:O}", "corpus",
		                       json_object_get(a, "corpus"), "concept",
		                       json_object_get(a, "concept")));
	es = entries_of(f, q, targets, ROUTED_PER_TARGET);
	json_array_foreach(es, i, a) {
		const char *s = json_string_value(json_object_get(a, "source"));
		const char *p = json_string_value(json_object_get(a, "path"));

		if (s && p && !has_hit(hits, s, p))
			json_array_append_new(
			    hits, routed_hit(a, alias_of(aliases, a)));
	}
	json_decref(es);
}

void
cg_fed_corpus_route(cg_fed *f, const cg_corpus_query *q, json_t *hits,
                    json_t **graph)
{
	json_t *call =
	    call_op(f, q, "corpus_graph", json_pack("{s:s}", "q", q->text));
	const json_t *aliases;
	const json_t *a;
	size_t i;

	*graph = NULL;
	if (call == NULL)
		return;
	*graph =
	    json_pack("{s:o, s:o, s:o}", "aliases", gather(call, "aliases"),
	              "bridges", gather(call, "bridges"), "relationships",
	              gather(call, "relationships"));
	json_decref(call);
	aliases = json_object_get(*graph, "aliases");
	json_array_foreach(aliases, i, a)
		boost(hits, a);
	/* Routed entries match no filter: with filters, boost only. */
	if (json_array_size(aliases) > 0 && !q->filtered)
		route(f, q, aliases, hits);
}

/* --- related ----------------------------------------------------------- */

/* The bridges and relationships touching "corpus:concept", oriented so
 * that `to` is the other end. */
static void
bridges_of(const json_t *graph, const char *end, json_t *out)
{
	static const char *const keys[] = {"bridges", "relationships"};

	for (size_t k = 0; k < 2; k++) {
		const json_t *b;
		size_t i;

		json_array_foreach(json_object_get(graph, keys[k]), i, b) {
			const char *from =
			    json_string_value(json_object_get(b, "from"));
			const char *to =
			    json_string_value(json_object_get(b, "to"));
			json_t *o;

			if (!from || !to ||
			    (strcmp(from, end) != 0 && strcmp(to, end) != 0))
				continue;
			o = json_deep_copy(b);
			if (strcmp(to, end) == 0) {
				json_object_set_new(o, "from", json_string(to));
				json_object_set_new(o, "to", json_string(from));
			}
			json_array_append_new(out, o);
		}
	}
}

static bool
picked(const json_t *groups, const char *to)
{
	const json_t *g;
	size_t i;

	json_array_foreach(groups, i, g) {
		const char *t = json_string_value(
		    json_object_get(json_object_get(g, "bridge"), "to"));

		if (t && strcmp(t, to) == 0)
			return true;
	}
	return false;
}

/* Up to BRIDGE_CANDIDATES bridges reached from the hits' concepts, in
 * order. */
static json_t *
pick_bridges(const json_t *graph, const json_t *hits)
{
	json_t *groups = json_array();
	const json_t *h;
	size_t i;

	json_array_foreach(hits, i, h) {
		const char *src =
		    json_string_value(json_object_get(h, "source"));
		const json_t *k;
		size_t j;

		json_array_foreach(
		    json_object_get(json_object_get(h, "corpus"), "concepts"),
		    j, k) {
			char end[512];
			json_t *bs = json_array();
			const json_t *b;
			size_t m;

			(void)snprintf(
			    end, sizeof(end), "%s:%s", src ? src : "",
			    json_string_value(k) ? json_string_value(k) : "");
			bridges_of(graph, end, bs);
			json_array_foreach(bs, m, b) {
				const char *to =
				    json_string_value(json_object_get(b, "to"));

				if (json_array_size(groups) <
				        BRIDGE_CANDIDATES &&
				    !picked(groups, to))
					json_array_append_new(
					    groups,
					    json_pack("{s:O}", "bridge", b));
			}
			json_decref(bs);
		}
	}
	return groups;
}

/* {corpus, concept} of "corpus:concept", or NULL. */
static json_t *
target_of(const char *end)
{
	const char *colon = end ? strchr(end, ':') : NULL;

	if (colon == NULL)
		return NULL;
	return json_pack("{s:s%, s:s}", "corpus", end, (size_t)(colon - end),
	                 "concept", colon + 1);
}

/* Whether entry e belongs to target t. */
static bool
of_target(const json_t *e, const json_t *t)
{
	return t != NULL &&
	       json_equal(json_object_get(e, "corpus"),
	                  json_object_get(t, "corpus")) &&
	       json_equal(json_object_get(e, "concept"),
	                  json_object_get(t, "concept"));
}

/* The first MAX_BRIDGED groups that carry entries, in bridge order (takes
 * groups): an empty group (its concept has no entry, or only hits) is
 * dropped, never shown before a useful one.  NULL when memory ran out
 * (groups NULL, or a group could not be kept). */
static json_t *
with_entries(json_t *groups)
{
	json_t *out = json_array();
	json_t *g;
	size_t i;

	bool bad = groups == NULL || out == NULL;

	json_array_foreach(groups, i, g) {
		if (json_array_size(out) < MAX_BRIDGED &&
		    json_array_size(json_object_get(g, "entries")) > 0)
			bad |= json_array_append(out, g) != 0;
	}
	json_decref(groups);
	if (bad) {
		json_decref(out);
		return NULL;
	}
	return out;
}

json_t *
cg_fed_corpus_related(cg_fed *f, const cg_corpus_query *q, const json_t *graph,
                      const json_t *hits)
{
	json_t *groups = graph ? pick_bridges(graph, hits) : json_array();
	json_t *targets = json_array();
	json_t *es;
	json_t *g;
	size_t i;
	bool bad = targets == NULL;

	json_array_foreach(groups, i, g) {
		json_t *t = target_of(json_string_value(
		    json_object_get(json_object_get(g, "bridge"), "to")));

		if (json_array_append_new(targets, t ? t : json_null()) != 0) {
			json_decref(groups);
			groups = NULL;
			break;
		}
	}
	/* One concept round for every bridged concept. */
	es = json_array_size(groups) > 0
	         ? entries_of(f, q, json_incref(targets), RELATED_PER + 3)
	         : json_array();
	json_array_foreach(groups, i, g) {
		const json_t *t = json_array_get(targets, i);
		json_t *keep = json_array();
		const json_t *e;
		size_t k;

		json_array_foreach(es, k, e) {
			const char *s =
			    json_string_value(json_object_get(e, "source"));
			const char *p =
			    json_string_value(json_object_get(e, "path"));

			if (json_array_size(keep) < RELATED_PER && s && p &&
			    of_target(e, t) && !has_hit(hits, s, p) &&
			    json_array_append(keep, (json_t *)e) != 0)
				bad = true;
		}
		bad |=
		    es == NULL || json_object_set_new(g, "entries", keep) != 0;
	}
	if (bad) {
		json_decref(groups);
		groups = NULL;
	}
	json_decref(es);
	json_decref(targets);
	return with_entries(groups);
}
