/*
 * cmd_walk.c - `corpus-gw list`, `map`, `grep` and `status`, in embedded
 * mode (--workspace DIR): options to a request, the federation call
 * (federation/fed_walk.c), then JSON or text for people.  It holds no
 * walking logic of its own.  list and map bring the indexes up to date
 * first (like query); grep reads the files and needs no index; status
 * reports the indexes as they are, without touching them.
 *
 * grep speaks as ripgrep does where agents expect it: -i/-s, -F, -C/-A/-B,
 * exit 1 when nothing matched (0 when something did, 2 on an error), and
 * --json as JSON Lines: one {"type":"match", ...} object per match, then
 * one {"type":"summary", ...} with the rest of the answer.  Its default
 * stays case-insensitive (the API's), so -i is accepted and changes
 * nothing; -s asks for case; given both, -i wins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/cg_json.h"
#include "federation/fed_walk.h"
#include "page/grep.h"

#define NOPTS(t) (sizeof(t) / sizeof((t)[0]))

#define COMMON_OPTS                                                        \
	CLI_SESSION_OPTS, {"json", false, false, "print one JSON object"}, \
	    {"source", true, true, "limit to a source (repeatable)"},      \
	    CLI_SCOPE_OPT, CLI_GATEWAY_OPT,                                \
	{                                                                  \
		"help", false, false, "show this help"                     \
	}

#define FILTER_OPTS                                                   \
	{"category", true, false,                                     \
	 "context|standard|product|entity|concept|decision|source"},  \
	    {"owner", true, false, "owner (case-insensitive)"},       \
	    {"confidence", true, false, "low|medium|high"},           \
	    {"updated-since", true, false, "YYYY-MM-DD (inclusive)"}, \
	{                                                             \
		"tag", true, false, "tag (case-insensitive)"          \
	}

static const cli_opt list_opts[] = {
    COMMON_OPTS,
    FILTER_OPTS,
    {"limit", true, false, "pages per answer (default 50, max 500)"},
    {"offset", true, false, "pages to skip (default 0)"},
};

static const cli_opt map_opts[] = {
    COMMON_OPTS,
    FILTER_OPTS,
    {"budget", true, false, "characters of text (default 4000)"},
};

static const cli_opt grep_opts[] = {
    COMMON_OPTS,
    {"fixed", false, false, "-F: PATTERN is a literal, not a regex"},
    {"case-sensitive", false, false, "-s: match case (default: ignore it)"},
    {"ignore-case", false, false, "-i: ignore case (the default)"},
    {"max", true, false, "matching lines shown (default 200, max 10000)"},
    {"context", true, false, "-C: lines before and after a match (0-10)"},
    {"before-context", true, false, "-B: lines before a match (0-10)"},
    {"after-context", true, false, "-A: lines after a match (0-10)"},
};

static const cli_opt status_opts[] = {
    COMMON_OPTS,
};

/* --- shared ----------------------------------------------------------------
 */

/* What list and map take alike: [PREFIX], the filters and --source. */
static void
opt_tree(const cli_args *a, const char **prefix, cg_filters *f,
         const char *const **sources, size_t *nsources)
{
	memset(f, 0, sizeof(*f));
	f->category = cli_get(a, "category");
	f->owner = cli_get(a, "owner");
	f->confidence = cli_get(a, "confidence");
	f->updated_since = cli_get(a, "updated-since");
	f->tag = cli_get(a, "tag");
	*prefix = a->npos > 0 ? a->pos[0] : NULL;
	*nsources = cli_all(a, "source", (const char ***)sources);
}

/* Parses argv; handles --help and the count of positional arguments.
 * Returns -1 to go on, else the exit code. */
static int
start(const char *cmd, const char *syn, const char *about, const cli_opt *opts,
      size_t nopts, size_t minpos, size_t maxpos, int argc, char **argv,
      cli_args *a, cg_err *err)
{
	cg_err_clear(err);
	if (cli_parse(a, opts, nopts, argc, argv, err) != 0)
		return cli_fail(cmd, err);
	if (cli_flag(a, "help")) {
		cli_usage(cmd, syn, about, opts, nopts);
		return 0;
	}
	if (a->npos < minpos || a->npos > maxpos) {
		cg_err_set(err, CG_EINVAL, "expected %s (see --help)", syn);
		return cli_fail(cmd, err);
	}
	return -1;
}

/* Opens the session (embedded gateway or --gateway); syncs the indexes
 * first when sync (embedded only: a running gateway keeps them). */
static int
open_ws(const cli_args *a, bool sync, cli_session *ss, cg_err *err)
{
	json_t *report = NULL;
	int rc = cli_session_open(ss, a, err);

	if (rc == 0 && sync)
		rc = cli_session_sync(ss, &report, err);
	json_decref(report);
	return rc;
}

/* The API arguments shared by the walk tools. */
static json_t *
base_args(const char *prefix, const cg_filters *f, const char *const *src,
          size_t nsrc)
{
	json_t *v = f ? cg_filters_json(f) : json_object();
	json_t *l = json_array();

	if (prefix != NULL)
		json_object_set_new(v, "prefix", json_string(prefix));
	for (size_t i = 0; i < nsrc; i++)
		json_array_append_new(l, json_string(src[i]));
	if (nsrc > 0)
		json_object_set_new(v, "source", l);
	else
		json_decref(l);
	return v;
}

static void
set_int(json_t *v, const char *key, int n)
{
	if (n > 0)
		json_object_set_new(v, key, json_integer(n));
}

/* Runs tool with args (taken; NULL when rc already failed) through a
 * session, prints the answer as JSON or with render, and returns the
 * exit code.  rc carries a failure of the command's own checks. */
static int
run_tool_as(const cli_args *a, const char *tool, bool sync, json_t *args,
            cg_render_fn render, void (*print)(const json_t *),
            int (*status)(const json_t *), int rc, cg_err *err)
{
	cli_session ss = {0};
	json_t *ans = NULL;
	int code = 0;

	if (rc == 0)
		rc = open_ws(a, sync, &ss, err);
	if (rc == 0) {
		rc = cli_session_tool(&ss, tool, args, &ans, err);
		args = NULL;
	}
	json_decref(args);
	if (rc == 0 && cli_flag(a, "json"))
		print(ans);
	else if (rc == 0)
		cli_render(render, ans, false);
	if (rc == 0 && status != NULL)
		code = status(ans);
	json_decref(ans);
	cli_session_close(&ss);
	return rc == 0 ? code : cli_fail(tool, err);
}

static int
run_tool(const cli_args *a, const char *tool, bool sync, json_t *args,
         cg_render_fn render, int rc, cg_err *err)
{
	return run_tool_as(a, tool, sync, args, render, cli_print_json, NULL,
	                   rc, err);
}

/* --- list ------------------------------------------------------------------
 */

static json_t *
list_args(const cg_list_req *r)
{
	json_t *v = base_args(r->prefix, &r->filters, r->sources, r->nsources);

	set_int(v, "limit", r->limit);
	set_int(v, "offset", r->offset);
	return v;
}

static json_t *
map_args(const cg_map_req *r)
{
	json_t *v = base_args(r->prefix, &r->filters, r->sources, r->nsources);

	set_int(v, "budget", r->budget);
	return v;
}

static json_t *
grep_args(const cg_grep_req *r)
{
	json_t *v = base_args(r->prefix, NULL, r->sources, r->nsources);

	json_object_set_new(v, "pattern", json_string(r->pattern));
	if (r->fixed)
		json_object_set_new(v, "fixed", json_true());
	if (r->case_sensitive)
		json_object_set_new(v, "case_sensitive", json_true());
	set_int(v, "max", r->max);
	set_int(v, "before", r->before);
	set_int(v, "after", r->after);
	return v;
}

/* --json for grep: JSON Lines, one match per line, then the summary. */
static void
print_grep_lines(const json_t *ans)
{
	json_t *rest = json_pack("{s:s}", "type", "summary");
	const json_t *m;
	size_t i;

	json_array_foreach(json_object_get(ans, "matches"), i, m) {
		json_t *line = json_pack("{s:s}", "type", "match");

		json_object_update(line, (json_t *)m);
		(void)json_dumpf(line, stdout,
		                 JSON_COMPACT | JSON_PRESERVE_ORDER);
		(void)fputc('\n', stdout);
		json_decref(line);
	}
	json_object_update(rest, (json_t *)ans);
	json_object_del(rest, "matches");
	(void)json_dumpf(rest, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	(void)fputc('\n', stdout);
	json_decref(rest);
}

/* As ripgrep: 1 when no line matched. */
static int
grep_status(const json_t *ans)
{
	return json_integer_value(json_object_get(ans, "total")) > 0 ? 0 : 1;
}

/* -C, then -B and -A, which win over it. */
static int
grep_context_opts(const cli_args *a, cg_grep_req *r, cg_err *err)
{
	int c = 0;
	int rc = cli_int(a, "context", 0, CG_GREP_CONTEXT_LINES, &c, err);

	r->before = c;
	r->after = c;
	if (rc == 0)
		rc = cli_int(a, "before-context", 0, CG_GREP_CONTEXT_LINES,
		             &r->before, err);
	if (rc == 0)
		rc = cli_int(a, "after-context", 0, CG_GREP_CONTEXT_LINES,
		             &r->after, err);
	return rc;
}

int
cmd_list(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	cg_list_req r;
	int rc = start("list", "[options] [PREFIX]",
	               "Lists pages under a prefix (cg://ws/source/path, "
	               "SOURCE/path, or a path from\nthe wiki or repository "
	               "root), sorted by uri, with the search filters.",
	               list_opts, NOPTS(list_opts), 0, 1, argc, argv, &a, &err);

	if (rc >= 0)
		return rc;
	memset(&r, 0, sizeof(r));
	opt_tree(&a, &r.prefix, &r.filters, &r.sources, &r.nsources);
	rc = cli_int(&a, "limit", 1, 500, &r.limit, &err);
	if (rc == 0)
		rc = cli_int(&a, "offset", 0, 100000, &r.offset, &err);
	if (rc == 0)
		rc = cg_filters_validate(&r.filters, &err);
	return run_tool(&a, "list", true, rc == 0 ? list_args(&r) : NULL,
	                cg_render_list, rc, &err);
}

/* --- map -------------------------------------------------------------------
 */

int
cmd_map(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	cg_map_req r;
	int rc = start("map", "[options] [PREFIX]",
	               "The tree of sources, categories and page titles, cut "
	               "to a budget of\ncharacters; what does not fit is "
	               "counted (\"… 12 more pages\").",
	               map_opts, NOPTS(map_opts), 0, 1, argc, argv, &a, &err);

	if (rc >= 0)
		return rc;
	memset(&r, 0, sizeof(r));
	opt_tree(&a, &r.prefix, &r.filters, &r.sources, &r.nsources);
	rc = cli_int(&a, "budget", CG_MAP_MIN_BUDGET, CG_MAP_MAX_BUDGET,
	             &r.budget, &err);
	if (rc == 0)
		rc = cg_filters_validate(&r.filters, &err);
	return run_tool(&a, "map", true, rc == 0 ? map_args(&r) : NULL,
	                cg_render_map, rc, &err);
}

/* --- grep ------------------------------------------------------------------
 */

int
cmd_grep(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	cg_grep_req r;
	int rc = start("grep", "[options] PATTERN [PREFIX]",
	               "Searches the page files themselves, line by line: a "
	               "PCRE2 regex (Perl\nsyntax, as ripgrep) or a literal "
	               "with --fixed, case-insensitive unless\n"
	               "--case-sensitive. Exhaustive: also pages too large for "
	               "the index. Exit 1\nwhen nothing matches. --json "
	               "prints JSON Lines (matches, then a summary).\nUse `--` "
	               "before a PATTERN that starts with '-'.",
	               grep_opts, NOPTS(grep_opts), 1, 2, argc, argv, &a, &err);

	if (rc >= 0)
		return rc;
	memset(&r, 0, sizeof(r));
	r.pattern = a.pos[0];
	r.prefix = a.npos > 1 ? a.pos[1] : NULL;
	r.fixed = cli_flag(&a, "fixed");
	r.case_sensitive =
	    cli_flag(&a, "case-sensitive") && !cli_flag(&a, "ignore-case");
	r.nsources = cli_all(&a, "source", (const char ***)&r.sources);
	rc = cli_int(&a, "max", 1, 10000, &r.max, &err);
	if (rc == 0)
		rc = grep_context_opts(&a, &r, &err);
	return run_tool_as(&a, "grep", false, rc == 0 ? grep_args(&r) : NULL,
	                   cg_render_grep, print_grep_lines, grep_status, rc,
	                   &err);
}

/* --- status ----------------------------------------------------------------
 */

int
cmd_status(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	const char **src = NULL;
	size_t nsrc;
	int rc =
	    start("status", "[options]",
	          "Sources, page counts, index generations, ages and "
	          "sizes, and errors,\nper node. Does not index: run "
	          "`corpus-gw index` first.",
	          status_opts, NOPTS(status_opts), 0, 0, argc, argv, &a, &err);

	if (rc >= 0)
		return rc;
	nsrc = cli_all(&a, "source", &src);
	return run_tool(&a, "status", false, base_args(NULL, NULL, src, nsrc),
	                cg_render_status, 0, &err);
}

const cli_command cli_cmd_list = {
    "list",    cmd_list,         "pages under a prefix, with filters, paged",
    list_opts, NOPTS(list_opts), false};
const cli_command cli_cmd_map = {
    "map",    cmd_map,         "sources, categories, titles within a budget",
    map_opts, NOPTS(map_opts), false};
const cli_command cli_cmd_grep = {
    "grep",    cmd_grep,         "regex or literal over the page files",
    grep_opts, NOPTS(grep_opts), false};
const cli_command cli_cmd_status = {
    "status",    cmd_status,         "sources, index generations, ages, sizes",
    status_opts, NOPTS(status_opts), false};
