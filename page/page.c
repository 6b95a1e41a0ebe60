/*
 * page.c - reads one guild wiki page from its bytes: repairs the UTF-8,
 * counts the lines, reads the frontmatter block (through frontmatter.h),
 * then hands the frontmatter object to fields.c and the body to body.c
 * (which has markdown.c read it as CommonMark); and names a page by its
 * path (cg_page_slug).  page.h says how a page is read; page_int.h holds
 * what these five files share.
 *
 * It must not do I/O and must not fail on any input except out of memory;
 * like the files it calls, it stays linear in the input size.
 */
#include "page/page.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_str.h"
#include "common/cg_utf8.h"
#include "page/page_int.h"

static int
count_lines(const char *s, size_t n)
{
	size_t lines = 0;
	const char *p = s;
	const char *end = s + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		lines++;
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return lines > INT_MAX ? INT_MAX : (int)lines;
}

static int
read_frontmatter(cg_page *pg, const char *s, size_t n, size_t *body_off,
                 int *body_line)
{
	size_t yoff = 0;
	size_t ylen = 0;
	cg_err e;

	cg_err_clear(&e);
	if (!cg_fm_split(s, n, &yoff, &ylen, body_off, body_line)) {
		*body_off = 0;
		*body_line = 1;
		pg->fm_status = CG_FM_NONE;
		pg->fm = json_object();
		return pg->fm ? 0 : CG_ENOMEM;
	}
	/* Defensive: the split's offsets are trusted only inside the text. */
	if (*body_off > n || yoff > n || ylen > n - yoff || *body_line < 1) {
		*body_off = n;
		*body_line = 1;
		ylen = 0;
	}
	pg->fm_status = cg_fm_parse(s + yoff, ylen, &pg->fm, &e);
	if (pg->fm == NULL || e.code == CG_ENOMEM)
		return CG_ENOMEM; /* not "no fields": cg_page_parse fails */
	if (pg->fm != NULL && !json_is_object(pg->fm)) {
		json_decref(pg->fm);
		pg->fm = NULL;
		pg->fm_status = CG_FM_BROKEN;
	}
	if (pg->fm == NULL)
		pg->fm = json_object();
	if (pg->fm_status != CG_FM_OK && pg->fm_status != CG_FM_NONE) {
		size_t k = cg_utf8_clip(e.msg, strlen(e.msg),
		                        sizeof(pg->fm_error) - 1);

		memcpy(pg->fm_error, e.msg, k);
		pg->fm_error[k] = '\0';
	}
	return pg->fm ? 0 : CG_ENOMEM;
}

int
cg_page_parse(cg_page *page, const char *text, size_t len, const char *slug,
              const char *dir_category, cg_err *err)
{
	size_t n = 0;
	size_t body_off = 0;
	int body_line = 1;
	char *s;
	int rc;

	memset(page, 0, sizeof(*page));
	s = cg_utf8_sanitize(text ? text : "", text ? len : 0, &n,
	                     &page->utf8_fixed);
	if (s == NULL)
		return cg_err_set(err, CG_ENOMEM, "page %s: out of memory",
		                  slug ? slug : "");
	page->nlines = count_lines(s, n);
	rc = read_frontmatter(page, s, n, &body_off, &body_line);
	if (rc == 0)
		rc = cg_pgi_fields_read(page, dir_category);
	if (rc == 0)
		rc = cg_pgi_body_read(page, s, n, body_off, body_line);
	if (rc == 0 && page->title == NULL && slug != NULL) {
		page->title = strdup(slug);
		if (page->title == NULL)
			rc = CG_ENOMEM;
	}
	free(s);
	if (rc != 0) {
		cg_page_fini(page);
		return cg_err_set(err, rc, "page %s: out of memory",
		                  slug ? slug : "");
	}
	return 0;
}

void
cg_page_fini(cg_page *page)
{
	if (page == NULL)
		return;
	json_decref(page->fm);
	free(page->title);
	free(page->category);
	free(page->category_raw);
	free(page->owner);
	free(page->confidence);
	free(page->confidence_raw);
	free(page->created_at);
	free(page->updated_at);
	free(page->expires_at);
	free(page->claim);
	cg_strv_free(page->supersedes);
	cg_strv_free(page->tags);
	cg_strv_free(page->source_refs);
	cg_strv_free(page->aliases);
	free(page->first_line);
	for (size_t i = 0; i < page->nsections; i++) {
		free(page->sections[i].headings);
		free(page->sections[i].body);
	}
	free(page->sections);
	for (size_t i = 0; i < page->nheadings; i++)
		free(page->headings[i].text);
	free(page->headings);
	for (size_t i = 0; i < page->nlinks; i++) {
		free(page->links[i].target);
		free(page->links[i].anchor);
		free(page->links[i].text);
	}
	free(page->links);
	memset(page, 0, sizeof(*page));
}

const char *
cg_page_slug(const char *path, size_t *len)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 3 && strcmp(base + n - 3, ".md") == 0)
		n -= 3;
	*len = n;
	return base;
}
