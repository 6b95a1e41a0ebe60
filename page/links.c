/*
 * links.c - one link of a page made a cg_link: a wikilink as md4c read it
 * ([[t]], [[t#h|alias]], "\|" in tables), a relative Markdown link
 * ([text](path.md#a), inline or by reference), and the "![[t]]" embeds
 * md4c leaves as text.  Where links are (not in code, not in HTML) is
 * markdown.c's business; this file only splits and keeps them.
 *
 * It must not do I/O and must stay linear in its input (the embed scan
 * moves forward only, its searches memoised); past CG_PAGE_MAX_LINKS
 * links are dropped.
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

#define LINK_TEXT_MAX 256 /* link text is clipped to this */

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

/* [target#heading|alias] split: the target up to '#', the anchor after
 * it, the alias after the first '|' (an escaped "\|" keeps its '\'
 * when the text is raw). */
static void
wiki_split(struct cg_pgi_walk *b, const char *p, size_t n, const char *alias,
           size_t alen, int line)
{
	const char *bar = memchr(p, '|', n);
	size_t left = bar ? (size_t)(bar - p) : n;
	const char *hash;
	size_t tn;

	if (bar != NULL) {
		alias = bar + 1;
		alen = n - left - 1;
		if (left > 0 && p[left - 1] == '\\')
			left--;
	}
	hash = memchr(p, '#', left);
	tn = hash ? (size_t)(hash - p) : left;
	add_link(b, CG_LINK_WIKI, p, tn, hash ? hash + 1 : NULL,
	         hash ? left - tn - 1 : 0, alias, alen, line);
}

void
cg_pgi_link_wiki(struct cg_pgi_walk *b, const char *target, size_t tn,
                 const char *content, size_t cn, int line)
{
	/* md4c hands "[[t|alias]]" as target "t" and content "alias", and
	 * "[[t]]" as target and content "t": the content is an alias only
	 * when it differs. */
	bool alias = cn != tn || memcmp(content, target, tn) != 0;

	/* "[[[]]]": md4c's target "[]" names no page. */
	if (memchr(target, '[', tn) != NULL || memchr(target, ']', tn) != NULL)
		return;
	wiki_split(b, target, tn, alias ? content : NULL, alias ? cn : 0, line);
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

void
cg_pgi_link_md(struct cg_pgi_walk *b, const char *dest, size_t dn,
               const char *text, size_t xn, int line)
{
	const char *d = dest;
	const char *hash;
	size_t tn;

	cg_trim(&d, &dn, CG_SPACES);
	if (!relative_dest(d, dn))
		return;
	hash = memchr(d, '#', dn);
	tn = hash ? (size_t)(hash - d) : dn;
	add_link(b, CG_LINK_MD, d, tn, hash ? hash + 1 : NULL,
	         hash ? dn - tn - 1 : 0, text, xn, line);
}

/* The first "xx" (x = c) at or after from in [t, t + n), or n. */
static size_t
find_pair(const char *t, size_t n, size_t from, char c)
{
	while (from + 1 < n) {
		const char *p = memchr(t + from, c, n - from - 1);

		if (p == NULL)
			return n;
		from = (size_t)(p - t);
		if (t[from + 1] == c)
			return from;
		from++;
	}
	return n;
}

void
cg_pgi_link_embeds(struct cg_pgi_walk *b, const char *t, size_t n, int line)
{
	/* The next "]]" and "[[" at or after the scan position: recomputed
	 * only when the position passes them, so the text is read once. */
	size_t close = 0;
	size_t open = 0;
	bool cset = false;
	bool oset = false;
	size_t i = 0;

	while (i + 2 < n && b->rc == 0) {
		const char *p = memchr(t + i, '!', n - i - 2);
		size_t s;

		if (p == NULL)
			return;
		s = (size_t)(p - t);
		i = s + 1;
		if (t[s + 1] != '[' || t[s + 2] != '[')
			continue;
		if (!cset || close < s + 3) {
			close = find_pair(t, n, s + 3, ']');
			cset = true;
		}
		if (close >= n)
			return; /* nothing closes this one or any later one */
		if (!oset || open < s + 3) {
			open = find_pair(t, n, s + 3, '[');
			oset = true;
		}
		if (open < close || close - (s + 3) > CG_LINK_TARGET_MAX)
			continue;
		wiki_split(b, t + s + 3, close - (s + 3), NULL, 0, line);
		i = close + 2;
	}
}
