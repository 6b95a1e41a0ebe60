/*
 * test_walk_tools.c - `corpus-gw list|map|grep|status` on a workspace of
 * two sub-guilds and a root wiki, through the real binary: list filters,
 * prefixes and paging across sources; map cut to a small budget with the
 * omitted counts; status fields; grep (issue 3, acceptance 6) giving the
 * same file:line set as the real ripgrep for a CJK literal and English
 * regexes, --fixed, --case-sensitive, --max truncation, an invalid regex,
 * a symlink out of the wiki not followed, a page over 8 MiB searched and
 * a CJK phrase the index cannot find (the page is too large) found.
 *
 * ripgrep is installed by scripts/install-deps.  Without it the tests
 * that compare with it are skipped and the binary exits 77 (ctest's
 * SKIP_RETURN_CODE) after saying why, so the gap is never silent.
 */
#include <sys/wait.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgtest.h"
#include "common/cg_buf.h"
#include "common/cg_fs.h"

static char *ws;      /* the workspace */
static char *cache;   /* its index cache */
static char *wsname;  /* its name (basename) */
static char *outside; /* a folder outside the workspace */

/* --- fixture ---------------------------------------------------------------
 */

static const char *const pages[][3] = {
    {"billing/.guild/wiki/decisions/pricing.md",
     "type: decision\nconfidence: high\nupdated_at: 2026-01-10\nowner: Ann\n"
     "tags: [money, pricing]",
     "# Pricing per seat\n\nWe deploy the pricing service weekly.\n"
     "Redeployed a hotfix on Friday.\n"},
    {"billing/.guild/wiki/decisions/refunds.md",
     "type: decision\nconfidence: low\nupdated_at: 2025-06-01\n"
     "tags: [money]",
     "# Refunds\n\nDEPLOYING the refund worker needs a review.\r\n"
     "Refunds are rare.\r\n"},
    {"billing/.guild/wiki/decisions/invoices.md",
     "type: decision\nconfidence: medium\nupdated_at: 2026-02-01",
     "# Invoices\n\nInvoices are monthly; we deployed a new template.\n"},
    {"billing/.guild/wiki/concepts/ledger.md",
     "type: concept\nconfidence: medium\nupdated_at: 2026-01-01",
     "# Ledger\n\nThe ledger is append only. 与三张资格证相关的要求。\n"},
    {"search/.guild/wiki/decisions/ranking.md",
     "type: decision\nconfidence: high\nupdated_at: 2026-03-01\nowner: ann",
     "# Ranking with BM25F\n\nDeploy a ranking change behind a flag.\n"
     "bm25f weights: title 4.\n"},
    {"search/.guild/wiki/decisions/tokenizer.md",
     "type: decision\nconfidence: medium\nupdated_at: 2025-01-01",
     "# Tokenizer\n\nDeployment of the tokenizer is manual.\n"},
    {"search/.guild/wiki/concepts/bm25.md", "type: concept",
     "# BM25\n\nBM25F scores sections.\nNothing to deploy here\n"},
    {"search/.guild/wiki/concepts/cjk.md", "type: concept",
     "# 中文检索\n\n每个汉字是一个词元。三张资格证\n"
     "资格证书与资格证明不同。\n"},
    {".guild/wiki/context/team.md", "type: context",
     "# Team\n\nThe team deploys on Tuesdays.\nno match here\n"},
};

#define NPAGES     (sizeof(pages) / sizeof(pages[0]))
#define HUGE_PAGE  "billing/.guild/wiki/concepts/huge.md"
#define HUGE_LINES 400000 /* "filler line NNNNNN of the huge page\n" */
#define HUGE_CJK   "量子纠缠协议的资格证"

/* A page of over 8 MiB (too large to index) with one CJK line near the
 * end, at line HUGE_LINES - 9. */
static void
write_huge(void)
{
	cg_buf b;

	cg_buf_init(&b, 64u << 20);
	for (int i = 1; i <= HUGE_LINES; i++) {
		if (i == HUGE_LINES - 9)
			(void)cg_buf_printf(&b, "这里是%s。\n", HUGE_CJK);
		else
			(void)cg_buf_printf(&b,
			                    "filler line %06d of the huge "
			                    "page\n",
			                    i);
	}
	assert_true(b.len > (8u << 20));
	cgt_write_bytes(ws, HUGE_PAGE, b.data, b.len);
	cg_buf_fini(&b);
}

static void
write_hostile(void)
{
	char *link;
	char *target;

	/* a binary page (NUL) and symlinks out of the wiki */
	cgt_write_bytes(ws, "search/.guild/wiki/concepts/blob.md",
	                "bin\0ary SECRETWORD\n", 19);
	cgt_write(outside, "secret.md", "SECRETWORD outside the wiki\n");
	cgt_write(outside, "dir/inner.md", "SECRETWORD in a linked folder\n");
	link = cg_path_join(ws, "search/.guild/wiki/concepts/evil.md");
	target = cg_path_join(outside, "secret.md");
	assert_int_equal(symlink(target, link), 0);
	free(link);
	free(target);
	link = cg_path_join(ws, "search/.guild/wiki/linked");
	target = cg_path_join(outside, "dir");
	assert_int_equal(symlink(target, link), 0);
	free(link);
	free(target);
}

static int
setup(void **state)
{
	cgt_escape_new("walk", &ws, &cache, &outside, &wsname);
	cgt_write(ws, "billing/.git/HEAD", "ref: refs/heads/main\n");
	cgt_write(ws, "search/.git/HEAD", "ref: refs/heads/main\n");
	for (size_t i = 0; i < NPAGES; i++)
		cgt_page(ws, pages[i][0], pages[i][1], pages[i][2]);
	write_huge();
	write_hostile();
	assert_int_equal(cgt_run(NULL, NULL, "index", "--workspace", ws,
	                         "--cache", cache, NULL),
	                 0);
	return 0;
}

static int
teardown(void **state)
{
	cgt_escape_free(ws, cache, outside, wsname);
	return 0;
}

/* --- running the binary ----------------------------------------------------
 */

/* grep --json's JSON Lines back as one answer: the summary object with
 * the match objects as "matches"; every line must be a JSON object with
 * a "type", matches first, one summary last. */
static json_t *
from_lines(const char *out)
{
	json_t *matches = json_array();
	json_t *ans = NULL;

	for (const char *p = out; *p != '\0';) {
		const char *nl = strchr(p, '\n');
		json_t *o;
		const char *type;

		assert_non_null(nl);
		o = json_loadb(p, (size_t)(nl - p), 0, NULL);
		assert_non_null(o);
		assert_null(ans); /* nothing after the summary */
		type = json_string_value(json_object_get(o, "type"));
		assert_non_null(type);
		if (strcmp(type, "summary") == 0)
			ans = o;
		else {
			assert_string_equal(type, "match");
			json_object_del(o, "type");
			json_array_append_new(matches, o);
		}
		p = nl + 1;
	}
	assert_non_null(ans);
	json_object_del(ans, "type");
	json_object_set_new(ans, "matches", matches);
	return ans;
}

/* Runs `corpus-gw CMD --json --workspace ws --cache cache ARGS...`,
 * checks the exit code and returns the JSON (NULL when want != 0). */
static json_t *
run_tool(int want, char **err_out, const char *cmd, ...)
{
	const char *argv[64] = {"corpus-gw", cmd,       "--json", "--workspace",
	                        ws,          "--cache", cache};
	size_t n = 7;
	char *out = NULL;
	char *err = NULL;
	json_t *ans = NULL;
	va_list ap;
	int rc;

	va_start(ap, cmd);
	for (const char *a = va_arg(ap, const char *); a != NULL && n < 63;
	     a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	rc = cgt_runv(&out, &err, argv);
	if (rc != want)
		fprintf(stderr, "%s exited %d (want %d): %s\n", cmd, rc, want,
		        err);
	assert_int_equal(rc, want);
	if (strcmp(cmd, "grep") == 0 && want <= 1)
		ans = from_lines(out);
	else if (want == 0) {
		ans = json_loads(out, 0, NULL);
		if (ans == NULL)
			fprintf(stderr, "not JSON:\n%s\n", out);
		assert_non_null(ans);
	}
	if (err_out != NULL)
		*err_out = err;
	else
		free(err);
	free(out);
	return ans;
}

/* The items as "source/file name" lines (names are unique per source). */
static char *
uris(const json_t *ans, const char *key)
{
	cg_buf b;
	const json_t *it;
	size_t i;

	cg_buf_init(&b, 1u << 20);
	json_array_foreach(json_object_get(ans, key), i, it) {
		const char *u = json_string_value(json_object_get(it, "uri"));
		const char *src =
		    json_string_value(json_object_get(it, "source"));

		assert_non_null(u);
		(void)cg_buf_printf(&b, "%s/%s\n", src, strrchr(u, '/') + 1);
	}
	(void)cg_buf_puts(&b, "");
	return cg_buf_take(&b);
}

/* --- list ------------------------------------------------------------------
 */

static void
expect_list(const char *want, ...)
{
	const char *argv[32];
	size_t n = 0;
	va_list ap;
	json_t *ans;
	char *got;

	va_start(ap, want);
	for (const char *a = va_arg(ap, const char *); a != NULL && n < 31;
	     a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	ans = run_tool(0, NULL, "list", n > 0 ? argv[0] : NULL,
	               n > 1 ? argv[1] : NULL, n > 2 ? argv[2] : NULL,
	               n > 3 ? argv[3] : NULL, NULL);
	got = uris(ans, "items");
	if (strcmp(got, want) != 0)
		fprintf(stderr, "list %s %s: got\n%s\nwant\n%s\n",
		        n > 0 ? argv[0] : "", n > 1 ? argv[1] : "", got, want);
	assert_string_equal(got, want);
	free(got);
	json_decref(ans);
}

static void
test_list_filters(void **state)
{
	json_t *ans = run_tool(0, NULL, "list", NULL);
	const json_t *it;
	size_t i;
	const char *prev = "";

	/* every indexed page (the huge one is not), sorted by uri */
	assert_int_equal(json_integer_value(json_object_get(ans, "total")), 9);
	json_array_foreach(json_object_get(ans, "items"), i, it) {
		const char *u = json_string_value(json_object_get(it, "uri"));

		assert_true(strcmp(prev, u) < 0);
		assert_true(strncmp(u, "cg://", 5) == 0);
		assert_non_null(json_object_get(it, "title"));
		assert_non_null(json_object_get(it, "updated_at"));
		assert_non_null(json_object_get(it, "confidence"));
		prev = u;
	}
	assert_true(json_is_null(json_object_get(ans, "next_offset")));
	assert_int_equal(
	    json_array_size(json_object_get(json_object_get(ans, "evidence"),
	                                    "sources_answered")),
	    3);
	json_decref(ans);
	expect_list(
	    "billing/invoices.md\nbilling/pricing.md\n"
	    "billing/refunds.md\nsearch/ranking.md\nsearch/tokenizer.md\n",
	    "--category", "decision", NULL);
	expect_list("billing/pricing.md\nsearch/ranking.md\n", "--owner", "ANN",
	            NULL);
	expect_list("billing/pricing.md\nsearch/ranking.md\n", "--confidence",
	            "high", NULL);
	expect_list("billing/invoices.md\nbilling/pricing.md\n"
	            "search/ranking.md\n",
	            "--updated-since", "2026-01-05", NULL);
	expect_list("billing/pricing.md\nbilling/refunds.md\n", "--tag",
	            "Money", NULL);
	expect_list("billing/pricing.md\n", "--tag", "money", "--confidence",
	            "high", NULL);
}

static void
test_list_prefix(void **state)
{
	char uri[512];

	expect_list("billing/ledger.md\nbilling/invoices.md\n"
	            "billing/pricing.md\nbilling/refunds.md\n",
	            "billing/", NULL);
	expect_list(
	    "billing/invoices.md\nbilling/pricing.md\n"
	    "billing/refunds.md\nsearch/ranking.md\nsearch/tokenizer.md\n",
	    "decisions/", NULL);
	expect_list(
	    "billing/invoices.md\nbilling/pricing.md\n"
	    "billing/refunds.md\nsearch/ranking.md\nsearch/tokenizer.md\n",
	    ".guild/wiki/dec", NULL);
	expect_list("billing/ledger.md\n", "billing/concepts/", NULL);
	(void)snprintf(uri, sizeof(uri), "cg://%s/search/.guild/wiki/concepts/",
	               wsname);
	expect_list("search/bm25.md\nsearch/cjk.md\n", uri, NULL);
	(void)snprintf(uri, sizeof(uri), "cg://%s/search", wsname);
	expect_list("search/bm25.md\nsearch/cjk.md\nsearch/ranking.md\n"
	            "search/tokenizer.md\n",
	            uri, NULL);
	expect_list("", "nothing-here/", NULL);
}

static void
test_list_paging(void **state)
{
	json_t *all = run_tool(0, NULL, "list", "--category", "decision", NULL);
	char *want = uris(all, "items");
	cg_buf got;
	static const char *const offs[] = {"0", "2", "4"};
	static const int next[] = {2, 4, -1};

	cg_buf_init(&got, 1u << 16);
	for (int i = 0; i < 3; i++) {
		json_t *page =
		    run_tool(0, NULL, "list", "--category", "decision",
		             "--limit", "2", "--offset", offs[i], NULL);
		char *u = uris(page, "items");
		const json_t *nx = json_object_get(page, "next_offset");

		assert_int_equal(
		    json_integer_value(json_object_get(page, "total")), 5);
		if (next[i] < 0)
			assert_true(json_is_null(nx));
		else
			assert_int_equal(json_integer_value(nx), next[i]);
		(void)cg_buf_puts(&got, u);
		free(u);
		json_decref(page);
	}
	assert_string_equal(cg_buf_str(&got), want);
	cg_buf_fini(&got);
	free(want);
	json_decref(all);
}

static void
test_list_errors(void **state)
{
	char *err = NULL;
	char uri[512];

	run_tool(2, &err, "list", "--category", "decisions", NULL);
	assert_non_null(strstr(err, "decision"));
	free(err);
	run_tool(2, NULL, "list", "--limit", "0", NULL);
	run_tool(2, NULL, "list", "--updated-since", "2026-13-01", NULL);
	(void)snprintf(uri, sizeof(uri), "cg://not-%s/billing/", wsname);
	run_tool(2, &err, "list", uri, NULL);
	assert_non_null(strstr(err, "unknown source"));
	free(err);
	run_tool(2, NULL, "list", "a", "b", NULL);
}

/* --- map -------------------------------------------------------------------
 */

static size_t
chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Checks one map answer: within budget, and every level's counts add
 * up (shown + omitted = all); returns the titles shown. */
static int64_t
check_map(const json_t *ans, size_t budget)
{
	const char *text = json_string_value(json_object_get(ans, "text"));
	int64_t shown = 0;
	int64_t src_pages = 0;
	const json_t *s;
	size_t i;

	assert_true(chars(text) <= budget);
	assert_int_equal(json_integer_value(json_object_get(ans, "chars")),
	                 chars(text));
	json_array_foreach(json_object_get(ans, "sources"), i, s) {
		const json_t *c;
		size_t k;
		int64_t cat_pages = 0;

		json_array_foreach(json_object_get(s, "categories"), k, c) {
			int64_t t = (int64_t)json_array_size(
			    json_object_get(c, "titles"));
			int64_t p =
			    json_integer_value(json_object_get(c, "pages"));

			assert_int_equal(
			    p - t, json_integer_value(
			               json_object_get(c, "pages_omitted")));
			shown += t;
			cat_pages += p;
		}
		assert_int_equal(
		    json_integer_value(json_object_get(s, "pages")),
		    cat_pages + json_integer_value(json_object_get(
		                    s, "pages_in_omitted_categories")));
		src_pages += json_integer_value(json_object_get(s, "pages"));
	}
	assert_int_equal(src_pages + json_integer_value(json_object_get(
	                                 ans, "pages_in_omitted_sources")),
	                 9);
	assert_int_equal(
	    json_integer_value(json_object_get(ans, "pages_omitted")),
	    9 - shown);
	return shown;
}

#define MAP_100                                      \
	"root (1 page)\n  context (1)\n    - Team\n" \
	"… 2 more sources (8 pages)\n"
#define MAP_120                                                              \
	"root (1 page)\n  … 1 more category (1 page)\nbilling (4 pages)\n" \
	"  … 2 more categories (4 pages)\n… 1 more source (4 pages)\n"

static void
test_map_budget(void **state)
{
	static const char *const budgets[] = {"100", "120", "200", "260"};
	char *out = NULL;

	for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
		json_t *ans =
		    run_tool(0, NULL, "map", "--budget", budgets[i], NULL);
		const char *text =
		    json_string_value(json_object_get(ans, "text"));
		int64_t shown = check_map(ans, strtoul(budgets[i], NULL, 10));

		assert_int_equal(
		    json_integer_value(json_object_get(ans, "pages_total")), 9);
		assert_true(shown < 9);
		assert_non_null(strstr(text, " more "));
		if (i == 0) /* one source fits, with its one page */
			assert_string_equal(text, MAP_100);
		if (i == 1) /* sources first: two fit, no category */
			assert_string_equal(text, MAP_120);
		if (i == 3) /* every source, some titles, "more pages" */
			assert_non_null(strstr(text, "more pages\n"));
		json_decref(ans);
	}
	/* the text form prints the same text */
	assert_int_equal(cgt_run(&out, NULL, "map", "--workspace", ws,
	                         "--cache", cache, "--budget", "120", NULL),
	                 0);
	assert_string_equal(out, MAP_120);
	free(out);
}

static void
test_map_full(void **state)
{
	json_t *ans = run_tool(0, NULL, "map", NULL);
	const char *text = json_string_value(json_object_get(ans, "text"));

	assert_int_equal(
	    json_integer_value(json_object_get(ans, "pages_omitted")), 0);
	assert_null(strstr(text, "more"));
	for (size_t i = 0; i < NPAGES; i++) {
		const char *title = strchr(pages[i][2], ' ') + 1;
		char first[64];

		(void)snprintf(first, sizeof(first), "%.*s",
		               (int)strcspn(title, "\n"), title);
		if (strstr(text, first) == NULL)
			fprintf(stderr, "map lacks %s:\n%s\n", first, text);
		assert_non_null(strstr(text, first));
	}
	assert_non_null(strstr(text, "billing (4 pages)\n  concept (1)\n"));
	json_decref(ans);
	ans =
	    run_tool(0, NULL, "map", "search/", "--category", "concept", NULL);
	text = json_string_value(json_object_get(ans, "text"));
	assert_string_equal(text, "search (2 pages)\n  concept (2)\n"
	                          "    - BM25\n    - 中文检索\n");
	json_decref(ans);
	run_tool(2, NULL, "map", "--budget", "10", NULL);
}

/* --- status ----------------------------------------------------------------
 */

static void
test_status(void **state)
{
	json_t *ans = run_tool(0, NULL, "status", NULL);
	const json_t *n;
	size_t i;
	int64_t npages = 0;

	assert_string_equal(
	    json_string_value(json_object_get(ans, "workspace")), wsname);
	assert_int_equal(json_array_size(json_object_get(ans, "nodes")), 3);
	json_array_foreach(json_object_get(ans, "nodes"), i, n) {
		const json_t *s =
		    json_array_get(json_object_get(n, "sources"), 0);
		const char *name =
		    json_string_value(json_object_get(s, "source"));
		int64_t want = strcmp(name, "root") == 0 ? 1 : 4;

		assert_string_equal(
		    json_string_value(json_object_get(n, "outcome")), "ok");
		assert_true(json_is_true(json_object_get(s, "ready")));
		assert_true(
		    json_integer_value(json_object_get(s, "generation")) >= 1);
		assert_int_equal(
		    json_integer_value(json_object_get(s, "pages")), want);
		assert_true(
		    json_integer_value(json_object_get(s, "sections")) >= want);
		/* billing: the huge page; search: the binary one and the
		 * symlink; root: none */
		assert_int_equal(
		    json_integer_value(json_object_get(s, "problems")),
		    strcmp(name, "root") == 0      ? 0
		    : strcmp(name, "billing") == 0 ? 1
		                                   : 2);
		assert_int_equal(
		    strlen(json_string_value(json_object_get(s, "last_sync"))),
		    20);
		assert_true(
		    json_integer_value(json_object_get(s, "index_age_s")) >= 0);
		assert_true(json_integer_value(
		                json_object_get(s, "index_age_s")) < 600);
		assert_true(json_integer_value(
		                json_object_get(s, "generation_age_s")) >= 0);
		assert_true(json_integer_value(json_object_get(s, "db_bytes")) >
		            0);
		assert_int_equal(json_array_size(json_object_get(s, "errors")),
		                 0);
		npages += want;
	}
	assert_int_equal(json_integer_value(json_object_get(
	                     json_object_get(ans, "totals"), "pages")),
	                 npages);
	json_decref(ans);
	ans = run_tool(0, NULL, "status", "--source", "billing", NULL);
	assert_int_equal(json_array_size(json_object_get(ans, "nodes")), 1);
	json_decref(ans);
}

static void
test_status_unindexed(void **state)
{
	char *fresh = cgt_tmpdir("walk-fresh-cache");
	const char *argv[] = {"corpus-gw", "status",  "--json", "--workspace",
	                      ws,          "--cache", fresh,    NULL};
	char *out = NULL;
	json_t *ans;
	const json_t *s;

	assert_int_equal(cgt_runv(&out, NULL, argv), 0);
	ans = json_loads(out, 0, NULL);
	assert_non_null(ans);
	s = json_array_get(
	    json_object_get(json_array_get(json_object_get(ans, "nodes"), 0),
	                    "sources"),
	    0);
	assert_true(json_is_false(json_object_get(s, "ready")));
	assert_int_equal(json_array_size(json_object_get(s, "errors")), 1);
	assert_true(json_array_size(json_object_get(ans, "followups")) >= 1);
	json_decref(ans);
	free(out);
	cgt_rm(fresh);
	free(fresh);
}

/* --- grep against ripgrep --------------------------------------------------
 */

static bool
have_rg(void)
{
	const char *path = getenv("PATH");
	char dir[4096];

	while (path != NULL && *path != '\0') {
		size_t n = strcspn(path, ":");

		(void)snprintf(dir, sizeof(dir), "%.*s/rg", (int)n, path);
		if (access(dir, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* Runs argv (searched in PATH) and returns its stdout. */
static char *
capture(const char *const *argv)
{
	int fds[2];
	cg_buf b;
	char buf[65536];
	ssize_t n;
	pid_t pid;
	int status;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	cg_buf_init(&b, 1u << 28);
	while ((n = read(fds[0], buf, sizeof(buf))) != 0)
		if (n > 0)
			(void)cg_buf_append(&b, buf, (size_t)n);
		else if (errno != EINTR)
			break;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) <= 1);
	(void)cg_buf_puts(&b, "");
	return cg_buf_take(&b);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of s (modified), sorted, as a new string. */
static char *
sort_lines(char *s)
{
	static char *v[1u << 16];
	size_t n = 0;
	cg_buf b;

	for (char *p = s; *p != '\0' && n < sizeof(v) / sizeof(v[0]);) {
		char *nl = strchr(p, '\n');

		v[n++] = p;
		if (nl == NULL)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	qsort(v, n, sizeof(v[0]), cmp_str);
	cg_buf_init(&b, 1u << 24);
	for (size_t i = 0; i < n; i++)
		(void)cg_buf_printf(&b, "%s\n", v[i]);
	(void)cg_buf_puts(&b, "");
	return cg_buf_take(&b);
}

/* rg's "path:line:text" lines as sorted "rel/path:line" (rel to ws);
 * flags: NULL-terminated extra rg options. */
static char *
rg_set(const char *pattern, const char *const *flags)
{
	char *w[3] = {cg_path_join(ws, ".guild/wiki"),
	              cg_path_join(ws, "billing/.guild/wiki"),
	              cg_path_join(ws, "search/.guild/wiki")};
	const char *argv[32] = {"rg", "--no-config",  "--no-ignore", "-n",
	                        "-H", "--no-heading", "--color",     "never",
	                        "-g", "*.md"};
	size_t n = 10;
	size_t wl = strlen(ws) + 1;
	char *out;
	char *p;
	cg_buf b;

	for (; *flags != NULL; flags++)
		argv[n++] = *flags;
	argv[n++] = "-e";
	argv[n++] = pattern;
	for (int i = 0; i < 3; i++)
		argv[n++] = w[i];
	argv[n] = NULL;
	out = capture(argv);
	cg_buf_init(&b, 1u << 24);
	for (p = out; *p != '\0';) {
		char *nl = strchr(p, '\n');
		char *c1 = strlen(p) > wl ? strchr(p + wl, ':') : NULL;
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (c2 != NULL && strncmp(p, ws, wl - 1) == 0)
			(void)cg_buf_printf(&b, "%.*s\n", (int)(c2 - p - wl),
			                    p + wl);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	(void)cg_buf_puts(&b, "");
	free(out);
	for (int i = 0; i < 3; i++)
		free(w[i]);
	out = sort_lines(b.data);
	cg_buf_fini(&b);
	return out;
}

/* Our matches as sorted "rel/path:line". */
static char *
our_set(const json_t *ans)
{
	const json_t *m;
	size_t i;
	cg_buf b;
	char *out;

	cg_buf_init(&b, 1u << 24);
	json_array_foreach(json_object_get(ans, "matches"), i, m) {
		const char *src =
		    json_string_value(json_object_get(m, "source"));

		(void)cg_buf_printf(
		    &b, "%s%s%s:%lld\n", strcmp(src, "root") == 0 ? "" : src,
		    strcmp(src, "root") == 0 ? "" : "/",
		    json_string_value(json_object_get(m, "path")),
		    (long long)json_integer_value(json_object_get(m, "line")));
	}
	(void)cg_buf_puts(&b, "");
	out = sort_lines(b.data);
	cg_buf_fini(&b);
	return out;
}

/* Runs our grep with opts (NULL-terminated) and rg with rg_flags on the
 * same wikis; the file:line sets must be equal and hold at_least. */
static void
same_as_rg(const char *pattern, const char *const *opts,
           const char *const *rg_flags, size_t at_least)
{
	const char *argv[32] = {"corpus-gw",   "grep",  "--json",
	                        "--workspace", ws,      "--cache",
	                        cache,         "--max", "10000"};
	size_t n = 9;
	char *out = NULL;
	json_t *ans;
	char *ours;
	char *theirs;
	int rc;

	if (!have_rg())
		skip();
	for (; *opts != NULL; opts++)
		argv[n++] = *opts;
	argv[n++] = "--";
	argv[n++] = pattern;
	argv[n] = NULL;
	rc = cgt_runv(&out, NULL, argv);
	ans = from_lines(out);
	/* exit 0 when a line matched, 1 when none did (as rg) */
	assert_int_equal(
	    rc, json_array_size(json_object_get(ans, "matches")) > 0 ? 0 : 1);
	ours = our_set(ans);
	theirs = rg_set(pattern, rg_flags);
	if (strcmp(ours, theirs) != 0)
		fprintf(stderr, "grep %s: ours\n%s\nrg\n%s\n", pattern, ours,
		        theirs);
	assert_string_equal(ours, theirs);
	assert_true(json_array_size(json_object_get(ans, "matches")) >=
	            at_least);
	assert_false(json_is_true(json_object_get(ans, "truncated")));
	json_decref(ans);
	free(out);
	free(ours);
	free(theirs);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NONE      ((const char *const[]){NULL})

static void
test_grep_same_as_rg(void **state)
{
	/* CJK literal (also in the huge page), as a regex and --fixed */
	same_as_rg("资格证", NONE, ARGS("-i"), 4);
	same_as_rg("资格证", ARGS("--fixed"), ARGS("-F", "-i"), 4);
	/* English regexes, case-insensitive by default */
	same_as_rg("(re)?deploy(ed|ing|s|ment)? (the|a|of) [a-z]+", NONE,
	           ARGS("-i"), 6);
	same_as_rg("^# .*(pricing|ranking|team)", NONE, ARGS("-i"), 3);
	same_as_rg("filler line 0000[0-9]{2} of", NONE, ARGS("-i"), 99);
	same_as_rg("[[:upper:]]{2,}[0-9]", ARGS("--case-sensitive"), ARGS("-s"),
	           2);
	/* --case-sensitive, --fixed */
	same_as_rg("Deploy[a-z]*", ARGS("--case-sensitive"), ARGS("-s"), 2);
	same_as_rg("bm25f", ARGS("--fixed"), ARGS("-F", "-i"), 3);
	same_as_rg("BM25F", ARGS("--fixed", "--case-sensitive"),
	           ARGS("-F", "-s"), 2);
	same_as_rg("a.e", ARGS("--fixed"), ARGS("-F", "-i"), 0);
	/* PCRE2 syntax, as agents type it for rg */
	same_as_rg("line 0000\\d{2} of", NONE, ARGS("-i"), 99);
	same_as_rg("\\bdeploy\\w*", NONE, ARGS("-i"), 3);
	same_as_rg("(?i)bm25f", ARGS("-s"), ARGS("-s"), 3);
	same_as_rg("\\d+ times", ARGS("-i"), ARGS("-i"), 0);
}

/* Lines of file rel (under ws) as a new array of strings. */
static json_t *
file_lines(const char *rel)
{
	char *path = cg_path_join(ws, rel);
	FILE *f = fopen(path, "rb");
	json_t *v = json_array();
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	assert_non_null(f);
	while ((n = getline(&line, &cap, f)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		json_array_append_new(v, json_stringn(line, (size_t)n));
	}
	free(line);
	(void)fclose(f);
	free(path);
	return v;
}

/* -C/-B/-A: context lines are the file's own neighbours, each once. */
static void
test_grep_context(void **state)
{
	json_t *ans = run_tool(0, NULL, "grep", "-C", "2", "--fixed", "-s",
	                       HUGE_CJK, NULL);
	const json_t *m = json_array_get(json_object_get(ans, "matches"), 0);
	json_t *lines = file_lines(HUGE_PAGE);
	const json_t *c;
	size_t i;
	int64_t line = json_integer_value(json_object_get(m, "line"));

	assert_int_equal(json_array_size(json_object_get(m, "before")), 2);
	assert_int_equal(json_array_size(json_object_get(m, "after")), 2);
	json_array_foreach(json_object_get(m, "before"), i, c) {
		int64_t l = json_integer_value(json_object_get(c, "line"));

		assert_int_equal(l, line - 2 + (int64_t)i);
		assert_string_equal(
		    json_string_value(json_object_get(c, "text")),
		    json_string_value(json_array_get(lines, (size_t)l - 1)));
	}
	json_array_foreach(json_object_get(m, "after"), i, c)
		assert_int_equal(json_integer_value(json_object_get(c, "line")),
		                 line + 1 + (int64_t)i);
	json_decref(ans);
	/* -B 0 -A 1: after only; out of range is an error */
	ans = run_tool(0, NULL, "grep", "-A1", "--fixed", HUGE_CJK, NULL);
	m = json_array_get(json_object_get(ans, "matches"), 0);
	assert_null(json_object_get(m, "before"));
	assert_int_equal(json_array_size(json_object_get(m, "after")), 1);
	json_decref(ans);
	run_tool(2, NULL, "grep", "-C", "11", "x", NULL);
	json_decref(lines);
}

/* Lines of the wiki files holding needle (a plain scan: fopen, strstr,
 * binary files skipped, symlinks not followed), as sorted "path:line". */
static char *
plain_scan(const char *needle)
{
	char cmd[4096];
	char rel[2048];
	FILE *ls;
	cg_buf b;
	char *out;

	(void)snprintf(cmd, sizeof(cmd),
	               "cd '%s' && find . -path '*.guild/wiki/*' -type f "
	               "-name '*.md' | sed 's|^./||'",
	               ws);
	ls = popen(cmd, "r");
	assert_non_null(ls);
	cg_buf_init(&b, 1u << 24);
	while (fgets(rel, sizeof(rel), ls) != NULL) {
		char *path;
		FILE *f;
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		cg_buf hits;
		bool binary = false;

		rel[strcspn(rel, "\n")] = '\0';
		path = cg_path_join(ws, rel);
		f = fopen(path, "rb");
		free(path);
		assert_non_null(f);
		cg_buf_init(&hits, 1u << 20);
		for (size_t ln = 1; (n = getline(&line, &cap, f)) >= 0; ln++) {
			binary |= memchr(line, '\0', (size_t)n) != NULL;
			if (strstr(line, needle) != NULL)
				(void)cg_buf_printf(&hits, "%s:%zu\n", rel, ln);
		}
		if (!binary)
			(void)cg_buf_puts(&b, cg_buf_str(&hits));
		cg_buf_fini(&hits);
		free(line);
		(void)fclose(f);
	}
	(void)pclose(ls);
	(void)cg_buf_puts(&b, "");
	out = sort_lines(b.data);
	cg_buf_fini(&b);
	return out;
}

/* Never misses: every line a plain scan finds, grep finds, for literals
 * and for the regexes that mean them. */
static void
test_grep_never_misses(void **state)
{
	static const char *const needles[] = {"deploy", "资格证", "Deploy",
	                                      "BM25F", "pricing"};

	for (size_t i = 0; i < sizeof(needles) / sizeof(needles[0]); i++) {
		char *want = plain_scan(needles[i]);
		json_t *lit =
		    run_tool(strlen(want) > 0 ? 0 : 1, NULL, "grep", "--max",
		             "10000", "-F", "-s", needles[i], NULL);
		json_t *re = run_tool(strlen(want) > 0 ? 0 : 1, NULL, "grep",
		                      "--max", "10000", "-s", needles[i], NULL);
		char *a = our_set(lit);
		char *b = our_set(re);

		if (strcmp(a, want) != 0)
			fprintf(stderr, "%s: grep\n%s\nscan\n%s\n", needles[i],
			        a, want);
		assert_string_equal(a, want);
		assert_string_equal(b, want);
		json_decref(lit);
		json_decref(re);
		free(a);
		free(b);
		free(want);
	}
}

static void
test_grep_cjk_search_missed(void **state)
{
	json_t *q = cgt_query(ws, cache, HUGE_CJK, NULL);
	json_t *ans;
	const json_t *m;

	/* the index refused the page (over 8 MiB): search cannot find it */
	assert_int_equal(json_array_size(json_object_get(q, "hits")), 0);
	json_decref(q);
	ans = run_tool(0, NULL, "grep", "--fixed", HUGE_CJK, NULL);
	assert_int_equal(json_array_size(json_object_get(ans, "matches")), 1);
	m = json_array_get(json_object_get(ans, "matches"), 0);
	assert_string_equal(json_string_value(json_object_get(m, "path")),
	                    strchr(HUGE_PAGE, '/') + 1);
	assert_int_equal(json_integer_value(json_object_get(m, "line")),
	                 HUGE_LINES - 9);
	assert_non_null(
	    strstr(json_string_value(json_object_get(m, "text")), HUGE_CJK));
	assert_true(json_integer_value(json_object_get(ans, "bytes_searched")) >
	            (8 << 20));
	json_decref(ans);
}

static void
test_grep_max_truncates(void **state)
{
	json_t *many = run_tool(0, NULL, "grep", "--max", "10000", "e", NULL);
	json_t *ans = run_tool(0, NULL, "grep", "--max", "3", "e", NULL);
	const json_t *mm = json_object_get(many, "matches");
	const json_t *am = json_object_get(ans, "matches");
	int64_t total = json_integer_value(json_object_get(many, "total"));

	/* every filler line of the huge page holds an 'e' */
	assert_true(total > HUGE_LINES);
	assert_int_equal(json_array_size(mm), 10000);
	assert_true(json_is_true(json_object_get(many, "truncated")));
	assert_true(json_is_true(json_object_get(ans, "truncated")));
	assert_int_equal(json_array_size(am), 3);
	assert_int_equal(json_integer_value(json_object_get(ans, "total")),
	                 total);
	/* the three are the first three in uri, line order */
	for (size_t i = 0; i < 3; i++) {
		const json_t *a = json_array_get(mm, i);
		const json_t *b = json_array_get(am, i);

		assert_string_equal(
		    json_string_value(json_object_get(a, "uri")),
		    json_string_value(json_object_get(b, "uri")));
		assert_int_equal(
		    json_integer_value(json_object_get(a, "line")),
		    json_integer_value(json_object_get(b, "line")));
	}
	assert_true(strcmp(json_string_value(
	                       json_object_get(json_array_get(am, 0), "uri")),
	                   json_string_value(json_object_get(
	                       json_array_get(am, 1), "uri"))) <= 0);
	json_decref(many);
	json_decref(ans);
}

static void
test_grep_invalid_regex(void **state)
{
	char *err = NULL;

	run_tool(2, &err, "grep", "(unclosed", NULL);
	assert_non_null(strstr(err, "invalid regular expression"));
	free(err);
	/* a pathological pattern: a clear error naming the file and line,
	 * exit 2, long before the deadline */
	run_tool(2, &err, "grep", "(?:.|.)+[!?]{3}$", NULL);
	assert_non_null(strstr(err, "too costly"));
	assert_non_null(strstr(err, "limit"));
	assert_non_null(strstr(err, ".md"));
	free(err);
	run_tool(2, NULL, "grep", "--max", "0", "x", NULL);
	run_tool(2, NULL, "grep", NULL);
}

static void
test_grep_symlinks_and_binary(void **state)
{
	json_t *ans = run_tool(1, NULL, "grep", "SECRETWORD", NULL);
	const json_t *sk;
	size_t i;
	bool saw_link = false;
	bool saw_bin = false;

	assert_int_equal(json_array_size(json_object_get(ans, "matches")), 0);
	assert_int_equal(json_integer_value(json_object_get(ans, "total")), 0);
	json_array_foreach(json_object_get(ans, "skipped"), i, sk) {
		const char *p = json_string_value(json_object_get(sk, "path"));
		const char *r =
		    json_string_value(json_object_get(sk, "reason"));

		saw_link |= strstr(p, "evil.md") && strstr(r, "symlink");
		saw_bin |= strstr(p, "blob.md") && strstr(r, "binary");
		assert_null(strstr(p, "inner.md"));
	}
	assert_true(saw_link);
	assert_true(saw_bin);
	json_decref(ans);
}

static void
test_grep_prefix(void **state)
{
	json_t *ans = run_tool(0, NULL, "grep", "deploy", "search/", NULL);
	const json_t *m;
	size_t i;

	assert_int_equal(json_array_size(json_object_get(ans, "matches")), 3);
	json_array_foreach(json_object_get(ans, "matches"), i, m)
		assert_string_equal(
		    json_string_value(json_object_get(m, "source")), "search");
	json_decref(ans);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_list_filters),
	    cmocka_unit_test(test_list_prefix),
	    cmocka_unit_test(test_list_paging),
	    cmocka_unit_test(test_list_errors),
	    cmocka_unit_test(test_map_budget),
	    cmocka_unit_test(test_map_full),
	    cmocka_unit_test(test_status),
	    cmocka_unit_test(test_status_unindexed),
	    cmocka_unit_test(test_grep_same_as_rg),
	    cmocka_unit_test(test_grep_context),
	    cmocka_unit_test(test_grep_never_misses),
	    cmocka_unit_test(test_grep_cjk_search_missed),
	    cmocka_unit_test(test_grep_max_truncates),
	    cmocka_unit_test(test_grep_invalid_regex),
	    cmocka_unit_test(test_grep_symlinks_and_binary),
	    cmocka_unit_test(test_grep_prefix),
	};
	int failed = cmocka_run_group_tests(tests, setup, teardown);

	if (failed == 0 && !have_rg()) {
		fprintf(stderr, "SKIP: ripgrep (rg) is not in PATH, so grep "
		                "was not compared with it; install it with "
		                "scripts/install-deps\n");
		return 77;
	}
	return failed;
}
