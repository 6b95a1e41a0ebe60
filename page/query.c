/*
 * query.c - the query sanitizer: user text in, FTS5 MATCH expressions out.
 *
 * The text is split into units (quoted phrases, -exclusions, OR, plain
 * chunks; the syntax is in query.h), each unit tokenized with the project
 * tokenizer and grouped into terms (one Latin token, one run of adjacent
 * CJK characters, one quoted phrase), and every term is written as a
 * double-quoted FTS5 string, so no byte of user text is ever read as FTS5
 * syntax.  It must not pass user bytes through unquoted, emit an operator
 * the query.h syntax does not name, or touch a database.  It also drops
 * stopwords from the plain-word terms (not from the phrase) and gives each
 * plain English word term its word forms (token.h, libstemmer).
 */
#include "page/query.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_analyzer.h"
#include "common/cg_buf.h"
#include "page/token.h"

/* Cap on a built expression: far above what 4096 bytes of query can give. */
#define FTS_EXPR_MAX ((size_t)64 * 1024)

#define COLS_CONTENT "{title headings body}"
#define COLS_META    "{tags meta}"

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

/* Kinds of query unit: a whitespace-separated chunk or a quoted span. */
enum unit_kind {
	UNIT_WORDS,   /* plain words: a term per Latin token or CJK run */
	UNIT_QUOTED,  /* "a b": one required term, the phrase of its tokens */
	UNIT_EXCLUDE, /* -a or -"a b": pages holding it are dropped */
};

/* State of one parse. */
struct parse {
	cg_query *q;         /* the query being filled */
	cg_buf run;          /* the CJK run in progress, tokens joined by ' ' */
	cg_buf phrase;       /* every positive token in order */
	cg_buf unit;         /* a quoted or excluded unit's tokens, by ' ' */
	cg_buf exclude;      /* the exclusion expression built so far */
	int run_ntok;        /* tokens in run; 0 when no run is open */
	int unit_ntok;       /* tokens in unit */
	int prev_end;        /* end offset of the previous token */
	int ntok;            /* tokens taken so far */
	int prefix_at;       /* a Latin token ending here is a prefix; or -1 */
	int unit_prefix;     /* the excluded unit ends in '*' */
	enum unit_kind kind; /* of the unit being read */
	bool or_pending;     /* an OR sits before the unit being read */
	bool run_cluster;    /* the run's last token is a grapheme cluster */
	char marks[CG_TOKEN_MAX]; /* held marks with no base (see hold) */
	int nmarks;               /* bytes in marks; 0: none held */
	int marks_start;          /* their offsets in the unit */
	int marks_end;
};

/* Returned by on_token to end the walk at the token cap; not an error. */
#define WALK_CAPPED 1

static cg_qterm *
find_term(const cg_query *q, const char *s, size_t n, int prefix)
{
	for (size_t i = 0; i < q->n; i++)
		if (strlen(q->terms[i].text) == n &&
		    q->terms[i].prefix == prefix &&
		    memcmp(q->terms[i].text, s, n) == 0)
			return &q->terms[i];
	return NULL;
}

/* 1 when a new term is an alternative of the previous one: an OR stands
 * between them (only the first term of the unit after the OR). */
static int
take_or(struct parse *p)
{
	bool alt = p->or_pending && p->q->n > 0;

	p->or_pending = false;
	if (alt)
		p->q->nophrase = 1;
	return alt ? 1 : 0;
}

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the term's
 * text is stored in q->terms, which cg_query_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
/* Adds a term unless it repeats one (a quoted repeat makes the first
 * required) or the cap is reached. */
static int
add_term(struct parse *p, const char *s, size_t n, const cg_qterm *shape)
{
	cg_query *q = p->q;
	cg_qterm *dup = find_term(q, s, n, shape->prefix);
	char *text;

	if (dup != NULL) {
		dup->quoted |= shape->quoted;
		p->or_pending = false;
		return 0;
	}
	if (q->n >= CG_QUERY_MAX_TERMS) {
		q->truncated = 1;
		return 0;
	}
	text = malloc(n + 1);
	if (text == NULL)
		return CG_ENOMEM;
	memcpy(text, s, n);
	text[n] = '\0';
	q->terms[q->n] = *shape;
	q->terms[q->n].text = text;
	q->terms[q->n].alt = take_or(p);
	if (shape->prefix && !shape->cjk)
		q->nophrase = 1; /* a cluster run's exact phrase still ranks */
	q->n++;
	return 0;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

static int
flush_run(struct parse *p)
{
	int rc = 0;

	/* A run ending in a grapheme cluster matches any cluster that one
	 * begins: a query cut inside a cluster can only lack its trailing
	 * marks, and is treated as the cluster it touches. */
	if (p->run_ntok > 0)
		rc = add_term(p, p->run.data, p->run.len,
		              &(cg_qterm){.ntok = p->run_ntok,
		                          .cjk = 1,
		                          .prefix = p->run_cluster});
	cg_buf_reset(&p->run);
	p->run_ntok = 0;
	p->run_cluster = false;
	return rc;
}

/* Appends one token to buffer b, after a ' ' when b is not empty. */
static int
put_token(cg_buf *b, const char *tok, int ntok)
{
	int rc = b->len > 0 ? cg_buf_putc(b, ' ') : 0;

	return rc == 0 ? cg_buf_append(b, tok, (size_t)ntok) : rc;
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
	rc = put_token(&p->run, tok, ntok);
	if (rc != 0)
		return rc;
	p->run_ntok++;
	p->run_cluster = cg_token_unit(tok, ntok) == CG_UNIT_CLUSTER;
	return 0;
}

static int take_token(struct parse *p, const char *tok, int ntok, int start,
                      int end, bool cjk);

/* Takes the held marks as a token of their own (nothing followed them). */
static int
take_marks(struct parse *p)
{
	char m[CG_TOKEN_MAX];
	int n = p->nmarks;

	if (n == 0)
		return 0;
	memcpy(m, p->marks, (size_t)n);
	p->nmarks = 0;
	return take_token(p, m, n, p->marks_start, p->marks_end, true);
}

/* Takes the held marks as the marked tail (token.h) of the cluster they
 * cut: the cluster right after them follows in the run. */
static int
take_tail(struct parse *p)
{
	char t[CG_TOKEN_MAX + 1];
	int n = p->nmarks;

	t[0] = CG_TAIL_MARK;
	memcpy(t + 1, p->marks, (size_t)n);
	p->nmarks = 0;
	return take_token(p, t, n + 1, p->marks_start, p->marks_end, true);
}

/*
 * Marks with no base (a query starting inside a cluster, "่ง") are held:
 * when a cluster follows them directly they are the tail of the cluster
 * the query cuts, looked up as the marked tail the index stores next to
 * every cluster with marks; alone, they are searched as they are.
 */
static int
on_token(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	struct parse *p = ctx;
	int rc = 0;

	if (p->nmarks > 0)
		rc = cjk && start == p->marks_end &&
		             cg_token_unit(tok, ntok) == CG_UNIT_CLUSTER
		         ? take_tail(p)
		         : take_marks(p);
	if (rc != 0)
		return rc;
	if (cjk && cg_token_unit(tok, ntok) == CG_UNIT_MARKS) {
		memcpy(p->marks, tok, (size_t)ntok);
		p->nmarks = ntok;
		p->marks_start = start;
		p->marks_end = end;
		return 0;
	}
	return take_token(p, tok, ntok, start, end, cjk);
}

/* Takes one token into the unit being read. */
static int
take_token(struct parse *p, const char *tok, int ntok, int start, int end,
           bool cjk)
{
	int rc = 0;

	if (p->ntok >= CG_QUERY_MAX_TOKENS) {
		p->q->truncated = 1;
		return WALK_CAPPED;
	}
	p->ntok++;
	if (p->kind != UNIT_WORDS) {
		p->unit_ntok++;
		return put_token(&p->unit, tok, ntok);
	}
	rc = put_token(&p->phrase, tok, ntok);
	if (rc != 0)
		return rc;
	if (cjk) {
		rc = extend_run(p, tok, ntok, start);
	} else {
		rc = flush_run(p);
		if (rc == 0)
			rc = add_term(
			    p, tok, (size_t)ntok,
			    &(cg_qterm){.ntok = 1,
			                .prefix = end == p->prefix_at});
	}
	p->prev_end = end;
	return rc;
}

/* Appends the excluded unit to the exclusion expression. */
static int
end_exclude(struct parse *p)
{
	cg_buf *x = &p->exclude;
	int rc = 0;

	if (p->unit_ntok == 0)
		return 0;
	if (p->q->nexclude >= CG_QUERY_MAX_TERMS) {
		p->q->truncated = 1;
		return 0;
	}
	if (x->len > 0)
		rc = cg_buf_puts(x, " OR ");
	if (rc == 0)
		rc = put_quoted(x, p->unit.data);
	if (rc == 0 && p->unit_prefix && p->unit_ntok == 1)
		rc = cg_buf_putc(x, '*');
	p->q->nexclude++;
	return rc;
}

/* Ends a quoted unit: one required term, its tokens also in the phrase. */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): add_term
 * stores the term's text in q->terms, which cg_query_fini frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static int
end_quoted(struct parse *p)
{
	int rc;

	if (p->unit_ntok == 0)
		return 0;
	rc = put_token(&p->phrase, p->unit.data, (int)p->unit.len);
	if (rc == 0)
		rc = add_term(p, p->unit.data, p->unit.len,
		              &(cg_qterm){.ntok = p->unit_ntok, .quoted = 1});
	return rc;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* Reads the unit text[from, to) of the given kind. */
static int
read_unit(struct parse *p, const char *text, int from, int to,
          enum unit_kind kind)
{
	bool capped;
	int rc;

	p->kind = kind;
	p->unit_ntok = 0;
	p->unit_prefix = 0;
	p->prefix_at = -1;
	cg_buf_reset(&p->unit);
	/* A trailing '*' (not a lone one) marks the last token a prefix. */
	if (kind != UNIT_QUOTED && to - from > 1 && text[to - 1] == '*') {
		while (to > from && text[to - 1] == '*')
			to--;
		p->prefix_at = to - from; /* offsets are the unit's own */
		p->unit_prefix = 1;
	}
	if (kind == UNIT_EXCLUDE)
		p->or_pending = false;
	p->nmarks = 0;
	rc = cg_token_each(text + from, to - from, on_token, p);
	if (rc == 0)
		rc = take_marks(p);
	capped = rc == WALK_CAPPED;
	if (capped)
		rc = 0;
	if (rc == 0 && kind == UNIT_WORDS)
		rc = flush_run(p);
	else if (rc == 0 && kind == UNIT_QUOTED)
		rc = end_quoted(p);
	else if (rc == 0)
		rc = end_exclude(p);
	return rc == 0 && capped ? WALK_CAPPED : rc;
}

static bool
is_space(char c)
{
	return (unsigned char)c <= 0x20 || c == 0x7f;
}

/* The index of the first '"' in text[i, len), or -1. */
static int
closing_quote(const char *text, int i, int len)
{
	const char *q = memchr(text + i, '"', (size_t)(len - i));

	return q != NULL ? (int)(q - text) : -1;
}

/* True when a capital OR chunk at [i, end) is the operator: a term comes
 * before it and a chunk after it (otherwise it is the word "or"). */
static bool
is_or(const struct parse *p, const char *text, int i, int end, int len)
{
	if (end - i != 2 || text[i] != 'O' || text[i + 1] != 'R' ||
	    p->q->n == 0)
		return false;
	while (end < len && is_space(text[end]))
		end++;
	return end < len;
}

/* The first token of a chunk and how many it has. */
struct first_tok {
	int n;
	int len;
	char c;
};

static int
first_tok_cb(void *ctx, const char *tok, int ntok, int start, int end, bool cjk)
{
	struct first_tok *f = ctx;

	(void)start;
	(void)end;
	(void)cjk;
	if (f->n++ == 0) {
		f->len = ntok;
		f->c = tok[0];
	}
	return f->n > 1;
}

/* True for the chunk after a '-' that is a command's short option ("-l",
 * "-Z)"): one ASCII letter or digit alone.  Excluding it would drop every
 * page that shows the option; it is the word instead. */
static bool
short_option(const char *text, int from, int end)
{
	struct first_tok f = {0};

	(void)cg_token_each(text + from, end - from, first_tok_cb, &f);
	return f.n == 1 && f.len == 1 &&
	       ((f.c >= 'a' && f.c <= 'z') || (f.c >= '0' && f.c <= '9'));
}

/*
 * Splits text into units and reads each: "a b" a quoted phrase, -word and
 * -"a b" exclusions, OR, and plain chunks.  A '"' without a partner, a
 * lone '-' or '*', a "--option" or "-x" (a command's long or one-letter
 * option, as pasted from a page: "xz --decompress", "ls -l" ask for it,
 * never drop it), and anything else is plain text for the tokenizer.
 */
static int
lex(struct parse *p, const char *text, int len)
{
	int i = 0;
	int rc = 0;

	while (rc == 0 && i < len) {
		int end;
		int close;

		if (is_space(text[i])) {
			i++;
			continue;
		}
		close = text[i] == '"' ? closing_quote(text, i + 1, len) : -1;
		if (close >= 0) {
			rc = read_unit(p, text, i + 1, close, UNIT_QUOTED);
			i = close + 1;
			continue;
		}
		close = text[i] == '-' && i + 1 < len && text[i + 1] == '"'
		            ? closing_quote(text, i + 2, len)
		            : -1;
		if (close >= 0) {
			rc = read_unit(p, text, i + 2, close, UNIT_EXCLUDE);
			i = close + 1;
			continue;
		}
		end = i;
		while (end < len && !is_space(text[end]))
			end++;
		if (is_or(p, text, i, end, len))
			p->or_pending = true; /* OR OR is one OR */
		else if (text[i] == '-' && end - i > 1 && text[i + 1] != '-' &&
		         !short_option(text, i + 1, end))
			rc = read_unit(p, text, i + 1, end, UNIT_EXCLUDE);
		else
			rc = read_unit(p, text, i, end, UNIT_WORDS);
		i = end;
	}
	return rc == WALK_CAPPED ? 0 : rc;
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

/* True when term i is a plain word: one Latin token typed bare, not a
 * prefix and in no OR group.  Only plain words lose stopwords and get
 * word forms. */
static bool
is_plain_word(const cg_query *q, size_t i)
{
	const cg_qterm *t = &q->terms[i];

	return !t->cjk && t->ntok == 1 && !t->quoted && !t->prefix && !t->alt &&
	       !(i + 1 < q->n && q->terms[i + 1].alt);
}

bool
cg_query_stopword(const char *tok, int n)
{
	char w[8]; /* longer than any stopword */

	if (tok == NULL || n <= 0 || n >= (int)sizeof(w))
		return false;
	memcpy(w, tok, (size_t)n);
	w[n] = '\0';
	return bsearch(w, stopwords, sizeof(stopwords) / sizeof(stopwords[0]),
	               sizeof(stopwords[0]), cmp_word) != NULL;
}

static bool
is_stopword(const cg_query *q, size_t i)
{
	return is_plain_word(q, i) &&
	       cg_query_stopword(q->terms[i].text,
	                         (int)strlen(q->terms[i].text));
}

/* Drops plain stopword terms when another term remains.  A dropped term
 * opens no OR group (is_plain_word), so every alt flag still names the
 * term before it. */
static void
drop_stopwords(cg_query *q)
{
	size_t keep = 0;
	bool stop[CG_QUERY_MAX_TERMS];

	for (size_t i = 0; i < q->n; i++) {
		stop[i] = is_stopword(q, i);
		keep += !stop[i];
	}
	if (keep == 0 || keep == q->n)
		return;
	keep = 0;
	for (size_t i = 0; i < q->n; i++) {
		if (stop[i]) {
			free(q->terms[i].text);
			q->nstop++;
		} else {
			q->terms[keep++] = q->terms[i];
		}
	}
	q->n = keep;
}

/* Gives each plain word term its marked and bare stems (token.h). */
static int
add_forms(cg_query *q)
{
	cg_stemmer *st = cg_stemmer_new();
	char form[CG_FORM_MAX];
	int rc = st != NULL ? 0 : CG_ENOMEM;

	for (size_t i = 0; rc == 0 && i < q->n; i++) {
		cg_qterm *t = &q->terms[i];
		int n = !is_plain_word(q, i)
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

int
cg_query_parse(cg_query *q, const char *text, cg_err *err)
{
	struct parse p = {.q = q};
	size_t len;
	int rc;

	memset(q, 0, sizeof(*q));
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
	cg_buf_init(&p.unit, (size_t)2 * CG_QUERY_MAX_BYTES);
	cg_buf_init(&p.exclude, FTS_EXPR_MAX);
	rc = lex(&p, text, (int)len);
	if (rc == 0) {
		drop_stopwords(q);
		rc = add_forms(q);
	}
	if (rc == 0 && q->n > 0) {
		q->phrase = cg_buf_take(&p.phrase);
		if (q->phrase == NULL)
			rc = CG_ENOMEM;
	}
	if (rc == 0 && p.exclude.len > 0) {
		q->exclude = cg_buf_take(&p.exclude);
		if (q->exclude == NULL)
			rc = CG_ENOMEM;
	}
	cg_buf_fini(&p.run);
	cg_buf_fini(&p.phrase);
	cg_buf_fini(&p.unit);
	cg_buf_fini(&p.exclude);
	if (rc != 0) {
		cg_query_fini(q);
		return cg_err_set(err, rc, "cannot parse query: %s",
		                  cg_code_name(rc));
	}
	if (q->n == 0 && q->nexclude > 0) {
		cg_query_fini(q);
		return cg_err_set(
		    err, CG_EINVAL,
		    "the query only excludes ('-word'); add a word "
		    "to look for");
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
	free(q->exclude);
	memset(q, 0, sizeof(*q));
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

/* A term as FTS5 text: quoted, and '*' after it when it is a prefix. */
static int
put_term(cg_buf *b, const cg_qterm *t)
{
	int rc = put_quoted(b, t->text);

	return rc == 0 && t->prefix ? cg_buf_putc(b, '*') : rc;
}

/* True when term i opens a group of alternatives (the next is its alt). */
static bool
opens_group(const cg_query *q, size_t i)
{
	return !q->terms[i].alt && i + 1 < q->n && q->terms[i + 1].alt;
}

/* True when term i closes a group of alternatives. */
static bool
closes_group(const cg_query *q, size_t i)
{
	return q->terms[i].alt && (i + 1 == q->n || !q->terms[i + 1].alt);
}

/* True when term i must be in every row: quoted, and not an alternative. */
static bool
is_required(const cg_query *q, size_t i)
{
	return q->terms[i].quoted && !q->terms[i].alt && !opens_group(q, i);
}

/*
 * The terms in query order: under all, the groups joined by and_sep (a
 * group of alternatives is "(a OR b)"); otherwise every term by OR.
 */
static int
put_terms(cg_buf *b, const cg_query *q, bool all, const char *and_sep)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < q->n; i++) {
		if (i > 0)
			rc = cg_buf_puts(b, all && !q->terms[i].alt ? and_sep
			                                            : " OR ");
		if (rc == 0 && all && opens_group(q, i))
			rc = cg_buf_putc(b, '(');
		if (rc == 0)
			rc = put_term(b, &q->terms[i]);
		if (rc == 0 && all && closes_group(q, i))
			rc = cg_buf_putc(b, ')');
	}
	return rc;
}

/* cols : (terms), every group (all) or any term.  FTS5 takes implicit
 * AND between phrases only, so groups are joined by an explicit AND. */
static int
put_term_list(cg_buf *b, const cg_query *q, const char *cols, bool all)
{
	bool groups = false;
	int rc = cg_buf_puts(b, cols);

	for (size_t i = 0; i < q->n; i++)
		groups = groups || q->terms[i].alt;
	if (rc == 0)
		rc = cg_buf_puts(b, " : (");
	if (rc == 0)
		rc = put_terms(b, q, all, groups ? " AND " : " ");
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
		if (!cg_query_has_phrase(q))
			return NULL;
		rc = cg_buf_puts(&b, COLS_CONTENT " : ");
		if (rc == 0)
			rc = put_quoted(&b, q->phrase);
		break;
	case CG_MATCH_ALL:
		rc = put_term_list(&b, q, COLS_CONTENT, true);
		break;
	case CG_MATCH_SOME:
		rc = put_term_list(&b, q, COLS_CONTENT, false);
		break;
	case CG_MATCH_META:
		rc = put_term_list(&b, q, COLS_META, false);
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
	return q != NULL && q->n > 0 && q->phrase != NULL && !q->nophrase &&
	       !phrase_is_all(q);
}

/* " AND t" for each required term: the filter a pass that does not
 * require every group adds after its ranking phrases. */
static int
put_required(cg_buf *b, const cg_query *q)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < q->n; i++)
		if (is_required(q, i)) {
			rc = cg_buf_puts(b, " AND ");
			if (rc == 0)
				rc = put_term(b, &q->terms[i]);
		}
	return rc;
}

static bool
has_required(const cg_query *q)
{
	for (size_t i = 0; i < q->n; i++)
		if (is_required(q, i))
			return true;
	return false;
}

char *
cg_query_fts_pass(const cg_query *q, bool all)
{
	bool wrap;
	cg_buf b;
	int rc = 0;

	if (q == NULL || q->n == 0)
		return NULL;
	/* Under all, a required term is already required. */
	wrap = !all && has_required(q);
	cg_buf_init(&b, FTS_EXPR_MAX);
	if (wrap)
		rc = cg_buf_putc(&b, '(');
	if (rc == 0)
		rc = put_terms(&b, q, all, " AND ");
	/* The phrase, as phrase n, without changing the rows: under AND, in
	 * a clause the first term already satisfies. */
	if (rc == 0 && cg_query_has_phrase(q)) {
		rc = cg_buf_puts(&b, all ? " AND (" : " OR ");
		if (rc == 0)
			rc = put_quoted(&b, q->phrase);
		if (rc == 0 && all) {
			rc = cg_buf_puts(&b, " OR ");
			if (rc == 0)
				rc = put_term(&b, &q->terms[0]);
			if (rc == 0)
				rc = cg_buf_putc(&b, ')');
		}
	}
	/* Word forms, after the phrase, in the any-term pass only (and
	 * inside its OR'ed part, so the required filter still holds). */
	for (size_t i = 0; rc == 0 && !all && i < q->n; i++) {
		const char *f[2] = {q->terms[i].form, q->terms[i].stem};

		for (int k = 0; rc == 0 && k < 2; k++)
			if (f[k] != NULL) {
				rc = cg_buf_puts(&b, " OR ");
				if (rc == 0)
					rc = put_quoted(&b, f[k]);
			}
	}
	/* Required phrases come after the ranking phrases and the forms, so
	 * phrase i is still term i and phrase n the whole phrase. */
	if (rc == 0 && wrap)
		rc = cg_buf_putc(&b, ')');
	if (rc == 0 && wrap)
		rc = put_required(&b, q);
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
