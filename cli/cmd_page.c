/*
 * cmd_page.c - `corpus-gw read|peek|links|resolve`: the page tools in
 * embedded mode (--workspace DIR or --config FILE: the gateway runs in
 * this process, its nodes are synced first as `query` does) or against a
 * running gateway (--gateway URL).  Either way the tool is the gateway's
 * (gateway/api.c, federation/fed_page.c).  This file
 * parses options and renders answers; it holds no tool logic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/cg_json.h"

#define NOPTS(t) (sizeof(t) / sizeof((t)[0]))

static const cli_opt read_opts[] = {
    CLI_SESSION_OPTS,
    CLI_GATEWAY_OPT,
    {"lines", true, false, "A:B, A:, :B or A (file lines, 1-based)"},
    {"json", false, false, "print one JSON object"},
    {"help", false, false, "show this help"},
};

static const cli_opt page_opts[] = {
    CLI_SESSION_OPTS,
    CLI_GATEWAY_OPT,
    {"json", false, false, "print one JSON object"},
    {"help", false, false, "show this help"},
};

/* Parses the command line; 1 when --help was printed, 0 to go on, or a
 * negative code. */
static int
parse(cli_args *a, const char *cmd, const char *synopsis, const char *about,
      const cli_opt *opts, size_t nopts, int argc, char **argv, cg_err *err)
{
	int rc = cli_parse(a, opts, nopts, argc, argv, err);

	if (rc == 0 && cli_flag(a, "help")) {
		cli_usage(cmd, synopsis, about, opts, nopts);
		return 1;
	}
	return rc;
}

/* Opens the session (an in-process gateway, or a running one) and, in
 * embedded mode, brings the indexes up to date first.  A sync failure
 * other than "nothing provisioned" is a warning: the tool still answers
 * from what is indexed and reports silent nodes itself. */
static int
open_synced(const cli_args *a, const char *cmd, cli_session *ss, cg_err *err)
{
	json_t *rep = NULL;
	cg_err serr;
	int rc = cli_session_open(ss, a, err);

	if (rc != 0)
		return rc;
	cg_err_clear(&serr);
	rc = cli_session_sync(ss, &rep, &serr);
	json_decref(rep);
	if (rc == CG_ENOPROV)
		return cg_err_set(err, rc, "%s", serr.msg);
	if (rc != 0)
		(void)fprintf(stderr, "corpus-gw %s: warning: index sync: %s\n",
		              cmd, serr.msg);
	return 0;
}

/* --- read ----------------------------------------------------------------- */

static json_t *
read_args(const cli_args *a)
{
	json_t *v = json_pack("{s:s}", "uri", a->pos[0]);

	if (cli_get(a, "lines") != NULL)
		json_object_set_new(v, "lines",
		                    json_string(cli_get(a, "lines")));
	return v;
}

/* --- links and peek ------------------------------------------------------- */

static json_t *
uris_json(const cli_args *a)
{
	json_t *v = json_array();

	for (size_t i = 0; i < a->npos; i++)
		json_array_append_new(v, json_string(a->pos[i]));
	return json_pack("{s:o}", "uris", v);
}

/* peek answers for every page; the exit code is that of the first page
 * that failed. */
static int
first_page_error(const json_t *ans, cg_err *err)
{
	size_t i;
	const json_t *p;

	json_array_foreach(json_object_get(ans, "pages"), i, p) {
		const json_t *e = json_object_get(p, "error");
		const char *msg = cg_json_str_or_null(e, "message");

		if (e != NULL)
			return cg_err_set(
			    err,
			    cg_code_from_name(cg_json_str_or_null(e, "code")),
			    "%s", msg ? msg : "page failed");
	}
	return 0;
}

int
cmd_peek(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	cli_session ss = {0};
	json_t *ans = NULL;
	int rc;

	cg_err_clear(&err);
	rc = parse(&a, "peek", "[options] URI...",
	           "Shows each page's title, tags, heading outline, outgoing "
	           "links and\nfirst line, without its body.",
	           page_opts, NOPTS(page_opts), argc, argv, &err);
	if (rc == 1)
		return 0;
	if (rc == 0 && a.npos == 0)
		rc = cg_err_set(&err, CG_EINVAL,
		                "peek takes one or more URIs (see --help)");
	if (rc == 0)
		rc = open_synced(&a, "peek", &ss, &err);
	if (rc == 0)
		rc = cli_session_tool(&ss, "peek", uris_json(&a), &ans, &err);
	if (rc == 0)
		rc = first_page_error(ans, &err);
	/* A page that failed is in the answer: print it, then fail. */
	if (ans != NULL && cli_flag(&a, "json")) {
		cli_print_json(ans);
	} else if (ans != NULL) {
		cli_render(cg_render_peek, ans, false);
	}
	json_decref(ans);
	cli_session_close(&ss);
	return rc == 0 ? 0 : cli_fail("peek", &err);
}

/* --- the one-argument commands -------------------------------------------- */

static json_t *
links_args(const cli_args *a)
{
	return json_pack("{s:s}", "uri", a->pos[0]);
}

static json_t *
resolve_args(const cli_args *a)
{
	return json_pack("{s:s}", "name", a->pos[0]);
}

/* A command that takes one positional argument, calls one tool and
 * renders its answer. */
struct one_cmd {
	const char *name;
	const char *synopsis;
	const char *about;
	const char *usage_error; /* when not exactly one argument */
	const cli_opt *opts;
	size_t nopts;
	json_t *(*args)(const cli_args *a);
	cg_render_fn render;
};

static int
run_one(const struct one_cmd *c, int argc, char **argv)
{
	cli_args a;
	cg_err err;
	cli_session ss = {0};
	json_t *ans = NULL;
	int rc;

	cg_err_clear(&err);
	rc = parse(&a, c->name, c->synopsis, c->about, c->opts, c->nopts, argc,
	           argv, &err);
	if (rc == 1)
		return 0;
	if (rc == 0 && a.npos != 1)
		rc = cg_err_set(&err, CG_EINVAL, "%s", c->usage_error);
	if (rc == 0)
		rc = open_synced(&a, c->name, &ss, &err);
	if (rc == 0)
		rc = cli_session_tool(&ss, c->name, c->args(&a), &ans, &err);
	if (rc == 0 && cli_flag(&a, "json"))
		cli_print_json(ans);
	else if (rc == 0)
		cli_render(c->render, ans, false);
	json_decref(ans);
	cli_session_close(&ss);
	return rc == 0 ? 0 : cli_fail(c->name, &err);
}

int
cmd_read(int argc, char **argv)
{
	static const struct one_cmd c = {
	    "read",
	    "[options] URI",
	    "Prints a page (frontmatter and body) or a range of its lines. "
	    "URI is\ncg://<workspace>/<source>/<path> or <source>/<path>; "
	    "only files inside\nthe source's wiki are read, and symlinks are "
	    "never followed.",
	    "read takes one URI (see --help)",
	    read_opts,
	    NOPTS(read_opts),
	    read_args,
	    cg_render_read};

	return run_one(&c, argc, argv);
}

int
cmd_links(int argc, char **argv)
{
	static const struct one_cmd c = {
	    "links",
	    "[options] URI",
	    "Lists a page's outgoing links (wikilinks and relative markdown "
	    "links,\neach resolved to a uri or marked unresolved) and its "
	    "backlinks from\nevery source of the workspace. One hop.",
	    "links takes one URI (see --help)",
	    page_opts,
	    NOPTS(page_opts),
	    links_args,
	    cg_render_links};

	return run_one(&c, argc, argv);
}

int
cmd_resolve(int argc, char **argv)
{
	static const struct one_cmd c = {
	    "resolve",
	    "[options] NAME",
	    "Finds the pages a title, alias, slug, path, [[wikilink]], "
	    "source/name or\nuri designates, in every source, best first, "
	    "with how each matched.",
	    "resolve takes one NAME (quote a name with spaces; see --help)",
	    page_opts,
	    NOPTS(page_opts),
	    resolve_args,
	    cg_render_resolve};

	return run_one(&c, argc, argv);
}

const cli_command cli_cmd_read = {
    "read",    cmd_read,         "print a page or a range of its lines",
    read_opts, NOPTS(read_opts), false};
const cli_command cli_cmd_peek = {
    "peek",
    cmd_peek,
    "title, tags, outline, links of pages (no body)",
    page_opts,
    NOPTS(page_opts),
    false};
const cli_command cli_cmd_links = {
    "links",   cmd_links,        "outgoing links and backlinks of a page",
    page_opts, NOPTS(page_opts), false};
const cli_command cli_cmd_resolve = {
    "resolve", cmd_resolve,      "title, alias, slug or wikilink to uri(s)",
    page_opts, NOPTS(page_opts), false};
