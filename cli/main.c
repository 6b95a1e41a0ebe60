/*
 * main.c - the corpus-gw binary: `--version`, `--help`, and dispatch to a
 * subcommand of the list in commands.c.  Everything else lives in the
 * layers' libraries so that tests link the same code.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/cg_version.h"

static void
usage(FILE *out)
{
	size_t n;
	const cli_command *const *v = cli_commands(&n);

	(void)fprintf(out, "usage: corpus-gw COMMAND [options]\n"
	                   "       corpus-gw --version\n\ncommands:\n");
	for (size_t i = 0; i < n; i++)
		if (!v[i]->hidden)
			(void)fprintf(out, "  %-10s %s\n", v[i]->name,
			              v[i]->help);
	(void)fprintf(out, "\n`corpus-gw COMMAND --help` describes a command; "
	                   "man corpus-gw has them all.\n");
}

int
main(int argc, char **argv)
{
	size_t n;
	const cli_command *const *v = cli_commands(&n);

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	/* "version", like "help", is a word for the option. */
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
	    strcmp(argv[1], "version") == 0) {
		(void)printf("corpus-gw %s\n", CG_VERSION);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(argv[1], v[i]->name) == 0)
			return v[i]->run(argc - 1, argv + 1);
	/* Hidden, and outside the list because it reads the list. */
	if (strcmp(argv[1], cli_cmd_completions.name) == 0)
		return cli_cmd_completions.run(argc - 1, argv + 1);
	(void)fprintf(stderr, "corpus-gw: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
