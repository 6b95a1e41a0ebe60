/*
 * cg_str.h - small string helpers over (pointer, length) spans that every
 * layer shares, and the one way to free a NULL-terminated string list.
 * Nothing here allocates except where the name says dup.
 *
 * May be included by any layer.
 */
#ifndef CG_STR_H
#define CG_STR_H

#include <stddef.h>

/* The character sets cg_trim() is used with. */
#define CG_SPACES " \t\r\n\f\v" /* ASCII white space */
#define CG_BLANKS " \t"         /* a line's blanks */

/* Trims the bytes of set (a NUL-terminated list) off both ends of
 * [*s, *s + *n). */
void cg_trim(const char **s, size_t *n, const char *set);

/* A malloc'd copy of [s, s + n) trimmed of CG_SPACES; NULL when memory
 * runs out. */
char *cg_dup_trim(const char *s, size_t n);

/* Frees a NULL-terminated array of malloc'd strings and the array itself;
 * NULL is fine. */
void cg_strv_free(char **v);

#endif
