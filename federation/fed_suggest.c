/*
 * fed_suggest.c - sums the nodes' close words and picks the suggestions
 * (see fed_suggest.h); fed_search.c runs the "suggest" round and puts the
 * note in the answer.
 *
 * The rule: for each query word, the close words' section counts are
 * summed over every source that answered; the best is the nearest (edit
 * distance), then one that begins with the word, then the most frequent,
 * then the first in byte order, and it
 * is offered when the word itself is in no section, or when at least
 * SUGGEST_RATIO times as many sections hold it as hold the word (a rare
 * misspelling that made it into a page still gets the common spelling;
 * a word in use is not "corrected" to a neighbour: on the example
 * workspace a lower bar offered "charge" for "change" and "notes" for
 * "note").
 * It must not ask the nodes itself or touch the answer.
 */
#include "federation/fed_suggest.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_buf.h"

#define SUGGEST_RATIO 10

static bool
askable(const cg_qterm *t)
{
	return t->ntok == 1 && !t->cjk && !t->prefix;
}

json_t *
cg_suggest_words(const cg_query *q)
{
	json_t *a = json_array();

	for (size_t i = 0; a != NULL && i < q->n; i++)
		if (askable(&q->terms[i]))
			json_array_append_new(a, json_string(q->terms[i].text));
	return a;
}

/* Sums one source's answer for word into self (its own df) and sums
 * ({w: {df, d}}). */
static void
add_source(const json_t *ans, json_int_t *self, json_t *sums)
{
	const json_t *near = json_object_get(ans, "near");
	const json_t *o;
	size_t i;

	*self += json_integer_value(json_object_get(ans, "df"));
	json_array_foreach(near, i, o) {
		const char *w = json_string_value(json_object_get(o, "w"));
		json_t *s;

		if (w == NULL)
			continue;
		s = json_object_get(sums, w);
		if (s == NULL) {
			s = json_pack("{s:I, s:O}", "df", (json_int_t)0, "d",
			              json_object_get(o, "d"));
			json_object_set_new(sums, w, s);
		}
		json_object_set_new(
		    s, "df",
		    json_integer(json_integer_value(json_object_get(s, "df")) +
		                 json_integer_value(json_object_get(o, "df"))));
	}
}

/* The best of sums for word: nearest, then one that begins with word (a
 * form of it: "changes" before "charge" for "change"), then most
 * frequent, then first by bytes. */
static const char *
best(const char *word, const json_t *sums, json_int_t *df)
{
	const char *pick = NULL;
	json_int_t pd = 0;
	bool pf = false;
	size_t n = strlen(word);
	const char *w;
	const json_t *s;

	*df = 0;
	json_object_foreach((json_t *)sums, w, s) {
		json_int_t d = json_integer_value(json_object_get(s, "d"));
		json_int_t f = json_integer_value(json_object_get(s, "df"));
		bool form = strncmp(w, word, n) == 0;

		if (pick == NULL || d < pd || (d == pd && form && !pf) ||
		    (d == pd && form == pf &&
		     (f > *df || (f == *df && strcmp(w, pick) < 0)))) {
			pick = w;
			pd = d;
			pf = form;
			*df = f;
		}
	}
	return pick;
}

json_t *
cg_suggest_pick(const cg_query *q, const json_t *replies)
{
	json_t *picks = json_array();

	for (size_t t = 0; picks != NULL && t < q->n; t++) {
		const char *word = q->terms[t].text;
		json_t *sums;
		json_int_t self = 0;
		json_int_t df = 0;
		const char *pick;
		const json_t *per;
		size_t i;

		if (!askable(&q->terms[t]))
			continue;
		sums = json_object();
		json_array_foreach(replies, i, per) {
			const char *src;
			const json_t *ans;

			json_object_foreach((json_t *)per, src, ans) {
				const json_t *a = json_object_get(ans, word);

				if (a != NULL)
					add_source(a, &self, sums);
			}
		}
		pick = best(word, sums, &df);
		if (pick != NULL && df > 0 &&
		    (self == 0 || df >= SUGGEST_RATIO * self))
			json_array_append_new(
			    picks, json_pack("{s:s, s:s, s:I}", "word", word,
			                     "suggest", pick, "df", df));
		json_decref(sums);
	}
	return picks;
}

char *
cg_suggest_note(const json_t *picks, bool single)
{
	cg_buf b;
	const json_t *p;
	size_t i;

	cg_buf_init(&b, (size_t)64 * 1024);
	(void)cg_buf_puts(&b, "Did you mean ");
	json_array_foreach(picks, i, p) {
		if (i > 0)
			(void)cg_buf_puts(&b, ", ");
		(void)cg_buf_printf(
		    &b, "\"%s\"",
		    json_string_value(json_object_get(p, "suggest")));
		if (!single)
			(void)cg_buf_printf(
			    &b, " (for \"%s\")",
			    json_string_value(json_object_get(p, "word")));
	}
	(void)cg_buf_puts(&b, "?");
	return cg_buf_take(&b);
}
