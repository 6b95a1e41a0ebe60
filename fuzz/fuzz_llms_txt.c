/*
 * fuzz_llms_txt.c - libFuzzer target for the llms.txt manifest of an
 * llms-txt source (cache/llms_txt.h).  The bytes are parsed as a manifest,
 * and every link's href, and the input itself taken as one href and as a
 * redirect's Location, go through the URL rules.  Invariants checked:
 * - the parse never fails but for size; at most CG_LLMS_MAX_LINKS links,
 *   each with a non-empty href; title, href, note, section and summary
 *   are valid UTF-8 without NUL bytes, titles and notes at most 1,000
 *   bytes;
 * - an accepted link has a URL on the site's own origin, printable ASCII
 *   without spaces, at most CG_LLMS_URL_MAX bytes, and a document path
 *   an independent oracle calls safe: relative, non-empty segments other
 *   than "." and "..", no backslash or control byte, valid UTF-8, ending
 *   ".md", at most CG_LLMS_DOC_MAX bytes;
 * - an accepted redirect stays on an allowed origin and is printable.
 * It must not print or write files.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/llms_txt.h"
#include "common/cg_utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ORIGIN "https://docs.x.test"
#define OTHER  "http://cdn.x.test:8080"

static void
text_ok(const char *s, size_t max)
{
	size_t n;

	if (s == NULL)
		return;
	n = strlen(s);
	if (!cg_utf8_valid(s, n) || n > max)
		abort();
}

static bool
printable_url(const char *u)
{
	size_t n = strlen(u);

	if (n == 0 || n > CG_LLMS_URL_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (u[i] <= 0x20 || u[i] >= 0x7f)
			return false;
	return true;
}

static bool
on_origin(const char *u)
{
	size_t a = strlen(ORIGIN);
	size_t b = strlen(OTHER);

	return (strncmp(u, ORIGIN, a) == 0 && (u[a] == '/' || u[a] == '?')) ||
	       (strncmp(u, OTHER, b) == 0 && (u[b] == '/' || u[b] == '?'));
}

/* The oracle: a relative path of safe segments, ending ".md". */
static bool
safe_doc(const char *d)
{
	size_t n = strlen(d);
	size_t start = 0;

	if (n < 4 || n > CG_LLMS_DOC_MAX || d[0] == '/' ||
	    strcmp(d + n - 3, ".md") != 0 || !cg_utf8_valid(d, n))
		return false;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && (unsigned char)d[i] < 0x20)
			return false;
		if (i < n && (d[i] == '\\' || d[i] == 0x7f))
			return false;
		if (i < n && d[i] != '/')
			continue;
		if (i == start || (i - start == 1 && d[start] == '.') ||
		    (i - start == 2 && d[start] == '.' && d[start + 1] == '.'))
			return false;
		start = i + 1;
	}
	return true;
}

static void
check_href(const cg_llms_site *s, const char *href)
{
	char *url = NULL;
	char *doc = NULL;
	cg_err why;

	if (cg_llms_resolve(s, href, &url, &doc, &why) == 0) {
		if (!printable_url(url) || !on_origin(url) || !safe_doc(doc))
			abort();
	} else if (url != NULL || doc != NULL) {
		abort();
	}
	free(url);
	free(doc);
	if (cg_llms_redirect(s, ORIGIN "/en/page.md", href, &url, &why) == 0) {
		if (!printable_url(url) || !on_origin(url))
			abort();
	} else if (url != NULL) {
		abort();
	}
	free(url);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cg_llms_site s;
	cg_llms m;
	char *whole;

	if (cg_llms_site_init(&s, ORIGIN "/llms.txt", OTHER "/md/", ".md",
	                      NULL) != 0)
		abort();
	if (cg_llms_parse(&m, (const char *)data, size, NULL) == 0) {
		if (m.n > CG_LLMS_MAX_LINKS || m.warnings == NULL ||
		    m.sections == NULL)
			abort();
		text_ok(m.title, 1000);
		text_ok(m.summary, 1000);
		for (size_t i = 0; i < m.n; i++) {
			const cg_llms_link *l = &m.links[i];

			if (l->href == NULL || l->href[0] == '\0' ||
			    l->title == NULL)
				abort();
			text_ok(l->title, 1000);
			text_ok(l->note, 1000);
			text_ok(l->section, 1000);
			text_ok(l->href, CG_LLMS_URL_MAX);
			check_href(&s, l->href);
		}
		cg_llms_fini(&m);
	}
	/* The input as one href (up to a NUL). */
	whole = malloc(size + 1);
	if (whole != NULL) {
		memcpy(whole, data, size);
		whole[size] = '\0';
		check_href(&s, whole);
		free(whole);
	}
	cg_llms_site_fini(&s);
	return 0;
}
