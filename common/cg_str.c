/*
 * cg_str.c - span helpers (see cg_str.h).
 */
#include "common/cg_str.h"

#include <stdlib.h>
#include <string.h>

void
cg_trim(const char **s, size_t *n, const char *set)
{
	while (*n > 0 && **s != '\0' && strchr(set, **s) != NULL) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && (*s)[*n - 1] != '\0' &&
	       strchr(set, (*s)[*n - 1]) != NULL)
		(*n)--;
}

char *
cg_dup_trim(const char *s, size_t n)
{
	char *p;

	cg_trim(&s, &n, CG_SPACES);
	p = malloc(n + 1);
	if (p == NULL)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void
cg_strv_free(char **v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}
