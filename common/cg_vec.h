/*
 * cg_vec.h - the one growable array: a caller's (items, count, capacity)
 * triple grown by doubling, with the size computation checked for
 * overflow.
 *
 *   if (cg_vec_reserve((void **)&v, &cap, n, sizeof(*v)) != 0)
 *           return CG_ENOMEM;
 *   v[n++] = item;
 *
 * May be included by any layer.
 */
#ifndef CG_VEC_H
#define CG_VEC_H

#include <stddef.h>

/* Makes room for item n (0-based) of elem-sized items in *v of capacity
 * *cap: 0, or CG_ENOMEM (also when the size would overflow); *v is kept on
 * failure. */
int cg_vec_reserve(void **v, size_t *cap, size_t n, size_t elem);

#endif
