/*
 * sketch.c - the MinHash of a page's body words (see sketch.h).  It reads
 * the page's sections from the index (rowids page << CG_SEC_SHIFT ...);
 * it must not write, or keep anything between calls.
 */
#include "index/sketch.h"

#include <string.h>

#include "page/token.h"

/* splitmix64: a fast, well-mixed 64-bit hash step. */
static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t
fnv1a(const char *s, int n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

struct sketch {
	uint64_t min[CG_SKETCH_K];
	int any;
};

static int
on_token(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	struct sketch *s = ctx;
	uint64_t h = fnv1a(tok, ntok);

	(void)start;
	(void)end;
	(void)cjk;
	for (int k = 0; k < CG_SKETCH_K; k++) {
		uint64_t v = mix(h ^ ((uint64_t)k * 0x632be59bd9b4e019ULL));

		if (v < s->min[k])
			s->min[k] = v;
	}
	s->any = 1;
	return 0;
}

json_t *
cg_sketch_page(cg_index *idx, int64_t page, cg_err *err)
{
	sqlite3_stmt *st = cg_index_stmt(
	    idx, "SELECT body FROM sec WHERE rowid BETWEEN ?1 AND ?2");
	struct sketch s;
	json_t *out;
	int rc;

	if (st == NULL) {
		(void)cg_index_query_fail(
		    idx, sqlite3_errcode(cg_index_db(idx)), "sketch", err);
		return NULL;
	}
	memset(s.min, 0xff, sizeof(s.min));
	s.any = 0;
	sqlite3_bind_int64(st, 1, page << CG_SEC_SHIFT);
	sqlite3_bind_int64(st, 2, ((page + 1) << CG_SEC_SHIFT) - 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *b = (const char *)sqlite3_column_text(st, 0);
		int n = sqlite3_column_bytes(st, 0);

		if (cg_index_row_nomem(st) ||
		    (b != NULL && n > 0 &&
		     cg_token_each(b, n, on_token, &s) != 0)) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		(void)cg_index_query_fail(idx, rc, "sketch", err);
		return NULL;
	}
	out = json_array();
	for (int k = 0; out != NULL && s.any && k < CG_SKETCH_K; k++)
		if (json_array_append_new(
		        out, json_integer((json_int_t)(s.min[k] >> 1))) != 0) {
			json_decref(out);
			out = NULL;
		}
	if (out == NULL)
		(void)cg_err_set(err, CG_ENOMEM, "sketch: out of memory");
	return out;
}
