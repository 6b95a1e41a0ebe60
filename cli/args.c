/*
 * args.c - the option parser every subcommand uses: "--name value",
 * "--name=value", flags, repeatable options, "--" ending options, and
 * "-h"/"--help"; for query text (cli_parse_words) a "-word" is a word.
 * A few one-letter options name long ones wherever a command has them,
 * as grep and ripgrep spell them (-i, -s, -F, -C N or -CN, -A, -B).  It
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

/* The one-letter spellings (see above). */
static const struct {
	char c;
	const char *name;
} shorts[] = {
    {'i', "ignore-case"}, {'s', "case-sensitive"}, {'F', "fixed"},
    {'C', "context"},     {'A', "after-context"},  {'B', "before-context"},
};

/* Handles argv[*k] when it is a one-letter option of opts: 1 when
 * handled, 0 when it is not one, or a negative code. */
static int
short_opt(cli_args *a, const cli_opt *opts, int argc, char **argv, int *k,
          cg_err *err)
{
	const char *arg = argv[*k];
	int i = -1;

	for (size_t j = 0; j < sizeof(shorts) / sizeof(shorts[0]); j++)
		if (arg[1] == shorts[j].c)
			i = find_opt(opts, a->nopts, shorts[j].name,
			             strlen(shorts[j].name));
	if (i < 0)
		return 0;
	if (!opts[i].has_arg) {
		if (arg[2] != '\0')
			return cg_err_set(err, CG_EINVAL,
			                  "-%c takes no value (write flags "
			                  "apart: -%c -%c)",
			                  arg[1], arg[1], arg[2]);
		a->nvalues[i] = 1;
		return 1;
	}
	if (arg[2] != '\0')
		return add_value(a, i, arg + 2, err) == 0 ? 1 : CG_EINVAL;
	if (*k + 1 >= argc)
		return cg_err_set(err, CG_EINVAL, "-%c needs a value", arg[1]);
	*k += 1;
	return add_value(a, i, argv[*k], err) == 0 ? 1 : CG_EINVAL;
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
		if (arg[1] != '-') {
			int rc = short_opt(a, opts, argc, argv, &k, err);

			if (rc < 0)
				return rc;
			if (rc == 1)
				continue;
		}
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
