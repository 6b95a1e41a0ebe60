/*
 * fuzz_grep.c - libFuzzer target for the grep matcher (page/grep.c):
 * PCRE2 compilation under the limits, literal and regex matching, context
 * lines and the streaming line splitter with small windows.
 *
 * Input: byte 0 holds flags (bit 0 fixed, bit 1 case-sensitive, bits 2-3
 * before-context, bits 4-5 after-context lines), byte 1
 * picks the window (16 + byte * 4) and the chunk size, the pattern runs to
 * the first '\n', the rest is the text.  The text is streamed twice, in
 * one piece and in chunks; the counts must agree (unless the text is
 * binary) or the target aborts.
 * Each short line is also matched with a plain pcre2_match of the
 * pattern over the whole line (the oracle), compiled with the same
 * options; the matcher must agree, unless a limit was hit (then it must
 * say so).  It must not touch files or the network.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_utf8.h"
#include "page/grep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
count_hit(void *ctx, const cg_grep_hit *h)
{
	int64_t *n = ctx;

	if (h->text != NULL && strlen(h->text) > 4 * CG_GREP_TEXT_MAX)
		abort();
	if (h->kind != CG_GREP_MATCH && (h->text == NULL || h->col != 0))
		abort(); /* context lines always have text, never a column */
	if (h->kind == CG_GREP_MATCH)
		(*n)++;
	return 0;
}

static void
stream(cg_grep *g, const char *text, size_t len, size_t step, cg_grep_file *st,
       int64_t *hits)
{
	*hits = 0;
	cg_grep_begin(g, 3, count_hit, hits, st);
	for (size_t i = 0; i < len; i += step) {
		size_t k = len - i < step ? len - i : step;

		if (cg_grep_feed(g, text + i, k) != 0)
			abort();
	}
	if (cg_grep_end(g) != 0)
		abort();
}

/* Each line of text shorter than the window: cg_grep_match must agree
 * with pcre2_match of the bare pattern (compiled the same way). */
static void
oracle(cg_grep *g, const cg_grep_opts *o, const char *text, size_t len)
{
	uint32_t flags =
	    PCRE2_UTF | PCRE2_MATCH_INVALID_UTF |
	    (o->case_sensitive ? 0 : PCRE2_CASELESS) |
	    (o->fixed ? PCRE2_LITERAL : PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C);
	int code;
	PCRE2_SIZE at;
	pcre2_code *re =
	    pcre2_compile((PCRE2_SPTR)o->pattern, PCRE2_ZERO_TERMINATED, flags,
	                  &code, &at, NULL);
	pcre2_match_data *md =
	    re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	char line[256];

	if (re == NULL || md == NULL || mc == NULL)
		abort(); /* cg_grep_new compiled it */
	(void)pcre2_set_match_limit(mc, CG_GREP_MATCH_LIMIT);
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - text - i) : len - i;

		if (n < sizeof(line) && n < o->window &&
		    memchr(text + i, '\0', n) == NULL) {
			int rc;
			bool got;

			memcpy(line, text + i, n);
			line[n] = '\0';
			rc = pcre2_match(re, (PCRE2_SPTR)line, n, 0, 0, md, mc);
			got = cg_grep_match(g, line, NULL);
			if (rc >= 0 && !got && cg_grep_error(g)[0] == '\0')
				abort();
			if (rc == PCRE2_ERROR_NOMATCH && got)
				abort();
		}
		i += n + 1;
	}
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl;
	char *pat;
	cg_grep_opts o;
	cg_grep *g = NULL;
	cg_grep_file a;
	cg_grep_file b;
	int64_t ha;
	int64_t hb;

	if (size < 3)
		return 0;
	nl = memchr(data + 2, '\n', size - 2);
	if (nl == NULL)
		return 0;
	pat = strndup((const char *)data + 2,
	              (size_t)(nl - (const char *)data - 2));
	if (pat == NULL)
		return 0;
	memset(&o, 0, sizeof(o));
	o.pattern = pat;
	o.fixed = data[0] & 1;
	o.case_sensitive = (data[0] & 2) != 0;
	o.window = 16 + (size_t)data[1] * 4;
	o.before = (data[0] >> 2) & 3; /* context lines, 0-3 */
	o.after = (data[0] >> 4) & 3;
	if (cg_grep_new(&g, &o, NULL) == 0) {
		const char *text = nl + 1;
		size_t len = size - (size_t)(text - (const char *)data);

		stream(g, text, len, len ? len : 1, &a, &ha);
		stream(g, text, len, 1 + data[1] % 7, &b, &hb);
		/* a binary stream's counts depend on where the NUL fell in
		 * a chunk; the caller drops them, so only the flag counts */
		if (a.binary != b.binary ||
		    (!a.binary &&
		     (a.matches != b.matches || a.lines != b.lines ||
		      ha != hb || ha != a.matches)))
			abort();
		oracle(g, &o, text, len);
		(void)cg_grep_match(g, "probe line", NULL);
	}
	cg_grep_free(g);
	free(pat);
	return 0;
}
