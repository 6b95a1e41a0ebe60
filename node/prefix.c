/*
 * prefix.c - the path prefix of the walk operations (see prefix.h).
 *
 * What it must not do: decide which source a prefix names (the
 * federation does), or accept a prefix over CG_PREFIX_MAX bytes.
 */
#include "node/prefix.h"

#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"

/* dir + "/" (when dir is not NULL) + s + tail, malloc'd; NULL when out of
 * memory. */
static char *
bound(const char *dir, const char *s, const char *tail)
{
	cg_buf b;

	cg_buf_init(&b, (size_t)CG_PREFIX_MAX * 4);
	if ((dir != NULL &&
	     (cg_buf_puts(&b, dir) != 0 || cg_buf_putc(&b, '/') != 0)) ||
	    cg_buf_puts(&b, s) != 0 || cg_buf_puts(&b, tail) != 0 ||
	    cg_buf_puts(&b, "") != 0) {
		cg_buf_fini(&b);
		return NULL;
	}
	return cg_buf_take(&b);
}

int
cg_prefix_init(cg_prefix *p, const char *s, const cg_index *idx, cg_err *err)
{
	const char *w = cg_index_wiki_rel(idx);

	memset(p, 0, sizeof(*p));
	p->any = s == NULL || *s == '\0';
	if (p->any)
		return 0;
	if (strlen(s) > CG_PREFIX_MAX)
		return cg_err_set(err, CG_ETOOBIG,
		                  "prefix longer than %d bytes", CG_PREFIX_MAX);
	p->lo1 = bound(NULL, s, "");
	p->hi1 = bound(NULL, s, "\xff");
	p->lo2 = bound(w, s, "");
	p->hi2 = bound(w, s, "\xff");
	if (!p->lo1 || !p->hi1 || !p->lo2 || !p->hi2) {
		cg_prefix_fini(p);
		return cg_err_set(err, CG_ENOMEM, "out of memory");
	}
	return 0;
}

bool
cg_prefix_has(const cg_prefix *p, const char *path)
{
	return p->any || strncmp(path, p->lo1, strlen(p->lo1)) == 0 ||
	       strncmp(path, p->lo2, strlen(p->lo2)) == 0;
}

void
cg_prefix_fini(cg_prefix *p)
{
	free(p->lo1);
	free(p->hi1);
	free(p->lo2);
	free(p->hi2);
	memset(p, 0, sizeof(*p));
}
