/*
 * cgfixture.h - workspace pieces several tests write the same way, in the
 * formats of the real samples: a local hiivmind corpus with one entry, a
 * registry of local corpora, and two sub-guilds whose refund standards
 * conflict.  Each writes files under a test's own workspace with
 * cgt_write/cgt_page and fails the test when it cannot; none runs the
 * binary or decides what a test asserts.  Include after cgtest.h.
 */
#ifndef CG_FIXTURE_H
#define CG_FIXTURE_H

/* A local hiivmind corpus at ws/corpora/<id>: config.yaml (schema 2, one
 * "self" source "src" with docs_root docs), index.yaml with the one entry
 * "src:<entry>" (path entry, title and summary title, concepts [concept])
 * and docs/<entry> ("# title" and text). */
void cgt_corpus(const char *ws, const char *id, const char *entry,
                const char *concept, const char *title, const char *text);

/* ws/.hiivmind/corpus/registry.yaml listing each id (NULL-terminated) as
 * a local corpus at corpora/<id>. */
void cgt_local_registry(const char *ws, ...);

/* Two sub-guilds, billing and web (each a .git/HEAD), whose
 * standards/refunds.md conflict: billing's "30 days" (confidence high,
 * updated 2026-01-10) against web's "14 days" (confidence medium, updated
 * 2026-06-10). */
void cgt_refund_conflict(const char *ws);

#endif
