/*
 * answer_cmp.c - keeps search answers comparable across versions of the
 * query path (issue 11: "the answers do not change").
 *
 *   answer_cmp normalize < answer.json > line.json
 *       One line: the answer of `corpus-gw query --json` without what is
 *       expected to differ between runs and versions: evidence (timings,
 *       rounds, candidates walked) and the hits' explain.  Everything a
 *       reader sees stays: hits (uri, class, score, snippet, line range,
 *       every field), conflicts, note, related, followups, assumptions.
 *   answer_cmp compare OLD.jsonl NEW.jsonl
 *       Line by line: every value of OLD must be in NEW, arrays in the
 *       same order and of the same length, numbers equal within a
 *       relative 1e-9 (a score computed in another order of additions);
 *       keys NEW adds are allowed (fields a later version adds).  Prints
 *       each difference with its line and JSON path; exit 1 when any.
 *
 * Must not: read ../shared (the queries and answers are the caller's).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static void
drop_explain(json_t *hits)
{
	size_t i;
	json_t *h;

	json_array_foreach(hits, i, h)
		json_object_del(h, "explain");
}

static int
normalize(void)
{
	json_error_t e;
	json_t *a = json_loadf(stdin, 0, &e);

	if (!json_is_object(a)) {
		fprintf(stderr, "answer_cmp: not a JSON object: %s\n", e.text);
		json_decref(a);
		return 2;
	}
	json_object_del(a, "evidence");
	drop_explain(json_object_get(a, "hits"));
	if (json_dumpf(a, stdout, JSON_COMPACT | JSON_SORT_KEYS) != 0) {
		json_decref(a);
		return 2;
	}
	putchar('\n');
	json_decref(a);
	return 0;
}

static int same(const json_t *o, const json_t *n, char *path, size_t cap,
                int line);

static int
differ(int line, const char *path, const char *why)
{
	printf("line %d: %s: %s\n", line, path[0] ? path : "(top)", why);
	return 1;
}

static int
same_object(const json_t *o, const json_t *n, char *path, size_t cap, int line)
{
	size_t len = strlen(path);
	const char *key;
	json_t *v;
	int bad = 0;

	json_object_foreach((json_t *)o, key, v) {
		(void)snprintf(path + len, cap - len, ".%s", key);
		if (json_object_get(n, key) == NULL)
			bad |= differ(line, path, "missing");
		else
			bad |=
			    same(v, json_object_get(n, key), path, cap, line);
		path[len] = '\0';
	}
	return bad;
}

static int
same_array(const json_t *o, const json_t *n, char *path, size_t cap, int line)
{
	size_t len = strlen(path);
	int bad = 0;

	if (json_array_size(o) != json_array_size(n)) {
		char why[96];

		(void)snprintf(why, sizeof(why), "%zu items, now %zu",
		               json_array_size(o), json_array_size(n));
		return differ(line, path, why);
	}
	for (size_t i = 0; i < json_array_size(o); i++) {
		(void)snprintf(path + len, cap - len, "[%zu]", i);
		bad |= same(json_array_get(o, i), json_array_get(n, i), path,
		            cap, line);
		path[len] = '\0';
	}
	return bad;
}

static int
same(const json_t *o, const json_t *n, char *path, size_t cap, int line)
{
	if (json_is_number(o) && json_is_number(n)) {
		double a = json_number_value(o);
		double b = json_number_value(n);
		double scale = fmax(fabs(a), fabs(b));

		if (fabs(a - b) > 1e-9 * (scale > 1 ? scale : 1))
			return differ(line, path, "number differs");
		return 0;
	}
	if (json_typeof(o) != json_typeof(n))
		return differ(line, path, "type differs");
	if (json_is_object(o))
		return same_object(o, n, path, cap, line);
	if (json_is_array(o))
		return same_array(o, n, path, cap, line);
	if (!json_equal((json_t *)o, (json_t *)n)) {
		char why[600];
		char *a = json_dumps(o, JSON_ENCODE_ANY);
		char *b = json_dumps(n, JSON_ENCODE_ANY);

		(void)snprintf(why, sizeof(why), "%.280s, now %.280s",
		               a ? a : "?", b ? b : "?");
		free(a);
		free(b);
		return differ(line, path, why);
	}
	return 0;
}

static int
compare(const char *old_path, const char *new_path)
{
	FILE *fo = fopen(old_path, "r");
	FILE *fn = fopen(new_path, "r");
	char *lo = NULL;
	char *ln = NULL;
	size_t co = 0;
	size_t cn = 0;
	int line = 0;
	int bad = 0;

	if (fo == NULL || fn == NULL) {
		fprintf(stderr, "answer_cmp: cannot open %s or %s\n", old_path,
		        new_path);
		if (fo)
			fclose(fo);
		if (fn)
			fclose(fn);
		return 2;
	}
	while (getline(&lo, &co, fo) > 0) {
		json_t *o;
		json_t *n;
		char path[4096] = "";

		line++;
		if (getline(&ln, &cn, fn) <= 0) {
			bad |= differ(line, "", "no answer in the new file");
			break;
		}
		o = json_loads(lo, 0, NULL);
		n = json_loads(ln, 0, NULL);
		if (o == NULL || n == NULL)
			bad |= differ(line, "", "not JSON");
		else
			bad |= same(o, n, path, sizeof(path), line);
		json_decref(o);
		json_decref(n);
	}
	if (bad == 0 && getline(&ln, &cn, fn) > 0)
		bad |= differ(line + 1, "", "more answers in the new file");
	free(lo);
	free(ln);
	fclose(fo);
	fclose(fn);
	if (bad == 0)
		printf("answer_cmp: %d answers, all the same\n", line);
	return bad;
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "normalize") == 0)
		return normalize();
	if (argc == 4 && strcmp(argv[1], "compare") == 0)
		return compare(argv[2], argv[3]);
	fprintf(stderr, "usage: answer_cmp normalize < answer.json\n"
	                "       answer_cmp compare OLD.jsonl NEW.jsonl\n");
	return 2;
}
