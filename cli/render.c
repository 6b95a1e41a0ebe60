/*
 * render.c - search answers for people: one block per hit (title, facts,
 * where it came from, the snippet), then conflicts, followups and, on an
 * empty result, the note.  Machines use --json instead.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *
s(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

static void
render_hit(size_t i, const json_t *h, bool explain)
{
	const json_t *lr = json_object_get(h, "line_range");
	const char *snip = s(h, "snippet");

	printf("%zu. %s\n", i + 1, s(h, "title"));
	printf("   %s/%s  %s:%lld-%lld\n", s(h, "workspace"), s(h, "source"),
	       s(h, "path"), (long long)json_integer_value(json_array_get(lr, 0)),
	       (long long)json_integer_value(json_array_get(lr, 1)));
	printf("   %s", *s(h, "category") ? s(h, "category") : "uncategorised");
	if (*s(h, "confidence"))
		printf(" · %s confidence", s(h, "confidence"));
	if (*s(h, "updated_at"))
		printf(" · updated %s", s(h, "updated_at"));
	if (*s(h, "owner"))
		printf(" · owner %s", s(h, "owner"));
	if (json_is_true(json_object_get(h, "expired")))
		printf(" · EXPIRED %s", s(h, "expires_at"));
	printf(" · %s match\n", s(h, "match"));
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

static void
render_conflicts(const json_t *conflicts)
{
	size_t i;
	const json_t *c;

	if (json_array_size(conflicts) == 0)
		return;
	printf("\nConflicts (both sides shown; the rule picks a winner):\n");
	json_array_foreach(conflicts, i, c)
	{
		size_t k;
		const json_t *p;

		printf("- \"%s\": winner %s — %s\n", s(c, "title"),
		       s(c, "winner"), s(c, "resolution"));
		json_array_foreach(json_object_get(c, "pages"), k, p)
			printf("    %s (updated %s, confidence %s)\n",
			       s(p, "uri"),
			       *s(p, "updated_at") ? s(p, "updated_at") : "-",
			       *s(p, "confidence") ? s(p, "confidence") : "-");
	}
}

static void
render_evidence(const json_t *ev)
{
	const json_t *nodes = json_object_get(ev, "nodes");
	size_t i;
	const json_t *n;

	printf("\n%lld hit(s); %lld candidate section(s) walked in %zu "
	       "source(s)\n",
	       (long long)json_integer_value(json_object_get(ev, "hits_returned")),
	       (long long)json_integer_value(
		   json_object_get(ev, "candidates_walked")),
	       json_array_size(json_object_get(ev, "sources_asked")));
	json_array_foreach(nodes, i, n)
		if (strcmp(s(n, "outcome"), "ok") != 0)
			printf("  node %s: %s\n", s(n, "node"), s(n, "outcome"));
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
		printf("%s\n", s(ans, "note"));
	render_conflicts(json_object_get(ans, "conflicts"));
	if (json_array_size(fu) > 0) {
		printf("\nFollowups:\n");
		json_array_foreach(fu, i, h)
			printf("- [%s] %s%s%s\n", s(h, "kind"), s(h, "message"),
			       *s(h, "uri") ? " " : "", s(h, "uri"));
	}
	render_evidence(json_object_get(ans, "evidence"));
	if (explain)
		cli_print_json(json_object_get(ans, "evidence"));
}
