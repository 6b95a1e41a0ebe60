/*
 * suggest.c - close words from one index's vocabulary (see suggest.h).
 *
 * The vocabulary is FTS5's own: a temp fts5vocab table over "sec" (per
 * connection, created when first needed; a temp table writes nothing to
 * the index).  Only the tokens that start with the word's first character
 * are read (a range of the vocabulary, so a suggestion costs a fraction
 * of a scan); a typo in the first character is therefore not corrected.
 * It must not write to the index, or run for every query: the federation
 * asks only when a result is empty or thin.
 */
#include "index/suggest.h"

#include <stdint.h>
#include <string.h>

#include "common/cg_utf8.h"

#define MAX_CP 64

int
cg_suggest_max_distance(int n)
{
	if (n < 3)
		return 0;
	return n <= 4 ? 1 : 2;
}

/* Decodes s into at most MAX_CP code points (an invalid byte is one
 * code point of its own); -1 when longer. */
static int
decode(const char *s, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	size_t off = 0;
	int n = 0;

	while (off < len) {
		int k;

		if (n == MAX_CP)
			return -1;
		k = cg_utf8_decode(p + off, len - off, &cp[n]);
		if (k == 0) {
			cp[n] = 0x80000000u | p[off];
			k = 1;
		}
		off += (size_t)k;
		n++;
	}
	return n;
}

static int
min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

int
cg_suggest_distance(const char *a, const char *b, int cap)
{
	uint32_t x[MAX_CP];
	uint32_t y[MAX_CP];
	int d[MAX_CP + 1][MAX_CP + 1];
	int n = decode(a, x);
	int m = decode(b, y);

	if (n < 0 || m < 0 || (n > m ? n - m : m - n) > cap)
		return cap + 1;
	for (int i = 0; i <= n; i++)
		d[i][0] = i;
	for (int j = 0; j <= m; j++)
		d[0][j] = j;
	for (int i = 1; i <= n; i++)
		for (int j = 1; j <= m; j++) {
			int sub = x[i - 1] == y[j - 1] ? 0 : 1;

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
			               d[i - 1][j - 1] + sub);
			if (i > 1 && j > 1 && x[i - 1] == y[j - 2] &&
			    x[i - 2] == y[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	return d[n][m];
}

/* Inserts {w, df, d} into near, kept sorted by d, then df (most first),
 * then w, and cut at CG_SUGGEST_MAX. */
static void
keep(json_t *near, const char *w, json_int_t df, int d)
{
	size_t at = json_array_size(near);

	while (at > 0) {
		const json_t *o = json_array_get(near, at - 1);
		json_int_t od = json_integer_value(json_object_get(o, "d"));
		json_int_t odf = json_integer_value(json_object_get(o, "df"));

		if (od < d || (od == d && odf >= df))
			break;
		at--;
	}
	if (at >= CG_SUGGEST_MAX)
		return;
	json_array_insert_new(
	    near, at, json_pack("{s:s, s:I, s:i}", "w", w, "df", df, "d", d));
	if (json_array_size(near) > CG_SUGGEST_MAX)
		json_array_remove(near, CG_SUGGEST_MAX);
}

/* The vocabulary table on this connection. */
static int
vocab(cg_index *idx, cg_err *err)
{
	sqlite3_stmt *st = cg_index_stmt(
	    idx, "CREATE VIRTUAL TABLE IF NOT EXISTS temp.cg_vocab USING "
	         "fts5vocab(main, 'sec', 'row')");
	int rc;

	if (st == NULL)
		return cg_index_query_fail(
		    idx, sqlite3_errcode(cg_index_db(idx)), "suggest", err);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0
	                         : cg_index_query_fail(idx, rc, "suggest", err);
}

int
cg_suggest_word(cg_index *idx, const char *word, json_t *out, cg_err *err)
{
	uint32_t cp[MAX_CP];
	int n = decode(word, cp);
	int cap = cg_suggest_max_distance(n);
	json_t *near = json_array();
	json_int_t self = 0;
	char lo[8];
	char hi[8];
	uint32_t c0;
	int first;
	sqlite3_stmt *st;
	int rc;

	json_object_set_new(
	    out, word,
	    json_pack("{s:I, s:o}", "df", (json_int_t)0, "near", near));
	if (cap == 0)
		return 0;
	first = cg_utf8_decode((const unsigned char *)word, strlen(word), &c0);
	if (first == 0)
		return 0;
	memcpy(lo, word, (size_t)first);
	lo[first] = '\0';
	memcpy(hi, lo, (size_t)first + 1);
	hi[first - 1]++; /* UTF-8 never holds 0xff: no carry */
	rc = vocab(idx, err);
	if (rc != 0)
		return rc;
	st = cg_index_stmt(idx, "SELECT term, doc FROM temp.cg_vocab WHERE "
	                        "term >= ?1 AND term < ?2");
	if (st == NULL)
		return cg_index_query_fail(
		    idx, sqlite3_errcode(cg_index_db(idx)), "suggest", err);
	sqlite3_bind_text(st, 1, lo, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, hi, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		json_int_t df = sqlite3_column_int64(st, 1);
		int d;

		if (t == NULL)
			continue;
		if (strcmp(t, word) == 0) {
			self = df;
			continue;
		}
		d = cg_suggest_distance(word, t, cap);
		if (d <= cap)
			keep(near, t, df, d);
	}
	sqlite3_reset(st);
	json_object_set_new(json_object_get(out, word), "df",
	                    json_integer(self));
	return rc == SQLITE_DONE ? 0
	                         : cg_index_query_fail(idx, rc, "suggest", err);
}
