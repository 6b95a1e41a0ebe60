/*
 * query.c - the query sanitizer: user text in, FTS5 MATCH expressions out.
 *
 * The text is tokenized with the project tokenizer, grouped into terms (one
 * Latin token, or one run of adjacent CJK characters) and every term is
 * written as a double-quoted FTS5 string, so no byte of user text is ever
 * read as FTS5 syntax.  It must not pass user bytes through unquoted, add
 * prefix '*' or operators of the user's choosing, or touch a database.
 * It also drops stopwords from the terms (not from the phrase) and gives
 * each English word term its word forms (token.h, libstemmer).
 */
#include "page/query.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"
#include "page/token.h"

/* Cap on a built expression: far above what 4096 bytes of query can give. */
#define FTS_EXPR_MAX ((size_t)64 * 1024)

#define COLS_CONTENT "{title headings body}"
#define COLS_META    "{tags meta}"

/* State of one parse. */
struct parse {
	cg_query *q;   /* the query being filled */
	cg_buf run;    /* the CJK run in progress, tokens joined by ' ' */
	cg_buf phrase; /* every token in order, duplicates kept */
	int run_ntok;  /* tokens in run; 0 when no run is open */
	int prev_end;  /* end offset of the previous token */
	int ntok;      /* tokens taken so far */
};

/* Returned by on_token to end the walk at the token cap; not an error. */
#define WALK_CAPPED 1

static bool
have_term(const cg_query *q, const char *s, size_t n)
{
	for (size_t i = 0; i < q->n; i++)
		if (strlen(q->terms[i].text) == n &&
		    memcmp(q->terms[i].text, s, n) == 0)
			return true;
	return false;
}

/* Adds a term unless it is a duplicate or the cap is reached. */
static int
add_term(cg_query *q, const char *s, size_t n, int ntok, int cjk)
{
	char *text;

	if (have_term(q, s, n))
		return 0;
	if (q->n >= CG_QUERY_MAX_TERMS) {
		q->truncated = 1;
		return 0;
	}
	text = malloc(n + 1);
	if (text == NULL)
		return CG_ENOMEM;
	memcpy(text, s, n);
	text[n] = '\0';
	q->terms[q->n] = (cg_qterm){.text = text, .ntok = ntok, .cjk = cjk};
	q->n++;
	return 0;
}

/* English function words: never a term when the query has another word
 * (query.h).  Sorted, for bsearch. */
static const char *const stopwords[] = {
    "a",      "about", "am",    "an",    "and",   "are",   "as",    "at",
    "be",     "been",  "being", "but",   "by",    "can",   "could", "did",
    "do",     "does",  "for",   "from",  "had",   "has",   "have",  "he",
    "her",    "his",   "how",   "i",     "if",    "in",    "is",    "it",
    "its",    "me",    "my",    "of",    "on",    "or",    "our",   "she",
    "should", "so",    "than",  "that",  "the",   "their", "them",  "then",
    "there",  "these", "they",  "this",  "those", "to",    "was",   "we",
    "were",   "what",  "when",  "where", "which", "who",   "why",   "will",
    "with",   "would", "you",   "your"};

static int
cmp_word(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

static bool
is_stopword(const cg_qterm *t)
{
	return !t->cjk && t->ntok == 1 &&
	       bsearch(t->text, stopwords,
	               sizeof(stopwords) / sizeof(stopwords[0]),
	               sizeof(stopwords[0]), cmp_word) != NULL;
}

/* Drops stopword terms when another term remains. */
static void
drop_stopwords(cg_query *q)
{
	size_t keep = 0;

	for (size_t i = 0; i < q->n; i++)
		keep += !is_stopword(&q->terms[i]);
	if (keep == 0 || keep == q->n)
		return;
	keep = 0;
	for (size_t i = 0; i < q->n; i++) {
		if (is_stopword(&q->terms[i])) {
			free(q->terms[i].text);
			q->nstop++;
		} else {
			q->terms[keep++] = q->terms[i];
		}
	}
	q->n = keep;
}

/* Gives each word term its marked and bare stems (token.h). */
static int
add_forms(cg_query *q)
{
	cg_stemmer *st = cg_stemmer_new();
	char form[CG_FORM_MAX];
	int rc = st != NULL ? 0 : CG_ENOMEM;

	for (size_t i = 0; rc == 0 && i < q->n; i++) {
		cg_qterm *t = &q->terms[i];
		int n = t->cjk || t->ntok != 1
		            ? 0
		            : cg_token_form(st, t->text, (int)strlen(t->text),
		                            form);

		if (n == 0)
			continue;
		t->form = strdup(form);
		if (t->form != NULL && strcmp(form + 1, t->text) != 0)
			t->stem = strdup(form + 1);
		if (t->form == NULL ||
		    (t->stem == NULL && strcmp(form + 1, t->text) != 0))
			rc = CG_ENOMEM;
	}
	cg_stemmer_free(st);
	return rc;
}

static int
flush_run(struct parse *p)
{
	int rc = 0;

	if (p->run_ntok > 0)
		rc = add_term(p->q, p->run.data, p->run.len, p->run_ntok, 1);
	cg_buf_reset(&p->run);
	p->run_ntok = 0;
	return rc;
}

/* Appends one CJK character to the open run, opening one if needed. */
static int
extend_run(struct parse *p, const char *tok, int ntok, int start)
{
	int rc;

	if (p->run_ntok > 0 && start != p->prev_end) {
		rc = flush_run(p);
		if (rc != 0)
			return rc;
	}
	if (p->run_ntok > 0) {
		rc = cg_buf_putc(&p->run, ' ');
		if (rc != 0)
			return rc;
	}
	rc = cg_buf_append(&p->run, tok, (size_t)ntok);
	if (rc != 0)
		return rc;
	p->run_ntok++;
	return 0;
}

static int
on_token(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	struct parse *p = ctx;
	int rc = 0;

	if (p->ntok >= CG_QUERY_MAX_TOKENS) {
		p->q->truncated = 1;
		return WALK_CAPPED;
	}
	p->ntok++;
	if (p->phrase.len > 0)
		rc = cg_buf_putc(&p->phrase, ' ');
	if (rc == 0)
		rc = cg_buf_append(&p->phrase, tok, (size_t)ntok);
	if (rc != 0)
		return rc;
	if (cjk) {
		rc = extend_run(p, tok, ntok, start);
	} else {
		rc = flush_run(p);
		if (rc == 0)
			rc = add_term(p->q, tok, (size_t)ntok, 1, 0);
	}
	p->prev_end = end;
	return rc;
}

int
cg_query_parse(cg_query *q, const char *text, cg_err *err)
{
	struct parse p = {.q = q};
	size_t len;
	int rc;

	q->terms = NULL;
	q->n = 0;
	q->truncated = 0;
	q->phrase = NULL;
	q->nstop = 0;
	if (text == NULL)
		return cg_err_set(err, CG_EINVAL, "query text is missing");
	len = strnlen(text, CG_QUERY_MAX_BYTES + 1);
	if (len > CG_QUERY_MAX_BYTES)
		return cg_err_set(err, CG_ETOOBIG,
		                  "query is longer than %d bytes",
		                  CG_QUERY_MAX_BYTES);
	q->terms = calloc(CG_QUERY_MAX_TERMS, sizeof(*q->terms));
	if (q->terms == NULL)
		return cg_err_set(err, CG_ENOMEM,
		                  "out of memory parsing query");
	/* A run can hold at most the whole query plus one space per char. */
	cg_buf_init(&p.run, (size_t)2 * CG_QUERY_MAX_BYTES);
	cg_buf_init(&p.phrase, (size_t)2 * CG_QUERY_MAX_BYTES);
	rc = cg_token_each(text, (int)len, on_token, &p);
	if (rc == WALK_CAPPED)
		rc = 0;
	if (rc == 0)
		rc = flush_run(&p);
	if (rc == 0) {
		drop_stopwords(q);
		rc = add_forms(q);
	}
	if (rc == 0 && q->n > 0) {
		q->phrase = cg_buf_take(&p.phrase);
		if (q->phrase == NULL)
			rc = CG_ENOMEM;
	}
	cg_buf_fini(&p.run);
	cg_buf_fini(&p.phrase);
	if (rc != 0) {
		cg_query_fini(q);
		return cg_err_set(err, rc, "cannot parse query: %s",
		                  cg_code_name(rc));
	}
	return 0;
}

void
cg_query_fini(cg_query *q)
{
	if (q == NULL)
		return;
	for (size_t i = 0; q->terms != NULL && i < q->n; i++) {
		free(q->terms[i].text);
		free(q->terms[i].form);
		free(q->terms[i].stem);
	}
	free(q->terms);
	free(q->phrase);
	q->terms = NULL;
	q->phrase = NULL;
	q->n = 0;
	q->truncated = 0;
	q->nstop = 0;
}

const char *
cg_match_name(enum cg_match m)
{
	switch (m) {
	case CG_MATCH_PHRASE:
		return "phrase";
	case CG_MATCH_ALL:
		return "all";
	case CG_MATCH_FORMS:
		return "forms";
	case CG_MATCH_SOME:
		return "some";
	case CG_MATCH_META:
		return "frontmatter";
	default:
		return "none";
	}
}

/* Appends s as an FTS5 string: in double quotes, any '"' doubled.  Tokens
 * cannot hold '"'; the doubling is defence in depth. */
static int
put_quoted(cg_buf *b, const char *s)
{
	int rc = cg_buf_putc(b, '"');

	for (const char *c = s; rc == 0 && *c != '\0'; c++) {
		if (*c == '"')
			rc = cg_buf_putc(b, '"');
		if (rc == 0)
			rc = cg_buf_putc(b, *c);
	}
	if (rc == 0)
		rc = cg_buf_putc(b, '"');
	return rc;
}

/* cols : ("t1" sep "t2" ...), the terms in query order. */
static int
put_term_list(cg_buf *b, const cg_query *q, const char *cols, const char *sep)
{
	int rc = cg_buf_puts(b, cols);

	if (rc == 0)
		rc = cg_buf_puts(b, " : (");
	for (size_t i = 0; rc == 0 && i < q->n; i++) {
		if (i > 0)
			rc = cg_buf_puts(b, sep);
		if (rc == 0)
			rc = put_quoted(b, q->terms[i].text);
	}
	if (rc == 0)
		rc = cg_buf_putc(b, ')');
	return rc;
}

/* True when the PHRASE class would add nothing to ALL: one term that
 * already is the whole phrase ("限衍", or a single word). */
static bool
phrase_is_all(const cg_query *q)
{
	return q->n < 2 && strcmp(q->phrase, q->terms[0].text) == 0;
}

char *
cg_query_fts(const cg_query *q, enum cg_match m)
{
	cg_buf b;
	int rc;

	if (q == NULL || q->n == 0)
		return NULL;
	cg_buf_init(&b, FTS_EXPR_MAX);
	switch (m) {
	case CG_MATCH_PHRASE:
		if (q->phrase == NULL || phrase_is_all(q))
			return NULL;
		rc = cg_buf_puts(&b, COLS_CONTENT " : ");
		if (rc == 0)
			rc = put_quoted(&b, q->phrase);
		break;
	case CG_MATCH_ALL:
		rc = put_term_list(&b, q, COLS_CONTENT, " ");
		break;
	case CG_MATCH_SOME:
		rc = put_term_list(&b, q, COLS_CONTENT, " OR ");
		break;
	case CG_MATCH_META:
		rc = put_term_list(&b, q, COLS_META, " OR ");
		break;
	default:
		return NULL;
	}
	if (rc != 0) {
		cg_buf_fini(&b);
		return NULL;
	}
	return cg_buf_take(&b);
}

bool
cg_query_has_phrase(const cg_query *q)
{
	return q != NULL && q->n > 0 && q->phrase != NULL && !phrase_is_all(q);
}

char *
cg_query_fts_pass(const cg_query *q, bool all)
{
	cg_buf b;
	int rc = 0;

	if (q == NULL || q->n == 0)
		return NULL;
	cg_buf_init(&b, FTS_EXPR_MAX);
	for (size_t i = 0; rc == 0 && i < q->n; i++) {
		if (i > 0)
			rc = cg_buf_puts(&b, all ? " AND " : " OR ");
		if (rc == 0)
			rc = put_quoted(&b, q->terms[i].text);
	}
	/* The phrase, as phrase n, without changing the rows: under AND, in
	 * a clause the first term already satisfies. */
	if (rc == 0 && cg_query_has_phrase(q)) {
		rc = cg_buf_puts(&b, all ? " AND (" : " OR ");
		if (rc == 0)
			rc = put_quoted(&b, q->phrase);
		if (rc == 0 && all) {
			rc = cg_buf_puts(&b, " OR ");
			if (rc == 0)
				rc = put_quoted(&b, q->terms[0].text);
			if (rc == 0)
				rc = cg_buf_putc(&b, ')');
		}
	}
	/* Word forms, after the phrase, in the any-term pass only. */
	for (size_t i = 0; rc == 0 && !all && i < q->n; i++) {
		const char *f[2] = {q->terms[i].form, q->terms[i].stem};

		for (int k = 0; rc == 0 && k < 2; k++)
			if (f[k] != NULL) {
				rc = cg_buf_puts(&b, " OR ");
				if (rc == 0)
					rc = put_quoted(&b, f[k]);
			}
	}
	if (rc != 0) {
		cg_buf_fini(&b);
		return NULL;
	}
	return cg_buf_take(&b);
}

char *
cg_query_phrase_text(const cg_query *q)
{
	if (q == NULL || q->n == 0 || q->phrase == NULL)
		return NULL;
	return strdup(q->phrase);
}
