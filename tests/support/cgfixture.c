/*
 * cgfixture.c - shared workspace pieces (see cgfixture.h).  Only writes
 * files under the workspace it is given; what a piece contains is fixed
 * here so that every test using it sees the same pages.
 */
#define _GNU_SOURCE
#include "cgfixture.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgtest.h"

/* Writes ws/corpora/<id>/<file> with the text fmt formats. */
static void __attribute__((format(printf, 4, 5)))
put(const char *ws, const char *id, const char *file, const char *fmt, ...)
{
	char *rel = NULL;
	char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	assert_true(vasprintf(&text, fmt, ap) >= 0);
	va_end(ap);
	assert_true(asprintf(&rel, "corpora/%s/%s", id, file) > 0);
	cgt_write(ws, rel, text);
	free(rel);
	free(text);
}

void
cgt_corpus(const char *ws, const char *id, const char *entry,
           const char *concept, const char *title, const char *text)
{
	char *doc = NULL;

	put(ws, id, "config.yaml",
	    "schema_version: 2\ncorpus:\n  name: %s\nsources:\n"
	    "  - id: src\n    type: self\n    docs_root: docs\n",
	    id);
	put(ws, id, "index.yaml",
	    "entries:\n  - id: \"src:%s\"\n    path: %s\n"
	    "    title: %s\n    summary: %s\n    concepts: [%s]\n",
	    entry, entry, title, title, concept);
	assert_true(asprintf(&doc, "docs/%s", entry) > 0);
	put(ws, id, doc, "# %s\n\n%s\n", title, text);
	free(doc);
}

void
cgt_local_registry(const char *ws, ...)
{
	char *yaml = strdup("corpora:\n");
	va_list ap;

	assert_non_null(yaml);
	va_start(ap, ws);
	for (const char *id = va_arg(ap, const char *); id != NULL;
	     id = va_arg(ap, const char *)) {
		char *next = NULL;

		assert_true(asprintf(&next,
		                     "%s  - id: %s\n    source:\n      type: "
		                     "local\n      path: corpora/%s\n",
		                     yaml, id, id) > 0);
		free(yaml);
		yaml = next;
	}
	va_end(ap);
	cgt_write(ws, ".hiivmind/corpus/registry.yaml", yaml);
	free(yaml);
}

void
cgt_refund_conflict(const char *ws)
{
	cgt_write(ws, "billing/.git/HEAD", "ref: refs/heads/main\n");
	cgt_write(ws, "web/.git/HEAD", "ref: refs/heads/main\n");
	cgt_page(ws, "billing/.guild/wiki/standards/refunds.md",
	         "type: standard\nconfidence: high\nupdated_at: 2026-01-10",
	         "# Refund Window\n\nRefunds are accepted for 30 days.\n");
	cgt_page(ws, "web/.guild/wiki/standards/refunds.md",
	         "type: standard\nconfidence: medium\nupdated_at: 2026-06-10",
	         "# Refund Window\n\nRefunds are accepted for 14 days.\n");
}
