/*
 * fuzz_query.c - libFuzzer target for the query sanitizer and tokenizer.
 *
 * Feeds arbitrary bytes to cg_token_each (checking the token invariants) and,
 * as a NUL-terminated copy, to cg_query_parse; then runs all four match
 * expressions, both ranking passes and the exclusion against a small
 * in-memory FTS5 table and abort()s on any SQLite error, when PHRASE
 * matches more rows than ALL or ALL more than SOME, or when the AND pass
 * matches more than the OR pass.  A parse may fail only with CG_ETOOBIG
 * (too long) or CG_EINVAL (exclusions only).  The table is created once and
 * kept for the process: a fuzz harness, not project code, so the static is
 * deliberate.  It must not touch files or the network.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "index/fts_tokenizer.h"
#include "page/query.h"
#include "page/token.h"

static sqlite3 *fuzz_db;

static void
open_db(void)
{
	if (fuzz_db != NULL)
		return;
	if (sqlite3_open(":memory:", &fuzz_db) != SQLITE_OK ||
	    cg_fts_tokenizer_register(fuzz_db) != 0 ||
	    sqlite3_exec(
	        fuzz_db,
	        "CREATE VIRTUAL TABLE s USING fts5(title, headings, "
	        "body, tags, meta, tokenize='cgw');"
	        "INSERT INTO s VALUES"
	        " ('Mail setup', 'Linux', 'foo bar baz and not or',"
	        "  'ops', 'owner: ops'),"
	        " ('C++ notes', '', 'admin@x.org e-mail what?', '', ''),"
	        " ('归档', '', '使用 tar 归档 files 无限衍义 三张资格证',"
	        "  'cjk', ''),"
	        " ('Café', 'Ελλάδα', 'москва ＡＢＣ near a b c', '', ''),"
	        " ('ひらがな', '한국어', 'カタカナ x y z 1 2 3', '', ''),"
	        " ('ค้นหา', 'ພາສາລາວ', 'กุ้งแม่น้ำ wiki ខ្មែរ မြန်မာ', '', '');",
	        NULL, NULL, NULL) != SQLITE_OK)
		abort();
}

/* Number of rows matching expr; abort()s on any SQLite error. */
static int
count_rows(const char *expr)
{
	sqlite3_stmt *st = NULL;
	int n = 0;
	int rc;

	if (sqlite3_prepare_v2(fuzz_db, "SELECT rowid FROM s WHERE s MATCH ?1",
	                       -1, &st, NULL) != SQLITE_OK)
		abort();
	if (sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC) != SQLITE_OK)
		abort();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		n++;
	if (rc != SQLITE_DONE)
		abort();
	sqlite3_finalize(st);
	return n;
}

/* Checks what token.h promises about every token. */
static int
check_token(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	const char *text = ctx;

	if (ntok < 1 || ntok > CG_TOKEN_MAX || start < 0 || start >= end)
		abort();
	if (memchr(tok, '"', (size_t)ntok) != NULL ||
	    memchr(tok, ' ', (size_t)ntok) != NULL)
		abort();
	/* A CJK character is its own bytes; a cluster is normalised. */
	if (cjk && cg_token_unit(tok, ntok) == CG_UNIT_OTHER &&
	    (ntok != end - start ||
	     memcmp(tok, text + start, (size_t)ntok) != 0))
		abort();
	return 0;
}

static void
check_query(const cg_query *q)
{
	static const enum cg_match classes[] = {CG_MATCH_PHRASE, CG_MATCH_ALL,
	                                        CG_MATCH_SOME, CG_MATCH_META};
	int count[4] = {0, 0, 0, 0};

	if (q->n > CG_QUERY_MAX_TERMS)
		abort();
	for (size_t c = 0; c < 4; c++) {
		char *expr = cg_query_fts(q, classes[c]);

		if (expr == NULL && q->n > 0 && classes[c] != CG_MATCH_PHRASE)
			abort();
		if (expr != NULL)
			count[c] = count_rows(expr);
		free(expr);
	}
	/* PHRASE rows are ALL rows, ALL rows are SOME rows. */
	if (count[0] > count[1] || count[1] > count[2])
		abort();
	{
		char *and = cg_query_fts_pass(q, true);
		char * or = cg_query_fts_pass(q, false);

		if (q->n > 0 && (and == NULL || or == NULL))
			abort();
		if (and != NULL && count_rows(and) > count_rows(or))
			abort();
		free(and);
		free(or);
	}
	if (q->exclude != NULL)
		(void)count_rows(q->exclude);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	cg_query q;
	int rc;

	if (size > 16384)
		return 0;
	open_db();
	text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)cg_token_each(text, (int)size, check_token, text);
	rc = cg_query_parse(&q, text, NULL);
	if (rc == 0) {
		check_query(&q);
		cg_query_fini(&q);
	} else if (rc == CG_EINVAL ? strchr(text, '-') == NULL
	                           : rc != CG_ETOOBIG ||
	                                 strlen(text) <= CG_QUERY_MAX_BYTES) {
		abort();
	}
	free(text);
	return 0;
}
