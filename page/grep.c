/*
 * grep.c - the line matcher (see grep.h for the rules it follows).  It
 * keeps at most one window of a line (and the context lines asked for) in
 * memory, whatever the input size, and runs every PCRE2 match under the
 * match, depth and heap limits and a bounded JIT stack, so that no pattern
 * can take unbounded time or memory on a line.  It must not read files by
 * path (callers open them) and must not keep state between cg_grep
 * objects (PCRE2's contexts are per object).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "page/grep.h"

#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cg_buf.h"
#include "common/cg_time.h"
#include "common/cg_utf8.h"

#define GREP_CHUNK     (64u << 10)
#define GREP_MAX_DEPTH 64
#define GREP_JIT_START (32u << 10)

/* A line kept for before-context. */
struct ctx_line {
	int64_t line; /* 1-based */
	char *text;   /* as shown */
	bool clipped;
};

struct cg_grep {
	bool fixed;               /* literal search */
	size_t nneedle;           /* the pattern's length */
	pcre2_code *re;           /* the compiled pattern */
	pcre2_match_data *md;     /* its ovector */
	pcre2_match_context *mcx; /* the limits */
	pcre2_jit_stack *jit;     /* NULL when not JIT-compiled */
	size_t window;            /* bytes examined at once */
	size_t overlap;           /* bytes kept from one window to the next */
	char *buf;                /* current window of the line (+1 byte) */
	char *chunk;              /* read buffer of cg_grep_fd */
	int before;               /* context lines asked for */
	int after;
	int64_t deadline_ms; /* stop cg_grep_fd then; 0 none */
	cg_err err;          /* the last stream error (a limit, the deadline) */
	/* stream state */
	size_t len;       /* bytes in buf */
	int64_t base;     /* offset in the line of buf[0] */
	int64_t line_len; /* bytes of the current line so far */
	bool windowed;    /* an earlier window of this line was examined */
	bool matched;     /* the current line matched: skip its rest */
	int64_t detail;   /* hits still to report with text */
	int after_left;   /* after-context lines still to report */
	struct ctx_line ring[CG_GREP_CONTEXT_LINES]; /* before-context */
	int nring;                                   /* lines in ring */
	int ring_head;                               /* oldest of them */
	cg_grep_fn fn;
	void *ctx;
	cg_grep_file *st;
};

/* --- matching ------------------------------------------------------------ */

/* What a PCRE2 match error means to the user. */
static const char *
limit_name(int rc)
{
	switch (rc) {
	case PCRE2_ERROR_MATCHLIMIT:
		return "match limit (backtracking steps)";
	case PCRE2_ERROR_DEPTHLIMIT:
		return "depth limit (nested backtracking)";
	case PCRE2_ERROR_HEAPLIMIT:
		return "heap limit (backtracking memory)";
	case PCRE2_ERROR_JIT_STACKLIMIT:
		return "JIT stack limit";
	default:
		return NULL;
	}
}

/* Matches s[0..n): 1 with *off the match start, 0 none, or a negative
 * code with g->err set (a limit was hit). */
static int
match_buf(cg_grep *g, const char *s, size_t n, bool notbol, bool noteol,
          size_t *off)
{
	uint32_t opts =
	    (notbol ? PCRE2_NOTBOL : 0) | (noteol ? PCRE2_NOTEOL : 0);
	int rc = pcre2_match(g->re, (PCRE2_SPTR)s, n, 0, opts, g->md, g->mcx);
	const char *what;

	if (rc >= 0) {
		if (off != NULL)
			*off = (size_t)pcre2_get_ovector_pointer(g->md)[0];
		return 1;
	}
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	what = limit_name(rc);
	if (what != NULL)
		return cg_err_set(&g->err, CG_EINVAL,
		                  "pattern too costly: it hit the %s at line "
		                  "%lld; nested repetitions such as (a+)+ "
		                  "backtrack exponentially: simplify the "
		                  "pattern or use a literal",
		                  what,
		                  (long long)(g->st ? g->st->lines + 1 : 1));
	return cg_err_set(&g->err,
	                  rc == PCRE2_ERROR_NOMEMORY ? CG_ENOMEM : CG_ERR,
	                  "grep: PCRE2 match error %d", rc);
}

bool
cg_grep_match(cg_grep *g, const char *s, size_t *col)
{
	size_t n = strlen(s);

	if (n > g->window) /* as a stream would examine it */
		n = cg_utf8_clip(s, n, g->window);
	cg_err_clear(&g->err);
	return match_buf(g, s, n, false, false, col) == 1;
}

/* --- construction -------------------------------------------------------- */

static int
check_pattern(const cg_grep_opts *o, cg_err *err)
{
	size_t n = o->pattern ? strlen(o->pattern) : 0;

	if (n == 0)
		return cg_err_set(err, CG_EINVAL,
		                  "empty pattern (to list pages use `list`)");
	if (n > CG_GREP_PATTERN_MAX)
		return cg_err_set(err, CG_ETOOBIG,
		                  "pattern is %zu bytes (max %d)", n,
		                  CG_GREP_PATTERN_MAX);
	if (!cg_utf8_valid(o->pattern, n))
		return cg_err_set(err, CG_EINVAL, "pattern is not valid UTF-8");
	if (o->before < 0 || o->before > CG_GREP_CONTEXT_LINES ||
	    o->after < 0 || o->after > CG_GREP_CONTEXT_LINES)
		return cg_err_set(err, CG_EINVAL, "context lines must be 0-%d",
		                  CG_GREP_CONTEXT_LINES);
	return 0;
}

/* Compiles the pattern with UTF, UCP (regex) and the nesting limit; its
 * errors are the user's, with PCRE2's message and the offset. */
static int
compile(cg_grep *g, const cg_grep_opts *o, cg_err *err)
{
	uint32_t flags =
	    PCRE2_UTF | PCRE2_MATCH_INVALID_UTF |
	    (o->case_sensitive ? 0 : PCRE2_CASELESS) |
	    (o->fixed ? PCRE2_LITERAL : PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C);
	pcre2_compile_context *ccx = pcre2_compile_context_create(NULL);
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE at = 0;
	int code = 0;

	if (ccx == NULL)
		return cg_err_set(err, CG_ENOMEM, "grep: out of memory");
	(void)pcre2_set_parens_nest_limit(ccx, GREP_MAX_DEPTH);
	g->re = pcre2_compile((PCRE2_SPTR)o->pattern, PCRE2_ZERO_TERMINATED,
	                      flags, &code, &at, ccx);
	pcre2_compile_context_free(ccx);
	if (g->re == NULL) {
		(void)pcre2_get_error_message(code, msg, sizeof(msg));
		return cg_err_set(err, CG_EINVAL,
		                  "invalid regular expression '%.200s': %s "
		                  "(at byte %zu)",
		                  o->pattern, (const char *)msg, (size_t)at);
	}
	return 0;
}

/* The match data, the limits and, where the platform has it, JIT with a
 * bounded stack (without JIT the interpreter runs, under the same match
 * limit and its depth and heap limits). */
static int
prepare(cg_grep *g, cg_err *err)
{
	g->md = pcre2_match_data_create_from_pattern(g->re, NULL);
	g->mcx = pcre2_match_context_create(NULL);
	if (g->md == NULL || g->mcx == NULL)
		return cg_err_set(err, CG_ENOMEM, "grep: out of memory");
	(void)pcre2_set_match_limit(g->mcx, CG_GREP_MATCH_LIMIT);
	(void)pcre2_set_depth_limit(g->mcx, CG_GREP_DEPTH_LIMIT);
	(void)pcre2_set_heap_limit(g->mcx, CG_GREP_HEAP_LIMIT_KIB);
	if (pcre2_jit_compile(g->re, PCRE2_JIT_COMPLETE) != 0)
		return 0;
	g->jit =
	    pcre2_jit_stack_create(GREP_JIT_START, CG_GREP_JIT_STACK, NULL);
	if (g->jit == NULL)
		return cg_err_set(err, CG_ENOMEM, "grep: out of memory");
	pcre2_jit_stack_assign(g->mcx, NULL, g->jit);
	return 0;
}

static void
set_window(cg_grep *g, size_t window)
{
	g->window = window == 0 ? CG_GREP_WINDOW : window;
	if (g->window < 16)
		g->window = 16;
	g->overlap = CG_GREP_OVERLAP;
	if (g->fixed)
		g->overlap = g->nneedle > 0 ? g->nneedle - 1 : 0;
	if (g->overlap > g->window / 2)
		g->overlap = g->window / 2;
}

int
cg_grep_new(cg_grep **out, const cg_grep_opts *opts, cg_err *err)
{
	cg_grep *g;
	int rc = check_pattern(opts, err);

	*out = NULL;
	if (rc != 0)
		return rc;
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return cg_err_set(err, CG_ENOMEM, "grep: out of memory");
	g->fixed = opts->fixed;
	g->nneedle = strlen(opts->pattern);
	g->before = opts->before;
	g->after = opts->after;
	g->deadline_ms = opts->deadline_ms;
	set_window(g, opts->window);
	g->buf = malloc(g->window + 1);
	g->chunk = malloc(GREP_CHUNK);
	rc = g->buf == NULL || g->chunk == NULL
	         ? cg_err_set(err, CG_ENOMEM, "grep: out of memory")
	         : compile(g, opts, err);
	if (rc == 0)
		rc = prepare(g, err);
	if (rc != 0) {
		cg_grep_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

static void
ring_clear(cg_grep *g)
{
	for (int i = 0; i < g->nring; i++) {
		int k = (g->ring_head + i) % CG_GREP_CONTEXT_LINES;

		free(g->ring[k].text);
		g->ring[k].text = NULL;
	}
	g->nring = 0;
	g->ring_head = 0;
}

void
cg_grep_free(cg_grep *g)
{
	if (g == NULL)
		return;
	ring_clear(g);
	pcre2_jit_stack_free(g->jit);
	pcre2_match_context_free(g->mcx);
	pcre2_match_data_free(g->md);
	pcre2_code_free(g->re);
	free(g->buf);
	free(g->chunk);
	free(g);
}

bool
cg_grep_unicode(const cg_grep *g)
{
	(void)g;
	return true;
}

bool
cg_grep_jit(const cg_grep *g)
{
	return g->jit != NULL;
}

const char *
cg_grep_error(const cg_grep *g)
{
	return g->err.msg;
}

/* --- streaming ----------------------------------------------------------- */

/* The shown text of a hit at offset off of buf (see grep.h). */
static char *
hit_text(const cg_grep *g, size_t off, bool more, bool *clipped)
{
	size_t from = 0;
	size_t n;
	char *clean;
	cg_buf b;

	if (g->base > 0 || off + CG_GREP_CONTEXT > CG_GREP_TEXT_MAX) {
		from = off > CG_GREP_CONTEXT ? off - CG_GREP_CONTEXT : 0;
		while (from < off &&
		       ((unsigned char)g->buf[from] & 0xC0) == 0x80)
			from++;
	}
	n = cg_utf8_clip(g->buf + from, g->len - from, CG_GREP_TEXT_MAX);
	*clipped = from > 0 || g->base > 0 || more || n < g->len - from;
	if (from + n == g->len && !more && n > 0 &&
	    g->buf[from + n - 1] == '\r')
		n--;
	clean = cg_utf8_sanitize(g->buf + from, n, NULL, NULL);
	if (clean == NULL || (from == 0 && g->base == 0))
		return clean;
	cg_buf_init(&b, (size_t)4 * CG_GREP_TEXT_MAX);
	(void)cg_buf_puts(&b, "…");
	(void)cg_buf_puts(&b, clean);
	free(clean);
	return cg_buf_take(&b);
}

/* Reports the before-context kept in the ring, oldest first, and
 * empties it. */
static int
flush_ring(cg_grep *g)
{
	int rc = 0;

	for (int i = 0; i < g->nring && rc == 0; i++) {
		const struct ctx_line *c =
		    &g->ring[(g->ring_head + i) % CG_GREP_CONTEXT_LINES];
		cg_grep_hit h = {c->line, 0, c->text, c->clipped,
		                 CG_GREP_BEFORE};

		rc = g->fn(g->ctx, &h);
	}
	ring_clear(g);
	return rc;
}

/* Examines buf as (part of) the current line; more: the line goes on.
 * A reported match first reports its before-context. */
static int
check(cg_grep *g, bool more)
{
	cg_grep_hit h = {g->st->lines + 1, 0, NULL, false, CG_GREP_MATCH};
	size_t off = 0;
	char *text;
	int rc = match_buf(g, g->buf, g->len, g->windowed, more, &off);

	if (rc <= 0)
		return rc;
	g->matched = true;
	g->st->matches++;
	if (g->detail <= 0) {
		g->after_left = 0; /* no context around unshown matches */
		return g->fn(g->ctx, &h);
	}
	g->detail--;
	rc = flush_ring(g);
	if (rc != 0)
		return rc;
	text = hit_text(g, off, more, &h.clipped);
	if (text == NULL)
		return CG_ENOMEM;
	h.text = text;
	h.col = g->base + (int64_t)off + 1;
	g->after_left = g->after;
	rc = g->fn(g->ctx, &h);
	free(text);
	return rc;
}

/* A line that did not match, at its end: reported as after-context, or
 * kept for the before-context of a match to come. */
static int
context_line(cg_grep *g)
{
	cg_grep_hit h = {g->st->lines + 1, 0, NULL, false, CG_GREP_AFTER};
	struct ctx_line *c;
	char *text;
	int rc;

	if (g->after_left == 0 && (g->before == 0 || g->detail <= 0))
		return 0;
	text = hit_text(g, 0, false, &h.clipped);
	if (text == NULL)
		return CG_ENOMEM;
	if (g->after_left > 0) {
		g->after_left--;
		h.text = text;
		rc = g->fn(g->ctx, &h);
		free(text);
		return rc;
	}
	if (g->nring == g->before) { /* full: drop the oldest */
		free(g->ring[g->ring_head].text);
		g->ring_head = (g->ring_head + 1) % CG_GREP_CONTEXT_LINES;
		g->nring--;
	}
	c = &g->ring[(g->ring_head + g->nring) % CG_GREP_CONTEXT_LINES];
	c->line = h.line;
	c->text = text;
	c->clipped = h.clipped;
	g->nring++;
	return 0;
}

/* Keeps the last overlap bytes of a window that did not match (from a
 * code point start) to examine with the next bytes of the line. */
static void
slide(cg_grep *g)
{
	size_t start = g->len - g->overlap;

	while (start < g->len && ((unsigned char)g->buf[start] & 0xC0) == 0x80)
		start++;
	memmove(g->buf, g->buf + start, g->len - start);
	g->len -= start;
	g->base += (int64_t)start;
	if (!g->windowed)
		g->st->windowed++;
	g->windowed = true;
}

/* Adds n bytes (no '\n') to the current line. */
static int
add_bytes(cg_grep *g, const char *p, size_t n)
{
	g->line_len += (int64_t)n;
	while (n > 0 && !g->matched) {
		size_t k;

		if (g->len == g->window) {
			int rc = check(g, true);

			if (rc != 0 || g->matched)
				return rc;
			slide(g);
		}
		k = g->window - g->len;
		if (k > n)
			k = n;
		memcpy(g->buf + g->len, p, k);
		g->len += k;
		p += k;
		n -= k;
	}
	return 0;
}

static int
end_line(cg_grep *g)
{
	int rc = g->matched ? 0 : check(g, false);

	if (rc == 0 && !g->matched)
		rc = context_line(g);

	g->st->lines++;
	g->len = 0;
	g->base = 0;
	g->line_len = 0;
	g->windowed = false;
	g->matched = false;
	return rc;
}

void
cg_grep_begin(cg_grep *g, int64_t detail, cg_grep_fn fn, void *ctx,
              cg_grep_file *st)
{
	memset(st, 0, sizeof(*st));
	g->st = st;
	g->fn = fn;
	g->ctx = ctx;
	g->detail = detail;
	g->len = 0;
	g->base = 0;
	g->line_len = 0;
	g->windowed = false;
	g->matched = false;
	g->after_left = 0;
	ring_clear(g);
	cg_err_clear(&g->err);
}

int
cg_grep_feed(cg_grep *g, const char *p, size_t n)
{
	if (g->st->binary)
		return 0;
	if (memchr(p, '\0', n) != NULL) {
		g->st->binary = true;
		return 0;
	}
	g->st->bytes += (int64_t)n;
	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t seg = nl != NULL ? (size_t)(nl - p) : n;
		int rc = add_bytes(g, p, seg);

		if (rc == 0 && nl != NULL) {
			rc = end_line(g);
			seg++;
		}
		if (rc != 0)
			return rc;
		p += seg;
		n -= seg;
	}
	return 0;
}

int
cg_grep_end(cg_grep *g)
{
	if (g->st->binary || g->line_len == 0)
		return 0;
	return end_line(g);
}

int
cg_grep_fd(cg_grep *g, int fd, int64_t detail, cg_grep_fn fn, void *ctx,
           cg_grep_file *st, cg_err *err)
{
	int rc = 0;

	cg_grep_begin(g, detail, fn, ctx, st);
	while (rc == 0 && !st->binary) {
		ssize_t n;

		if (g->deadline_ms > 0 && cg_mono_ms() >= g->deadline_ms)
			return cg_err_set(err, CG_ETIMEDOUT,
			                  "grep: time limit reached after %lld "
			                  "lines",
			                  (long long)st->lines);
		n = read(fd, g->chunk, GREP_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cg_err_set(err, CG_EIO, "grep: read failed: %s",
			                  cg_strerror(errno).s);
		if (n == 0)
			break;
		rc = cg_grep_feed(g, g->chunk, (size_t)n);
	}
	if (rc == 0)
		rc = cg_grep_end(g);
	if (rc != 0 && g->err.code != 0)
		return cg_err_set(err, g->err.code, "%s", g->err.msg);
	return rc;
}
