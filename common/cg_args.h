/*
 * cg_args.h - typed, strict reading of a JSON object of arguments (a
 * request's args, a tool call's arguments, a config mapping).  One set of
 * rules and one wording for every surface: an unknown key names the valid
 * ones; a value of the wrong type names its key and the expected type;
 * absent and null mean "not given".
 *
 * May be included by any layer.
 */
#ifndef CG_ARGS_H
#define CG_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/cg_err.h"

/* CG_EINVAL when obj is not an object (NULL is accepted) or has a key
 * outside valid (NULL-terminated); what names the object in the message
 * ("argument", "key in a token"...). */
int cg_args_check(const json_t *obj, const char *const *valid, const char *what,
                  cg_err *err);

/* A string, borrowed from obj; *out NULL when not given. */
int cg_args_str(const json_t *obj, const char *key, const char **out,
                cg_err *err);

/* An integer within [lo, hi]; *out keeps def when not given. */
int cg_args_int(const json_t *obj, const char *key, int def, int lo, int hi,
                int *out, cg_err *err);

/* A boolean; false when not given. */
int cg_args_bool(const json_t *obj, const char *key, bool *out, cg_err *err);

/* A string or a list of at most max strings, borrowed into v. */
int cg_args_list(const json_t *obj, const char *key, const char **v, size_t max,
                 size_t *n, cg_err *err);

#endif
