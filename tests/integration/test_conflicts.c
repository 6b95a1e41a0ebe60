/*
 * test_conflicts.c - the contradiction rule of SPEC 4.2 end to end through
 * the CLI: older-high beats newer-medium (the guild lint fixture's case,
 * rebuilt with our own pages), newer wins otherwise, supersedes wins
 * outright, identical bodies are no conflict, a conflict between two
 * sub-guilds is found across sources when one page is a copy of the other
 * (the refund window), not when two repositories' pages only share a
 * title (their retry policies), and an explicit claim key pairs pages
 * wherever they are.
 */
#include <stdlib.h>
#include <string.h>

#include "cgfixture.h"
#include "cgtest.h"

static char *ws;
static char *cache;

static const char *
s(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

static int
setup(void **state)
{
	ws = cgt_tmpdir("conflicts");
	cache = cgt_tmpdir("conflicts-cache");
	cgt_page(ws, ".guild/wiki/standards/tab-width-a.md",
	         "type: standard\nowner: architect\nconfidence: high\n"
	         "source_refs: []\ncreated_at: 2026-01-01\n"
	         "updated_at: 2026-01-01\nexpires_at: null\n"
	         "supersedes: null\nsensitivity: internal",
	         "# Indent Width Standard\n\n## Summary\nOur services indent "
	         "with TWO spaces per level.\n");
	cgt_page(ws, ".guild/wiki/standards/tab-width-b.md",
	         "type: standard\nowner: architect\nconfidence: medium\n"
	         "source_refs: []\ncreated_at: 2026-04-01\n"
	         "updated_at: 2026-04-01\nexpires_at: null\n"
	         "supersedes: null\nsensitivity: internal",
	         "# Indent Width Standard\n\n## Summary\nOur services indent "
	         "with FOUR spaces per level.\n");
	cgt_page(ws, ".guild/wiki/decisions/queue-a.md",
	         "type: decision\nconfidence: medium\nupdated_at: 2026-02-01",
	         "# Message Queue Choice\n\nWe picked rabbitmq for the "
	         "message queue.\n");
	cgt_page(ws, ".guild/wiki/decisions/queue-b.md",
	         "type: decision\nconfidence: medium\nupdated_at: 2026-05-01",
	         "# Message Queue Choice\n\nWe picked nats for the message "
	         "queue.\n");
	cgt_page(ws, ".guild/wiki/concepts/retry-v1.md",
	         "type: concept\nconfidence: high\nupdated_at: 2026-03-01",
	         "# Retry Budget\n\nRetry budget is five attempts.\n");
	cgt_page(ws, ".guild/wiki/concepts/retry-v2.md",
	         "type: concept\nconfidence: low\nupdated_at: 2026-01-15\n"
	         "supersedes: [retry-v1]",
	         "# Retry Budget\n\nRetry budget is three attempts.\n");
	cgt_page(ws, ".guild/wiki/concepts/same-a.md",
	         "type: concept\nupdated_at: 2026-01-01",
	         "# Twin Page\n\nIdentical glossary text here.\n");
	cgt_page(ws, ".guild/wiki/concepts/same-b.md",
	         "type: concept\nupdated_at: 2026-02-01",
	         "# Twin Page\n\nIdentical glossary text here.\n");
	/* Two sub-guilds that disagree. */
	cgt_refund_conflict(ws);
	/* Two teams' own pages that share a title, not a subject: an
	 * implicit key across repositories, no copy, no conflict. */
	cgt_page(ws, "billing/.guild/wiki/standards/retry-policy.md",
	         "type: standard\nupdated_at: 2026-01-10",
	         "# Retry Policy\n\nCharges are retried once with the same "
	         "idempotency key; a declined card is never retried.\n");
	cgt_page(ws, "web/.guild/wiki/standards/retry-policy.md",
	         "type: standard\nupdated_at: 2026-03-10",
	         "# Retry Policy\n\nBrowser fetches back off exponentially "
	         "from 200 ms up to five attempts while offline.\n");
	/* An explicit claim key pairs pages wherever they are, whatever
	 * their titles and words. */
	cgt_page(ws, "billing/.guild/wiki/decisions/tls.md",
	         "type: decision\nclaim: minimum-tls\nupdated_at: 2026-01-01",
	         "# Billing transport\n\nWe require TLS 1.2 at least.\n");
	cgt_page(ws, "web/.guild/wiki/context/edge.md",
	         "type: context\nclaim: minimum-tls\nupdated_at: 2026-02-01",
	         "# Edge setup\n\nThe edge accepts only version 1.3 "
	         "handshakes.\n");
	return 0;
}

static int
teardown(void **state)
{
	cgt_rm(ws);
	cgt_rm(cache);
	free(ws);
	free(cache);
	return 0;
}

/* The one conflict of an answer whose title is title. */
static const json_t *
conflict_titled(const json_t *ans, const char *title)
{
	const json_t *found = NULL;
	size_t i;
	const json_t *c;
	int n = 0;

	json_array_foreach(json_object_get(ans, "conflicts"), i, c)
		if (strcmp(s(c, "title"), title) == 0) {
			found = c;
			n++;
		}
	assert_int_equal(n, 1);
	return found;
}

static int
has_conflict_followup(const json_t *ans)
{
	size_t i;
	const json_t *f;

	json_array_foreach(json_object_get(ans, "followups"), i, f)
		if (strcmp(s(f, "kind"), "conflict") == 0 &&
		    strstr(s(f, "message"), "lint") != NULL)
			return 1;
	return 0;
}

static void
test_older_high_wins(void **state)
{
	json_t *ans = cgt_query(ws, cache, "indent", "spaces", NULL);
	const json_t *c = conflict_titled(ans, "Indent Width Standard");
	const json_t *pages = json_object_get(c, "pages");

	assert_int_equal(json_array_size(pages), 2);
	assert_non_null(strstr(s(c, "winner"), "tab-width-a.md"));
	assert_string_equal(s(c, "resolution"), "older wins (high > medium)");
	assert_non_null(cgt_hit(ans, "tab-width-a.md"));
	assert_non_null(cgt_hit(ans, "tab-width-b.md"));
	for (size_t i = 0; i < 2; i++) {
		const json_t *p = json_array_get(pages, i);

		assert_true(strncmp(s(p, "uri"), "cg://", 5) == 0);
		assert_true(*s(p, "updated_at") != '\0');
		assert_true(*s(p, "confidence") != '\0');
	}
	assert_true(has_conflict_followup(ans));
	json_decref(ans);
}

static void
test_newer_wins(void **state)
{
	json_t *ans = cgt_query(ws, cache, "message", "queue", NULL);
	const json_t *c = conflict_titled(ans, "Message Queue Choice");

	assert_non_null(strstr(s(c, "winner"), "queue-b.md"));
	assert_string_equal(s(c, "resolution"),
	                    "newer wins (2026-05-01 > 2026-02-01)");
	json_decref(ans);
}

static void
test_supersedes_wins(void **state)
{
	json_t *ans = cgt_query(ws, cache, "retry budget", NULL);
	const json_t *c = conflict_titled(ans, "Retry Budget");

	assert_non_null(strstr(s(c, "winner"), "retry-v2.md"));
	assert_non_null(strstr(s(c, "resolution"), "supersedes"));
	json_decref(ans);
}

static void
test_same_body_no_conflict(void **state)
{
	json_t *ans = cgt_query(ws, cache, "glossary", NULL);

	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 2);
	assert_int_equal(json_array_size(json_object_get(ans, "conflicts")), 0);
	json_decref(ans);
}

static void
test_conflict_across_subguilds(void **state)
{
	json_t *ans = cgt_query(ws, cache, "refunds", NULL);
	const json_t *c = conflict_titled(ans, "Refund Window");
	const json_t *h = cgt_hit(ans, "standards/refunds.md");

	assert_non_null(h);
	assert_non_null(strstr(s(c, "winner"), "/billing/"));
	assert_string_equal(s(c, "resolution"), "older wins (high > medium)");
	json_decref(ans);
}

/* Same implicit key in two repositories, different pages: no conflict,
 * and no "run a lint pass" followup. */
static void
test_same_title_elsewhere_is_no_conflict(void **state)
{
	json_t *ans = cgt_query(ws, cache, "retry policy", NULL);
	size_t i;
	const json_t *h;
	int n = 0;

	json_array_foreach(json_object_get(ans, "hits"), i, h)
		n += strcmp(s(h, "title"), "Retry Policy") == 0;
	assert_int_equal(n, 2);
	json_array_foreach(json_object_get(ans, "conflicts"), i, h)
		assert_string_not_equal(s(h, "title"), "Retry Policy");
	json_decref(ans);
	/* their words alone: no conflict at all, no lint followup */
	ans = cgt_query(ws, cache, "idempotency OR offline", NULL);
	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 2);
	assert_int_equal(json_array_size(json_object_get(ans, "conflicts")), 0);
	assert_false(has_conflict_followup(ans));
	json_decref(ans);
}

static void
test_explicit_claim_across_repositories(void **state)
{
	json_t *ans = cgt_query(ws, cache, "tls", NULL);
	const json_t *c;

	assert_int_equal(json_array_size(json_object_get(ans, "conflicts")), 1);
	c = json_array_get(json_object_get(ans, "conflicts"), 0);
	assert_string_equal(s(c, "claim_key"), "claim:minimum-tls");
	assert_int_equal(json_array_size(json_object_get(c, "pages")), 2);
	assert_non_null(strstr(s(c, "winner"), "context/edge.md"));
	json_decref(ans);
}

static void
test_partner_outside_hits_still_listed(void **state)
{
	/* Only the FOUR page matches; its partner is listed anyway. */
	json_t *ans = cgt_query(ws, cache, "FOUR", NULL);
	const json_t *c = conflict_titled(ans, "Indent Width Standard");

	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 1);
	assert_int_equal(json_array_size(json_object_get(c, "pages")), 2);
	assert_non_null(strstr(s(c, "winner"), "tab-width-a.md"));
	json_decref(ans);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_older_high_wins),
	    cmocka_unit_test(test_newer_wins),
	    cmocka_unit_test(test_supersedes_wins),
	    cmocka_unit_test(test_same_body_no_conflict),
	    cmocka_unit_test(test_conflict_across_subguilds),
	    cmocka_unit_test(test_partner_outside_hits_still_listed),
	    cmocka_unit_test(test_same_title_elsewhere_is_no_conflict),
	    cmocka_unit_test(test_explicit_claim_across_repositories),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
