/*
 * fed_stats.c - the federation's cache of sources' statistics and claim
 * keys (see fed_stats.h).  A short array of entries searched linearly
 * (one per source of the roster), each with a jansson object as its
 * term map; everything under one mutex.
 */
#include "federation/fed_stats.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cg_analyzer.h"
#include "common/cg_vec.h"

struct entry {
	char *node;
	char *source;
	char *epoch; /* NULL: nothing known */
	int64_t nrows;
	int64_t tot[CG_NCOLS];
	json_t *df;       /* "t:<term>" or "p:<phrase>" -> rows holding it */
	uint64_t *claims; /* sorted; NULL: not known */
	size_t nclaims;
	json_t *claim_pages; /* "<sig>\n<key>" -> pages */
};

struct node_flag {
	char *node;
	int corpora; /* 1, 0 */
};

struct cg_fed_stats {
	pthread_mutex_t mu;
	struct entry *v;
	size_t n;
	size_t cap;
	struct node_flag *nf;
	size_t nnf;
	size_t capnf;
};

cg_fed_stats *
cg_fed_stats_new(void)
{
	cg_fed_stats *s = calloc(1, sizeof(*s));

	if (s != NULL && pthread_mutex_init(&s->mu, NULL) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static void
entry_clear(struct entry *e)
{
	free(e->epoch);
	e->epoch = NULL;
	json_decref(e->df);
	e->df = NULL;
	free(e->claims);
	e->claims = NULL;
	e->nclaims = 0;
	json_decref(e->claim_pages);
	e->claim_pages = NULL;
}

void
cg_fed_stats_free(cg_fed_stats *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++) {
		entry_clear(&s->v[i]);
		free(s->v[i].node);
		free(s->v[i].source);
	}
	for (size_t i = 0; i < s->nnf; i++)
		free(s->nf[i].node);
	free(s->v);
	free(s->nf);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* The entry of (node, source); a new one when create (NULL when memory
 * runs out or it does not exist). */
/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the copies are
 * stored in an element of s->v, which cg_fed_stats_free frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
static struct entry *
find(cg_fed_stats *s, const char *node, const char *source, bool create)
{
	struct entry *e;

	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].node, node) == 0 &&
		    strcmp(s->v[i].source, source) == 0)
			return &s->v[i];
	if (!create ||
	    cg_vec_reserve((void **)&s->v, &s->cap, s->n, sizeof(*s->v)) != 0)
		return NULL;
	e = &s->v[s->n];
	memset(e, 0, sizeof(*e));
	e->node = strdup(node);
	e->source = strdup(source);
	if (e->node == NULL || e->source == NULL) {
		free(e->node);
		free(e->source);
		return NULL;
	}
	s->n++;
	return e;
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* "t:" + term, "x:" + prefix term or "p:" + phrase into buf. */
static const char *
df_key(char *buf, size_t cap, char kind, const char *text)
{
	size_t n = strlen(text);

	if (n + 3 > cap)
		n = cap - 3;
	buf[0] = kind;
	buf[1] = ':';
	memcpy(buf + 2, text, n);
	buf[n + 2] = '\0';
	return buf;
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The claim-key hashes of a stats reply, 16 hex digits each, ascending:
 * a new array of *n of them (not NULL when hex is ""), or NULL when hex is
 * malformed or memory runs out. */
static uint64_t *
read_claims(const char *hex, size_t *n)
{
	size_t len = strlen(hex);
	uint64_t *v;

	*n = 0;
	if (len % 16 != 0)
		return NULL;
	v = calloc(len / 16 ? len / 16 : 1, sizeof(*v));
	for (size_t i = 0; v != NULL && i < len / 16; i++) {
		uint64_t x = 0;

		for (size_t k = 0; k < 16; k++) {
			int d = hex_digit(hex[i * 16 + k]);

			if (d < 0)
				goto bad;
			x = x << 4 | (uint64_t)d;
		}
		if (i > 0 && x < v[i - 1]) /* not sorted: ignore */
			goto bad;
		v[i] = x;
	}
	if (v != NULL)
		*n = len / 16;
	return v;
bad:
	free(v);
	return NULL;
}

static void
put_df(struct entry *e, char kind, const char *text, json_int_t df)
{
	char key[CG_QUERY_MAX_BYTES + 8];

	if (json_object_size(e->df) >= CG_FED_STATS_MAX_TERMS)
		json_object_clear(e->df);
	json_object_set_new(e->df, df_key(key, sizeof(key), kind, text),
	                    json_integer(df));
}

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): epoch and claims are
 * stored in an element of s->v, which entry_clear frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
void
cg_fed_stats_put(cg_fed_stats *s, const char *node, const char *source,
                 const cg_query *q, const json_t *st)
{
	const char *epoch = json_string_value(json_object_get(st, "epoch"));
	const json_t *tot = json_object_get(st, "tot");
	const json_t *df = json_object_get(st, "df");
	const char *claims = json_string_value(json_object_get(st, "claims"));
	struct entry *e;

	if (epoch == NULL || json_array_size(tot) != CG_NCOLS ||
	    json_array_size(df) != q->n)
		return;
	pthread_mutex_lock(&s->mu);
	e = find(s, node, source, true);
	if (e != NULL && (e->epoch == NULL || strcmp(e->epoch, epoch) != 0)) {
		entry_clear(e);
		e->epoch = strdup(epoch);
		e->df = json_object();
	}
	if (e != NULL && e->epoch != NULL && e->df != NULL) {
		e->nrows = json_integer_value(json_object_get(st, "nrows"));
		for (size_t c = 0; c < CG_NCOLS; c++)
			e->tot[c] = json_integer_value(json_array_get(tot, c));
		for (size_t i = 0; i < q->n; i++)
			put_df(e, q->terms[i].prefix ? 'x' : 't',
			       q->terms[i].text,
			       json_integer_value(json_array_get(df, i)));
		if (q->n > 1 && q->phrase != NULL)
			put_df(e, 'p', q->phrase,
			       json_integer_value(
			           json_object_get(st, "df_phrase")));
		if (claims != NULL) {
			free(e->claims);
			e->claims = read_claims(claims, &e->nclaims);
		}
	}
	pthread_mutex_unlock(&s->mu);
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* df of kind:text in e into *out; false when not known. */
static bool
get_df(const struct entry *e, char kind, const char *text, int64_t *out)
{
	char key[CG_QUERY_MAX_BYTES + 8];
	const json_t *v =
	    json_object_get(e->df, df_key(key, sizeof(key), kind, text));

	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return true;
}

bool
cg_fed_stats_add(cg_fed_stats *s, const char *node, const char *source,
                 const cg_query *q, cg_gstats *g)
{
	int64_t df[CG_QUERY_MAX_TERMS];
	int64_t dfp = 0;
	const struct entry *e;
	bool ok;

	pthread_mutex_lock(&s->mu);
	e = find(s, node, source, false);
	ok = e != NULL && e->epoch != NULL;
	for (size_t i = 0; ok && i < q->n && i < CG_QUERY_MAX_TERMS; i++)
		ok = get_df(e, q->terms[i].prefix ? 'x' : 't', q->terms[i].text,
		            &df[i]);
	if (ok && q->n > 1)
		ok = get_df(e, 'p', q->phrase, &dfp);
	else if (ok && q->n == 1)
		dfp = df[0];
	if (ok) {
		g->nrows += e->nrows;
		for (int c = 0; c < CG_NCOLS; c++)
			g->tot[c] += e->tot[c];
		g->nterms = q->n;
		for (size_t i = 0; i < q->n && i < CG_QUERY_MAX_TERMS; i++)
			g->df[i] += df[i];
		g->df_phrase += dfp;
	}
	pthread_mutex_unlock(&s->mu);
	return ok;
}

json_t *
cg_fed_stats_epoch(cg_fed_stats *s, const char *node, const char *source)
{
	const struct entry *e;
	json_t *v = NULL;

	pthread_mutex_lock(&s->mu);
	e = find(s, node, source, false);
	if (e != NULL && e->epoch != NULL)
		v = json_string(e->epoch);
	pthread_mutex_unlock(&s->mu);
	return v;
}

int
cg_fed_stats_claims(cg_fed_stats *s, const char *node, const char *source,
                    uint64_t h)
{
	const struct entry *e;
	int count = -1;

	pthread_mutex_lock(&s->mu);
	e = find(s, node, source, false);
	if (e != NULL && e->claims != NULL) {
		size_t lo = 0;
		size_t hi = e->nclaims;

		while (lo < hi) { /* the first >= h */
			size_t mid = lo + (hi - lo) / 2;

			if (e->claims[mid] < h)
				lo = mid + 1;
			else
				hi = mid;
		}
		count = 0;
		while (lo < e->nclaims && e->claims[lo] == h && count < 1000) {
			count++;
			lo++;
		}
	}
	pthread_mutex_unlock(&s->mu);
	return count;
}

int
cg_fed_stats_corpora(cg_fed_stats *s, const char *node)
{
	int v = -1;

	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < s->nnf; i++)
		if (strcmp(s->nf[i].node, node) == 0)
			v = s->nf[i].corpora;
	pthread_mutex_unlock(&s->mu);
	return v;
}

/* gcc 12 -fanalyzer false positive (common/cg_analyzer.h): the copy is stored
 * in an element of s->nf, which cg_fed_stats_free frees. */
CG_ANALYZER_STORE_INTO_ARRAY_BEGIN
void
cg_fed_stats_set_corpora(cg_fed_stats *s, const char *node, bool yes)
{
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < s->nnf; i++)
		if (strcmp(s->nf[i].node, node) == 0) {
			s->nf[i].corpora = yes;
			pthread_mutex_unlock(&s->mu);
			return;
		}
	if (cg_vec_reserve((void **)&s->nf, &s->capnf, s->nnf,
	                   sizeof(*s->nf)) == 0) {
		s->nf[s->nnf].node = strdup(node);
		s->nf[s->nnf].corpora = yes;
		if (s->nf[s->nnf].node != NULL)
			s->nnf++;
	}
	pthread_mutex_unlock(&s->mu);
}
CG_ANALYZER_STORE_INTO_ARRAY_END

/* "<sig>\n<key>" into a new buffer. */
static char *
pages_key(const char *sig, const char *key)
{
	size_t a = strlen(sig);
	size_t b = strlen(key);
	char *k = malloc(a + b + 2);

	if (k != NULL)
		(void)snprintf(k, a + b + 2, "%s\n%s", sig, key);
	return k;
}

json_t *
cg_fed_stats_claim_pages(cg_fed_stats *s, const char *node, const char *source,
                         const char *sig, const char *key)
{
	char *k = pages_key(sig, key);
	const struct entry *e;
	json_t *v = NULL;

	pthread_mutex_lock(&s->mu);
	e = find(s, node, source, false);
	if (k != NULL && e != NULL && e->claim_pages != NULL)
		v = json_deep_copy(json_object_get(e->claim_pages, k));
	pthread_mutex_unlock(&s->mu);
	free(k);
	return v;
}

void
cg_fed_stats_put_claim_pages(cg_fed_stats *s, const char *node,
                             const char *source, const char *sig,
                             const char *key, const json_t *pages)
{
	char *k = pages_key(sig, key);
	struct entry *e;

	pthread_mutex_lock(&s->mu);
	e = find(s, node, source, false);
	if (k != NULL && e != NULL && e->epoch != NULL) {
		if (e->claim_pages == NULL)
			e->claim_pages = json_object();
		if (json_object_size(e->claim_pages) >= CG_FED_STATS_MAX_TERMS)
			json_object_clear(e->claim_pages);
		json_object_set_new(e->claim_pages, k, json_deep_copy(pages));
	}
	pthread_mutex_unlock(&s->mu);
	free(k);
}
