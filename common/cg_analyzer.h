/*
 * cg_analyzer.h - the one way to silence a false positive of gcc 12's
 * static analyzer (-fanalyzer, scripts/lint-analyzer): a pair of macros
 * around the functions it misjudges, each use with its reason beside it.
 *
 * One kind is known, CG_ANALYZER_STORE_INTO_ARRAY_BEGIN/END: gcc 12 loses
 * a pointer stored into an element of a heap array (one a struct owns,
 * grown with cg_vec_reserve or realloc, or one calloc'd and returned) and
 * reports it as leaked where the function, or its caller, returns, though
 * the array, which its owner frees, holds it (an analyzer limitation,
 * not a leak).  A few lines show it:
 *
 *   char *s = strdup(name);
 *   if (s == NULL || cg_vec_reserve((void **)&b->v, &b->cap, b->n,
 *                                   sizeof(char *)) != 0) { ... }
 *   b->v[b->n++] = s;      <- "leak of 's'" at the return after it
 *
 * What it must not do: silence anything but the one warning named, or
 * anything in another compiler (clang-tidy parses these files too), or
 * cover a real leak: an AddressSanitizer run (make asan) checks the same
 * code paths with the leak checker on.
 *
 * May be included by any layer.
 */
#ifndef CG_ANALYZER_H
#define CG_ANALYZER_H

#if defined(__GNUC__) && !defined(__clang__)
#define CG_ANALYZER_STORE_INTO_ARRAY_BEGIN \
	_Pragma("GCC diagnostic push")     \
	    _Pragma("GCC diagnostic ignored \"-Wanalyzer-malloc-leak\"")
#define CG_ANALYZER_STORE_INTO_ARRAY_END _Pragma("GCC diagnostic pop")
#else
#define CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
#define CG_ANALYZER_STORE_INTO_ARRAY_END
#endif

#endif
