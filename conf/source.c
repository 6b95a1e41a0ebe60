/*
 * source.c - copying and freeing a cg_source.
 */
#include "conf/source.h"

#include <stdlib.h>
#include <string.h>

#include "common/cg_err.h"

/* strdup of an optional string: *ok turns false when memory ran out. */
static char *
dup_opt(const char *s, int *ok)
{
	char *d;

	if (s == NULL)
		return NULL;
	d = strdup(s);
	if (d == NULL)
		*ok = 0;
	return d;
}

int
cg_source_copy(cg_source *dst, const cg_source *src)
{
	int ok = 1;

	memset(dst, 0, sizeof(*dst));
	dst->kind = src->kind;
	dst->name = dup_opt(src->name, &ok);
	dst->repo = dup_opt(src->repo, &ok);
	dst->wiki = dup_opt(src->wiki, &ok);
	dst->registrar = dup_opt(src->registrar, &ok);
	dst->guild_kind = dup_opt(src->guild_kind, &ok);
	dst->remote = dup_opt(src->remote, &ok);
	if (ok)
		return 0;
	cg_source_fini(dst);
	return CG_ENOMEM;
}

void
cg_source_fini(cg_source *s)
{
	if (s == NULL)
		return;
	free(s->name);
	free(s->repo);
	free(s->wiki);
	free(s->registrar);
	free(s->guild_kind);
	free(s->remote);
	memset(s, 0, sizeof(*s));
}
