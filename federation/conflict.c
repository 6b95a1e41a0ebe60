/*
 * conflict.c - groups pages by claim key and picks each group's winner by
 * the SPEC 4.2 rule.  Pure: no I/O, works on JSON the nodes returned.
 *
 * Which pages a key pairs (the decision issue 12 asked for):
 * - an explicit key (frontmatter `claim`/`subject`, "claim:...") pairs
 *   every page that carries it, wherever it is: the authors said so;
 * - an implicit key (category + title) pairs two pages of the same source
 *   always, and two pages of different sources (repositories, sub-guilds)
 *   only when one is a copy of the other: their body word sets overlap by
 *   at least CG_COPY_SIMILARITY (Jaccard, estimated from the sketches of
 *   index/sketch.h).  Two teams' own "Retry policy" pages share a title,
 *   not a subject, and are not a conflict; the same standard pasted into
 *   two sub-guilds and then edited apart is.  A page without a sketch is
 *   not paired across sources.
 * The pages a key pairs form groups (pairing is transitive); each group
 * whose bodies differ is one conflict.  Out of memory gives NULL, never
 * a list short of a conflict.
 */
#include "federation/conflict.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_json.h"
#include "page/page.h"
#include "proto/filters.h"

/* Word-set overlap from which two pages of different sources sharing an
 * implicit key are copies of one page. */
#define CG_COPY_SIMILARITY 0.5

/* True when a's supersedes names b (by slug, path or title). */
static int
supersedes(const json_t *a, const json_t *b)
{
	const json_t *sup = json_object_get(a, "supersedes");
	size_t nslug;
	const char *slug = cg_page_slug(cg_json_str(b, "path"), &nslug);
	size_t i;
	const json_t *v;

	json_array_foreach(sup, i, v) {
		const char *s = json_string_value(v);
		size_t ls;
		size_t lp;
		const char *path = cg_json_str(b, "path");

		if (s == NULL || *s == '\0')
			continue;
		ls = strlen(s);
		lp = strlen(path);
		if ((ls == nslug && strncmp(s, slug, nslug) == 0) ||
		    strcmp(s, cg_json_str(b, "title")) == 0)
			return 1;
		if (lp >= ls && strcmp(path + lp - ls, s) == 0 &&
		    (lp == ls || path[lp - ls - 1] == '/'))
			return 1;
	}
	return 0;
}

/* Picks the better of a and b; writes why into why. */
static const json_t *
better(const json_t *a, const json_t *b, char *why, size_t n)
{
	const json_t *newer;
	const json_t *older;
	int cmp;

	if (supersedes(a, b) != supersedes(b, a)) {
		const json_t *w = supersedes(a, b) ? a : b;

		(void)snprintf(why, n, "supersedes wins (%s names %s)",
		               cg_json_str(w, "path"),
		               cg_json_str(w == a ? b : a, "path"));
		return w;
	}
	cmp =
	    strcmp(cg_json_str(a, "updated_at"), cg_json_str(b, "updated_at"));
	if (cmp == 0) {
		int ca =
		    cg_filters_confidence_rank(cg_json_str(a, "confidence"));
		int cb =
		    cg_filters_confidence_rank(cg_json_str(b, "confidence"));
		const json_t *w =
		    ca != cb ? (ca > cb ? a : b)
		    : strcmp(cg_json_str(a, "uri"), cg_json_str(b, "uri")) <= 0
		        ? a
		        : b;

		(void)snprintf(why, n, "same date, higher confidence wins (%s)",
		               ca != cb ? cg_json_str(w, "confidence")
		                        : "tie broken by uri");
		return w;
	}
	newer = cmp > 0 ? a : b;
	older = cmp > 0 ? b : a;
	if (strcmp(cg_json_str(older, "confidence"), "high") == 0 &&
	    strcmp(cg_json_str(newer, "confidence"), "high") != 0) {
		(void)snprintf(why, n, "older wins (high > %s)",
		               *cg_json_str(newer, "confidence")
		                   ? cg_json_str(newer, "confidence")
		                   : "unset");
		return older;
	}
	(void)snprintf(
	    why, n, "newer wins (%s > %s)", cg_json_str(newer, "updated_at"),
	    *cg_json_str(older, "updated_at") ? cg_json_str(older, "updated_at")
	                                      : "undated");
	return newer;
}

static json_t *
conflict_of(const json_t *group)
{
	const json_t *winner = json_array_get(group, 0);
	json_t *pages = json_array();
	char why[512] = "";
	size_t i;
	const json_t *p;

	json_array_foreach(group, i, p) {
		if (i > 0)
			winner = better(winner, p, why, sizeof(why));
		if (json_array_append_new(
		        pages,
		        json_pack("{s:s, s:s, s:s, s:s, s:s}", "uri",
		                  cg_json_str(p, "uri"), "source",
		                  cg_json_str(p, "source"), "path",
		                  cg_json_str(p, "path"), "updated_at",
		                  cg_json_str(p, "updated_at"), "confidence",
		                  cg_json_str(p, "confidence"))) != 0) {
			json_decref(pages);
			return NULL;
		}
	}
	return json_pack("{s:s, s:s, s:o, s:s, s:s}", "claim_key",
	                 cg_json_str(winner, "claim_key"), "title",
	                 cg_json_str(winner, "title"), "pages", pages, "winner",
	                 cg_json_str(winner, "uri"), "resolution", why);
}

/* Estimated Jaccard similarity of two sketches (equal positions); two
 * empty sketches (no words) are the same set. */
static double
similarity(const json_t *a, const json_t *b)
{
	size_t n = json_array_size(a);
	size_t same = 0;

	if (n == 0 || json_array_size(b) != n)
		return n == 0 && json_is_array(a) && json_is_array(b) &&
		               json_array_size(b) == 0
		           ? 1.0
		           : 0.0;
	for (size_t i = 0; i < n; i++)
		same += json_integer_value(json_array_get(a, i)) ==
		        json_integer_value(json_array_get(b, i));
	return (double)same / (double)n;
}

/* True when an implicit key pairs a and b (see the file header). */
static bool
paired(const json_t *a, const json_t *b)
{
	return strcmp(cg_json_str(a, "source"), cg_json_str(b, "source")) ==
	           0 ||
	       similarity(json_object_get(a, "sketch"),
	                  json_object_get(b, "sketch")) >= CG_COPY_SIMILARITY;
}

static size_t
find_root(size_t *up, size_t i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/* The group of an implicit key split into the sets of pages it pairs, as
 * a new array of arrays (each page in one). */
static json_t *
split_implicit(const json_t *group)
{
	size_t n = json_array_size(group);
	size_t *up = calloc(n ? n : 1, sizeof(*up));
	json_t *parts = json_object();
	json_t *out = json_array();

	for (size_t i = 0; up != NULL && i < n; i++)
		up[i] = i;
	for (size_t i = 0; up != NULL && i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (paired(json_array_get(group, i),
			           json_array_get(group, j)))
				up[find_root(up, i)] = find_root(up, j);
	bool bad = up == NULL || parts == NULL || out == NULL;

	for (size_t i = 0; !bad && i < n; i++) {
		char key[32];
		json_t *part;

		(void)snprintf(key, sizeof(key), "%zu", find_root(up, i));
		part = json_object_get(parts, key);
		if (part == NULL) {
			part = json_array();
			bad = json_object_set_new(parts, key, part) != 0 ||
			      json_array_append(out, part) != 0;
		}
		bad = bad ||
		      json_array_append(part, json_array_get(group, i)) != 0;
	}
	json_decref(parts);
	free(up);
	if (bad) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* True when the group holds at least two different bodies. */
static int
bodies_differ(const json_t *group)
{
	const char *first = cg_json_str(json_array_get(group, 0), "body_hash");
	size_t i;
	const json_t *p;

	json_array_foreach(group, i, p)
		if (strcmp(cg_json_str(p, "body_hash"), first) != 0)
			return 1;
	return 0;
}

json_t *
cg_conflicts_find(const json_t *pages)
{
	json_t *groups = json_object();
	json_t *out = json_array();
	const char *key;
	json_t *group;
	size_t i;
	const json_t *p;
	bool bad = groups == NULL || out == NULL;

	json_array_foreach(pages, i, p) {
		const char *k = cg_json_str(p, "claim_key");
		json_t *g;
		size_t j;
		const json_t *q;
		int dup = 0;

		if (*k == '\0')
			continue;
		g = json_object_get(groups, k);
		if (g == NULL) {
			g = json_array();
			bad |= json_object_set_new(groups, k, g) != 0;
		}
		json_array_foreach(g, j, q)
			dup |= strcmp(cg_json_str(q, "uri"),
			              cg_json_str(p, "uri")) == 0;
		if (!dup)
			bad |= json_array_append(g, (json_t *)p) != 0;
	}
	json_object_foreach(groups, key, group) {
		json_t *parts;
		size_t k;
		const json_t *part;

		if (strncmp(key, "claim:", 6) == 0) {
			if (json_array_size(group) >= 2 && bodies_differ(group))
				bad |= json_array_append_new(
				           out, conflict_of(group)) != 0;
			continue;
		}
		parts = split_implicit(group);
		bad |= parts == NULL;
		json_array_foreach(parts, k, part) {
			if (json_array_size(part) >= 2 && bodies_differ(part))
				bad |= json_array_append_new(
				           out, conflict_of(part)) != 0;
		}
		json_decref(parts);
	}
	json_decref(groups);
	if (bad) {
		json_decref(out);
		return NULL;
	}
	return out;
}
