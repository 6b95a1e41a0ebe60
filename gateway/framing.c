/*
 * framing.c - the request framing checks (framing.h): one pass over the
 * request's headers counting Content-Length and Transfer-Encoding, then a
 * refusal with "Connection: close" when they do not frame one unambiguous
 * body.  The refusal's body is the gateway's usual JSON error.  This file
 * must not read the body, nor decide anything a route decides.
 */
#include "gateway/framing.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

/* What the headers say about the body. */
struct frame {
	int ncl;        /* Content-Length headers */
	int cl_differ;  /* two of them disagree */
	const char *cl; /* the first one's value */
	int nte;        /* Transfer-Encoding headers */
	int te_unknown; /* a coding other than a lone "chunked" */
};

/* s is "chunked", whatever its case, with optional spaces around. */
static int
is_chunked(const char *s, size_t n)
{
	while (n > 0 && isspace((unsigned char)s[0])) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return n == 7 && strncasecmp(s, "chunked", 7) == 0;
}

static enum MHD_Result
scan(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
     const char *value, size_t value_size)
{
	struct frame *f = cls;

	(void)kind;
	(void)key_size;
	if (value == NULL)
		value = "";
	if (strcasecmp(key, "Content-Length") == 0) {
		if (f->ncl++ == 0)
			f->cl = value;
		else if (strcmp(f->cl, value) != 0)
			f->cl_differ = 1;
	} else if (strcasecmp(key, "Transfer-Encoding") == 0) {
		f->nte++;
		if (!is_chunked(value, value_size))
			f->te_unknown = 1;
	}
	return MHD_YES;
}

/* Queues status with a JSON error and "Connection: close". */
static enum MHD_Result
refuse(struct MHD_Connection *c, unsigned status, const char *code,
       const char *msg)
{
	json_t *v =
	    json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", msg);
	char *text =
	    v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	struct MHD_Response *r =
	    text ? MHD_create_response_from_buffer(strlen(text), text,
	                                           MHD_RESPMEM_MUST_COPY)
	         : NULL;
	enum MHD_Result ok = MHD_NO;

	if (r != NULL) {
		(void)MHD_add_response_header(r, "Content-Type",
		                              "application/json");
		(void)MHD_add_response_header(r, "Cache-Control", "no-store");
		(void)MHD_add_response_header(r, "Connection", "close");
		ok = MHD_queue_response(c, status, r);
		MHD_destroy_response(r);
	}
	free(text);
	json_decref(v);
	return ok;
}

int
cg_framing_check(struct MHD_Connection *c, enum MHD_Result *ok)
{
	struct frame f = {0};

	*ok = MHD_YES;
	(void)MHD_get_connection_values_n(c, MHD_HEADER_KIND, scan, &f);
	if (f.ncl > 0 && f.nte > 0)
		*ok = refuse(c, 400, "invalid_input",
		             "Content-Length and Transfer-Encoding together "
		             "(RFC 9112 6.1)");
	else if (f.cl_differ)
		*ok = refuse(c, 400, "invalid_input",
		             "Content-Length values differ");
	else if (f.nte > 1 || f.te_unknown)
		*ok = refuse(c, 501, "not_implemented",
		             "only Transfer-Encoding: chunked is understood");
	else
		return 0;
	return 1;
}
