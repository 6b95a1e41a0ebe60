/*
 * cmd_mcp.c - `corpus-gw mcp`: MCP over stdio, for clients that start a
 * server as a command (.mcp.json "command", `claude mcp add`).  Messages
 * are JSON-RPC, one per line, both ways (the MCP stdio transport); stdout
 * carries nothing else, logs and warnings go to stderr.
 *
 * Embedded (--workspace DIR, default ".", or --config FILE): the same
 * handler that serves POST /mcp (gateway/mcp.h) answers each line, with
 * the whole roster visible (a local user reads their own files; tokens are
 * for a gateway others share).  The nodes run in this process and catch up
 * with the files before each tools/call and resources request, as
 * `corpus-gw query` does before its search, so an edited page is found
 * without a watcher.  Remote (--gateway URL [--token T]): each line is
 * POSTed to URL/mcp with the bearer token, and the reply written back; the
 * team gateway decides what the token may see.
 *
 * Decisions: a line longer than CG_MCP_STDIO_LINE_MAX is answered with a
 * parse error and skipped (never buffered without bound); end of input is
 * a clean exit 0.  It must hold no MCP logic of its own.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/cg_buf.h"
#include "gateway/mcp.h"

#define CG_MCP_STDIO_LINE_MAX (16u << 20)
#define NOPTS(t)              (sizeof(t) / sizeof((t)[0]))

static const cli_opt mcp_opts[] = {
    CLI_SESSION_OPTS,
    {"help", false, false, "show this help"},
};

/* Whether a message asks for pages (then the nodes sync first). */
static bool
reads_pages(const char *msg)
{
	return strstr(msg, "\"tools/call\"") != NULL ||
	       strstr(msg, "\"resources/") != NULL;
}

/* Writes one reply line and flushes: the client waits for it. */
static void
put_line(const cg_buf *b)
{
	if (b->len == 0)
		return;
	(void)fwrite(b->data, 1, b->len, stdout);
	(void)fputc('\n', stdout);
	(void)fflush(stdout);
}

static void
too_long(void)
{
	static const char e[] = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":"
	                        "{\"code\":-32700,\"message\":\"parse error: "
	                        "message longer than 16 MiB\"}}";

	(void)puts(e);
	(void)fflush(stdout);
}

/* One message in, its reply (if any) out. */
static void
answer(cli_session *ss, const char *msg, size_t len)
{
	json_t *report = NULL;
	json_t *ans = NULL;
	cg_buf out;
	cg_err err;
	int status;

	cg_err_clear(&err);
	cg_buf_init(&out, 256u << 20);
	if (ss->remote != NULL) {
		if (cli_session_mcp(ss, msg, len, &out, &err) != 0)
			(void)fprintf(stderr, "corpus-gw mcp: %s\n", err.msg);
		put_line(&out);
		cg_buf_fini(&out);
		return;
	}
	if (reads_pages(msg) && cli_session_sync(ss, &report, &err) != 0)
		(void)fprintf(stderr,
		              "corpus-gw mcp: warning: index sync: %s\n",
		              err.msg);
	json_decref(report);
	cg_mcp_handle(ss->fed, NULL, msg, len, &status, &out, &ans);
	json_decref(ans);
	put_line(&out);
	cg_buf_fini(&out);
}

static void
serve(cli_session *ss)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, stdin)) >= 0) {
		size_t len = (size_t)n;

		while (len > 0 &&
		       (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0)
			continue;
		if (len > CG_MCP_STDIO_LINE_MAX)
			too_long();
		else
			answer(ss, line, len);
		if (cap > CG_MCP_STDIO_LINE_MAX) {
			free(line); /* do not keep a huge buffer */
			line = NULL;
			cap = 0;
		}
	}
	free(line);
}

/* A workspace without sources is an error; any other sync failure is a
 * warning (the answers report the nodes). */
static int
first_sync(cli_session *ss, cg_err *err)
{
	json_t *report = NULL;
	int rc = cli_session_sync(ss, &report, err);

	json_decref(report);
	if (rc == CG_ENOPROV)
		return rc;
	if (rc != 0)
		(void)fprintf(stderr,
		              "corpus-gw mcp: warning: index sync: %s\n",
		              err->msg);
	cg_err_clear(err);
	return 0;
}

int
cmd_mcp(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	cli_session ss = {0};
	int rc;

	cli_heap_for_service();
	cg_err_clear(&err);
	rc = cli_parse(&a, mcp_opts, NOPTS(mcp_opts), argc, argv, &err);
	if (rc != 0)
		return cli_fail("mcp", &err);
	if (cli_flag(&a, "help")) {
		cli_usage("mcp",
		          "[--workspace DIR | --config FILE | --gateway URL "
		          "[--token T]]",
		          "Serves MCP over stdio (one JSON-RPC message per "
		          "line): the gateway's\ntools and pages, for clients "
		          "that start a server as a command.",
		          mcp_opts, NOPTS(mcp_opts));
		return 0;
	}
	if (a.npos > 0)
		rc = cg_err_set(&err, CG_EINVAL, "unexpected argument '%s'",
		                a.pos[0]);
	if (rc == 0)
		rc = cli_session_open_serving(&ss, &a, &err);
	/* The first sync indexes everything: do it before the first
	 * message, so that a client's first search finds pages. */
	if (rc == 0)
		rc = first_sync(&ss, &err);
	if (rc == 0)
		serve(&ss);
	cli_session_close(&ss);
	return rc == 0 ? 0 : cli_fail("mcp", &err);
}

const cli_command cli_cmd_mcp = {
    "mcp",    cmd_mcp,         "MCP over stdio (for .mcp.json \"command\")",
    mcp_opts, NOPTS(mcp_opts), false};
