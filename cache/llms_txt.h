/*
 * llms_txt.h - the llms.txt format (llmstxt.org) as an llms-txt source of
 * a hiivmind corpus uses it: the manifest parsed into its title, summary,
 * sections and links, and the rules that turn a link into the URL that is
 * fetched and the document path it is cached at.
 *
 * The manifest is Markdown: an H1 title, a blockquote summary, then H2
 * sections whose list items are links "- [title](url): note"; the section
 * named "Optional" holds what may be skipped.  Parsing (cg_llms_parse):
 * - invalid UTF-8 is replaced with U+FFFD (one warning), NUL bytes are
 *   dropped, a BOM and CR before LF are ignored;
 * - the first "# " line is the title, the "> " lines right after it the
 *   summary; "## " starts a section (its text, trimmed); deeper headings
 *   do not change the section; lines inside ``` or ~~~ fences are not read;
 * - a link item is a list item ("-", "*", "+" or "1." then a blank, any
 *   indent) that starts with "[text](href)": nested brackets and
 *   parentheses are balanced, "<href>" and a quoted link title inside the
 *   parentheses are allowed (the title is dropped); what follows, without a
 *   leading ":" or dash, is the note; any other line is prose, ignored;
 * - an item with an empty or over-long href (2,048 bytes) is skipped with
 *   a warning naming its line; titles and notes are cut at 1,000 bytes
 *   (never inside a UTF-8 sequence); at most CG_LLMS_MAX_LINKS links are
 *   kept (a warning says how many more there were);
 * - nothing in the text is an error: only a manifest over CG_LLMS_MAX_BYTES
 *   (CG_ETOOBIG) or running out of memory fails.
 *
 * Links to URLs and document paths (cg_llms_resolve), hiivmind's rules
 * made safe:
 * - an absolute http:// or https:// href is used as written; "//host/x"
 *   takes the manifest's scheme; any other scheme (file:, javascript:,
 *   ftp:, ...) is refused;
 * - any other href, with or without a leading "/", is a path below the
 *   base (urls.base_url, else the manifest's folder): "skills" is
 *   <base>/skills, "/agents/a.md" is <base>/agents/a.md (hiivmind's
 *   resolve_url);
 * - the suffix (urls.suffix, e.g. ".md") is appended to a path that does
 *   not end with it; a fragment is dropped; bytes outside printable ASCII
 *   are percent-encoded; a query is kept in the URL;
 * - refused, each with its reason: credentials in the URL ("user@host"),
 *   a host other than the manifest's or the base's (scheme and port
 *   compared too, default ports normalised), a "." or ".." segment
 *   (percent-encoded ones too), an empty segment, a segment whose decoded
 *   form holds "/", "\", a control character or invalid UTF-8, a URL over
 *   CG_LLMS_URL_MAX bytes;
 * - the document path is the URL's path below the base's path (else from
 *   the host's root), percent-decoded segment by segment, "index" added
 *   after a trailing "/", and ".md" appended unless it ends so (as
 *   hiivmind caches pages); it is always a relative path of safe segments
 *   (no "..", no leading "/", at most 200 bytes a segment, 1,024 in all),
 *   so a cache writes it below its source's folder and nowhere else.
 *
 * Implemented in cache/hiivmind_llms.c (it shares hiivmind_int.h's parse
 * context and line reader with index.md).  Must not: fetch, touch the
 * cache.
 *
 * May be included by cache/ and every layer above it (conf, page, proto,
 * index, node, federation, gateway, cli), and by fuzz targets.
 */
#ifndef CG_LLMS_TXT_H
#define CG_LLMS_TXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cg_err.h"

#define CG_LLMS_MAX_BYTES (4u << 20) /* a manifest, fetched or parsed */
#define CG_LLMS_MAX_LINKS 10000
#define CG_LLMS_URL_MAX   2048
#define CG_LLMS_DOC_MAX   1024
/* A corpus folder's records of its llms-txt sources (_llms/<sid>.txt, the
 * manifest; _llms/<sid>.json, what was fetched): cache/llms_fetch.h. */
#define CG_LLMS_STATE_DIR "_llms"

/* One link of the manifest. */
typedef struct cg_llms_link {
	char *title;        /* the link text (the href when it is empty) */
	char *href;         /* as written (angle brackets removed) */
	char *note;         /* the text after the link, or NULL */
	char *section;      /* the "## " above it, or NULL */
	bool optional;      /* in the section named "Optional" */
	size_t line;        /* 1-based */
	uint64_t line_hash; /* of the item's text: a changed title, href or
	                       note changes it */
} cg_llms_link;

typedef struct cg_llms {
	char *title;   /* the H1, or NULL (warned) */
	char *summary; /* the blockquote after it, or NULL */
	cg_llms_link *links;
	size_t n;
	char **sections; /* every "## " in order, NULL-terminated */
	char **warnings; /* NULL-terminated, never NULL after a parse */
} cg_llms;

/* Parses a manifest (see above).  On failure *out is zeroed. */
int cg_llms_parse(cg_llms *out, const char *text, size_t len, cg_err *err);
void cg_llms_fini(cg_llms *m);

/* Where a source's links may point, from its config. */
typedef struct cg_llms_site {
	char *manifest;  /* the manifest URL */
	char *base;      /* the base URL, no trailing '/' */
	char *suffix;    /* "" when none */
	char *origin[2]; /* "scheme://host[:port]" of manifest and base */
	char *base_path; /* the base's path, no trailing '/' ("" at root) */
	char *scheme;    /* the manifest's: "http" or "https" */
} cg_llms_site;

/* Checks the manifest URL and the base (NULL: the manifest's folder):
 * http(s), a host, no credentials, no fragment.  CG_EINVAL says why. */
int cg_llms_site_init(cg_llms_site *s, const char *manifest, const char *base,
                      const char *suffix, cg_err *err);
void cg_llms_site_fini(cg_llms_site *s);

/* A link's URL and document path (malloc'd), or CG_EINVAL with the
 * reason in why (the href quoted, printable and capped).  CG_ENOMEM. */
int cg_llms_resolve(const cg_llms_site *s, const char *href, char **url,
                    char **doc, cg_err *why);

/* A redirect's Location resolved against the URL that answered (absolute,
 * "//host/x", "/x" or relative), then checked as a link's URL is (scheme,
 * host, credentials, size): a malloc'd URL, or CG_EINVAL with why. */
int cg_llms_redirect(const cg_llms_site *s, const char *from,
                     const char *location, char **url, cg_err *why);

/* The document path of an index entry's path for this kind of source:
 * ".md" appended unless it ends so (malloc'd). */
char *cg_llms_doc_of(const char *path);

/* True when the manifest section name is one of the config's sections:
 * equal ignoring ASCII case and surrounding blanks, or the same slug
 * (lowercase letters and digits, runs of anything else as one '-'). */
bool cg_llms_section_in(const char *name, char *const *sections);

#endif
