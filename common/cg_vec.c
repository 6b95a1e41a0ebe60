/*
 * cg_vec.c - the growable array (see cg_vec.h).
 */
#include "common/cg_vec.h"

#include <stdint.h>
#include <stdlib.h>

#include "common/cg_err.h"

int
cg_vec_reserve(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap : 8;
	while (ncap <= n) {
		if (ncap > SIZE_MAX / 2)
			return CG_ENOMEM;
		ncap *= 2;
	}
	if (elem == 0 || ncap > SIZE_MAX / elem)
		return CG_ENOMEM;
	p = realloc(*v, ncap * elem);
	if (p == NULL)
		return CG_ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}
