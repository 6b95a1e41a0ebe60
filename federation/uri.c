/*
 * uri.c - parse and build page uris.  Strict: a bad escape or an empty
 * part is an error, never guessed at.  Every part is percent-encoded when
 * made (cg_pct_encode: '%', spaces, '#', '?', controls; non-ASCII UTF-8
 * kept as written) and decoded when parsed, so any file name a page can
 * have round-trips from a hit to read.  A qualified source name
 * ("ws/source") is what receipts print; it is not a uri and not encoded.
 */
#include "federation/uri.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "common/cg_utf8.h"

static char *
decode(const char *s, size_t n)
{
	return cg_pct_decode(s, n, true);
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
	char *e[3] = {cg_pct_encode(ws ? ws : "", false),
	              cg_pct_encode(source ? source : "", false),
	              cg_pct_encode(path ? path : "", true)};
	char *uri = NULL;
	cg_buf b;

	cg_buf_init(&b, (size_t)1 << 20);
	if (e[0] != NULL && e[1] != NULL && e[2] != NULL &&
	    cg_buf_printf(&b, "cg://%s/%s/%s", e[0], e[1], e[2]) == 0)
		uri = cg_buf_take(&b);
	else
		cg_buf_fini(&b);
	for (int i = 0; i < 3; i++)
		free(e[i]);
	return uri;
}

json_t *
cg_uri_qname(const char *ws, const char *source)
{
	return json_sprintf("%s/%s", ws ? ws : "", source ? source : "");
}

json_t *
cg_uri_qnames(const char *ws, const json_t *sources)
{
	json_t *a = json_array();
	size_t i;
	const json_t *s;

	json_array_foreach(sources, i, s)
		if (json_is_string(s))
			json_array_append_new(
			    a, cg_uri_qname(ws, json_string_value(s)));
	return a;
}
