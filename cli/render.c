/*
 * render.c - search answers for people: one block per hit (title, facts,
 * where it came from, the snippet), then conflicts, followups and, on an
 * empty result, the note.  Machines use --json instead.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/cg_json.h"

static void
render_hit(size_t i, const json_t *h, bool explain)
{
	const json_t *lr = json_object_get(h, "line_range");
	const char *snip = cg_json_str(h, "snippet");

	printf("%zu. %s\n", i + 1, cg_json_str(h, "title"));
	printf("   %s/%s  %s:%lld-%lld\n", cg_json_str(h, "workspace"),
	       cg_json_str(h, "source"), cg_json_str(h, "path"),
	       (long long)json_integer_value(json_array_get(lr, 0)),
	       (long long)json_integer_value(json_array_get(lr, 1)));
	printf("   %s", *cg_json_str(h, "category") ? cg_json_str(h, "category")
	                                            : "uncategorised");
	if (*cg_json_str(h, "confidence"))
		printf(" · %s confidence", cg_json_str(h, "confidence"));
	if (*cg_json_str(h, "updated_at"))
		printf(" · updated %s", cg_json_str(h, "updated_at"));
	if (*cg_json_str(h, "owner"))
		printf(" · owner %s", cg_json_str(h, "owner"));
	if (json_is_true(json_object_get(h, "expired")))
		printf(" · EXPIRED %s", cg_json_str(h, "expires_at"));
	if (json_is_true(json_object_get(h, "stale")))
		printf(" · STALE entry");
	printf(" · %s match\n", cg_json_str(h, "match"));
	if (json_object_get(h, "freshness") != NULL)
		printf("   note: %s\n",
		       cg_json_str(json_object_get(h, "freshness"), "note"));
	if (*snip) {
		printf("   ");
		for (const char *p = snip; *p; p++)
			(void)fputc(*p == '\n' ? ' ' : *p, stdout);
		printf("\n");
	}
	if (explain)
		printf("   score %.4f\n",
		       json_number_value(json_object_get(h, "score")));
}

/* Entries bridged from the hits' concepts (SPEC 4.3). */
static void
render_related(const json_t *related)
{
	const json_t *g;
	size_t i;

	json_array_foreach(related, i, g) {
		const json_t *b = json_object_get(g, "bridge");
		const json_t *e;
		size_t k;

		if (json_array_size(json_object_get(g, "entries")) == 0)
			continue;
		printf("\nRelated via %s -> %s (%s)%s%s:\n",
		       cg_json_str(b, "from"), cg_json_str(b, "to"),
		       cg_json_str(b, "type"),
		       *cg_json_str(b, "note") ? ": " : "",
		       cg_json_str(b, "note"));
		json_array_foreach(json_object_get(g, "entries"), k, e)
			printf("- %s  %s\n", cg_json_str(e, "title"),
			       cg_json_str(e, "uri"));
	}
}

static void
render_conflicts(const json_t *conflicts)
{
	size_t i;
	const json_t *c;

	if (json_array_size(conflicts) == 0)
		return;
	printf("\nConflicts (both sides shown; the rule picks a winner):\n");
	json_array_foreach(conflicts, i, c) {
		size_t k;
		const json_t *p;

		printf("- \"%s\": winner %s — %s\n", cg_json_str(c, "title"),
		       cg_json_str(c, "winner"), cg_json_str(c, "resolution"));
		json_array_foreach(json_object_get(c, "pages"), k, p)
			printf("    %s (updated %s, confidence %s)\n",
			       cg_json_str(p, "uri"),
			       *cg_json_str(p, "updated_at")
			           ? cg_json_str(p, "updated_at")
			           : "-",
			       *cg_json_str(p, "confidence")
			           ? cg_json_str(p, "confidence")
			           : "-");
	}
}

static void
render_evidence(const json_t *ev)
{
	const json_t *nodes = json_object_get(ev, "nodes");
	size_t i;
	const json_t *n;

	printf(
	    "\n%lld hit(s); %lld candidate section(s) walked in %zu "
	    "source(s)\n",
	    (long long)json_integer_value(json_object_get(ev, "hits_returned")),
	    (long long)json_integer_value(
	        json_object_get(ev, "candidates_walked")),
	    json_array_size(json_object_get(ev, "sources_asked")));
	json_array_foreach(nodes, i, n)
		if (strcmp(cg_json_str(n, "outcome"), "ok") != 0)
			printf("  node %s: %s\n", cg_json_str(n, "node"),
			       cg_json_str(n, "outcome"));
}

void
cli_render_search(const json_t *ans, bool explain)
{
	const json_t *hits = json_object_get(ans, "hits");
	const json_t *fu = json_object_get(ans, "followups");
	size_t i;
	const json_t *h;

	json_array_foreach(hits, i, h)
		render_hit(i, h, explain);
	if (json_array_size(hits) == 0)
		printf("%s\n", cg_json_str(ans, "note"));
	render_related(json_object_get(ans, "related"));
	render_conflicts(json_object_get(ans, "conflicts"));
	if (json_array_size(fu) > 0) {
		printf("\nFollowups:\n");
		json_array_foreach(fu, i, h)
			printf("- [%s] %s%s%s\n", cg_json_str(h, "kind"),
			       cg_json_str(h, "message"),
			       *cg_json_str(h, "uri") ? " " : "",
			       cg_json_str(h, "uri"));
	}
	render_evidence(json_object_get(ans, "evidence"));
	if (explain)
		cli_print_json(json_object_get(ans, "evidence"));
}
