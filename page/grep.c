/*
 * grep.c - the line matcher (see grep.h for the rules it follows).  It
 * keeps at most one window of a line in memory, whatever the input size,
 * and never runs a pattern that could blow up: back-references and huge
 * counted repetitions are refused before regcomp sees them.  It must not
 * change the process locale (uselocale is per thread) and must not read
 * files by path: callers open them.
 */
#include "page/grep.h"

#include <errno.h>
#include <locale.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wctype.h>

#include "common/cg_buf.h"
#include "common/cg_utf8.h"

#define GREP_CHUNK     (64u << 10)
#define GREP_MAX_DEPTH 64

struct cg_grep {
	bool fixed;     /* literal search */
	bool icase;     /* case-insensitive */
	char *needle;   /* literal, folded when icase */
	size_t nneedle; /* its length */
	regex_t ra;     /* "^.*(P)": P anywhere, line start included */
	regex_t rb;     /* "^..*(P)": P after the first character */
	bool have_re;   /* ra and rb compiled */
	locale_t loc;   /* C.UTF-8, or (locale_t)0 */
	size_t window;  /* bytes examined at once */
	size_t overlap; /* bytes kept from one window to the next */
	char *mem;      /* window + 2 bytes: buf with a spare byte each side */
	char *buf;      /* current window of the line (mem + 1) */
	char *fold;     /* folded copy of buf (icase literal only) */
	char *chunk;    /* read buffer of cg_grep_fd */
	/* stream state */
	size_t len;       /* bytes in buf */
	int64_t base;     /* offset in the line of buf[0] */
	int64_t line_len; /* bytes of the current line so far */
	bool windowed;    /* an earlier window of this line was examined */
	bool matched;     /* the current line matched: skip its rest */
	int64_t detail;   /* hits still to report with text */
	cg_grep_fn fn;
	void *ctx;
	cg_grep_file *st;
};

/* --- pattern checks ------------------------------------------------------ */

/* Index just past the bracket expression opening at p[i] == '['. */
static size_t
skip_bracket(const char *p, size_t i)
{
	size_t j = i + 1;

	if (p[j] == '^')
		j++;
	if (p[j] == ']')
		j++;
	while (p[j] != '\0' && p[j] != ']') {
		char k = p[j + 1];

		if (p[j] == '[' && (k == ':' || k == '=' || k == '.')) {
			const char *end = p + j + 2;

			while (*end != '\0' && !(end[0] == k && end[1] == ']'))
				end++;
			j = *end != '\0' ? (size_t)(end - p) + 2 : j + 1;
			continue;
		}
		j++;
	}
	return p[j] == ']' ? j + 1 : j;
}

/* Parses "{m}", "{m,}" or "{m,n}" at p[i]; returns the index past '}',
 * the smallest count (*lo) and the largest (*hi), or 0 when it is not an
 * interval (glibc then reads '{' as a literal). */
static size_t
parse_interval(const char *p, size_t i, int64_t *lo, int64_t *hi)
{
	int64_t v[2] = {0, -1};
	int k = 0;
	size_t j = i + 1;
	bool digits = false;

	for (; p[j] != '\0' && p[j] != '}'; j++) {
		if (p[j] == ',' && k == 0) {
			k = 1;
			v[1] = 0;
			continue;
		}
		if (p[j] < '0' || p[j] > '9')
			return 0;
		digits = true;
		if (v[k] < 1000000)
			v[k] = v[k] * 10 + (p[j] - '0');
	}
	if (p[j] != '}' || !digits)
		return 0;
	*lo = v[0];
	*hi = v[0];
	if (k == 1)
		*hi = v[1] > v[0] ? v[1] : v[0] + 1;
	return j + 1;
}

/* One open group of the pattern being checked. */
struct level {
	int64_t cost;  /* positions regcomp will make for it */
	int nonnull;   /* atoms of the current branch that cannot be empty */
	bool null_alt; /* an earlier branch of the group can be empty */
};

/* The checker's state: open groups and the last atom. */
struct expand {
	struct level lv[GREP_MAX_DEPTH + 1];
	size_t d;        /* open groups */
	int64_t last;    /* positions of the last atom, 0 when none */
	bool last_null;  /* it can match the empty string */
	bool last_group; /* it is a parenthesised group */
	bool last_quant; /* it already carries a repetition operator */
};

static void
atom(struct expand *x, int64_t n, bool nullable, bool group)
{
	x->last = n;
	x->last_null = nullable;
	x->last_group = group;
	x->last_quant = false;
	x->lv[x->d].cost += n;
	if (!nullable)
		x->lv[x->d].nonnull++;
}

/* A repetition operator (*, +, ?, {m,n}) on the last atom.  Refused:
 * one stacked on another (a*+: glibc's regcomp doubles the atom per '+'
 * and goes exponential), and one on a group that can match the empty
 * string ((a*)+, (x|)*: regcomp's closures blow up, and the group adds
 * nothing). */
static int
repeat(struct expand *x, int64_t lo, int64_t hi, cg_err *err)
{
	bool null_now = lo == 0;

	if (x->last == 0) { /* nothing to repeat: glibc takes a literal */
		atom(x, 1, false, false);
		return 0;
	}
	if (x->last_quant)
		return cg_err_set(err, CG_EINVAL,
		                  "stacked repetition operators (like a*+ or "
		                  "a{2}{3}) are not supported");
	if (x->last_group && x->last_null)
		return cg_err_set(err, CG_EINVAL,
		                  "a repeated group that can match the empty "
		                  "string (like (a*)+ or (a|)*) is not "
		                  "supported: repeat what is inside instead");
	if (hi < 1)
		hi = 1;
	x->lv[x->d].cost += x->last * (hi - 1);
	x->last *= hi;
	if (null_now && !x->last_null)
		x->lv[x->d].nonnull--;
	x->last_null = x->last_null || null_now;
	x->last_quant = true;
	return 0;
}

static int
open_group(struct expand *x, cg_err *err)
{
	if (x->d == GREP_MAX_DEPTH)
		return cg_err_set(err, CG_EINVAL,
		                  "pattern nests groups deeper than %d",
		                  GREP_MAX_DEPTH);
	memset(&x->lv[++x->d], 0, sizeof(x->lv[0]));
	x->last = 0;
	return 0;
}

static int
close_group(struct expand *x, cg_err *err)
{
	struct level *l = &x->lv[x->d];
	bool nullable = l->null_alt || l->nonnull == 0;
	int64_t cost = l->cost > 0 ? l->cost : 1;

	if (x->d == 0)
		return cg_err_set(err, CG_EINVAL,
		                  "unmatched ')' (write \\) for a literal "
		                  "parenthesis)");
	x->d--;
	atom(x, cost, nullable, true);
	return 0;
}

/* Handles p[i] (and what belongs to it); returns the next index, or 0
 * with err set. */
static size_t
check_step(struct expand *x, const char *p, size_t i, cg_err *err)
{
	int64_t lo = 0;
	int64_t hi = 0;
	size_t j;

	switch (p[i]) {
	case '\\':
		if (p[i + 1] >= '1' && p[i + 1] <= '9') {
			(void)cg_err_set(err, CG_EINVAL,
			                 "back-references (\\%c) are not "
			                 "supported",
			                 p[i + 1]);
			return 0;
		}
		/* GNU zero-width escapes can match empty */
		atom(x, 1, p[i + 1] != '\0' && strchr("bB<>`'", p[i + 1]),
		     false);
		return i + (p[i + 1] != '\0' ? 2 : 1);
	case '[':
		atom(x, 1, false, false);
		return skip_bracket(p, i);
	case '(':
		return open_group(x, err) == 0 ? i + 1 : 0;
	case ')':
		return close_group(x, err) == 0 ? i + 1 : 0;
	case '|':
		x->lv[x->d].null_alt |= x->lv[x->d].nonnull == 0;
		x->lv[x->d].nonnull = 0;
		x->last = 0;
		return i + 1;
	case '^':
	case '$':
		atom(x, 1, true, false);
		return i + 1;
	case '*':
	case '?':
	case '+':
		return repeat(x, p[i] == '+', p[i] == '+' ? 2 : 1, err) == 0
		           ? i + 1
		           : 0;
	case '{':
		j = parse_interval(p, i, &lo, &hi);
		if (j == 0) {
			atom(x, 1, false, false);
			return i + 1;
		}
		return repeat(x, lo, hi, err) == 0 ? j : 0;
	default:
		atom(x, 1, false, false);
		return i + 1;
	}
}

/*
 * Refuses what glibc's regex cannot run in bounded time or that the
 * anchored form "^.*(P)" would change: back-references, an unmatched ')',
 * stacked repetitions, repeated groups that can match empty, and counted
 * repetitions expanding past CG_GREP_EXPANSION_MAX positions (regcomp
 * copies a repeated atom once per count: a{1000}{1000}, (a{100}){300}).
 */
static int
check_ere(const char *p, cg_err *err)
{
	struct expand x;
	size_t i = 0;

	memset(&x, 0, sizeof(x));
	while (p[i] != '\0') {
		i = check_step(&x, p, i, err);
		if (i == 0)
			return CG_EINVAL;
		if (x.lv[x.d].cost > CG_GREP_EXPANSION_MAX ||
		    x.last > CG_GREP_EXPANSION_MAX)
			return cg_err_set(
			    err, CG_EINVAL,
			    "pattern too complex: its repetitions "
			    "expand to more than %d positions",
			    CG_GREP_EXPANSION_MAX);
	}
	return 0;
}

/* --- folding and matching ------------------------------------------------ */

/*
 * Lowercases n bytes of s into out (n bytes) code point by code point,
 * keeping every code point's length so offsets stay the same: a code
 * point whose lowercase encodes to another length, and invalid bytes, are
 * copied unchanged.
 */
static void
fold(const cg_grep *g, const char *s, size_t n, char *out)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		uint32_t cp;
		char e[4];
		int k;

		if (c < 0x80) {
			out[i++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
			continue;
		}
		k = cg_utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (k == 0) {
			out[i++] = (char)c;
			continue;
		}
		memcpy(out + i, s + i, (size_t)k);
		if (g->loc != (locale_t)0) {
			uint32_t l = (uint32_t)towlower_l((wint_t)cp, g->loc);

			if (cg_utf8_encode(l, e) == k)
				memcpy(out + i, e, (size_t)k);
		}
		i += (size_t)k;
	}
}

/*
 * Linear regex matching.  An unanchored regexec tries every start and can
 * run to the end of the input from each (quadratic: [a-z]+x on a long
 * line), so P itself is never run: "^.*(P)" is, which glibc tries from
 * position 0 only, one DFA pass.  '.' does not cross invalid UTF-8, so a
 * run is cut at invalid bytes (no match can span one anyway); a run that
 * does not start the line uses "^..*(P)" behind a borrowed lead byte, so
 * P's own '^' cannot match there.  p[-1] and p[n] are borrowed and put
 * back: callers keep a spare byte on both sides.
 */
static bool
run_anchored(cg_grep *g, char *p, size_t n, bool notbol, bool noteol)
{
	char end = p[n];
	char lead = p[-1];
	locale_t old = g->loc != (locale_t)0 ? uselocale(g->loc) : (locale_t)0;
	int rc;

	p[n] = '\0';
	p[-1] = 'x';
	rc = regexec(notbol ? &g->rb : &g->ra, notbol ? p - 1 : p, 0, NULL,
	             noteol ? REG_NOTEOL : 0);
	p[n] = end;
	p[-1] = lead;
	if (old != (locale_t)0)
		(void)uselocale(old);
	return rc == 0;
}

/* Length of the valid UTF-8 prefix of p[0..n). */
static size_t
valid_run(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint32_t cp;
		int k;

		if ((unsigned char)p[i] < 0x80) {
			i++;
			continue;
		}
		k = cg_utf8_decode((const unsigned char *)p + i, n - i, &cp);
		if (k == 0)
			break;
		i += (size_t)k;
	}
	return i;
}

/* True when P matches in p[0..n), run by run between invalid bytes. */
static bool
scan(cg_grep *g, char *p, size_t n, bool notbol, bool noteol)
{
	size_t i = 0;

	for (;;) {
		size_t e = i + valid_run(p + i, n - i);
		bool last = e >= n;

		if (run_anchored(g, p + i, e - i, notbol || i > 0,
		                 noteol || !last))
			return true;
		if (last)
			return false;
		i = e + 1; /* past one invalid byte */
	}
}

/* Where a match in p[0..n) starts: the earliest end by bisection over
 * prefixes, then the latest start of a match ending there by bisection
 * over suffixes; O(n log n), every regexec anchored. */
static size_t
locate(cg_grep *g, char *p, size_t n, bool notbol, bool noteol)
{
	size_t lo = 0;
	size_t hi = n;
	size_t e;

	if (scan(g, p, 0, notbol, noteol || n > 0))
		return 0;
	while (hi - lo > 1) { /* scan(lo) false, scan(hi) true */
		size_t mid = lo + (hi - lo) / 2;

		if (scan(g, p, mid, notbol, noteol || mid < n))
			hi = mid;
		else
			lo = mid;
	}
	e = hi;
	lo = 0;
	hi = e + 1;
	while (hi - lo > 1) { /* suffix lo matches, suffix hi does not */
		size_t mid = lo + (hi - lo) / 2;

		if (scan(g, p + mid, e - mid, notbol || mid > 0,
		         noteol || e < n))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Matches s[0..n) (one spare byte before s and at s[n]); *off gets the
 * match start when want. */
static bool
match_buf(cg_grep *g, char *s, size_t n, bool notbol, bool noteol, bool want,
          size_t *off)
{
	if (g->fixed) {
		const char *hay = s;
		const char *h;
		char end = s[n];

		s[n] = '\0';
		if (g->icase) {
			fold(g, s, n, g->fold);
			g->fold[n] = '\0';
			hay = g->fold;
		}
		h = strstr(hay, g->needle);
		s[n] = end;
		if (h != NULL && off != NULL)
			*off = (size_t)(h - hay);
		return h != NULL;
	}
	if (!scan(g, s, n, notbol, noteol))
		return false;
	if (want && off != NULL)
		*off = locate(g, s, n, notbol, noteol);
	return true;
}

bool
cg_grep_match(cg_grep *g, const char *s, size_t *col)
{
	size_t n = strlen(s);

	if (n > g->window) /* the scratch buffers hold one window */
		n = cg_utf8_clip(s, n, g->window);
	memcpy(g->buf, s, n);
	return match_buf(g, g->buf, n, false, false, true, col);
}

/* --- construction -------------------------------------------------------- */

/* Compiles pat alone (its errors are the user's), then the two anchored
 * forms the matcher runs. */
static int
compile_regex(cg_grep *g, const char *pat, cg_err *err)
{
	int flags = REG_EXTENDED | REG_NOSUB | (g->icase ? REG_ICASE : 0);
	locale_t old = g->loc != (locale_t)0 ? uselocale(g->loc) : (locale_t)0;
	char msg[256] = "";
	regex_t re;
	cg_buf a;
	cg_buf b;
	int rc = regcomp(&re, pat, flags);

	if (rc != 0)
		(void)regerror(rc, &re, msg, sizeof(msg));
	else
		regfree(&re);
	cg_buf_init(&a, (size_t)2 * CG_GREP_PATTERN_MAX);
	cg_buf_init(&b, (size_t)2 * CG_GREP_PATTERN_MAX);
	(void)cg_buf_printf(&a, "^.*(%s)", pat);
	(void)cg_buf_printf(&b, "^..*(%s)", pat);
	if (rc == 0) {
		rc = regcomp(&g->ra, cg_buf_str(&a), flags);
		if (rc == 0 && regcomp(&g->rb, cg_buf_str(&b), flags) != 0) {
			regfree(&g->ra);
			rc = REG_BADPAT;
		}
		if (rc != 0)
			(void)snprintf(msg, sizeof(msg),
			               "cannot be embedded in a group");
	}
	cg_buf_fini(&a);
	cg_buf_fini(&b);
	if (old != (locale_t)0)
		(void)uselocale(old);
	if (rc != 0)
		return cg_err_set(err, CG_EINVAL,
		                  "invalid regular expression '%.200s': %s",
		                  pat, msg);
	g->have_re = true;
	return 0;
}

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
	return o->fixed ? 0 : check_ere(o->pattern, err);
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
	g->icase = !opts->case_sensitive;
	g->loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (g->loc == (locale_t)0)
		g->loc = newlocale(LC_CTYPE_MASK, "en_US.UTF-8", (locale_t)0);
	g->nneedle = strlen(opts->pattern);
	set_window(g, opts->window);
	g->needle = strdup(opts->pattern);
	g->mem = malloc(g->window + 2);
	g->buf = g->mem ? g->mem + 1 : NULL; /* spare bytes: see scan() */
	g->fold = g->fixed && g->icase ? malloc(g->window + 1) : NULL;
	g->chunk = malloc(GREP_CHUNK);
	if (g->needle == NULL || g->buf == NULL || g->chunk == NULL ||
	    (g->fixed && g->icase && g->fold == NULL)) {
		cg_grep_free(g);
		return cg_err_set(err, CG_ENOMEM, "grep: out of memory");
	}
	if (g->fixed && g->icase)
		fold(g, opts->pattern, g->nneedle, g->needle);
	rc = g->fixed ? 0 : compile_regex(g, opts->pattern, err);
	if (rc != 0) {
		cg_grep_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

void
cg_grep_free(cg_grep *g)
{
	if (g == NULL)
		return;
	if (g->have_re) {
		regfree(&g->ra);
		regfree(&g->rb);
	}
	if (g->loc != (locale_t)0)
		freelocale(g->loc);
	free(g->needle);
	free(g->mem);
	free(g->fold);
	free(g->chunk);
	free(g);
}

bool
cg_grep_unicode(const cg_grep *g)
{
	return g->loc != (locale_t)0;
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

/* Examines buf as (part of) the current line; more: the line goes on. */
static int
check(cg_grep *g, bool more)
{
	cg_grep_hit h = {g->st->lines + 1, 0, NULL, false};
	bool want = g->detail > 0;
	size_t off = 0;
	char *text;
	int rc;

	g->buf[g->len] = '\0';
	if (!match_buf(g, g->buf, g->len, g->windowed, more, want, &off))
		return 0;
	g->matched = true;
	g->st->matches++;
	if (!want)
		return g->fn(g->ctx, &h);
	g->detail--;
	text = hit_text(g, off, more, &h.clipped);
	if (text == NULL)
		return CG_ENOMEM;
	h.text = text;
	h.col = g->base + (int64_t)off + 1;
	rc = g->fn(g->ctx, &h);
	free(text);
	return rc;
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
		ssize_t n = read(fd, g->chunk, GREP_CHUNK);

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
	return rc;
}
