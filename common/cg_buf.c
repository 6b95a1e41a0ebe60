/*
 * cg_buf.c - the capped growable buffer.  Growth doubles; the cap is checked
 * before any allocation.
 */
#include "common/cg_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_err.h"

void
cg_buf_init(cg_buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

void
cg_buf_fini(cg_buf *b)
{
	if (b == NULL)
		return;
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void
cg_buf_reset(cg_buf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

static int
grow(cg_buf *b, size_t need)
{
	size_t cap;
	char *p;

	if (need > b->max)
		return CG_ETOOBIG;
	if (need + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need + 1)
		cap *= 2;
	if (cap > b->max + 1)
		cap = b->max + 1;
	p = realloc(b->data, cap);
	if (p == NULL)
		return CG_ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int
cg_buf_append(cg_buf *b, const void *p, size_t n)
{
	int rc;

	if (n > b->max - b->len)
		return CG_ETOOBIG;
	rc = grow(b, b->len + n);
	if (rc != 0)
		return rc;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
cg_buf_puts(cg_buf *b, const char *s)
{
	return cg_buf_append(b, s, strlen(s));
}

int
cg_buf_putc(cg_buf *b, char c)
{
	return cg_buf_append(b, &c, 1);
}

int
cg_buf_printf(cg_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	int rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return CG_ERR;
	rc = grow(b, b->len + (size_t)n);
	if (rc != 0)
		return rc;
	va_start(ap, fmt);
	(void)vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *
cg_buf_take(cg_buf *b)
{
	char *p = b->data;

	if (p == NULL)
		p = calloc(1, 1);
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

const char *
cg_buf_str(const cg_buf *b)
{
	return b->data ? b->data : "";
}
