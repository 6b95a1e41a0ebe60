/*
 * cg_utf8.c - the one UTF-8 decoder of the project (strict: rejects
 * overlongs, surrogates and code points above U+10FFFF), and the uri
 * percent coding (cg_pct_decode, cg_pct_encode).
 */
#include "common/cg_utf8.h"

#include <stdlib.h>
#include <string.h>

int
cg_utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	uint32_t c = p[0];
	int len;
	uint32_t min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xE0) == 0xC0) {
		len = 2;
		c &= 0x1F;
		min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		len = 3;
		c &= 0x0F;
		min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if ((size_t)len > n)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

int
cg_utf8_encode(uint32_t cp, char *out)
{
	unsigned char *o = (unsigned char *)out;

	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xC0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xE0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (unsigned char)(0xF0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

bool
cg_utf8_valid(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i = 0;
	uint32_t cp;

	while (i < n) {
		int len = cg_utf8_decode(u + i, n - i, &cp);

		if (len == 0)
			return false;
		i += (size_t)len;
	}
	return true;
}

char *
cg_utf8_sanitize(const char *p, size_t n, size_t *out_len, size_t *nfixed)
{
	const unsigned char *u = (const unsigned char *)p;
	char *out = malloc(n * 3 + 1);
	size_t i = 0;
	size_t o = 0;
	size_t fixed = 0;
	uint32_t cp;

	if (out == NULL)
		return NULL;
	while (i < n) {
		int len = cg_utf8_decode(u + i, n - i, &cp);

		if (len == 0) {
			o += (size_t)cg_utf8_encode(0xFFFD, out + o);
			fixed++;
			i++;
			continue;
		}
		if (cp == 0) {
			fixed++;
			i++;
			continue;
		}
		for (int k = 0; k < len; k++)
			out[o++] = p[i + (size_t)k];
		i += (size_t)len;
	}
	out[o] = '\0';
	if (out_len != NULL)
		*out_len = o;
	if (nfixed != NULL)
		*nfixed = fixed;
	return out;
}

size_t
cg_utf8_clip(const char *p, size_t n, size_t max)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i;

	if (n <= max)
		return n;
	i = max;
	while (i > 0 && (u[i] & 0xC0) == 0x80)
		i--;
	return i;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *
cg_pct_decode(const char *s, size_t n, bool strict)
{
	char *out = malloc(n + 1);
	size_t o = 0;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int hi = s[i] == '%' && i + 2 < n ? hexval(s[i + 1]) : -1;
		int lo = hi >= 0 ? hexval(s[i + 2]) : -1;

		if (hi >= 0 && lo >= 0 && (hi | lo) != 0) {
			out[o++] = (char)(hi * 16 + lo);
			i += 2;
		} else if (strict && s[i] == '%') {
			free(out);
			return NULL;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

/* True for a byte a uri may hold as written (see cg_pct_encode). */
static bool
uri_safe(unsigned char c, bool keep_slash, bool utf8)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	if (c >= 0x80)
		return utf8;
	if (c == '/')
		return keep_slash;
	return c != 0 && strchr("-._~!$&'()*+,;=:@", c) != NULL;
}

char *
cg_pct_encode(const char *s, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	bool utf8 = cg_utf8_valid(s, n);
	char *out = malloc(3 * n + 1);
	size_t o = 0;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (uri_safe(c, keep_slash, utf8)) {
			out[o++] = (char)c;
			continue;
		}
		out[o++] = '%';
		out[o++] = hex[c >> 4];
		out[o++] = hex[c & 15];
	}
	out[o] = '\0';
	return out;
}
