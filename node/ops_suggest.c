/*
 * ops_suggest.c - the "suggest" operation (see ops.h): per source in
 * scope, the words of its index close to each asked word
 * (index/suggest.h).  The federation asks only when a search came back
 * empty or thin, sums the sources and words the note.
 *
 * What it must not do: reveal words of pages the caller may not see.  The
 * vocabulary counts every page, so under an access policy (a view) a
 * source answers no words at all.
 */
#include <string.h>

#include "index/suggest.h"
#include "node/ops.h"
#include "page/query.h"
#include "page/token.h"

struct suggest_run {
	const json_t *words;
	json_t *out; /* the source's {word: {df, near}} */
};

static int
suggest_one(cg_index *idx, void *ctx, cg_err *err)
{
	struct suggest_run *r = ctx;
	const json_t *w;
	size_t i;
	int rc = 0;

	json_object_clear(r->out);
	if (cg_index_acl(idx) != NULL)
		return 0;
	json_array_foreach(r->words, i, w) {
		if (rc == 0)
			rc = cg_suggest_word(idx, json_string_value(w), r->out,
			                     err);
	}
	return rc;
}

/* True when words is an array of at most CG_QUERY_MAX_TERMS tokens. */
static bool
valid_words(const json_t *words)
{
	const json_t *w;
	size_t i;

	if (!json_is_array(words) ||
	    json_array_size(words) > CG_QUERY_MAX_TERMS)
		return false;
	json_array_foreach(words, i, w) {
		if (!json_is_string(w) || json_string_length(w) == 0 ||
		    json_string_length(w) > CG_TOKEN_MAX)
			return false;
	}
	return true;
}

int
cg_op_suggest(cg_node *n, const json_t *args, json_t *res, cg_err *err)
{
	struct suggest_run r = {json_object_get(args, "words"), NULL};
	json_t *per = json_object();
	int rc = 0;

	json_object_set_new(res, "per_source", per);
	if (!valid_words(r.words))
		return cg_err_set(err, CG_EINVAL,
		                  "suggest: words must be an array of at most "
		                  "%d words of 1 to %d bytes",
		                  CG_QUERY_MAX_TERMS, CG_TOKEN_MAX);
	for (size_t i = 0; i < cg_node_nsources(n) && rc == 0; i++) {
		const char *name = cg_node_source_name(n, i);

		if (!cg_node_in_scope(args, name))
			continue;
		r.out = json_object();
		rc = cg_node_run(cg_node_index(n, i), suggest_one, &r, err);
		json_object_set_new(per, name, r.out);
	}
	return rc;
}
