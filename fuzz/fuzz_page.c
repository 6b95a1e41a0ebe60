/*
 * fuzz_page.c - libFuzzer target for the page reader: any bytes, parsed as
 * a page of slug "fuzz" in a concepts/ directory, then freed.  It checks
 * the invariants a caller relies on and must not print or keep state.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "page/page.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cg_page page;
	char *key;

	if (cg_page_parse(&page, (const char *)data, size, "fuzz", "concept",
	                  NULL) != 0)
		return 0;
	if (page.fm == NULL || page.title == NULL || page.tags == NULL)
		abort();
	for (size_t i = 0; i < page.nsections; i++) {
		const cg_section *s = &page.sections[i];

		if (strlen(s->body) > CG_SECTION_MAX_BYTES ||
		    s->line_start < 1 || s->line_end < s->line_start ||
		    s->line_end > page.nlines || s->headings == NULL)
			abort();
	}
	for (size_t i = 0; i < page.nlinks; i++)
		if (page.links[i].target == NULL ||
		    page.links[i].target[0] == '\0' || page.links[i].line < 1 ||
		    page.links[i].line > page.nlines)
			abort();
	key = cg_page_claim_key(&page);
	free(key);
	cg_page_fini(&page);
	return 0;
}
