/*
 * commands.c - the list of subcommands: main.c dispatches through it,
 * `corpus-gw --help` prints it, and the completions (completions.c) are
 * generated from it and from each command's option table.  Adding a
 * command is one entry here and one cli_command in its file; nothing else
 * keeps a list of commands or options.  The hidden `completions` command
 * is not in the list: it reads the list, so main.c dispatches it itself
 * (the files of cli/ call each other one way).
 */
#include "cli/cli.h"

static const cli_command *const list[] = {
    &cli_cmd_index,   &cli_cmd_query, &cli_cmd_serve, &cli_cmd_mcp,
    &cli_cmd_node,    &cli_cmd_read,  &cli_cmd_peek,  &cli_cmd_links,
    &cli_cmd_resolve, &cli_cmd_list,  &cli_cmd_map,   &cli_cmd_grep,
    &cli_cmd_status,  &cli_cmd_fetch,
};

const cli_command *const *
cli_commands(size_t *n)
{
	*n = sizeof(list) / sizeof(list[0]);
	return list;
}
