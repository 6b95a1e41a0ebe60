/*
 * cg_err.c - error struct helpers, errno texts (cg_strerror, thread-safe)
 * and the one table that maps the project's error codes to names and CLI
 * exit codes.  The HTTP mapping lives in the gateway but reads
 * cg_code_name() so that every surface agrees.
 */
#include "common/cg_err.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/cg_utf8.h"

/* The function itself, not cg_err.h's macro over it. */
#undef cg_err_set

void
cg_err_clear(cg_err *err)
{
	if (err == NULL)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

/* Makes msg valid UTF-8 in place: a byte that does not start a whole code
 * point (text quoted from bad input, or a sequence the size cap cut) becomes
 * '?'.  Every error message is put into JSON somewhere (a node's reply, the
 * HTTP and MCP answers), and jansson refuses invalid UTF-8: an error that
 * cannot be told is a request never answered. */
static void
make_utf8(char *msg)
{
	size_t n = strlen(msg);

	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int k =
		    cg_utf8_decode((const unsigned char *)msg + i, n - i, &cp);

		if (k > 0) {
			i += (size_t)k;
		} else {
			msg[i] = '?';
			i++;
		}
	}
}

int
cg_err_set(cg_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || err->code != 0)
		return code;
	err->code = code;
	va_start(ap, fmt);
	(void)vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	make_utf8(err->msg);
	return code;
}

/* strerror_r here is POSIX's (XSI: it returns an error number), since this
 * file does not define _GNU_SOURCE. */
cg_errno_text
cg_strerror(int errnum)
{
	cg_errno_text t;

	t.s[0] = '\0';
	if (strerror_r(errnum, t.s, sizeof(t.s)) != 0 && t.s[0] == '\0')
		(void)snprintf(t.s, sizeof(t.s), "Unknown error %d", errnum);
	return t;
}

static const struct {
	int code;
	const char *name;
	int exit_code;
	int http; /* status on the HTTP API; "denied" is reported as 404 so
	             a hidden page and a missing one look the same */
} code_table[] = {
    {CG_OK, "ok", 0, 200},
    {CG_ERR, "failure", 1, 500},
    {CG_EINVAL, "invalid_input", 2, 400},
    {CG_ENOPROV, "not_provisioned", 10, 503},
    {CG_ENOMEM, "out_of_memory", 1, 500},
    {CG_EIO, "io_error", 1, 500},
    {CG_ECORRUPT, "corrupt_index", 1, 500},
    {CG_ENOTFOUND, "not_found", 2, 404},
    {CG_EDENIED, "denied", 2, 404},
    {CG_ETOOBIG, "too_big", 2, 413},
    {CG_EPARSE, "parse_error", 2, 400},
    {CG_ETIMEDOUT, "timeout", 1, 504},
    {CG_EUNAVAIL, "unavailable", 1, 503},
    {CG_EPROTO, "bad_reply", 1, 502},
};

const char *
cg_code_name(int code)
{
	for (size_t i = 0; i < sizeof(code_table) / sizeof(code_table[0]); i++)
		if (code_table[i].code == code)
			return code_table[i].name;
	return "failure";
}

int
cg_code_exit(int code)
{
	for (size_t i = 0; i < sizeof(code_table) / sizeof(code_table[0]); i++)
		if (code_table[i].code == code)
			return code_table[i].exit_code;
	return 1;
}

int
cg_code_http(int code)
{
	for (size_t i = 0; i < sizeof(code_table) / sizeof(code_table[0]); i++)
		if (code_table[i].code == code)
			return code_table[i].http;
	return 500;
}

int
cg_code_from_name(const char *name)
{
	for (size_t i = 0;
	     name != NULL && i < sizeof(code_table) / sizeof(code_table[0]);
	     i++)
		if (strcmp(code_table[i].name, name) == 0)
			return code_table[i].code;
	return CG_EPROTO;
}
