/*
 * fuzz_frontmatter.c - libFuzzer target for node/frontmatter.c.  Arbitrary
 * bytes go through cg_fm_split and then cg_fm_parse (the block when there
 * is one, else the whole input, so the YAML paths see raw bytes too).  It
 * checks the invariants a caller relies on and aborts when one breaks; it
 * must not print or keep state between inputs.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "page/frontmatter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The ranges cg_fm_split reports must lie inside the input, in order. */
static void
check_split(int found, size_t size, size_t yo, size_t yl, size_t bo, int bl)
{
	if (found != 0 && found != 1)
		abort();
	if (bo > size || bl < 1)
		abort();
	if (found == 1 && (yo + yl > size || yo + yl > bo || bl < 3))
		abort();
	if (found == 0 && (yl != 0 || bl != 1 || bo > 3))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	size_t yo = 0, yl = 0, bo = 0;
	int bl = 0;
	int found = cg_fm_split(text, size, &yo, &yl, &bo, &bl);
	enum cg_fm_status st;
	json_t *fm = NULL;
	cg_err err;

	check_split(found, size, yo, yl, bo, bl);
	if (found == 0) {
		yo = 0;
		yl = size;
	}
	cg_err_clear(&err);
	st = cg_fm_parse(text + yo, yl, &fm, &err);
	if (fm == NULL || !json_is_object(fm))
		abort();
	if (st != CG_FM_OK && st != CG_FM_LENIENT && st != CG_FM_BROKEN)
		abort();
	if (st != CG_FM_OK && err.code == 0)
		abort();
	if (st == CG_FM_LENIENT && json_object_size(fm) == 0)
		abort();
	json_decref(fm);
	return 0;
}
