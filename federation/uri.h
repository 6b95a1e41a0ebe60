/*
 * uri.h - page uris: cg://<workspace>/<source>/<path>, path relative to
 * the source's repository root.  Parsing percent-decodes the path (so a
 * "%2e%2e" arrives as ".." and is refused by the node like any other
 * traversal); nothing here touches the file system.  It also makes the
 * qualified source names ("ws/source") that answers' receipts carry.
 *
 * May be included by federation/ and the layers above it (gateway, cli).
 */
#ifndef CG_URI_H
#define CG_URI_H

#include <jansson.h>

#include "common/cg_err.h"

typedef struct cg_uri {
	char *workspace; /* malloc'd */
	char *source;    /* malloc'd */
	char *path;      /* malloc'd, percent-decoded, may be "" */
} cg_uri;

/* Parses uri.  Accepts "cg://ws/source/path" and, as a convenience,
 * "source/path" (workspace NULL).  CG_EINVAL with the expected shape when
 * it does not parse (empty parts, a NUL or bad %XX escape). */
int cg_uri_parse(cg_uri *u, const char *uri, cg_err *err);
void cg_uri_fini(cg_uri *u);

/* "cg://ws/source/path", each part percent-encoded (common/cg_utf8.h's
 * cg_pct_encode; '/' kept in path), malloc'd; NULL on allocation
 * failure.  cg_uri_parse gives the parts back. */
char *cg_uri_make(const char *ws, const char *source, const char *path);

/* "ws/source": how every receipt (an answer's evidence and followups)
 * names a source, so that two workspaces' sources of one name stay apart
 * behind one gateway; a scope accepts it back.  A new json string, NULL
 * on allocation failure. */
json_t *cg_uri_qname(const char *ws, const char *source);

/* A new array of the cg_uri_qname of each string of sources (an array of
 * source names of workspace ws); other elements are skipped. */
json_t *cg_uri_qnames(const char *ws, const json_t *sources);

#endif
