/*
 * cmd_search.c - `corpus-gw index` and `corpus-gw query`, in embedded mode
 * (--workspace DIR): the workspace's nodes run in this process and the
 * query takes the federation path the gateway takes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_buf.h"
#include "cli.h"
#include "embed.h"

static const cli_opt index_opts[] = {
    {"workspace", true, false, "workspace directory (default: .)"},
    {"cache", true, false, "index cache directory"},
    {"json", false, false, "print JSON"},
    {"help", false, false, "show this help"},
};

static const cli_opt query_opts[] = {
    {"workspace", true, false, "workspace directory (default: .)"},
    {"cache", true, false, "index cache directory"},
    {"json", false, false, "print one JSON object"},
    {"category", true, false,
     "context|standard|product|entity|concept|decision|source"},
    {"owner", true, false, "owner (case-insensitive)"},
    {"confidence", true, false, "low|medium|high"},
    {"updated-since", true, false, "YYYY-MM-DD (inclusive)"},
    {"tag", true, false, "tag (case-insensitive)"},
    {"source", true, true, "limit to a source (repeatable)"},
    {"limit", true, false, "hits to return (default 20, max 500)"},
    {"explain", false, false, "show match class, scores, index work"},
    {"help", false, false, "show this help"},
};

#define NOPTS(t) (sizeof(t) / sizeof((t)[0]))

int
cli_open_embed(const cli_args *a, cg_embed **e, cg_err *err)
{
	const char *ws = cli_get(a, "workspace");
	const char *cache = cli_get(a, "cache");
	char *def = NULL;
	int rc;

	if (cache == NULL) {
		def = cg_default_cache_dir();
		cache = def;
	}
	if (cache == NULL)
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	rc = cg_embed_open(e, ws ? ws : ".", cache, err);
	free(def);
	return rc;
}

static void
print_sync(const json_t *report)
{
	const char *src;
	json_t *s;

	json_object_foreach((json_t *)report, src, s)
	{
		printf("%-20s generation %lld: %lld files, %lld re-indexed, "
		       "%lld added, %lld deleted, %lld skipped",
		       src,
		       (long long)json_integer_value(
			   json_object_get(s, "generation")),
		       (long long)json_integer_value(
			   json_object_get(s, "files")),
		       (long long)json_integer_value(
			   json_object_get(s, "reparsed")),
		       (long long)json_integer_value(
			   json_object_get(s, "added")),
		       (long long)json_integer_value(
			   json_object_get(s, "deleted")),
		       (long long)json_integer_value(
			   json_object_get(s, "skipped")));
		if (json_is_string(json_object_get(s, "rebuild_reason")))
			printf(" (rebuilt: %s)",
			       json_string_value(
				   json_object_get(s, "rebuild_reason")));
		printf("\n");
	}
}

int
cmd_index(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	cg_embed *e = NULL;
	json_t *report = NULL;
	int rc;

	cg_err_clear(&err);
	rc = cli_parse(&a, index_opts, NOPTS(index_opts), argc, argv, &err);
	if (rc != 0)
		return cli_fail("index", &err);
	if (cli_flag(&a, "help")) {
		cli_usage("index", "[--workspace DIR] [--cache DIR] [--json]",
			  "Indexes (incrementally) every wiki of a workspace.",
			  index_opts, NOPTS(index_opts));
		return 0;
	}
	if (a.npos > 0) {
		cg_err_set(&err, CG_EINVAL, "unexpected argument '%s'",
			   a.pos[0]);
		return cli_fail("index", &err);
	}
	rc = cli_open_embed(&a, &e, &err);
	if (rc == 0)
		rc = cg_fed_sync(cg_embed_fed(e), &report, &err);
	if (rc == 0 && cli_flag(&a, "json"))
		cli_print_json(report);
	else if (rc == 0)
		print_sync(report);
	json_decref(report);
	cg_embed_free(e);
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
parse_limit(const char *s, int *out, cg_err *err)
{
	char *end = NULL;
	long v;

	if (s == NULL) {
		*out = 0;
		return 0;
	}
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || v < 1 || v > 500)
		return cg_err_set(err, CG_EINVAL,
				  "invalid --limit '%s' (valid: 1-500)", s);
	*out = (int)v;
	return 0;
}

static int
build_req(const cli_args *a, cg_search_req *r, char *text, cg_err *err)
{
	memset(r, 0, sizeof(*r));
	r->text = text;
	r->filters.category = cli_get(a, "category");
	r->filters.owner = cli_get(a, "owner");
	r->filters.confidence = cli_get(a, "confidence");
	r->filters.updated_since = cli_get(a, "updated-since");
	r->filters.tag = cli_get(a, "tag");
	r->nsources = cli_all(a, "source", (const char ***)&r->sources);
	r->explain = cli_flag(a, "explain");
	r->sync = true;
	return parse_limit(cli_get(a, "limit"), &r->limit, err);
}

int
cmd_query(int argc, char **argv)
{
	cli_args a;
	cg_err err;
	cg_embed *e = NULL;
	cg_search_req req;
	json_t *ans = NULL;
	char *text = NULL;
	int rc;

	cg_err_clear(&err);
	rc = cli_parse(&a, query_opts, NOPTS(query_opts), argc, argv, &err);
	if (rc != 0)
		return cli_fail("query", &err);
	if (cli_flag(&a, "help")) {
		cli_usage("query", "[options] [TEXT...]",
			  "Searches every wiki of a workspace. The search is "
			  "lexical; an empty\nresult does not prove absence "
			  "(grep is the exhaustive path).",
			  query_opts, NOPTS(query_opts));
		return 0;
	}
	text = query_text(&a);
	rc = text ? build_req(&a, &req, text, &err)
		  : cg_err_set(&err, CG_ENOMEM, "out of memory");
	if (rc == 0)
		rc = cli_open_embed(&a, &e, &err);
	if (rc == 0)
		rc = cg_fed_search(cg_embed_fed(e), &req, &ans, &err);
	if (rc == 0 && cli_flag(&a, "json"))
		cli_print_json(ans);
	else if (rc == 0)
		cli_render_search(ans, req.explain);
	json_decref(ans);
	cg_embed_free(e);
	free(text);
	return rc == 0 ? 0 : cli_fail("query", &err);
}
