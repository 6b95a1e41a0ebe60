/*
 * source.h - the one description of a source: a wiki or a registered
 * corpus that one node indexes and answers for.  The workspace loader
 * (conf/workspace.h) makes them; nodes and indexes take them as borrowed
 * `const cg_source *` and copy what they keep.
 *
 * May be included by conf/ and every layer above it (page, proto, index,
 * node, federation, gateway, cli).
 */
#ifndef CG_SOURCE_H
#define CG_SOURCE_H

enum cg_source_kind {
	CG_SRC_WIKI = 0,          /* a guild wiki (.guild/wiki) */
	CG_SRC_CORPUS_LOCAL = 1,  /* a hiivmind corpus read in place */
	CG_SRC_CORPUS_REMOTE = 2, /* a published cache (cache/<id>) */
};

typedef struct cg_source {
	char *name; /* "root", a sub-guild's name, or a corpus id */
	char *repo; /* absolute repository root; a corpus: its folder */
	char *wiki; /* absolute wiki folder; a corpus: its folder */
	enum cg_source_kind kind;
	char *registrar;  /* a corpus: the registering repository, else NULL */
	char *guild_kind; /* a sub-guild's kind in the manifest, or NULL */
	char *remote;     /* a sub-guild's remote in the manifest, or NULL */
} cg_source;

/* Deep copy of src into dst (dst's old contents are not freed); on failure
 * (CG_ENOMEM) dst holds nothing to free. */
int cg_source_copy(cg_source *dst, const cg_source *src);

/* Frees the strings of s and zeroes it; NULL is accepted. */
void cg_source_fini(cg_source *s);

#endif
