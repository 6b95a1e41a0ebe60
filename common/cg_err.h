/*
 * cg_err.h - the project's error codes and the caller-owned error struct.
 *
 * Every fallible function returns 0 (CG_OK) or a negative code from enum
 * cg_code and, when the caller passes a cg_err, fills it once, where the
 * failure is detected, with a message that names the context (path, node,
 * URL).  Callers pass the struct up unchanged.  Nothing here allocates.
 *
 * May be included by any layer.
 */
#ifndef CG_ERR_H
#define CG_ERR_H

#include <stdarg.h>

enum cg_code {
	CG_OK = 0,
	CG_ERR = -1,        /* other failure */
	CG_EINVAL = -2,     /* invalid input; the message says what is valid */
	CG_ENOPROV = -3,    /* nothing provisioned to search */
	CG_ENOMEM = -4,     /* out of memory */
	CG_EIO = -5,        /* file system or OS error */
	CG_ECORRUPT = -6,   /* a derived artifact (index) is corrupt */
	CG_ENOTFOUND = -7,  /* no such page, source or uri */
	CG_EDENIED = -8,    /* refused: outside a root, or not granted */
	CG_ETOOBIG = -9,    /* input larger than its cap */
	CG_EPARSE = -10,    /* malformed input (YAML, JSON, message) */
	CG_ETIMEDOUT = -11, /* deadline passed */
	CG_EUNAVAIL = -12,  /* a peer is unreachable */
	CG_EPROTO = -13,    /* protocol mismatch or bad reply */
};

#define CG_ERR_MSG_MAX 512

/* Caller-owned error: a code and a fixed message buffer. */
typedef struct cg_err {
	int code; /* enum cg_code, 0 when unset */
	char
	    msg[CG_ERR_MSG_MAX]; /* NUL-terminated valid UTF-8, "" when unset */
} cg_err;

/* Clears an error struct; NULL is accepted. */
void cg_err_clear(cg_err *err);

/*
 * Sets err (when not NULL) and returns code, so that a failure reads
 * `return cg_err_set(err, CG_EINVAL, "bad %s", x);`.  An error already set
 * is not overwritten: the first, innermost message wins.
 */
int cg_err_set(cg_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The same call, written so that the value it returns is visible where it
 * is called: the function is defined in cg_err.c, so on
 * `return cg_err_set(err, CG_ENOMEM, ...)` the static analyzers (gcc's
 * -fanalyzer, clang-tidy's clang-analyzer) would otherwise assume it may
 * return 0 and walk on into the caller's success path.  code is evaluated
 * once (a GNU statement expression: some callers pass an expression that
 * reads errno, which the formatting may change); compilers without GNU C
 * call the function as it is.
 */
#if defined(__GNUC__)
#define cg_err_set(err, code, ...)                                  \
	__extension__({                                             \
		const int cg_err_code_ = (code);                    \
		(void)cg_err_set((err), cg_err_code_, __VA_ARGS__); \
		cg_err_code_;                                       \
	})
#endif

/*
 * The text of an errno value, as strerror gives it, without strerror's
 * buffer shared by all threads: a value of its own.  Use it inside one
 * expression, `cg_err_set(err, CG_EIO, "%s: %s", path, cg_strerror(e).s)`
 * (C11: the array of a returned struct lives until that expression ends),
 * or copy it.
 */
typedef struct cg_errno_text {
	char s[128];
} cg_errno_text;

cg_errno_text cg_strerror(int errnum);

/* The short stable name of a code ("invalid_input", ...). */
const char *cg_code_name(int code);

/* The CLI exit code for a code (SPEC 6): 0, 2, 10 or 1. */
int cg_code_exit(int code);

/* The code named name (a peer's error reply), CG_EPROTO when unknown. */
int cg_code_from_name(const char *name);

/* The HTTP status for a code on the gateway's API. */
int cg_code_http(int code);

#endif
