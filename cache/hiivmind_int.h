/*
 * hiivmind_int.h - private helpers shared by cache/hiivmind.c (registry,
 * config), cache/hiivmind_index.c (index.yaml, index.md, cross-file
 * checks) and cache/hiivmind_graph.c (graph, registry-graph): the parse context
 * with its sticky error and capped warning list, the YAML loader wrapper,
 * string copies, id and path checks.
 *
 * Private to cache/: only cache/hiivmind.c, cache/hiivmind_index.c,
 * cache/hiivmind_graph.c and cache/hiivmind_llms.c (the llms.txt manifest)
 * include it; nothing else may.
 */
#ifndef CG_HIIVMIND_INT_H
#define CG_HIIVMIND_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cache/hiivmind.h"

#define CG_HMI_MAX_NODES 2000000u /* node cap handed to cg_yaml_load */
#define CG_HMI_QMAX      64       /* buffer for user text quoted in a warning */
#define CG_HMI_WHERE     (CG_HMI_QMAX + 48) /* room for "corpora[12] (\"id\")" */

/* State of one parse. */
struct cg_hmi {
	cg_err *err; /* the caller's error, set once */
	int rc;      /* 0, or the first failure (sticky) */
	char *warn[CG_HM_MAX_WARNINGS - 1]; /* owned warnings, in order */
	size_t nwarn;                       /* entries used in warn */
	size_t more;                        /* warnings past the cap, counted */
	json_t *seen;                       /* set of ids taken, or NULL */
	char **spare; /* an adopted warnings array (CG_HM_MAX_WARNINGS + 1
	                 slots) that the next take reuses, or NULL */
};

void cg_hmi_init(struct cg_hmi *h, cg_err *err);
/* Frees what the context still owns (warnings not taken, the id set). */
void cg_hmi_fini(struct cg_hmi *h);
/* Records an allocation failure; returns CG_ENOMEM. */
int cg_hmi_nomem(struct cg_hmi *h);

void cg_hmi_warn(struct cg_hmi *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The warnings as a NULL-terminated array of CG_HM_MAX_WARNINGS + 1 slots
 * (the last says how many more when the cap was hit); NULL only when
 * memory ran out and no adopted array could be reused. */
char **cg_hmi_warn_take(struct cg_hmi *h);
/* Takes back a list made by cg_hmi_warn_take (h holds none yet), to
 * append to it; the next take cannot fail. */
void cg_hmi_warn_adopt(struct cg_hmi *h, char **warnings);

/* Loads YAML text with the project's bounded reader; what names the file
 * in the error.  The byte cap is CG_ETOOBIG, running out of memory
 * CG_ENOMEM, every other refusal CG_EPARSE. */
int cg_hmi_load(const char *what, const char *text, size_t len, json_t **root,
                cg_err *err);

/* Copies (NULL for a NULL s); a failure is recorded in h. */
char *cg_hmi_dup(struct cg_hmi *h, const char *s);
char *cg_hmi_dupn(struct cg_hmi *h, const char *s, size_t n);
/* Room for the items of list (a sequence; absent or null is none, other
 * values are warned): calloc'd, at least one slot, NULL when out of
 * memory (recorded). */
void *cg_hmi_alloc_items(struct cg_hmi *h, const json_t *list, const char *name,
                         size_t size);
/* Drops root (may be NULL), hands the warnings to *warnings when the
 * parse succeeded, frees what h holds; returns the parse result. */
int cg_hmi_finish(struct cg_hmi *h, json_t *root, char ***warnings);

/* The text of v when it is a string without a NUL byte, else NULL. */
const char *cg_hmi_text(const json_t *v);
/* obj[key] when it is a string without a NUL byte, else NULL. */
const char *cg_hmi_str(const json_t *obj, const char *key);
/* A copy of obj[key] when it is such a string, else NULL. */
char *cg_hmi_opt(struct cg_hmi *h, const json_t *obj, const char *key);
/* A NULL-terminated list from a list of strings or one string (freed
 * with cg_strv_free). */
char **cg_hmi_strlist(struct cg_hmi *h, const json_t *v);

/* [A-Za-z0-9._-]{1,255}, not "." or "..". */
bool cg_hmi_safe_id(const char *s, size_t n);
/* A relative path: non-empty, at most 4096 bytes, no NUL, no backslash,
 * no leading "/", no ".." component. */
bool cg_hmi_safe_relpath(const char *s, size_t n);
/* s clipped to fit out (CG_HMI_QMAX bytes) with control bytes shown as
 * '?', for quoting user text in a warning; returns out. */
const char *cg_hmi_q(char *out, const char *s);

/* Markdown line reading (index.md, llms.txt).  True for a fence line or
 * a line inside a fenced block (up to three spaces, then three or more `
 * or ~); *fence is the open fence's character, 0 outside. */
bool cg_hmi_in_fence(char *fence, const char *s, size_t n);
/* Calls fn for each line of t (LF or CRLF, a leading BOM skipped), with
 * its 1-based number, until *stop is non-zero (a parse's sticky rc). */
typedef void (*cg_hmi_line_fn)(void *ctx, const char *s, size_t n,
                               size_t lineno);
void cg_hmi_each_line(const char *t, size_t n, cg_hmi_line_fn fn, void *ctx,
                      const int *stop);

/* True when id was marked taken in this context. */
bool cg_hmi_seen(const struct cg_hmi *h, const char *id);
/* Marks id taken; a failure is recorded in h. */
void cg_hmi_mark(struct cg_hmi *h, const char *id);

#endif
