/*
 * query.h - turns a user's free text into safe FTS5 match expressions.
 *
 * User text never reaches FTS5 syntax raw: it is tokenized with the project
 * tokenizer (token.h) and every term is emitted as a double-quoted FTS5
 * string, so quotes, '*', '-', NEAR, AND/OR/NOT, ':' and brackets are plain
 * text unless they are the query syntax below.  A term is one Latin token,
 * one maximal run of adjacent CJK characters or grapheme clusters of a
 * script without spaces (Thai, Lao, Khmer, Myanmar, ...: token.h; matched
 * as a phrase of its characters or clusters), or one quoted phrase.
 *
 * The query syntax (README "Query syntax"; the only operators there are):
 *   "exact phrase"  one term, matched as a phrase and required: only rows
 *                   holding it are hits;
 *   -word, -"a b"   exclusion: pages holding it anywhere are dropped
 *                   (q->exclude; index/search.c drops the pages);
 *   word*           prefix: the last token of the chunk matches any token
 *                   it begins (not for CJK, not inside quotes);
 *   a OR b          alternatives: a row needs one of them where it would
 *                   need each word (in capitals; OR OR is one OR; an OR
 *                   first or last is the word "or").
 * Anything else is text: a '"' without a partner, a lone '-' or '*', a
 * word after two dashes ("--decompress", a command's long option), one
 * letter or digit after one dash ("-l", a short option),
 * "NOT", "NEAR(", "title:", '{', '^', control bytes.  A query of
 * exclusions only is an error (nothing to rank).
 *
 * The match classes of SPEC 4.1 (and FORMS, issue 12) and their expressions:
 *   CG_MATCH_PHRASE  all tokens, in order, as one phrase, in the content
 *                    columns (title, headings, body);
 *   CG_MATCH_ALL     every term (one of each OR group), anywhere in the
 *                    content columns;
 *   CG_MATCH_FORMS   every term, some only as another English word form
 *                    (index/rank.c tells it; no expression of its own);
 *   CG_MATCH_SOME    at least one term in the content columns;
 *   CG_MATCH_META    at least one term in the frontmatter columns only
 *                    (tags, meta).
 *
 * Decisions a reader must know:
 * - A term is kept once, at its first occurrence ("foo bar foo" gives the
 *   terms foo, bar), so ALL/SOME/META never weigh a word twice.  The PHRASE
 *   class uses q->phrase, which keeps every token (and is not cut at
 *   CG_QUERY_MAX_TERMS), so the exact phrase stays exact.
 * - There is no PHRASE class when the query has an OR or a prefix term
 *   (the tokens in order mean nothing then); a cluster run's implicit
 *   prefix (below) keeps it: PHRASE then asks for the exact clusters.
 * - Grapheme clusters (decision, issue 16): a run ending in a cluster is a
 *   prefix term (its last cluster matches any cluster it begins, "ค" finds
 *   "ค้น"), because a query cut inside a cluster can only lack the
 *   cluster's trailing marks; marks with no base at the start of a run
 *   ("่ง", cut after the base) become the marked tail of the cluster they
 *   touch (token.h: "\x03่ ง"), which the index stores next to every
 *   cluster with marks; alone, they are searched as they are.  Quoted
 *   phrases and exclusions take the clusters exactly (no prefix; leading
 *   marks become a tail the same way).
 * - Inside an OR group a quoted phrase is an alternative, not required.
 * - Only the first CG_QUERY_MAX_TOKENS tokens are read (truncated is set):
 *   a hostile query of 2000 one-letter words or 1300 CJK characters cost
 *   0.5-2 s per query on the 9k-page tldr index without this cap.
 * - CJK characters (and clusters) separated by anything (a space,
 *   punctuation) are separate terms: "限 衍" is two terms, "限衍" one.
 * - Stopwords (a short list of English function words: "a", "the", "how",
 *   "do", "i", ...) are not terms when the query has another word: they
 *   can never be the only reason for a hit, and are not highlighted.  They
 *   stay in q->phrase, so the exact phrase still holds them; a query of
 *   stopwords only ("to be or not to be") keeps them as terms.  Only plain
 *   words are dropped: never a word inside quotes, an OR alternative (or
 *   the word before an OR), a prefix term or an exclusion.
 * - Word forms: an English plain word term carries its marked stem and its
 *   bare stem (token.h); only the any-term pass (cg_query_fts_pass with all
 *   false) looks them up, after the phrase.  Prefix terms, quoted phrases
 *   and the words of an OR group get no stems.
 * - Expressions look like
 *     PHRASE  {title headings body} : "a b 限 衍"
 *     ALL     {title headings body} : ("a" "b"* "限 衍"), or with OR
 *             {title headings body} : ("a" AND ("b" OR "c") AND "d")
 *     SOME    {title headings body} : ("a" OR "b" OR "限 衍")
 *     META    {tags meta} : ("a" OR "b" OR "限 衍")
 *
 * May be included by page/ and every layer above it (proto, index, node,
 * federation, gateway, cli).
 */
#ifndef CG_QUERY_H
#define CG_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/cg_err.h"

enum cg_match {
	CG_MATCH_NONE = 0,
	CG_MATCH_META = 1,
	CG_MATCH_SOME = 2,
	CG_MATCH_FORMS = 3, /* every term, some only as another word form */
	CG_MATCH_ALL = 4,
	CG_MATCH_PHRASE = 5,
};

/* Caps that keep a hostile query cheap. */
#define CG_QUERY_MAX_BYTES 4096
#define CG_QUERY_MAX_TERMS 32
/* Tokens read from the query (a CJK character is a token); the rest is
 * dropped, because FTS5 time grows with the tokens of a phrase. */
#define CG_QUERY_MAX_TOKENS 64

typedef struct cg_qterm {
	char *text; /* folded tokens joined by ' '; a CJK run is "限 衍" */
	int ntok;   /* number of tokens in the term */
	int cjk;    /* 1 when the term is a CJK run */
	int prefix; /* 1: matches any token it begins ("word*") */
	int quoted; /* 1: typed in quotes; required unless in an OR group */
	int alt;    /* 1: an alternative of the previous term (a OR b) */
	char *form; /* its marked stem (page/token.h, "\x01retri"), or NULL
	             * when the term has no word forms */
	char *stem; /* the bare stem when it differs from text, else NULL */
} cg_qterm;

typedef struct cg_query {
	cg_qterm *terms; /* owned array of n terms, in query order */
	size_t n;
	int truncated; /* 1 when terms past CG_QUERY_MAX_TERMS or tokens past
	                * CG_QUERY_MAX_TOKENS were dropped */
	char *phrase;  /* owned: every token in order, duplicates kept, joined
	                * by ' ' ("a b 限 衍"); NULL when n == 0 */
	int nophrase;  /* 1: an OR or a prefix term; no PHRASE class */
	char *exclude; /* owned FTS5 expression of the excluded phrases
	                * ("x" OR "a b" OR "y"*), or NULL */
	int nexclude;  /* excluded units (at most CG_QUERY_MAX_TERMS) */
	int nstop;     /* stopwords dropped from terms (still in phrase) */
} cg_query;

/*
 * Parses user text.  Empty or all-punctuation text gives n == 0 (not an
 * error).  Text over CG_QUERY_MAX_BYTES gives CG_ETOOBIG, exclusions
 * without a word to look for CG_EINVAL; invalid UTF-8 bytes are
 * separators.
 */
int cg_query_parse(cg_query *q, const char *text, cg_err *err);
void cg_query_fini(cg_query *q);

/* Short name of a class: "phrase", "all", "forms", "some", "frontmatter",
 * "none". */
const char *cg_match_name(enum cg_match m);

/*
 * Returns a malloc'd FTS5 MATCH expression for the class, or NULL when the
 * class does not apply (n == 0; CG_MATCH_PHRASE when the query is a single
 * term with no repeated tokens, because then it equals CG_MATCH_ALL) or on
 * allocation failure.  The expression names the
 * columns "title headings body" and "tags meta".
 *
 * The phrases of the expression appear in a documented order the ranking
 * function relies on: for PHRASE the one phrase of all tokens; for ALL,
 * SOME and META the terms in query order.
 */
char *cg_query_fts(const cg_query *q, enum cg_match m);

/* True when the PHRASE class applies: two or more terms, or one term whose
 * tokens repeat ("foo foo"); then cg_query_fts(q, CG_MATCH_PHRASE) is not
 * NULL. */
bool cg_query_has_phrase(const cg_query *q);

/* True when tok (n bytes of a folded token) is one of the English
 * function words a query drops beside other words (the stopwords above):
 * index/rank.c leaves them out of a unit's length. */
bool cg_query_stopword(const char *tok, int n);

/*
 * The expression of a ranking pass (index/search.c): every term, in query
 * order, over all five columns, joined by OR (all false: every row any
 * class matches) or AND (all true: the rows that hold every term, or one
 * of each OR group, the only ones that can be PHRASE or ALL), then, when
 * cg_query_has_phrase(), the whole phrase: "t1" OR "t2" ... OR "p1 p2 ...",
 * or "t1" AND ("t2" OR "t3") ... AND ("p1 p2 ..." OR "t1").  Under OR,
 * required (quoted) terms are added after: (...) AND "q1" AND "q2".  Phrase i
 * of the expression is term i, phrase n the whole phrase; the ranking function
 * tells each row's class from their instances (a repeated phrase after n is
 * ignored).  With all false, the word forms follow, after the phrase (and
 * inside the OR'ed part, before the required terms): per term in order, its
 * marked stem and then its bare stem, each when the term has it (they add
 * rows that hold a term only as another form).  malloc'd; NULL when n == 0
 * or on allocation failure.
 */
char *cg_query_fts_pass(const cg_query *q, bool all);

/* The single phrase of all tokens in order, as in the PHRASE class ("a b
 * 限 衍"), a malloc'd copy of q->phrase; NULL when n == 0. */
char *cg_query_phrase_text(const cg_query *q);

#endif
