/*
 * test_llms_fetch.c - llms-txt sources end to end (issue 17): a corpus
 * repository made with the git CLI and served over file://, whose
 * config.yaml names three llms-txt sources (full, selective, on-demand);
 * a real HTTP server on 127.0.0.1 (tests/support/cghttpd) answering the
 * commits API and serving the sites, manifests and pages written by the
 * test into a folder; the real binary (`corpus-gw fetch`, `query`).
 * The server's request log says what was asked and what came back.
 * Nothing touches the internet.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cghttpd.h"
#include "cgproc.h"
#include "cgtest.h"

#define NPAGES 6

static char *T;    /* the temporary root */
static char *WS;   /* the workspace */
static char *IDX;  /* the index cache */
static char *SITE; /* the server's docroot */
static char *LOG;  /* the server's request log */
static char API[64];
static char GITBASE[600];
static cghttpd *H;
static FILE *logf_;
static int version; /* of the full source's pages */

/* Page i of the full source at version v. */
static void
full_page(int i, int v)
{
	char rel[64];
	char text[256];

	(void)snprintf(rel, sizeof(rel), "full/pages/p%d.md", i);
	(void)snprintf(text, sizeof(text),
	               "# Page %d\n\nThe wombatword%d lives here.\n\n"
	               "Version marker v%d.\n",
	               i, i, v);
	cgt_write(SITE, rel, text);
}

/* The full source's manifest: pages 1..n. */
static void
full_manifest(int n)
{
	char text[2048];
	size_t k = 0;

	k += (size_t)snprintf(text + k, sizeof(text) - k,
	                      "# Wombat Docs\n\n> Wombats, documented.\n\n"
	                      "## Pages\n\n");
	for (int i = 1; i <= n; i++)
		k += (size_t)snprintf(text + k, sizeof(text) - k,
		                      "- [Page %d](pages/p%d.md): about "
		                      "wombat %d\n",
		                      i, i, i);
	cgt_write(SITE, "full/llms.txt", text);
}

static void
make_site(void)
{
	version = 1;
	for (int i = 1; i <= NPAGES; i++)
		full_page(i, version);
	full_manifest(NPAGES);
	cgt_write(SITE, "sel/llms.txt",
	          "# Sel\n\n## Guides\n\n- [Guide](guide.md): the guide\n\n"
	          "## API\n\n- [Api](api.md): the api\n");
	cgt_write(SITE, "sel/guide.md", "# Guide\n\nkoalaguideword\n");
	cgt_write(SITE, "sel/api.md", "# Api\n\nkoalaapiword\n");
	cgt_write(SITE, "od/llms.txt",
	          "# OD\n\n## Docs\n\n- [Lazy page](lazy.md): platypusnote\n");
	cgt_write(SITE, "od/lazy.md", "# Lazy\n\nplatypusbody\n");
}

static void
make_corpus(int port)
{
	char text[2048];
	char *d = malloc(strlen(T) + 64);

	sprintf(d, "%s/git/acme/corpus-docs.git", T); /* NOLINT: sized */
	cgt_sh("mkdir -p '%s' && git init -q -b main '%s'", d, d);
	(void)snprintf(
	    text, sizeof(text),
	    "schema_version: 2\ncorpus:\n  name: docs\nsources:\n"
	    "  - id: full\n    type: llms-txt\n    manifest:\n"
	    "      url: \"http://127.0.0.1:%d/site/full/llms.txt\"\n"
	    "    cache:\n      strategy: full\n"
	    "  - id: sel\n    type: llms-txt\n    manifest:\n"
	    "      url: \"http://127.0.0.1:%d/site/sel/llms.txt\"\n"
	    "    cache:\n      strategy: selective\n      sections: [guides]\n"
	    "  - id: od\n    type: llms-txt\n    manifest:\n"
	    "      url: \"http://127.0.0.1:%d/site/od/llms.txt\"\n"
	    "    cache:\n      strategy: on-demand\n",
	    port, port, port);
	cgt_write(d, "config.yaml", text);
	cgt_write(d, "index.md",
	          "# Docs\n\n## Guide\n\n- **First page** `full:pages/p1.md` "
	          "- the first wombat page\n");
	cgt_sh("cd '%s' && git add -A && git -c user.name=t -c user.email=t@x "
	       "commit -q -m corpus",
	       d);
	{
		char *sha = cgt_sh_out("git -C '%s' rev-parse HEAD", d);

		assert_int_equal(
		    cghttpd_set(H, "acme/corpus-docs", "main", sha), 0);
		free(sha);
	}
	free(d);
	cgt_write(WS, ".hiivmind/corpus/registry.yaml",
	          "schema_version: 1\ncorpora:\n"
	          "  - id: docs\n    source:\n      type: github\n"
	          "      repo: acme/corpus-docs\n      ref: main\n"
	          "    cache:\n      ttl: 7d\n");
	cgt_page(WS, ".guild/wiki/concepts/x.md", "type: concept",
	         "# X\n\nwiki page.\n");
}

/* corpus-gw fetch EXTRA... (NULL-ended); stderr into *err. */
#define fetch(err, ...) cgt_fetch(WS, API, GITBASE, err, __VA_ARGS__)

static char *
cache_path(const char *rel)
{
	char *p = malloc(strlen(WS) + strlen(rel) + 40);

	sprintf(p, "%s/.hiivmind/corpus/cache/docs/%s", WS, rel); /* NOLINT */
	return p;
}

/* The cache folder of the corpus (a static buffer: for format arguments). */
static const char *
cache_dir(void)
{
	static char d[1024];

	(void)snprintf(d, sizeof(d), "%s/.hiivmind/corpus/cache/docs", WS);
	return d;
}

static bool
cached(const char *rel)
{
	char *p = cache_path(rel);
	struct stat st;
	bool ok = stat(p, &st) == 0;

	free(p);
	return ok;
}

/* Forgets the log so far. */
static void
log_reset(void)
{
	fflush(logf_);
	assert_int_equal(ftruncate(fileno(logf_), 0), 0);
	rewind(logf_);
}

/* Lines of the log matching the extended regular expression re. */
static int
log_count(const char *re)
{
	char *n;
	int k;

	fflush(logf_);
	n = cgt_sh_out("grep -cE '%s' '%s' || true", re, LOG);
	k = atoi(n); /* NOLINT: the test's own output */
	free(n);
	return k;
}

static int
group_setup(void **state)
{
	(void)state;
	T = cgt_tmpdir("llms-fetch");
	WS = malloc(strlen(T) + 8);
	IDX = malloc(strlen(T) + 8);
	SITE = malloc(strlen(T) + 8);
	LOG = malloc(strlen(T) + 16);
	sprintf(WS, "%s/ws", T);          /* NOLINT */
	sprintf(IDX, "%s/idx", T);        /* NOLINT */
	sprintf(SITE, "%s/site", T);      /* NOLINT */
	sprintf(LOG, "%s/server.log", T); /* NOLINT */
	(void)snprintf(GITBASE, sizeof(GITBASE), "file://%s/git", T);
	if (cghttpd_start(&H, 0) != 0)
		return -1;
	(void)snprintf(API, sizeof(API), "http://127.0.0.1:%d",
	               cghttpd_port(H));
	logf_ = fopen(LOG, "w+");
	if (logf_ == NULL || cghttpd_set_docroot(H, SITE) != 0)
		return -1;
	cghttpd_set_log(H, logf_);
	make_site();
	make_corpus(cghttpd_port(H));
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	cghttpd_set_log(H, NULL);
	cghttpd_stop(H);
	fclose(logf_);
	cgt_rm(T);
	free(T);
	free(WS);
	free(IDX);
	free(SITE);
	free(LOG);
	return 0;
}

/* --- acceptance 1 --------------------------------------------------------- */

static void
test_first_fetch(void **state)
{
	char *err = NULL;
	char rel[64];

	(void)state;
	log_reset();
	assert_int_equal(fetch(&err, NULL), 0);
	assert_string_equal(err, "");
	free(err);
	/* full: every listed page; selective: the Guides section only;
	 * on-demand: the manifest only. */
	for (int i = 1; i <= NPAGES; i++) {
		(void)snprintf(rel, sizeof(rel), "docs/full/pages/p%d.md", i);
		assert_true(cached(rel));
	}
	assert_true(cached("docs/sel/guide.md"));
	assert_false(cached("docs/sel/api.md"));
	assert_false(cached("docs/od/lazy.md"));
	assert_true(cached("_llms/od.txt"));
	assert_int_equal(log_count("^GET /site/full/pages/.* 200 "), NPAGES);
	assert_int_equal(log_count("^GET /site/sel/api.md"), 0);
	assert_int_equal(log_count("^GET /site/od/lazy.md"), 0);
	assert_int_equal(log_count("^GET /site/.*/llms.txt 200 "), 3);
}

static void
test_search_says_corpus_source_url(void **state)
{
	json_t *ans = cgt_query(WS, IDX, "wombatword3", NULL);
	json_t *h = cgt_hit(ans, "docs/full/pages/p3.md");
	json_t *c;
	char url[256];

	(void)state;
	assert_non_null(h);
	c = json_object_get(h, "corpus");
	assert_string_equal(json_string_value(json_object_get(h, "source")),
	                    "docs");
	assert_string_equal(json_string_value(json_object_get(c, "source")),
	                    "full");
	(void)snprintf(url, sizeof(url),
	               "http://127.0.0.1:%d/site/full/pages/p3.md",
	               cghttpd_port(H));
	assert_string_equal(json_string_value(json_object_get(c, "url")), url);
	/* The link's note is the entry's summary. */
	assert_string_equal(json_string_value(json_object_get(c, "summary")),
	                    "about wombat 3");
	json_decref(ans);
	/* The index.md entry for p1 keeps its own title, and gains the URL. */
	ans = cgt_query(WS, IDX, "wombatword1", NULL);
	h = cgt_hit(ans, "docs/full/pages/p1.md");
	assert_non_null(h);
	c = json_object_get(h, "corpus");
	assert_string_equal(json_string_value(json_object_get(c, "entry")),
	                    "full:pages/p1.md");
	assert_non_null(json_object_get(c, "url"));
	json_decref(ans);
	/* An on-demand page: its entry is found by the link's note, and says
	 * it is not cached yet; its body is not searchable. */
	ans = cgt_query(WS, IDX, "platypusnote", NULL);
	h = cgt_hit(ans, "lazy.md");
	assert_non_null(h);
	assert_non_null(
	    strstr(json_string_value(json_object_get(
	               json_object_get(h, "corpus"), "document_missing")),
	           "not cached yet"));
	json_decref(ans);
	ans = cgt_query(WS, IDX, "platypusbody", NULL);
	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 0);
	json_decref(ans);
}

/* --- on-demand: a read fetches a listed page ------------------------------ */

/* `corpus-gw read --json URI`: its exit code, the answer in *ans (NULL
 * when stdout is not JSON), stdout and stderr together in *text. */
static int
read_page(const char *uri, json_t **ans, char **text)
{
	char *out = NULL;
	char *err = NULL;
	/* 4 s a round: the fetch gets 3 of them, the answer the rest, so a
	 * loaded machine does not turn the page's error into the node's. */
	int rc = cgt_run(&out, &err, "read", "--json", "--deadline", "4000",
	                 "--workspace", WS, "--cache", IDX, uri, NULL);

	*ans = json_loads(out, 0, NULL);
	*text = malloc(strlen(out) + strlen(err) + 2);
	sprintf(*text, "%s\n%s", out, err); /* NOLINT: sized */
	free(out);
	free(err);
	return rc;
}

/* The uri of the hit whose path ends with suffix, for the query q. */
static char *
uri_of(const char *q, const char *suffix)
{
	json_t *ans = cgt_query(WS, IDX, q, NULL);
	json_t *h = cgt_hit(ans, suffix);
	char *u;

	assert_non_null(h);
	u = strdup(json_string_value(json_object_get(h, "uri")));
	json_decref(ans);
	return u;
}

static const char *
how_of(const json_t *ans)
{
	const char *s = json_string_value(
	    json_object_get(json_object_get(ans, "on_demand"), "how"));

	return s != NULL ? s : "(none)";
}

static char *
pages_path(const char *rel)
{
	char *p = malloc(strlen(WS) + strlen(rel) + 64);

	sprintf(p, "%s/.hiivmind/corpus/cache/.corpus-gw/docs.pages/%s", WS,
	        rel); /* NOLINT: sized */
	return p;
}

static void
test_on_demand_read(void **state)
{
	char *uri = uri_of("platypusnote", "lazy.md");
	char *api;
	char *text = NULL;
	json_t *ans = NULL;
	char *copy = pages_path("od/lazy.md");
	struct stat st;

	(void)state;
	/* The first read fetches the page and answers it. */
	log_reset();
	assert_int_equal(read_page(uri, &ans, &text), 0);
	assert_non_null(ans);
	assert_non_null(strstr(json_string_value(json_object_get(ans, "body")),
	                       "platypusbody"));
	assert_string_equal(how_of(ans), "fetched");
	assert_int_equal(log_count("^GET /site/od/lazy.md 200 "), 1);
	json_decref(ans);
	free(text);
	/* Kept beside the cache, never in the published folder. */
	assert_int_equal(stat(copy, &st), 0);
	assert_false(cached("docs/od/lazy.md"));
	/* The next read is answered from the copy, asking nothing. */
	log_reset();
	assert_int_equal(read_page(uri, &ans, &text), 0);
	assert_string_equal(how_of(ans), "cached");
	assert_int_equal(log_count("."), 0);
	json_decref(ans);
	free(text);
	/* A selective source's page outside its sections reads the same. */
	api = malloc(strlen(uri) + 8);
	strcpy(api, uri);                                /* NOLINT: sized */
	strcpy(strstr(api, "od/lazy.md"), "sel/api.md"); /* NOLINT: sized */
	assert_int_equal(read_page(api, &ans, &text), 0);
	assert_non_null(strstr(json_string_value(json_object_get(ans, "body")),
	                       "koalaapiword"));
	assert_string_equal(how_of(ans), "fetched");
	json_decref(ans);
	free(text);
	free(api);
	free(copy);
	free(uri);
}

static void
test_on_demand_site_down_or_slow(void **state)
{
	char *uri = uri_of("platypusnote", "lazy.md");
	char *copy = pages_path("od");
	char *text = NULL;
	json_t *ans = NULL;
	char *err = NULL;
	int64_t t0;
	int64_t ms;
	int rc;

	(void)state;
	cgt_rm(copy);
	/* Slow: the answer would come after the deadline; a clear error,
	 * in time (3 s of the round's 4 s), not a hang. */
	cghttpd_set_delay_ms(H, 20000);
	t0 = cgt_now_ms();
	rc = read_page(uri, &ans, &text);
	ms = cgt_now_ms() - t0;
	cghttpd_set_delay_ms(H, 0); /* before any assert: later tests */
	assert_int_not_equal(rc, 0);
	assert_true(ms < 10000);
	assert_non_null(strstr(text, "page od/lazy.md is not cached yet and "
	                             "its on-demand fetch failed: "));
	assert_non_null(strstr(text, "site/od/lazy.md"));
	assert_true(strstr(text, "deadline") != NULL ||
	            strstr(text, "timed out") != NULL);
	json_decref(ans);
	free(text);
	/* Down: refused at once, said so. */
	assert_int_equal(cghttpd_pause(H, true), 0);
	t0 = cgt_now_ms();
	rc = read_page(uri, &ans, &text);
	ms = cgt_now_ms() - t0;
	assert_int_equal(cghttpd_pause(H, false), 0);
	assert_int_not_equal(rc, 0);
	assert_true(ms < 10000);
	assert_non_null(strstr(text, "page od/lazy.md is not cached yet and "
	                             "its on-demand fetch failed: GET "));
	assert_non_null(strstr(text, "site/od/lazy.md"));
	json_decref(ans);
	free(text);
	/* Up again: fetched; after a fetch run the next read asks again,
	 * conditionally (304); a site down then serves the older copy with
	 * a note. */
	assert_int_equal(read_page(uri, &ans, &text), 0);
	assert_string_equal(how_of(ans), "fetched");
	json_decref(ans);
	free(text);
	assert_int_equal(fetch(&err, "--refresh", NULL), 0);
	free(err);
	log_reset();
	assert_int_equal(read_page(uri, &ans, &text), 0);
	assert_string_equal(how_of(ans), "revalidated");
	assert_int_equal(log_count("^GET /site/od/lazy.md 304 "), 1);
	json_decref(ans);
	free(text);
	assert_int_equal(fetch(&err, "--refresh", NULL), 0);
	free(err);
	assert_int_equal(cghttpd_pause(H, true), 0);
	rc = read_page(uri, &ans, &text);
	assert_int_equal(cghttpd_pause(H, false), 0);
	assert_int_equal(rc, 0);
	assert_string_equal(how_of(ans), "stale");
	assert_non_null(strstr(json_string_value(json_object_get(
	                           json_object_get(ans, "on_demand"), "note")),
	                       "a copy fetched earlier is served"));
	assert_non_null(strstr(json_string_value(json_object_get(ans, "body")),
	                       "platypusbody"));
	json_decref(ans);
	free(text);
	free(copy);
	free(uri);
}

/* --- status ----------------------------------------------------------------
 */

static void
test_status_shows_sources(void **state)
{
	char *out = NULL;
	char *err = NULL;
	json_t *ans;
	json_t *src = NULL;
	json_t *n;
	json_t *l;
	size_t i;
	size_t k;

	(void)state;
	assert_int_equal(cgt_run(&out, &err, "status", "--json", "--workspace",
	                         WS, "--cache", IDX, NULL),
	                 0);
	ans = json_loads(out, 0, NULL);
	assert_non_null(ans);
	json_array_foreach(json_object_get(ans, "nodes"), i, n) {
		json_t *s;

		json_array_foreach(json_object_get(n, "sources"), k, s)
			if (strcmp(
			        json_string_value(json_object_get(s, "source")),
			        "docs") == 0)
				src = s;
	}
	assert_non_null(src);
	l = json_object_get(json_object_get(src, "llms"), "full");
	assert_int_equal(json_integer_value(json_object_get(l, "listed")),
	                 NPAGES);
	assert_int_equal(json_integer_value(json_object_get(l, "cached")),
	                 NPAGES);
	assert_string_equal(json_string_value(json_object_get(l, "outcome")),
	                    "ok");
	assert_int_equal(strlen(json_string_value(
	                     json_object_get(l, "manifest_checked_at"))),
	                 20);
	assert_non_null(
	    json_string_value(json_object_get(l, "manifest_changed_at")));
	l = json_object_get(json_object_get(src, "llms"), "sel");
	assert_int_equal(json_integer_value(json_object_get(l, "listed")), 2);
	assert_int_equal(json_integer_value(json_object_get(l, "cached")), 1);
	l = json_object_get(json_object_get(src, "llms"), "od");
	assert_int_equal(json_integer_value(json_object_get(l, "listed")), 1);
	assert_int_equal(json_integer_value(json_object_get(l, "cached")), 0);
	json_decref(ans);
	free(out);
	free(err);
	/* The text form: one line per source. */
	assert_int_equal(cgt_run(&out, &err, "status", "--workspace", WS,
	                         "--cache", IDX, NULL),
	                 0);
	assert_non_null(strstr(out, "llms-txt full: manifest asked "));
	assert_non_null(strstr(out, "; 6 of 6 pages cached; last outcome: ok"));
	assert_non_null(strstr(out, "llms-txt od: manifest asked "));
	free(out);
	free(err);
}

static void
test_within_ttl_asks_nothing(void **state)
{
	char *err = NULL;

	(void)state;
	log_reset();
	assert_int_equal(fetch(&err, NULL), 0);
	free(err);
	assert_int_equal(log_count("."), 0);
}

static void
test_refresh_no_change(void **state)
{
	char *err = NULL;
	char *before =
	    cgt_sh_out("stat -c %%i '%s/docs/full/pages/p2.md'", cache_dir());
	char *after;

	(void)state;
	log_reset();
	assert_int_equal(fetch(&err, "--refresh", NULL), 0);
	free(err);
	/* Manifests and pages asked conditionally: all 304, no page body. */
	assert_int_equal(log_count("^GET /site/.* 304 "), 3 + NPAGES + 1);
	assert_int_equal(log_count("^GET /site/.* 200 "), 0);
	/* Nothing changed: nothing published (the same file). */
	after =
	    cgt_sh_out("stat -c %%i '%s/docs/full/pages/p2.md'", cache_dir());
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void
test_one_page_changed(void **state)
{
	char *err = NULL;
	char *text;

	(void)state;
	cgt_write(SITE, "full/pages/p4.md",
	          "# Page 4\n\nThe echidnaword lives here now.\n");
	log_reset();
	assert_int_equal(fetch(&err, "--refresh", NULL), 0);
	free(err);
	assert_int_equal(log_count("^GET /site/.* 200 "), 1);
	assert_int_equal(log_count("^GET /site/full/pages/p4.md 200 "), 1);
	text = cgt_sh_out("cat '%s/docs/full/pages/p4.md'", cache_dir());
	assert_non_null(strstr(text, "echidnaword"));
	free(text);
	{
		json_t *ans = cgt_query(WS, IDX, "echidnaword", NULL);

		assert_non_null(cgt_hit(ans, "docs/full/pages/p4.md"));
		json_decref(ans);
	}
}

static void
test_line_removed(void **state)
{
	char *err = NULL;
	json_t *ans;

	(void)state;
	full_manifest(NPAGES - 1); /* p6 leaves */
	log_reset();
	assert_int_equal(fetch(&err, "--refresh", NULL), 0);
	free(err);
	assert_false(cached("docs/full/pages/p6.md"));
	assert_true(cached("docs/full/pages/p5.md"));
	/* Only the manifest changed: no page body fetched. */
	assert_int_equal(log_count("^GET /site/.* 200 "), 1);
	ans = cgt_query(WS, IDX, "wombatword6", NULL);
	assert_int_equal(json_array_size(json_object_get(ans, "hits")), 0);
	json_decref(ans);
	full_manifest(NPAGES);
	assert_int_equal(fetch(&err, "--refresh", NULL), 0);
	free(err);
	assert_true(cached("docs/full/pages/p6.md"));
}

/* --- acceptance 2: killed at random moments ------------------------------- */

/* Every cached page of the full source is at one version, and the record
 * lists exactly the pages cached. */
static void
check_consistent(void)
{
	char *v = cgt_sh_out("cat '%s'/docs/full/pages/p*.md | "
	                     "grep -o 'marker v[0-9]*' | sort -u | wc -l",
	                     cache_dir());
	char *n = cgt_sh_out("ls '%s'/docs/full/pages | wc -l", cache_dir());
	char *rec = cache_path("_llms/full.json");
	json_t *j = json_load_file(rec, 0, NULL);

	assert_string_equal(v, "1");
	assert_non_null(j);
	assert_int_equal(json_object_size(json_object_get(j, "pages")),
	                 (size_t)atoi(n)); /* NOLINT: test output */
	json_decref(j);
	free(rec);
	free(v);
	free(n);
}

static void
test_killed(void **state)
{
	const char *argv[] = {"corpus-gw",  "fetch", "--workspace", WS,
	                      "--api-base", API,     "--git-base",  GITBASE,
	                      "--refresh",  NULL};
	char *err = NULL;
	int64_t t0;
	int full;

	(void)state;
	/* Every page at one version (p4 was edited above). */
	version++;
	for (int i = 1; i <= NPAGES; i++)
		full_page(i, version);
	t0 = cgt_now_ms();
	assert_int_equal(fetch(&err, "--refresh", NULL), 0);
	free(err);
	full = (int)(cgt_now_ms() - t0);
	check_consistent();
	srand(17);
	for (int k = 0; k < 20; k++) {
		cgt_proc *p;

		version++;
		for (int i = 1; i <= NPAGES; i++)
			full_page(i, version);
		p = cgt_spawnv(NULL, argv);
		cgt_sleep_ms(rand() % (full + 1));
		cgt_proc_kill(p, SIGKILL);
		(void)cgt_proc_wait(p, 5000);
		cgt_proc_free(p);
		check_consistent();
		assert_int_equal(fetch(&err, "--refresh", NULL), 0);
		free(err);
		check_consistent();
		{
			char *m = cgt_sh_out("grep -c 'marker v%d' "
			                     "'%s'/docs/full/pages/p1.md",
			                     version, cache_dir());

			assert_string_equal(m, "1");
			free(m);
		}
	}
	{
		char *ls = cgt_sh_out("ls -a '%s/.hiivmind/corpus/cache/"
		                      ".corpus-gw' | grep -c stage- || true",
		                      WS);

		assert_string_equal(ls, "0");
		free(ls);
	}
}

/* --- acceptance 3: hostile manifests and pages ---------------------------- */

static void
test_hostile(void **state)
{
	char text[2048];
	char *err = NULL;
	int port = cghttpd_port(H);
	char *outside;

	(void)state;
	(void)snprintf(
	    text, sizeof(text),
	    "# Hostile\n\n## Pages\n\n"
	    "- [Fine](pages/p1.md)\n"
	    "- [Up](../../../outside.md)\n"
	    "- [Encoded up](pages/%%2e%%2e/%%2e%%2e/outside2.md)\n"
	    "- [File](file:///etc/passwd)\n"
	    "- [Other host](http://127.0.0.2:%d/site/full/pages/p2.md)\n"
	    "- [Absolute](/pages/p3.md)\n"
	    "- [To file](tofile.md)\n"
	    "- [To other host](toother.md)\n"
	    "- [Loop](loop-a.md)\n"
	    "- [Endless](http://127.0.0.1:%d/site/endless)\n"
	    "- [Huge](huge.md)\n"
	    "- [Bad UTF-8](bad.md)\n",
	    port, port);
	cgt_write(SITE, "full/llms.txt", text);
	cgt_write(SITE, "full/tofile.md.redirect", "file:///etc/passwd");
	(void)snprintf(text, sizeof(text),
	               "http://127.0.0.2:%d/site/full/pages/p2.md", port);
	cgt_write(SITE, "full/toother.md.redirect", text);
	cgt_write(SITE, "full/loop-a.md.redirect", "loop-b.md");
	cgt_write(SITE, "full/loop-b.md.redirect", "loop-a.md");
	cgt_sh("head -c 9000000 /dev/zero | tr '\\0' 'x' > '%s/full/huge.md'",
	       SITE);
	cgt_write_bytes(SITE, "full/bad.md", "# Bad\n\nok \xff\xfe end\n", 18);
	assert_int_equal(fetch(&err, "--refresh", NULL), 0);
	/* One clear line per problem. */
	assert_non_null(strstr(err, "'.' or '..' path segment"));
	assert_non_null(strstr(err, "scheme is not http or https"));
	assert_non_null(strstr(err, "another host"));
	assert_non_null(strstr(err, "page tofile.md: GET"));
	assert_non_null(
	    strstr(err, "redirect refused: \"file:///etc/passwd\""));
	assert_non_null(strstr(err, "page toother.md: GET"));
	assert_non_null(strstr(err, "more than 5 redirects"));
	assert_non_null(strstr(err, "larger than"));
	assert_non_null(strstr(err, "page bad.md: 3 invalid UTF-8 sequences"));
	assert_non_null(strstr(err, "page site/endless.md: GET"));
	free(err);
	/* What was allowed is cached below the source, nothing else. */
	assert_true(cached("docs/full/pages/p1.md"));
	assert_true(cached("docs/full/pages/p3.md"));
	assert_true(cached("docs/full/bad.md"));
	assert_false(cached("docs/full/huge.md"));
	outside = cgt_sh_out("find '%s' -name 'outside*' -o -name passwd "
	                     "| wc -l",
	                     T);
	assert_string_equal(outside, "0");
	free(outside);
	/* An endless manifest: the source fails with a line, its cached
	 * pages keep serving, the next good run works. */
	cgt_sh("mv '%s/full/llms.txt' '%s/full/llms.txt.keep'", SITE, SITE);
	cgt_write(SITE, "full/llms.txt.redirect", "/site/endless");
	assert_int_equal(fetch(&err, "--refresh", NULL), 1);
	assert_non_null(strstr(err, "source full: manifest"));
	assert_non_null(strstr(err, "larger than"));
	free(err);
	assert_true(cached("docs/full/pages/p1.md"));
	/* A site that is down: a line, the old cache serves. */
	cgt_sh("rm '%s/full/llms.txt.redirect'", SITE);
	assert_int_equal(fetch(&err, "--refresh", NULL), 1);
	assert_non_null(strstr(err, "HTTP 404"));
	free(err);
	assert_true(cached("docs/full/pages/p1.md"));
	cgt_sh("mv '%s/full/llms.txt.keep' '%s/full/llms.txt'", SITE, SITE);
	full_manifest(NPAGES);
	assert_int_equal(fetch(&err, "--refresh", NULL), 0);
	assert_string_equal(err, "");
	free(err);
	assert_false(cached("docs/full/bad.md"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_first_fetch),
	    cmocka_unit_test(test_search_says_corpus_source_url),
	    cmocka_unit_test(test_status_shows_sources),
	    cmocka_unit_test(test_on_demand_read),
	    cmocka_unit_test(test_within_ttl_asks_nothing),
	    cmocka_unit_test(test_on_demand_site_down_or_slow),
	    cmocka_unit_test(test_refresh_no_change),
	    cmocka_unit_test(test_one_page_changed),
	    cmocka_unit_test(test_line_removed),
	    cmocka_unit_test(test_killed),
	    cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
