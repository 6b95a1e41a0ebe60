/*
 * corpus_hits.c - what a hit of a corpus source says beyond a wiki page's:
 * the entry's facts and the cache's freshness (see corpus_hits.h).  Reads
 * the cache's _cache_meta.json and corpus-gw's state file on each call:
 * two small files, so a fetch's outcome shows in the next answer.
 */
#include "index/corpus_hits.h"

#include <stdlib.h>
#include <string.h>

#include "cache/corpus.h"

json_t *
cg_corpus_hits_freshness(cg_index *idx)
{
	const char *dir = cg_index_repo(idx);
	char *root;
	char *state;
	cg_cache_meta m;
	cg_corpus_state st;
	char note[1024];
	json_t *o;

	if (cg_index_kind(idx) != CG_SRC_CORPUS_REMOTE ||
	    cg_index_registrar(idx) == NULL)
		return NULL;
	root = cg_corpus_cache_root(cg_index_registrar(idx));
	state = root ? cg_corpus_state_path(root, cg_index_source(idx)) : NULL;
	free(root);
	if (state == NULL)
		return NULL;
	if (cg_cache_meta_read(&m, dir, NULL) != 0)
		memset(&m, 0, sizeof(m));
	cg_corpus_state_read(&st, state);
	free(state);
	(void)cg_corpus_note(&m, &st, note, sizeof(note));
	o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "cached_commit",
	              m.cached_commit_sha, "cached_at", m.cached_at,
	              "remote_commit", st.remote_sha, "checked_at",
	              st.checked_at, "last_error", st.last_error);
	if (o != NULL && note[0])
		json_object_set_new(o, "note", json_string(note));
	return o;
}

int
cg_corpus_hits_decorate(cg_index *idx, json_t *hit, const json_t *fresh)
{
	json_t *extra = json_object_get(hit, "extra");
	json_t *c = json_object_get(extra, "corpus");
	int rc;

	if (cg_index_kind(idx) == CG_SRC_WIKI || !json_is_object(c))
		return 0;
	c = json_deep_copy(c);
	if (c == NULL)
		return CG_ENOMEM;
	json_object_del(c, "tags");
	json_object_del(c, "keywords");
	json_object_del(c, "sections");
	rc = json_object_set_new(
	    hit, "stale",
	    json_boolean(json_is_true(json_object_get(c, "stale"))));
	rc |= json_object_set_new(hit, "corpus", c);
	json_object_del(extra, "corpus");
	json_object_del(extra, "summary");
	json_object_del(extra, "section_summaries");
	if (fresh != NULL && json_object_get(fresh, "note") != NULL) {
		rc |= json_object_set_new(hit, "stale_cache", json_true());
		rc |= json_object_set_new(hit, "freshness",
		                          json_deep_copy(fresh));
	}
	return rc != 0 ? CG_ENOMEM : 0;
}
