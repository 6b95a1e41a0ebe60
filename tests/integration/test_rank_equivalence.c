/*
 * test_rank_equivalence.c - scores are comparable across nodes (issue 4,
 * acceptance 2): the same pages split into 1, 4 and 16 sources give the
 * same top 10, in the same order, for 50 queries.  The corpus is
 * generated from a fixed seed: words drawn from a small vocabulary with a
 * skewed distribution, so common and rare terms, phrases and partial
 * matches all occur.  Every page has its own updated_at, so ties break the
 * same way whatever the split.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"
#include "common/cg_buf.h"

#define NPAGES   320
#define NQUERIES 50

static const char *const vocab[] = {
    "archive", "backup",   "cache",   "daemon",  "editor",   "filter",
    "gateway", "host",     "index",   "journal", "kernel",   "ledger",
    "mirror",  "network",  "offset",  "packet",  "queue",    "replica",
    "schema",  "token",    "upload",  "vector",  "window",   "yield",
    "zone",    "compress", "extract", "deploy",  "rollback", "migrate",
    "的",      "数据",     "压缩",    "归档",    "网络",     "服务"};
#define NVOCAB (sizeof(vocab) / sizeof(vocab[0]))

static char *layouts[3];
static char *cache;
static const int splits[3] = {1, 4, 16};
static char queries[NQUERIES][128];

static unsigned
rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 16) & 0x7fff;
}

/* Skewed pick: low indexes are common. */
static const char *
word(unsigned *s)
{
	unsigned a = rnd(s) % NVOCAB;
	unsigned b = rnd(s) % NVOCAB;

	return vocab[a < b ? a : b];
}

static void
page_text(int i, cg_buf *b)
{
	unsigned s = 7919u * (unsigned)i + 17u;
	int nwords = 20 + (int)(rnd(&s) % 120);

	cg_buf_reset(b);
	(void)cg_buf_printf(b, "# %s %s %d\n\n", word(&s), word(&s), i);
	for (int w = 0; w < nwords; w++) {
		(void)cg_buf_puts(b, word(&s));
		(void)cg_buf_puts(b, w % 12 == 11 ? ".\n" : " ");
		if (w == nwords / 2)
			(void)cg_buf_printf(b, "\n\n## %s\n\n", word(&s));
	}
	(void)cg_buf_putc(b, '\n');
}

static void
write_layout(const char *dir, int split)
{
	cg_buf b;

	cg_buf_init(&b, 1 << 20);
	for (int i = 0; i < NPAGES; i++) {
		char rel[256];
		char fm[128];

		if (split == 1)
			(void)snprintf(rel, sizeof(rel),
			               ".guild/wiki/concepts/p%03d.md", i);
		else
			(void)snprintf(rel, sizeof(rel),
			               "s%02d/.guild/wiki/concepts/p%03d.md",
			               i % split, i);
		(void)snprintf(fm, sizeof(fm),
		               "type: concept\nupdated_at: 2025-%02d-%02d",
		               1 + i / 28, 1 + i % 28);
		page_text(i, &b);
		cgt_page(dir, rel, fm, b.data);
	}
	for (int s = 0; split > 1 && s < split; s++) {
		char rel[64];

		(void)snprintf(rel, sizeof(rel), "s%02d/.git/HEAD", s);
		cgt_write(dir, rel, "ref: refs/heads/main\n");
	}
	cg_buf_fini(&b);
}

static void
make_queries(void)
{
	unsigned s = 4242u;

	for (int q = 0; q < NQUERIES; q++) {
		int n = 1 + (int)(rnd(&s) % 3);

		queries[q][0] = '\0';
		for (int w = 0; w < n; w++) {
			if (w > 0)
				strncat(queries[q], " ",
				        sizeof(queries[q]) -
				            strlen(queries[q]) - 1);
			strncat(queries[q], vocab[rnd(&s) % NVOCAB],
			        sizeof(queries[q]) - strlen(queries[q]) - 1);
		}
	}
}

static int
setup(void **state)
{
	cache = cgt_tmpdir("rankeq-cache");
	for (int l = 0; l < 3; l++) {
		char tag[32];

		(void)snprintf(tag, sizeof(tag), "rankeq-%d", splits[l]);
		layouts[l] = cgt_tmpdir(tag);
		write_layout(layouts[l], splits[l]);
	}
	make_queries();
	return 0;
}

static int
teardown(void **state)
{
	for (int l = 0; l < 3; l++) {
		cgt_rm(layouts[l]);
		free(layouts[l]);
	}
	cgt_rm(cache);
	free(cache);
	return 0;
}

/* "p123.md score" of the top 10, one per line. */
static void
top10(const json_t *ans, cg_buf *out)
{
	size_t i;
	const json_t *h;

	cg_buf_reset(out);
	json_array_foreach(json_object_get(ans, "hits"), i, h) {
		const char *p = json_string_value(json_object_get(h, "path"));
		const char *base = strrchr(p, '/');

		(void)cg_buf_printf(
		    out, "%s %.9f %s\n", base + 1,
		    json_number_value(json_object_get(h, "score")),
		    json_string_value(json_object_get(h, "match")));
	}
}

static void
test_same_top10(void **state)
{
	cg_buf ref;
	cg_buf got;
	int nonempty = 0;

	cg_buf_init(&ref, 1 << 20);
	cg_buf_init(&got, 1 << 20);
	for (int q = 0; q < NQUERIES; q++) {
		json_t *a = cgt_query(layouts[0], cache, "--limit", "10",
		                      queries[q], NULL);

		top10(a, &ref);
		nonempty += json_array_size(json_object_get(a, "hits")) > 0;
		json_decref(a);
		for (int l = 1; l < 3; l++) {
			json_t *b = cgt_query(layouts[l], cache, "--limit",
			                      "10", queries[q], NULL);

			top10(b, &got);
			if (strcmp(ref.data, got.data) != 0)
				fprintf(
				    stderr,
				    "query '%s' split %d differs:\n%s--\n%s",
				    queries[q], splits[l], ref.data, got.data);
			assert_string_equal(ref.data, got.data);
			json_decref(b);
		}
	}
	/* The comparison means something only if queries match. */
	assert_true(nonempty >= NQUERIES * 9 / 10);
	cg_buf_fini(&ref);
	cg_buf_fini(&got);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_top10),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
