/*
 * main.c - the corpus-gw binary: dispatches to a subcommand.  Everything
 * else lives in the cgcore library so that tests link the same code.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/cg_version.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
    {"index", cmd_index, "index every wiki of a workspace (incremental)"},
    {"query", cmd_query, "search a workspace"},
    {"serve", cmd_serve, "run the gateway (HTTP JSON API and MCP)"},
    {"mcp", cmd_mcp, "MCP over stdio (for .mcp.json \"command\")"},
    {"node", cmd_node, "serve a workspace over nng, re-indexing live"},
    {"read", cmd_read, "print a page or a range of its lines"},
    {"peek", cmd_peek, "title, tags, outline, links of pages (no body)"},
    {"links", cmd_links, "outgoing links and backlinks of a page"},
    {"resolve", cmd_resolve, "title, alias, slug or wikilink to uri(s)"},
    {"list", cmd_list, "pages under a prefix, with filters, paged"},
    {"map", cmd_map, "sources, categories, titles within a budget"},
    {"grep", cmd_grep, "regex or literal over the page files"},
    {"status", cmd_status, "sources, index generations, ages, sizes"},
    {"fetch", cmd_fetch, "refresh the remote corpora (for cron)"},
};

static void
usage(FILE *out)
{
	(void)fprintf(out, "usage: corpus-gw COMMAND [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		(void)fprintf(out, "  %-10s %s\n", commands[i].name,
		              commands[i].help);
	(void)fprintf(out, "\n`corpus-gw COMMAND --help` describes a command; "
	                   "`corpus-gw --version`\nprints the version.\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 ||
	    strcmp(argv[1], "version") == 0) {
		(void)printf("corpus-gw %s\n", CG_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	(void)fprintf(stderr, "corpus-gw: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
