/*
 * links.c - the link scanner of one body line: wikilinks ([[t]],
 * [[t#h|alias]], ![[t]]) and relative Markdown links ([text](path.md#a)),
 * outside inline code spans, added to the page being read.
 *
 * It must stay linear in the line on any input: every step moves forward
 * and every forward search is memoised (struct memo), so thousands of
 * "[[" or "`" without a closer, or a 50 MB line, never rescan the same
 * bytes.  It must not do I/O; past CG_PAGE_MAX_LINKS links are dropped.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_analyzer.h"
#include "common/cg_str.h"
#include "common/cg_utf8.h"
#include "common/cg_vec.h"
#include "page/page.h"
#include "page/page_int.h"

#define NONE          SIZE_MAX /* no match */
#define BT_MAX        64       /* longer backtick runs never open a code span */
#define OPENERS       32       /* '[' remembered; the oldest is dropped */
#define WS_MAX        16       /* spaces allowed around a link destination */
#define LINK_TEXT_MAX 256      /* link text is clipped to this */

enum find_kind {
	FIND_CHAR = 0, /* the character c */
	FIND_PAIR = 1, /* c twice in a row */
	FIND_STOP = 2, /* the end of a bare destination */
};

/* A memoised forward search: the answer for from stays right for any
 * later query up to the match, so a line is scanned once per memo as long
 * as queries move forward. */
struct memo {
	enum find_kind kind;
	char c;
	bool set;
	size_t from;
	size_t at; /* first match at or after from, or NONE */
};

/* The link scanner of one line. */
struct lscan {
	const char *l;
	size_t n;
	int line;
	struct memo close2;      /* "]]" */
	struct memo open2;       /* "[[" */
	struct memo gt;          /* '>' closing "<dest>" */
	struct memo stop;        /* end of a bare destination */
	struct memo title[2][3]; /* '"', '\'', ')' after <dest> / dest */
	size_t bt[BT_MAX + 1];   /* last backtick run of each length, +1 */
	bool bt_ready;           /* bt has been cleared */
	bool bt_all;             /* bt covers the rest of the line */
	size_t open[OPENERS];    /* '[' positions, a ring */
	bool img[OPENERS];       /* the '[' is the one of "![" */
	size_t nopen;
	size_t head;
};

static size_t
search(const struct memo *m, const char *l, size_t n, size_t from)
{
	const char *p;

	while (from < n) {
		if (m->kind == FIND_STOP) {
			char c = l[from];

			if (c == ' ' || c == '\t' || c == '(' || c == ')')
				return from;
			from++;
			continue;
		}
		p = memchr(l + from, m->c, n - from);
		if (p == NULL)
			return NONE;
		from = (size_t)(p - l);
		if (m->kind == FIND_CHAR)
			return from;
		if (from + 1 < n && l[from + 1] == m->c)
			return from;
		from++;
	}
	return NONE;
}

static size_t
memo_find(struct memo *m, const char *l, size_t n, size_t from)
{
	if (m->set && from >= m->from && (m->at == NONE || from <= m->at))
		return m->at;
	m->set = true;
	m->from = from;
	m->at = search(m, l, n, from);
	return m->at;
}

/* The closing run of exactly k backticks at or after from, or NONE. */
static size_t
backtick_close(struct lscan *s, size_t from, size_t k)
{
	size_t p = from;

	if (k > BT_MAX)
		return NONE;
	if (!s->bt_ready) {
		memset(s->bt, 0, sizeof(s->bt));
		s->bt_ready = true;
	}
	if (s->bt_all && (s->bt[k] == 0 || s->bt[k] - 1 < from))
		return NONE;
	while (p < s->n) {
		const char *q = memchr(s->l + p, '`', s->n - p);
		size_t a;
		size_t e;

		if (q == NULL)
			break;
		a = (size_t)(q - s->l);
		e = a;
		while (e < s->n && s->l[e] == '`')
			e++;
		if (e - a <= BT_MAX)
			s->bt[e - a] = a + 1;
		if (e - a == k)
			return a;
		p = e;
	}
	s->bt_all = true;
	return NONE;
}

/* Past an inline code span starting at i, or past its backtick run when
 * nothing closes it. */
static size_t
skip_code(struct lscan *s, size_t i)
{
	size_t e = i;
	size_t c;

	while (e < s->n && s->l[e] == '`')
		e++;
	c = backtick_close(s, e, e - i);
	return c == NONE ? e : c + (e - i);
}

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the copies are
 * stored in pg->links, which cg_page_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static void
add_link(struct cg_pgi_walk *b, enum cg_link_kind kind, const char *t,
         size_t tn, const char *a, size_t an, const char *x, size_t xn,
         int line)
{
	cg_page *pg = b->pg;
	cg_link *lk;

	cg_trim(&t, &tn, CG_SPACES);
	cg_trim(&a, &an, CG_SPACES);
	cg_trim(&x, &xn, CG_SPACES);
	if (tn == 0 || tn > CG_LINK_TARGET_MAX ||
	    pg->nlinks >= CG_PAGE_MAX_LINKS || b->rc != 0)
		return;
	if (cg_vec_reserve((void **)&pg->links, &b->cap_link, pg->nlinks,
	                   sizeof(*lk)) != 0) {
		b->rc = CG_ENOMEM;
		return;
	}
	lk = &pg->links[pg->nlinks];
	memset(lk, 0, sizeof(*lk));
	lk->kind = kind;
	lk->line = line;
	lk->target = strndup(t, tn);
	lk->anchor = an > 0 ? strndup(a, an) : NULL;
	lk->text =
	    xn > 0 ? strndup(x, cg_utf8_clip(x, xn, LINK_TEXT_MAX)) : NULL;
	pg->nlinks++;
	if (lk->target == NULL || (an > 0 && lk->anchor == NULL) ||
	    (xn > 0 && lk->text == NULL))
		b->rc = CG_ENOMEM;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* [[target#heading|alias]] with its inside at [p, p + n). */
static void
wiki_link(struct cg_pgi_walk *b, const char *p, size_t n, int line)
{
	const char *bar = memchr(p, '|', n);
	size_t left = bar ? (size_t)(bar - p) : n;
	size_t alen = bar ? n - left - 1 : 0;
	const char *hash;
	size_t tn;

	/* Inside a table the bar is written "\|". */
	if (bar != NULL && left > 0 && p[left - 1] == '\\')
		left--;
	hash = memchr(p, '#', left);
	tn = hash ? (size_t)(hash - p) : left;
	add_link(b, CG_LINK_WIKI, p, tn, hash ? hash + 1 : NULL,
	         hash ? left - tn - 1 : 0, bar ? bar + 1 : NULL, alen, line);
}

static bool
is_punct(char c)
{
	return c > ' ' && c < 0x7f && !cg_pgi_alnum(c);
}

/* True for a destination that is a relative path: not empty, not "/..."
 * or "#...", and without a URI scheme ("http:", "mailto:"). */
static bool
relative_dest(const char *d, size_t n)
{
	size_t i = 1;

	if (n == 0 || d[0] == '/' || d[0] == '#' || d[0] == '\\')
		return false;
	if (!cg_pgi_alpha(d[0]))
		return true;
	while (i < n && (cg_pgi_alnum(d[i]) || d[i] == '+' || d[i] == '.' ||
	                 d[i] == '-'))
		i++;
	return !(i < n && d[i] == ':');
}

/* Past at most WS_MAX spaces at p; the end of the line when there are
 * more (no link has that many). */
static size_t
skip_ws(const struct lscan *s, size_t p)
{
	size_t k = 0;

	while (p < s->n && (s->l[p] == ' ' || s->l[p] == '\t')) {
		if (++k > WS_MAX)
			return s->n;
		p++;
	}
	return p;
}

/* The "(dest "title")" after "]": dest at [*ds, *de), *end past ")".
 * Destinations with parentheses are not supported. */
static bool
parse_dest(struct lscan *s, size_t p, size_t *ds, size_t *de, size_t *end)
{
	int bare;
	size_t q;

	p = skip_ws(s, p);
	if (p >= s->n)
		return false;
	bare = s->l[p] != '<';
	if (!bare) {
		q = memo_find(&s->gt, s->l, s->n, p + 1);
		if (q == NONE)
			return false;
		*ds = p + 1;
		p = q + 1;
	} else {
		q = memo_find(&s->stop, s->l, s->n, p);
		if (q == NONE || s->l[q] == '(')
			return false;
		*ds = p;
		p = q;
	}
	*de = q;
	p = skip_ws(s, p);
	if (p < s->n && (s->l[p] == '"' || s->l[p] == '\'' || s->l[p] == '(')) {
		int k = s->l[p] == '"' ? 0 : s->l[p] == '\'' ? 1 : 2;

		q = memo_find(&s->title[bare][k], s->l, s->n, p + 1);
		if (q == NONE)
			return false;
		p = skip_ws(s, q + 1);
	}
	if (p >= s->n || s->l[p] != ')')
		return false;
	*end = p + 1;
	return true;
}

static void
md_link(struct cg_pgi_walk *b, const struct lscan *s, size_t t0, size_t t1,
        size_t ds, size_t de)
{
	const char *d = s->l + ds;
	size_t dn = de - ds;
	const char *hash;
	size_t tn;

	cg_trim(&d, &dn, CG_SPACES);
	if (!relative_dest(d, dn))
		return;
	hash = memchr(d, '#', dn);
	tn = hash ? (size_t)(hash - d) : dn;
	add_link(b, CG_LINK_MD, d, tn, hash ? hash + 1 : NULL,
	         hash ? dn - tn - 1 : 0, s->l + t0, t1 - t0, s->line);
}

static void
push_open(struct lscan *s, size_t pos, bool img)
{
	s->open[s->head] = pos;
	s->img[s->head] = img;
	s->head = (s->head + 1) % OPENERS;
	if (s->nopen < OPENERS)
		s->nopen++;
}

/* A "]": closes the innermost "[" and, when "(dest)" follows, makes a
 * link (kept when relative) or an image (skipped).  Links do not nest, so
 * a link forgets the openers before it. */
static size_t
close_bracket(struct cg_pgi_walk *b, struct lscan *s, size_t i)
{
	size_t o;
	size_t ds;
	size_t de;
	size_t end;
	bool img;

	if (s->nopen == 0)
		return i + 1;
	s->head = (s->head + OPENERS - 1) % OPENERS;
	s->nopen--;
	o = s->open[s->head];
	img = s->img[s->head];
	if (i + 1 >= s->n || s->l[i + 1] != '(' ||
	    !parse_dest(s, i + 2, &ds, &de, &end))
		return i + 1;
	if (img)
		return end;
	s->nopen = 0;
	md_link(b, s, o + 1, i, ds, de);
	return end;
}

/* A "[[" at i: the wikilink up to the next "]]" when no other "[[" comes
 * first; returns the position after it, or 0 when it is not one. */
static size_t
try_wiki(struct cg_pgi_walk *b, struct lscan *s, size_t i)
{
	size_t c = memo_find(&s->close2, s->l, s->n, i + 2);
	size_t o;

	if (c == NONE)
		return 0;
	o = memo_find(&s->open2, s->l, s->n, i + 1);
	if (o != NONE && o < c)
		return 0;
	if (c - (i + 2) > CG_LINK_TARGET_MAX + LINK_TEXT_MAX)
		return 0;
	wiki_link(b, s->l + i + 2, c - (i + 2), s->line);
	return c + 2;
}

static void
memo_init(struct memo *m, enum find_kind kind, char c)
{
	m->kind = kind;
	m->c = c;
	m->set = false;
	m->from = 0;
	m->at = NONE;
}

/* Field by field: the backtick table is cleared only when needed. */
static void
lscan_init(struct lscan *s, const char *l, size_t n, int line)
{
	static const char tc[3] = {'"', '\'', ')'};

	s->l = l;
	s->n = n;
	s->line = line;
	memo_init(&s->close2, FIND_PAIR, ']');
	memo_init(&s->open2, FIND_PAIR, '[');
	memo_init(&s->gt, FIND_CHAR, '>');
	memo_init(&s->stop, FIND_STOP, 0);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 3; k++)
			memo_init(&s->title[i][k], FIND_CHAR, tc[k]);
	s->bt_ready = false;
	s->bt_all = false;
	s->nopen = 0;
	s->head = 0;
}

/* Finds the links of one line outside code spans.  Every step moves
 * forward and every search is memoised: linear in the line. */
void
cg_pgi_links_scan(struct cg_pgi_walk *b, const char *l, size_t n, int line)
{
	struct lscan s;
	size_t i = 0;

	if (memchr(l, '[', n) == NULL)
		return;
	lscan_init(&s, l, n, line);
	while (i < n && b->rc == 0) {
		char c = l[i];
		bool two = i + 1 < n && l[i + 1] == '[';
		size_t e = 0;

		if (c == '[' && two)
			e = try_wiki(b, &s, i);
		if (e != 0) {
			i = e;
		} else if (c == '\\' && i + 1 < n && is_punct(l[i + 1])) {
			i += 2;
		} else if (c == '`') {
			i = skip_code(&s, i);
		} else if (c == '[') {
			push_open(&s, i, false);
			i++;
		} else if (c == '!' && two && !(i + 2 < n && l[i + 2] == '[')) {
			push_open(&s, i + 1, true);
			i += 2;
		} else if (c == ']') {
			i = close_bracket(b, &s, i);
		} else {
			i++;
		}
	}
}
