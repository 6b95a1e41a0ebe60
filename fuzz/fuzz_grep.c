/*
 * fuzz_grep.c - libFuzzer target for the grep matcher (node/grep.c):
 * pattern checks, regcomp/regexec under the UTF-8 locale, literal folding
 * and the streaming line splitter with small windows.
 *
 * Input: byte 0 holds flags (bit 0 fixed, bit 1 case-sensitive), byte 1
 * picks the window (16 + byte * 4) and the chunk size, the pattern runs to
 * the first '\n', the rest is the text.  The text is streamed twice, in
 * one piece and in chunks; the counts must agree (unless the text is
 * binary) or the target aborts.
 * It must not touch files or the network.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
count_hit(void *ctx, const cg_grep_hit *h)
{
	int64_t *n = ctx;

	if (h->text != NULL && strlen(h->text) > 4 * CG_GREP_TEXT_MAX)
		abort();
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
		(void)cg_grep_match(g, "probe line", NULL);
	}
	cg_grep_free(g);
	free(pat);
	return 0;
}
