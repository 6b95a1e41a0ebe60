/*
 * cmd_search.c - `corpus-gw index` and `corpus-gw query`, in embedded mode
 * (--workspace DIR): the workspace's nodes run in this process and the
 * query takes the federation path the gateway takes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/cg_buf.h"

#define CLI_WHERE_OPTS                                                         \
	{"workspace", true, false, "workspace directory (default: .)"},        \
	    {"config", true, false, "gateway config: its roster, in-process"}, \
	    {"gateway", true, false, "URL of a running gateway"},              \
	    {"token", true, false,                                             \
	     "bearer token for --gateway (or CORPUS_GW_TOKEN)"},               \
	    {"cache", true, false, "index cache directory"},                   \
	    {"deadline", true, false, "per-round deadline in ms"},             \
	    {"spawn", false, false, "nodes as child processes"},               \
	{                                                                      \
		"verbose", false, false, "(-v) the nodes' log lines too"       \
	}

static const cli_opt index_opts[] = {
    CLI_WHERE_OPTS,
    {"json", false, false, "print JSON"},
    {"help", false, false, "show this help"},
};

static const cli_opt query_opts[] = {
    CLI_WHERE_OPTS,
    {"json", false, false, "print one JSON object"},
    {"category", true, false,
     "context|standard|product|entity|concept|decision|source"},
    {"owner", true, false, "owner (case-insensitive)"},
    {"confidence", true, false, "low|medium|high"},
    {"updated-since", true, false, "YYYY-MM-DD (inclusive)"},
    {"tag", true, false, "tag (case-insensitive)"},
    {"source", true, true, "limit to a source (repeatable)"},
    CLI_SCOPE_OPT,
    CLI_GATEWAY_OPT,
    {"limit", true, false, "hits to return (default 20, max 500)"},
    {"explain", false, false, "show match class, scores, index work"},
    {"help", false, false, "show this help"},
};

#define NOPTS(t) (sizeof(t) / sizeof((t)[0]))

/* The sync report in the renderer's shape (it takes no options). */
static void
sync_text(cg_buf *out, const json_t *report, const cg_render_opts *o)
{
	(void)o;
	cg_render_sync(out, report);
}

int
cmd_index(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	cli_session ss;
	json_t *report = NULL;
	int rc;

	cg_err_clear(&err);
	rc = cli_parse(&a, index_opts, NOPTS(index_opts), argc, argv, &err);
	if (rc != 0)
		return cli_fail("index", &err);
	if (cli_flag(&a, "help")) {
		cli_usage("index", "[--workspace DIR | --config FILE] [--json]",
		          "Indexes (incrementally) every wiki of a workspace.",
		          index_opts, NOPTS(index_opts));
		return 0;
	}
	if (a.npos > 0 || cli_get(&a, "gateway") != NULL) {
		cg_err_set(&err, CG_EINVAL,
		           a.npos ? "unexpected argument"
		                  : "a running gateway indexes by itself");
		return cli_fail("index", &err);
	}
	rc = cli_session_open(&ss, &a, &err);
	if (rc == 0)
		rc = cli_session_sync(&ss, &report, &err);
	if (rc == 0 && cli_flag(&a, "json"))
		cli_print_json(report);
	else if (rc == 0)
		cli_render(sync_text, report, false);
	json_decref(report);
	/* Cron must see a failed source: the warnings named each. */
	if (rc == 0 && ss.unsynced > 0)
		rc = cg_err_set(&err, CG_EUNAVAIL,
		                "%d source(s) or node(s) could not be indexed",
		                ss.unsynced);
	cli_session_close(&ss);
	return rc == 0 ? 0 : cli_fail("index", &err);
}

/* Joins the positional words into the query text. */
static char *
query_text(const cli_args *a)
{
	cg_buf b;

	cg_buf_init(&b, 1 << 20);
	for (size_t i = 0; i < a->npos; i++) {
		if (i > 0)
			(void)cg_buf_putc(&b, ' ');
		(void)cg_buf_puts(&b, a->pos[i]);
	}
	return cg_buf_take(&b);
}

static int
parse_limit(const char *s, json_t *args, cg_err *err)
{
	char *end = NULL;
	long v;

	if (s == NULL)
		return 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || v < 1 || v > 500)
		return cg_err_set(err, CG_EINVAL,
		                  "invalid --limit '%s' (valid: 1-500)", s);
	json_object_set_new(args, "limit", json_integer(v));
	return 0;
}

/* The search tool's arguments from the command line. */
static int
build_args(const cli_args *a, const char *text, json_t *args, cg_err *err)
{
	static const char *const strs[][2] = {
	    {"category", "category"},
	    {"owner", "owner"},
	    {"confidence", "confidence"},
	    {"updated-since", "updated_since"},
	    {"tag", "tag"}};
	const char **src = NULL;
	size_t nsrc = cli_all(a, "source", &src);

	json_object_set_new(args, "q", json_string(text));
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (cli_get(a, strs[i][0]) != NULL)
			json_object_set_new(
			    args, strs[i][1],
			    json_string(cli_get(a, strs[i][0])));
	if (nsrc > 0) {
		json_t *l = json_array();

		for (size_t i = 0; i < nsrc; i++)
			json_array_append_new(l, json_string(src[i]));
		json_object_set_new(args, "source", l);
	}
	if (cli_flag(a, "explain"))
		json_object_set_new(args, "explain", json_true());
	return parse_limit(cli_get(a, "limit"), args, err);
}

int
cmd_query(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	cli_session ss = {0};
	json_t *args = json_object();
	json_t *ans = NULL;
	json_t *report = NULL;
	char *text = NULL;
	int rc;

	cg_err_clear(&err);
	rc = cli_parse_words(&a, query_opts, NOPTS(query_opts), argc, argv,
	                     &err);
	if (rc != 0) {
		json_decref(args);
		return cli_fail("query", &err);
	}
	if (cli_flag(&a, "help")) {
		json_decref(args);
		cli_usage("query", "[options] [TEXT...]",
		          "Searches every wiki of a workspace. The search is "
		          "lexical; an empty\nresult does not prove absence "
		          "(grep is the exhaustive path).\n\nQuery syntax:\n"
		          "  \"exact phrase\"  only pages with the phrase\n"
		          "  -word, -\"a b\"   drop pages holding it "
		          "(query \"retry -mobile\", or query -- -mobile "
		          "retry)\n"
		          "  word*           any word it begins\n"
		          "  a OR b          either word (capital OR)\n"
		          "Anything else is plain words; a query of "
		          "exclusions only is an error.",
		          query_opts, NOPTS(query_opts));
		return 0;
	}
	text = query_text(&a);
	rc = text ? build_args(&a, text, args, &err)
	          : cg_err_set(&err, CG_ENOMEM, "out of memory");
	if (rc == 0)
		rc = cli_session_open(&ss, &a, &err);
	if (rc == 0)
		rc = cli_session_sync(&ss, &report, &err);
	if (rc == 0)
		rc = cli_session_call(&ss, "search", args, &ans, &err);
	if (rc == 0 && report != NULL)
		json_object_set(json_object_get(ans, "evidence"), "index",
		                report);
	if (rc == 0 && cli_flag(&a, "json"))
		cli_print_json(ans);
	else if (rc == 0)
		cli_render(cg_render_search, ans, cli_flag(&a, "explain"));
	json_decref(ans);
	json_decref(report);
	json_decref(args);
	cli_session_close(&ss);
	free(text);
	return rc == 0 ? 0 : cli_fail("query", &err);
}

const cli_command cli_cmd_index = {
    "index",
    cmd_index,
    "index every wiki of a workspace (incremental)",
    index_opts,
    NOPTS(index_opts),
    false};
const cli_command cli_cmd_query = {
    "query",    cmd_query,         "search a workspace",
    query_opts, NOPTS(query_opts), false};
