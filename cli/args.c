/*
 * args.c - the option parser every subcommand uses: "--name value",
 * "--name=value", flags, repeatable options, "--" ending options, and
 * "-h"/"--help"; for query text (cli_parse_words) a "-word" is a word.  It
 * keeps no global state (unlike getopt).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static int
find_opt(const cli_opt *opts, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(opts[i].name) == len &&
		    strncmp(opts[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

static int
add_value(cli_args *a, int i, const char *v, cg_err *err)
{
	if (a->nvalues[i] > 0 && !a->opts[i].repeat)
		a->nvalues[i] = 0; /* the last one wins */
	if (a->nvalues[i] >= CLI_MAX_VALUES)
		return cg_err_set(err, CG_EINVAL, "--%s given too often",
		                  a->opts[i].name);
	a->values[i][a->nvalues[i]++] = v;
	return 0;
}

/* dash_words: a "-word" argument (not -h, -v, or "--...") is positional,
 * so that query text can exclude a word without a "--" first. */
static int
parse(cli_args *a, const cli_opt *opts, size_t nopts, int argc, char **argv,
      bool dash_words, cg_err *err)
{
	bool only_pos = false;

	memset(a, 0, sizeof(*a));
	a->opts = opts;
	a->nopts = nopts < 32 ? nopts : 32;
	for (int k = 1; k < argc; k++) {
		const char *arg = argv[k];
		const char *eq;
		int i;

		if (only_pos || arg[0] != '-' || arg[1] == '\0' ||
		    (dash_words && arg[1] != '-' && strcmp(arg, "-h") != 0 &&
		     strcmp(arg, "-v") != 0)) {
			if (a->npos >= CLI_MAX_VALUES)
				return cg_err_set(err, CG_EINVAL,
				                  "too many arguments");
			a->pos[a->npos++] = arg;
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			only_pos = true;
			continue;
		}
		if (strcmp(arg, "-h") == 0)
			arg = "--help";
		if (strcmp(arg, "-v") == 0)
			arg = "--verbose";
		if (strncmp(arg, "--", 2) != 0)
			return cg_err_set(err, CG_EINVAL,
			                  "unknown option '%s' (see --help)",
			                  arg);
		arg += 2;
		eq = strchr(arg, '=');
		i = find_opt(opts, a->nopts, arg,
		             eq ? (size_t)(eq - arg) : strlen(arg));
		if (i < 0)
			return cg_err_set(err, CG_EINVAL,
			                  "unknown option '--%s' (see --help)",
			                  arg);
		if (!opts[i].has_arg) {
			if (eq != NULL)
				return cg_err_set(err, CG_EINVAL,
				                  "--%s takes no value",
				                  opts[i].name);
			a->nvalues[i] = 1;
			continue;
		}
		if (eq == NULL && k + 1 >= argc)
			return cg_err_set(err, CG_EINVAL, "--%s needs a value",
			                  opts[i].name);
		if (add_value(a, i, eq ? eq + 1 : argv[++k], err) != 0)
			return CG_EINVAL;
	}
	return 0;
}

int
cli_parse(cli_args *a, const cli_opt *opts, size_t nopts, int argc, char **argv,
          cg_err *err)
{
	return parse(a, opts, nopts, argc, argv, false, err);
}

int
cli_parse_words(cli_args *a, const cli_opt *opts, size_t nopts, int argc,
                char **argv, cg_err *err)
{
	return parse(a, opts, nopts, argc, argv, true, err);
}

static int
index_of(const cli_args *a, const char *name)
{
	return find_opt(a->opts, a->nopts, name, strlen(name));
}

const char *
cli_get(const cli_args *a, const char *name)
{
	int i = index_of(a, name);

	if (i < 0 || a->nvalues[i] == 0 || !a->opts[i].has_arg)
		return NULL;
	return a->values[i][a->nvalues[i] - 1];
}

bool
cli_flag(const cli_args *a, const char *name)
{
	int i = index_of(a, name);

	return i >= 0 && a->nvalues[i] > 0;
}

size_t
cli_all(const cli_args *a, const char *name, const char ***out)
{
	int i = index_of(a, name);

	if (i < 0) {
		*out = NULL;
		return 0;
	}
	*out = (const char **)a->values[i];
	return a->nvalues[i];
}

void
cli_usage(const char *cmd, const char *synopsis, const char *about,
          const cli_opt *opts, size_t nopts)
{
	printf("usage: corpus-gw %s %s\n\n%s\n\noptions:\n", cmd, synopsis,
	       about);
	for (size_t i = 0; i < nopts; i++)
		printf("  --%s%s%*s%s\n", opts[i].name,
		       opts[i].has_arg ? " V" : "",
		       (int)(20 - strlen(opts[i].name) -
		             (opts[i].has_arg ? 2 : 0)),
		       "", opts[i].help);
}

int
cli_fail(const char *cmd, const cg_err *err)
{
	(void)fprintf(stderr, "corpus-gw %s: %s\n", cmd,
	              err->msg[0] ? err->msg : cg_code_name(err->code));
	return cg_code_exit(err->code);
}

void
cli_print_json(const json_t *v)
{
	(void)json_dumpf(v, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	(void)fputc('\n', stdout);
}

int
cli_int(const cli_args *a, const char *name, long min, long max, int *out,
        cg_err *err)
{
	const char *v = cli_get(a, name);
	char *end = NULL;
	long n;

	if (v == NULL)
		return 0;
	n = strtol(v, &end, 10);
	if (end == v || *end != '\0' || n < min || n > max)
		return cg_err_set(err, CG_EINVAL,
		                  "invalid --%s '%s' (valid: %ld-%ld)", name, v,
		                  min, max);
	*out = (int)n;
	return 0;
}
