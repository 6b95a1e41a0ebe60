/*
 * cg_buf.h - a growable byte buffer with a hard size cap (after curl's
 * dynbuf).  Every buffer fed from a file or the network has a cap; growing
 * past it fails with CG_ETOOBIG instead of allocating whatever a peer claims.
 * The data is always NUL-terminated so it can be used as a C string.
 *
 * May be included by any layer.
 */
#ifndef CG_BUF_H
#define CG_BUF_H

#include <stddef.h>

typedef struct cg_buf {
	char *data; /* owned, NUL-terminated, NULL until the first append */
	size_t len; /* bytes used, not counting the NUL */
	size_t cap; /* bytes allocated */
	size_t max; /* hard cap on len */
} cg_buf;

void cg_buf_init(cg_buf *b, size_t max);
void cg_buf_fini(cg_buf *b);
void cg_buf_reset(cg_buf *b);
int cg_buf_append(cg_buf *b, const void *p, size_t n);
int cg_buf_puts(cg_buf *b, const char *s);
int cg_buf_putc(cg_buf *b, char c);
int cg_buf_printf(cg_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Returns the data (caller frees) and leaves the buffer empty. */
char *cg_buf_take(cg_buf *b);
/* The data as a string, "" when empty; borrowed. */
const char *cg_buf_str(const cg_buf *b);

#endif
