/*
 * uri.c - parse and build page uris.  Strict: a bad escape or an empty
 * part is an error, never guessed at.
 */
#include "uri.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_buf.h"

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

/* Percent-decodes s[0..n) into a new string; NULL on a bad escape or a
 * decoded NUL. */
static char *
decode(const char *s, size_t n)
{
	char *out = malloc(n + 1);
	size_t o = 0;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int hi = -1;
		int lo = -1;

		if (s[i] != '%') {
			out[o++] = s[i];
			continue;
		}
		if (i + 2 < n) {
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
		}
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
			free(out);
			return NULL;
		}
		out[o++] = (char)(hi * 16 + lo);
		i += 2;
	}
	out[o] = '\0';
	return out;
}

int
cg_uri_parse(cg_uri *u, const char *uri, cg_err *err)
{
	const char *p = uri;
	const char *slash;

	memset(u, 0, sizeof(*u));
	if (strncmp(p, "cg://", 5) == 0) {
		p += 5;
		slash = strchr(p, '/');
		if (slash == NULL || slash == p)
			goto bad;
		u->workspace = decode(p, (size_t)(slash - p));
		p = slash + 1;
	}
	slash = strchr(p, '/');
	if (slash == NULL || slash == p)
		goto bad;
	u->source = decode(p, (size_t)(slash - p));
	u->path = decode(slash + 1, strlen(slash + 1));
	if (u->source == NULL || u->path == NULL ||
	    (strncmp(uri, "cg://", 5) == 0 && u->workspace == NULL))
		goto bad;
	return 0;
bad:
	cg_uri_fini(u);
	return cg_err_set(err, CG_EINVAL,
			  "bad uri '%.200s' (expected "
			  "cg://<workspace>/<source>/<path>)",
			  uri);
}

void
cg_uri_fini(cg_uri *u)
{
	free(u->workspace);
	free(u->source);
	free(u->path);
	memset(u, 0, sizeof(*u));
}

char *
cg_uri_make(const char *ws, const char *source, const char *path)
{
	cg_buf b;

	cg_buf_init(&b, 1 << 16);
	if (cg_buf_printf(&b, "cg://%s/%s/%s", ws, source, path) != 0) {
		cg_buf_fini(&b);
		return NULL;
	}
	return cg_buf_take(&b);
}
