/*
 * bench_rank.c - the answers of corpus-gw's federation path for a list of
 * ranking-quality queries (bench/rank-queries: SET<TAB>RELEVANT<TAB>TEXT per
 * line), for bench/rank-bench to score: opens a workspace with
 * cg_embed_open, syncs it once, then prints per query SET, RELEVANT, the
 * top 10 hits as "source/path" joined by '|', and their match classes
 * joined by '|'.
 *
 * Benchmark code only (bench/rank-bench builds it against libcgcore); it
 * must not change the index beyond the one sync a CLI query would do, and
 * it judges nothing itself.
 *
 * Usage: bench_rank WORKSPACE CACHE_DIR QUERIES
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "federation/fed_search.h"
#include "gateway/embed.h"

#define LINE_MAX_BYTES 8192

static int
answer(cg_fed *fed, const char *text, bool sync, json_t **ans)
{
	cg_search_req req;
	cg_err err;
	int rc;

	memset(&req, 0, sizeof(req));
	req.text = text;
	req.sync = sync;
	req.limit = 10;
	cg_err_clear(&err);
	rc = cg_fed_search(fed, &req, ans, &err);
	if (rc != 0)
		fprintf(stderr, "bench_rank: '%s': %s: %s\n", text,
		        cg_code_name(rc), err.msg);
	return rc;
}

/* Prints SET<TAB>RELEVANT<TAB>hits for one query line (cut in place). */
static int
run_line(cg_fed *fed, char *line)
{
	char *rel = strchr(line, '\t');
	char *text = rel ? strchr(rel + 1, '\t') : NULL;
	json_t *ans = NULL;
	json_t *h;
	size_t i;

	if (line[0] == '#' || text == NULL)
		return 0;
	*rel++ = '\0';
	*text++ = '\0';
	text[strcspn(text, "\r\n")] = '\0';
	if (answer(fed, text, false, &ans) != 0)
		return 1;
	printf("%s\t%s\t", line, rel);
	json_array_foreach(json_object_get(ans, "hits"), i, h)
		printf("%s%s/%s", i ? "|" : "",
		       json_string_value(json_object_get(h, "source")),
		       json_string_value(json_object_get(h, "path")));
	printf("\t");
	json_array_foreach(json_object_get(ans, "hits"), i, h)
		printf("%s%s", i ? "|" : "",
		       json_string_value(json_object_get(h, "match")));
	printf("\n");
	json_decref(ans);
	return 0;
}

int
main(int argc, char **argv)
{
	static char line[LINE_MAX_BYTES];
	cg_embed *e = NULL;
	json_t *ans = NULL;
	FILE *f;
	cg_err err;
	int rc = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: bench_rank WORKSPACE CACHE QUERIES\n");
		return 2;
	}
	f = fopen(argv[3], "r");
	if (f == NULL) {
		perror(argv[3]);
		return 1;
	}
	cg_err_clear(&err);
	if (cg_embed_open(&e, argv[1], argv[2], &err) != 0) {
		fprintf(stderr, "bench_rank: %s: %s\n", argv[1], err.msg);
		fclose(f);
		return 1;
	}
	rc = answer(cg_embed_fed(e), "warm up", true, &ans);
	json_decref(ans);
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL)
		rc = run_line(cg_embed_fed(e), line);
	cg_embed_free(e);
	fclose(f);
	return rc == 0 ? 0 : 1;
}
