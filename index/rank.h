/*
 * rank.h - the one-pass ranking of a search: the FTS5 auxiliary function
 * cg_match(sec), run over the rows of page/query.h's cg_query_fts_any
 * expression, tells each row's match class from the instances of the
 * expression's phrases and scores it within that class, with BM25F and the
 * *global* statistics the federation summed (ARCHITECTURE.md, "Ranking and
 * the merge").  One statement per source per query, instead of one per
 * class.
 *
 * A row's class: PHRASE when the whole phrase occurs in a content column
 * (title, headings, body), scored as one phrase with the phrase's idf over
 * the content columns; ALL when every term (one of each group of OR
 * alternatives) occurs in the content columns, scored as the sum over the
 * terms of idf times BM25F over the content columns, plus a proximity bonus
 * (below); FORMS when every term occurs, some only as another word form
 * (page/token.h: "retried" for "retries"; OR alternatives have none),
 * and SOME (two terms or more) when one term does, exactly or as a form;
 * both scored as ALL without the bonus, a term found only as a form
 * counting FORM_WEIGHT of its BM25F; META when a term occurs only in the
 * frontmatter columns (tags, meta), scored over those; NONE otherwise.
 * Only tf, positions and the row's column lengths are local, so a row
 * scores the same on whichever node holds it.
 *
 * Proximity (ALL, two terms or more): the shortest window of one column
 * that holds every term (an OR alternative absent from the row is left
 * out; the group's present one counts), spans at most PROX_WINDOW tokens
 * and lies inside one unit (a paragraph or a list item: no boundary token
 * of the tokenizer, index/fts_tokenizer.h, between its ends).  A row with
 * one is in the unit tier: it gains r->tier, more than any ALL score
 * without it, so a section where the words sit together in one line,
 * paragraph or list item ranks above every one that scatters them (a title
 * word plus a body word, words in two neighbouring list items), and within
 * the tier PROX_WEIGHT * sum(idf) * terms / span more, which is sum(idf)
 * when the terms are adjacent, and UNIT_WEIGHT * sum(idf) * terms / unit
 * more, the unit's density: unit is the length in tokens, less its
 * stopwords (page/query.h: "the", "in", ... say nothing of what a unit is
 * about), of the shortest unit that holds such a window, so "- Open
 * directory:" outranks "- Open the current directory in Finder" for "open
 * directory" (a unit that holds the words and little else is about them).
 * UNIT_WEIGHT is large enough that density mostly decides among the rows of the
 * tier, and BM25F among rows of equal density.  Scattered terms gain nothing.
 * Only a row whose terms come within PROX_WINDOW reads its column text, for the
 * boundaries (up to the end of the unit of its last kept term position).  Word
 * forms are only looked up by the any-term pass (forms = 1), and never change
 * an ALL or PHRASE score, so both passes score those rows alike.
 *
 * May be included by index/ only (the search and the index that registers
 * the function).
 */
#ifndef CG_RANK_H
#define CG_RANK_H

#include <sqlite3.h>

#include "page/query.h"
#include "proto/stats.h"

/* What cg_match(sec) reads, filled by cg_rank_prepare before a
 * statement, and the class of the row it scored last. */
typedef struct cg_rank_ctx {
	int nterms;                      /* phrases 0..nterms-1: the terms */
	int phrase;                      /* 1: phrase nterms is the phrase */
	int nphr;                        /* phrases of the expression */
	int alt[CG_QUERY_MAX_TERMS];     /* 1: term i is an OR alternative
	                                  * of term i - 1 (one group) */
	int form[CG_QUERY_MAX_TERMS][2]; /* phrases of a term's marked and
	                                  * bare stems, -1 when none */
	double idf[CG_QUERY_MAX_TERMS];  /* per term */
	double idf_phrase;               /* of the whole phrase */
	double tier;                     /* the unit tier's offset (rank.c) */
	double avgdl[CG_NCOLS];          /* average column length, tokens */
	double weight[CG_NCOLS];         /* column weights */
	enum cg_match last;              /* out: the class of the last row */
	/* in: the entry a row must reach to enter the caller's full list
	 * (floor_on), set by the caller between rows.  A META, SOME or FORMS
	 * row whose best possible score (its tf with every column length 0:
	 * BM25F only falls as a length grows) is below it cannot enter, so
	 * its column lengths are not read (one docsize lookup a row) and it
	 * scores 0 in its class.  Rows that can enter score exactly. */
	bool floor_on;
	enum cg_match floor_m;
	double floor_score;
} cg_rank_ctx;

/* Sets the column weights (title 4, headings 2, body 1, tags 2, meta 0.5). */
void cg_rank_init(cg_rank_ctx *r);

/* Fills r for query q scored with the global statistics g, for the
 * expression cg_query_fts_pass(q, !forms) (forms: the any-term pass, which
 * looks word forms up); no floor. */
void cg_rank_prepare(cg_rank_ctx *r, const cg_query *q, const cg_gstats *g,
                     bool forms);

/* Registers cg_match(sec) with db's FTS5, reading r.  SQLite's code. */
int cg_rank_register(sqlite3 *db, cg_rank_ctx *r);

#endif
