/*
 * cg_utf8.h - UTF-8 decoding and validation.  The tokenizer, the page reader
 * and the JSON writers share this one decoder; nothing else decodes UTF-8.
 *
 * May be included by any layer.
 */
#ifndef CG_UTF8_H
#define CG_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Decodes one code point at p (n bytes available).  Returns its length in
 * bytes (1-4) and stores the code point, or returns 0 for an invalid or
 * truncated sequence (overlongs, surrogates and values above U+10FFFF are
 * invalid).  n must be at least 1.
 */
int cg_utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);

/* Encodes cp into out (4 bytes of room); returns the length. */
int cg_utf8_encode(uint32_t cp, char *out);

/* True when the n bytes at p are valid UTF-8. */
bool cg_utf8_valid(const char *p, size_t n);

/*
 * Returns a malloc'd NUL-terminated copy of p with every invalid sequence
 * replaced by U+FFFD and every NUL byte dropped; *nfixed counts the
 * replacements (may be NULL).  NULL on allocation failure.
 */
char *cg_utf8_sanitize(const char *p, size_t n, size_t *out_len,
                       size_t *nfixed);

/* Length of the longest prefix of p (at most max bytes) that does not cut
 * a code point in half. */
size_t cg_utf8_clip(const char *p, size_t n, size_t max);

/*
 * Percent-decodes n bytes of s into a malloc'd NUL-terminated string.
 * strict: a bad escape or an escaped NUL makes it return NULL; otherwise
 * they are kept as written.  NULL also on allocation failure.
 */
char *cg_pct_decode(const char *s, size_t n, bool strict);

/*
 * Percent-encodes s for a uri into a malloc'd string (NULL on allocation
 * failure): every byte but the unreserved and sub-delim characters of RFC
 * 3986 (A-Z a-z 0-9 - . _ ~ ! $ & ' ( ) * + , ; = : @), '/' when
 * keep_slash, and, when s is valid UTF-8, the bytes of non-ASCII
 * characters (kept as written, as an IRI).  So '%', ' ', '#', '?' and
 * control bytes are escaped; cg_pct_decode gives s back.
 */
char *cg_pct_encode(const char *s, bool keep_slash);

#endif
