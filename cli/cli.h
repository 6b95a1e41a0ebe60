/*
 * cli.h - the corpus-gw command line: a table of subcommands, a small
 * option parser shared by all of them, and the renderers for people.
 * Commands print to stdout; errors go to stderr as one line; the exit code
 * comes from cg_code_exit() (SPEC 6: 0, 2, 10, 1).
 */
#ifndef CG_CLI_H
#define CG_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/cg_buf.h"
#include "common/cg_err.h"

#define CLI_MAX_VALUES 64

/* One option a command accepts. */
typedef struct cli_opt {
	const char *name; /* long name without "--" */
	bool has_arg;
	bool repeat; /* may be given many times */
	const char *help;
} cli_opt;

/* Parsed command line: option values by index into the command's table,
 * and the positional arguments. */
typedef struct cli_args {
	const cli_opt *opts;
	size_t nopts;
	const char *values[32][CLI_MAX_VALUES]; /* per option */
	size_t nvalues[32];
	const char *pos[CLI_MAX_VALUES];
	size_t npos;
} cli_args;

int cli_parse(cli_args *a, const cli_opt *opts, size_t nopts, int argc,
              char **argv, cg_err *err);
/* cli_parse for commands that take query text: an argument "-word" (one
 * dash, not -h or -v) is positional, an exclusion of the query syntax. */
int cli_parse_words(cli_args *a, const cli_opt *opts, size_t nopts, int argc,
                    char **argv, cg_err *err);
/* The last value of option name, or NULL. */
const char *cli_get(const cli_args *a, const char *name);
bool cli_flag(const cli_args *a, const char *name);
/* Option name as an integer in [min, max] into *out (left unchanged when
 * the option is absent); CG_EINVAL naming the range otherwise. */
int cli_int(const cli_args *a, const char *name, long min, long max, int *out,
            cg_err *err);
size_t cli_all(const cli_args *a, const char *name, const char ***out);

void cli_usage(const char *cmd, const char *synopsis, const char *about,
               const cli_opt *opts, size_t nopts);

/* The logger (log.c): lines of level min and above go to stderr as
 * "TIME LEVEL COMPONENT MESSAGE"; cli_log is a cg_log_fn (node/server.h)
 * whose ctx is a cli_logger. */
enum { CLI_LOG_DEBUG, CLI_LOG_INFO, CLI_LOG_WARN, CLI_LOG_ERROR };
typedef struct cli_logger {
	int min;
} cli_logger;
void cli_log(void *ctx, const char *level, const char *component,
             const char *msg);

/* The workspace roots of a served config, watched for repositories
 * appearing or going (rootwatch.c); fd is -1 without inotify (the
 * periodic check in cmd_serve.c still sees them). */
struct cg_config;
typedef struct cli_rootwatch {
	int fd;
	const struct cg_config *c; /* borrowed */
} cli_rootwatch;
void cli_rootwatch_open(cli_rootwatch *w, const struct cg_config *c);
/* Reads the pending events: how many (0: nothing happened). */
int cli_rootwatch_read(cli_rootwatch *w);
void cli_rootwatch_close(cli_rootwatch *w);

/* Prints an error line and returns the exit code for it. */
int cli_fail(const char *cmd, const cg_err *err);

/* Prints a JSON value to stdout, indented, with a final newline. */
void cli_print_json(const json_t *v);

/* Fills a gateway config from --config FILE, or from --workspace DIR
 * (default ".") with --spawn, --cache and --deadline. */
struct cg_config;
int cli_load_config(const cli_args *a, struct cg_config *cfg, cg_err *err);

/* The options that say where a command's requests go. */
#define CLI_SESSION_OPTS                                                 \
	{"workspace", true, false, "workspace directory (default: .)"},  \
	    {"config", true, false, "gateway config: its roster, here"}, \
	    {"gateway", true, false, "URL of a running gateway"},        \
	    {"token", true, false,                                       \
	     "bearer token for --gateway (or CORPUS_GW_TOKEN)"},         \
	    {"cache", true, false, "index cache directory"},             \
	    {"deadline", true, false, "per-round deadline in ms"},       \
	    {"spawn", false, false, "nodes as child processes"},         \
	{                                                                \
		"verbose", false, false, "(-v) the nodes' log lines too" \
	}

/* The workspace scope of a command whose tools take one (query, list,
 * map, grep, status): cli_session_call adds it as the "workspace"
 * argument (gateway/scope.h) to every tool that takes it. */
#define CLI_SCOPE_OPT                                                \
	{                                                            \
		"workspace-name", true, true,                        \
		    "only this workspace of the roster (repeatable)" \
	}

/* Where a read command's requests go by default (cli/session.c): a
 * gateway found on the local socket (gateway/local.h) or named by
 * CORPUS_GW_GATEWAY, else embedded.  --no-gateway (or
 * CORPUS_GW_NO_GATEWAY=1) keeps it embedded.  A command whose table holds
 * this option looks for a gateway; one without it (index, mcp) never
 * does. */
#define CLI_GATEWAY_OPT                                                  \
	{                                                                \
		"no-gateway", false, false,                              \
		    "never use a running gateway (CORPUS_GW_NO_GATEWAY)" \
	}

/* Where a command's requests go: an in-process gateway (--workspace,
 * --config) or a running one (--gateway URL, a found local socket). */
#include "conf/config.h"
#include "gateway/gateway.h"
#include "gateway/render.h"

typedef struct cli_session {
	cg_config cfg;
	int have_cfg;
	cg_gateway *gw;     /* embedded */
	cg_fed *fed;        /* embedded: the gateway's federation (borrowed) */
	char *remote;       /* the running gateway's base URL, or NULL */
	char *addr;         /* its address as given or found: the URL, or
	                       unix:PATH (messages, evidence.via) */
	char *sock;         /* the unix socket requests go through, or NULL */
	bool found;         /* the gateway was found, not named: a failure
	                       falls back to embedded (session.c) */
	char *fallback;     /* why a found gateway was not used, or NULL */
	long timeout_ms;    /* a remote request's bound */
	bool oneshot;       /* the process exits after this command */
	int unsynced;       /* sources (or whole nodes) the last sync failed */
	char *auth;         /* "Authorization: Bearer <token>" or NULL; wiped
	                       when the session closes */
	cli_logger log;     /* the nodes' lines: warnings, or all with -v */
	const char **scope; /* --workspace-name values (borrowed), or NULL */
	size_t nscope;
} cli_session;

int cli_session_open(cli_session *s, const cli_args *a, cg_err *err);
/* The same for a command that serves many requests (`mcp`): its indexes
 * read on ordinary connections. */
int cli_session_open_serving(cli_session *s, const cli_args *a, cg_err *err);
void cli_session_close(cli_session *s);
/* Embedded sessions: asks the nodes this process runs to catch up with
 * their files first (report: {source: sync stats}); remote nodes and a
 * running gateway keep their own indexes current. */
int cli_session_sync(cli_session *s, json_t **report, cg_err *err);
/* Runs a tool of the API table (gateway/api.h). */
int cli_session_call(cli_session *s, const char *tool, const json_t *args,
                     json_t **out, cg_err *err);

/* Remote sessions: POSTs one MCP message to the gateway's /mcp and
 * appends the reply body (empty for a notification) to out.  A refused
 * token is CG_EDENIED; the reply is otherwise passed on as it is. */
int cli_session_mcp(cli_session *s, const char *msg, size_t len, cg_buf *out,
                    cg_err *err);

/* Runs tool with args (taken, freed here) through the session. */
int cli_session_tool(cli_session *s, const char *tool, json_t *args,
                     json_t **out, cg_err *err);

/* The integer at o.k, 0 when absent (strings: cg_json_str). */
long long cli_num(const json_t *o, const char *k);

/* Prints an answer for a person with fn (gateway/render.h), in colour on a
 * terminal unless NO_COLOR is set. */
void cli_render(cg_render_fn fn, const json_t *ans, bool explain);
/* Whether stdout takes colour: a terminal, and NO_COLOR unset or empty. */
bool cli_color(void);

/* Sets the allocator policy of a long-running command (heap.c): call
 * once, first thing, from serve, node and mcp. */
void cli_heap_for_service(void);

/* One subcommand: the option table it parses with is the one `--help`
 * prints, the completions are generated from (completions.c) and the
 * manual is checked against (tests/integration/test_manual.sh). */
typedef struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help; /* one line, for `corpus-gw --help` */
	const cli_opt *opts;
	size_t nopts;
	bool hidden; /* dispatched, but not listed or completed */
} cli_command;

/* Every subcommand, in the order `corpus-gw --help` lists them
 * (commands.c); n is set to their number. */
const cli_command *const *cli_commands(size_t *n);

/* Each command file's entries in that list. */
extern const cli_command cli_cmd_index, cli_cmd_query, cli_cmd_serve,
    cli_cmd_node, cli_cmd_read, cli_cmd_peek, cli_cmd_links, cli_cmd_resolve,
    cli_cmd_list, cli_cmd_map, cli_cmd_grep, cli_cmd_status, cli_cmd_mcp,
    cli_cmd_fetch, cli_cmd_completions;

int cmd_index(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_node(int argc, char **argv);
/* cmd_page.c: the page tools. */
int cmd_read(int argc, char **argv);
int cmd_peek(int argc, char **argv);
int cmd_links(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
/* cmd_walk.c: the walk tools. */
int cmd_list(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_grep(int argc, char **argv);
int cmd_status(int argc, char **argv);
/* cmd_mcp.c: MCP over stdio. */
int cmd_mcp(int argc, char **argv);
/* cmd_fetch.c: the remote corpora. */
int cmd_fetch(int argc, char **argv);

#endif
