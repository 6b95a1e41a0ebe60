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
 * For a regex, each short valid UTF-8 line is also matched with a plain
 * unanchored regexec of the pattern (the oracle): cg_grep_match runs "^.*(P)"
 * run by run instead, and must agree.  It must not touch files or the network.
 */
#include <locale.h>
#include <regex.h>
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
 * with regexec of the bare pattern (compiled the same way). */
static void
oracle(cg_grep *g, const cg_grep_opts *o, const char *text, size_t len)
{
	locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	locale_t old;
	regex_t re;
	char line[256];

	if (loc == (locale_t)0)
		return;
	old = uselocale(loc);
	if (regcomp(&re, o->pattern,
	            REG_EXTENDED | REG_NOSUB |
	                (o->case_sensitive ? 0 : REG_ICASE)) == 0) {
		for (size_t i = 0; i < len;) {
			const char *nl = memchr(text + i, '\n', len - i);
			size_t n = nl ? (size_t)(nl - text - i) : len - i;

			/* glibc decodes some invalid UTF-8 (F4 AB B0 B0)
			 * as characters; the matcher, like ripgrep, never
			 * matches invalid bytes: compare valid lines only */
			if (n < sizeof(line) && n < o->window &&
			    cg_utf8_valid(text + i, n)) {
				bool want;

				memcpy(line, text + i, n);
				line[n] = '\0';
				want = regexec(&re, line, 0, NULL, 0) == 0;
				uselocale(old);
				if (cg_grep_match(g, line, NULL) != want)
					abort();
				uselocale(loc);
			}
			i += n + 1;
		}
		regfree(&re);
	}
	uselocale(old);
	freelocale(loc);
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
		if (!o.fixed)
			oracle(g, &o, text, len);
		(void)cg_grep_match(g, "probe line", NULL);
	}
	cg_grep_free(g);
	free(pat);
	return 0;
}
