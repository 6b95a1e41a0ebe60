/*
 * grep.h - the line matcher behind the `grep` tool: a POSIX extended
 * regular expression or a literal, run over a stream of bytes line by line
 * with a bounded buffer, so that a page of any size (also one the index
 * refused, over 8 MiB) is searched without reading it whole.  It knows
 * nothing about wikis, sources or JSON; node/tools_walk.c walks the files.
 *
 * Decisions a reader must know:
 * - Regex: POSIX ERE (regcomp with REG_EXTENDED, REG_ICASE unless
 *   case-sensitive), compiled and run under the C.UTF-8 locale (per
 *   thread, with uselocale; never setlocale), so '.' and bracket
 *   expressions see characters, not bytes.  Without a UTF-8 locale the
 *   matcher falls back to bytes and ASCII-only case folding
 *   (cg_grep_unicode() says which).
 * - Linear time: the pattern P is never run unanchored (glibc would try
 *   every start position, quadratic on a long line); "^.*(P)" is, which
 *   is one DFA pass.  No match spans an invalid UTF-8 byte (glibc's '.'
 *   and literals never match one, and ripgrep's neither).  A match's
 *   column is found by bisection (O(n log n), only for reported lines):
 *   the earliest-ending match, at its latest start.
 * - Refused patterns (CG_EINVAL), the ones glibc cannot run in bounded
 *   time or that the anchored form would change: empty, not UTF-8, an
 *   unmatched ')', a back-reference (\1..\9; ripgrep has none either),
 *   stacked repetitions (a*+, a{2}{3}), a repeated group that can match
 *   the empty string ((a*)+, (x|)*: regcomp goes exponential on a few of
 *   them), repetitions expanding past CG_GREP_EXPANSION_MAX positions
 *   (regcomp copies the atom per count: (a{100}){300}), an invalid regex
 *   (regerror's message).  Longer than CG_GREP_PATTERN_MAX bytes is
 *   CG_ETOOBIG.
 * - Literal (fixed) matching is a substring search (strstr, linear).
 *   Case-insensitive literal matching folds both sides code point by code
 *   point with the locale's simple lowercase mapping (towlower): ASCII,
 *   Latin, Greek, Cyrillic... A code point whose lowercase has another
 *   UTF-8 length (U+0130, U+212A KELVIN SIGN...) is left unfolded; there
 *   are no multi-character folds (ß is not ss) and no diacritic folding.
 * - A line is what lies between '\n' bytes; '\r' stays part of it (as in
 *   ripgrep).  A line longer than the window (1 MiB) is examined in
 *   windows overlapping by CG_GREP_OVERLAP bytes (a literal: its length):
 *   a regex match longer than the overlap that straddles two windows can
 *   be missed; '^' matches only at the real line start, '$' only at its
 *   end.  Once a line matched, the rest of it is skipped.
 * - A NUL byte anywhere makes the input binary: matching stops and the
 *   caller is told (st->binary) so it can drop the file's matches.
 * - A match's text is the line clipped to CG_GREP_TEXT_MAX bytes at a
 *   UTF-8 boundary, invalid UTF-8 replaced with U+FFFD, a final '\r'
 *   dropped; when the match starts late in the line the text starts
 *   CG_GREP_CONTEXT bytes before it with a leading "…".
 *
 * One cg_grep is used by one thread at a time.
 *
 * May be included by page/ and every layer above it (proto, index, node,
 * federation, gateway, cli).
 */
#ifndef CG_GREP_H
#define CG_GREP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cg_err.h"

#define CG_GREP_PATTERN_MAX   4096
#define CG_GREP_WINDOW        (1u << 20)
#define CG_GREP_OVERLAP       4096
#define CG_GREP_TEXT_MAX      500
#define CG_GREP_CONTEXT       100
#define CG_GREP_EXPANSION_MAX 4096 /* a 4 KB literal is as big */

typedef struct cg_grep cg_grep;

typedef struct cg_grep_opts {
	const char *pattern; /* NUL-terminated UTF-8 */
	bool fixed;          /* literal instead of a regex */
	bool case_sensitive; /* default: case-insensitive */
	size_t window;       /* bytes of a line examined at once; 0 = 1 MiB
	                        (tests and the fuzzer use small ones) */
} cg_grep_opts;

/* One matching line, valid during the callback. */
typedef struct cg_grep_hit {
	int64_t line;     /* 1-based line number */
	int64_t col;      /* 1-based byte column of the match; 0 when the
	                     hit is counted only (no detail) */
	const char *text; /* the line as shown (see above); NULL when the hit
	                     is counted only */
	bool clipped;     /* text is not the whole line */
} cg_grep_hit;

/* Called for each matching line; a non-zero return stops the stream and
 * is returned by cg_grep_feed / cg_grep_end / cg_grep_fd. */
typedef int (*cg_grep_fn)(void *ctx, const cg_grep_hit *hit);

/* What one stream saw. */
typedef struct cg_grep_file {
	int64_t lines;    /* lines read */
	int64_t matches;  /* matching lines */
	int64_t bytes;    /* bytes read */
	int64_t windowed; /* lines longer than the window */
	bool binary;      /* a NUL byte was found: matching stopped */
} cg_grep_file;

/* Compiles a pattern; errors as listed above, with the reason. */
int cg_grep_new(cg_grep **out, const cg_grep_opts *opts, cg_err *err);
void cg_grep_free(cg_grep *g);

/* True when matching is character-aware (a UTF-8 locale was found). */
bool cg_grep_unicode(const cg_grep *g);

/* True when the NUL-terminated line s matches; *col (may be NULL) gets
 * the 0-based byte offset of the first match.  s must not hold '\n'; a
 * line longer than the window is examined up to the window.  Not to be
 * called in the middle of a stream (it uses the stream's buffer). */
bool cg_grep_match(cg_grep *g, const char *s, size_t *col);

/*
 * Streaming: begin, feed bytes in chunks of any size, end.  The first
 * `detail` matching lines are reported with text and column, the rest are
 * counted only (text NULL).  st is zeroed by begin and filled as the
 * stream goes.  After a NUL byte (st->binary) further input is ignored.
 */
void cg_grep_begin(cg_grep *g, int64_t detail, cg_grep_fn fn, void *ctx,
                   cg_grep_file *st);
int cg_grep_feed(cg_grep *g, const char *p, size_t n);
int cg_grep_end(cg_grep *g);

/* Streams an open file descriptor (read in 64 KiB chunks) through
 * begin/feed/end.  CG_EIO when read(2) fails. */
int cg_grep_fd(cg_grep *g, int fd, int64_t detail, cg_grep_fn fn, void *ctx,
               cg_grep_file *st, cg_err *err);

#endif
