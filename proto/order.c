/*
 * order.c - the hit order (see order.h).
 */
#include "proto/order.h"

#include <string.h>

int
cg_order_cmp(const cg_order_key *a, const cg_order_key *b)
{
	double d;
	int c;

	if (a->match != b->match)
		return a->match > b->match ? -1 : 1;
	d = b->score - a->score;
	if (d > 1e-9 || d < -1e-9)
		return d > 0 ? 1 : -1;
	c = strcmp(b->updated_at, a->updated_at);
	if (c != 0)
		return c;
	if (a->confidence != b->confidence)
		return a->confidence > b->confidence ? -1 : 1;
	return strcmp(a->uri, b->uri);
}
