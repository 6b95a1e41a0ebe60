/*
 * grep.h - the line matcher behind the `grep` tool: a PCRE2 regular
 * expression or a literal, run over a stream of bytes line by line with a
 * bounded buffer, so that a page of any size (also one the index refused,
 * over 8 MiB) is searched without reading it whole.  It knows nothing
 * about wikis, sources or JSON; node/ops_grep.c walks the files.
 *
 * Decisions a reader must know:
 * - Regex: PCRE2 (Perl syntax, as ripgrep and agents write it: \d, \w,
 *   \b, (?i), lookaround, back-references) in UTF mode with Unicode
 *   properties (PCRE2_UCP: \d and \w are Unicode's), compiled with JIT
 *   where the platform has it.  Case-insensitive unless case-sensitive
 *   (PCRE2_CASELESS: Unicode simple case folding).  Invalid UTF-8 in the
 *   text is allowed and never matched (PCRE2_MATCH_INVALID_UTF): no match
 *   spans an invalid byte, as in ripgrep.
 * - Bounded work per line: every match runs under a match limit
 *   (CG_GREP_MATCH_LIMIT), a depth limit (CG_GREP_DEPTH_LIMIT), a heap
 *   limit (CG_GREP_HEAP_LIMIT_KIB) and, with JIT, a JIT stack of at most
 *   CG_GREP_JIT_STACK bytes.  A line on which the pattern hits one of them
 *   is an error (CG_EINVAL, "pattern too costly ... at line N"), never a
 *   silent non-match: the matcher answers or says why it cannot.  A
 *   stream given a deadline stops at it between chunks (CG_ETIMEDOUT).
 * - Refused patterns (CG_EINVAL): empty, not UTF-8, what PCRE2 cannot
 *   compile (its message and offset), groups nested deeper than 64, \C.
 *   Longer than CG_GREP_PATTERN_MAX bytes is CG_ETOOBIG.
 * - Literal (fixed) matching is PCRE2_LITERAL: the same engine, the same
 *   case folding.
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
 *   CG_GREP_CONTEXT bytes before it with a leading "…".  Its column is
 *   the byte offset of the leftmost match, plus one.
 * - Context (before/after, at most CG_GREP_CONTEXT_LINES each): lines
 *   around a reported match, each reported once, as ripgrep's -B/-A: the
 *   before lines of a match are the non-matching lines since the previous
 *   reported line, the after lines run until the next match (which
 *   restarts the count).  Only lines around matches reported with text get
 *   context; a context line's text is its first CG_GREP_TEXT_MAX bytes
 *   (of its last window for a line over the window).
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
#define CG_GREP_CONTEXT_LINES 10 /* before / after, each */
/* PCRE2 limits, per line examined (see above). */
#define CG_GREP_MATCH_LIMIT    10000000 /* PCRE2's default */
#define CG_GREP_DEPTH_LIMIT    100000
#define CG_GREP_HEAP_LIMIT_KIB 65536 /* 64 MiB of backtracking frames */
#define CG_GREP_JIT_STACK      (1u << 20)

typedef struct cg_grep cg_grep;

typedef struct cg_grep_opts {
	const char *pattern; /* NUL-terminated UTF-8 */
	bool fixed;          /* literal instead of a regex */
	bool case_sensitive; /* default: case-insensitive */
	size_t window;       /* bytes of a line examined at once; 0 = 1 MiB
	                        (tests and the fuzzer use small ones) */
	int before;          /* context lines before a reported match */
	int after;           /* and after it (0-CG_GREP_CONTEXT_LINES) */
	int64_t deadline_ms; /* cg_mono_ms() time to stop cg_grep_fd, 0 none */
} cg_grep_opts;

/* What a reported line is. */
enum cg_grep_kind {
	CG_GREP_MATCH = 0,  /* a matching line */
	CG_GREP_BEFORE = 1, /* context before the match reported next */
	CG_GREP_AFTER = 2,  /* context after the match reported last */
};

/* One matching (or context) line, valid during the callback. */
typedef struct cg_grep_hit {
	int64_t line;     /* 1-based line number */
	int64_t col;      /* 1-based byte column of the match; 0 when the
	                     hit is counted only (no detail) */
	const char *text; /* the line as shown (see above); NULL when the hit
	                     is counted only */
	bool clipped;     /* text is not the whole line */
	int kind;         /* enum cg_grep_kind; context lines have col 0 */
} cg_grep_hit;

/* Called for each matching line (and context line); a non-zero return stops the
 * stream and is returned by cg_grep_feed / cg_grep_end / cg_grep_fd. */
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

/* True when matching is character-aware (always, with PCRE2's UTF
 * mode; kept for the answers' `unicode` field). */
bool cg_grep_unicode(const cg_grep *g);

/* True when the pattern was JIT-compiled. */
bool cg_grep_jit(const cg_grep *g);

/* The message of the last error of a stream (a limit hit, the
 * deadline), "" when none. */
const char *cg_grep_error(const cg_grep *g);

/* True when the NUL-terminated line s matches; *col (may be NULL) gets
 * the 0-based byte offset of the first match.  s must not hold '\n'; a
 * line longer than the window is examined up to the window.  Not to be
 * called in the middle of a stream (it uses the stream's buffer).  A
 * line on which the pattern hits a limit does not match. */
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
 * begin/feed/end.  CG_EIO when read(2) fails, CG_ETIMEDOUT at the
 * deadline (st holds what was seen), CG_EINVAL when a line hits a limit;
 * err says which. */
int cg_grep_fd(cg_grep *g, int fd, int64_t detail, cg_grep_fn fn, void *ctx,
               cg_grep_file *st, cg_err *err);

#endif
