/*
 * token.h - the corpus-gw tokenizer, shared by the FTS5 index
 * (index/fts_tokenizer.h) and the query parser so that both sides always
 * agree on what a token is.
 *
 * Latin (and other alphabetic) text: runs of letters and digits, case-folded
 * and diacritic-folded ("Café" -> "cafe", fullwidth "ＡＢＣ" -> "abc").
 * CJK text (Han, Hiragana, Katakana, Hangul): every character is its own
 * token, so any substring of one or more characters is found by querying the
 * run as a phrase of its characters.  Scripts written without spaces whose
 * unit is the grapheme cluster (Thai, Lao, Khmer, Myanmar, Tai Le, New Tai
 * Lue, Tai Tham, Tai Viet, Ahom: Unicode line-break class SA): every
 * extended grapheme cluster (a base letter with its vowel signs and tone
 * marks, libutf8proc's UAX #29 breaks) is its own token, found the same
 * way; a cluster is never split.  Everything else separates tokens.
 * Must not allocate per token on the indexing path.
 *
 * Decisions a reader must know:
 * - Word characters are ASCII letters and digits and every code point
 *   >= U+0080 outside the punctuation, symbol, emoji and private-use ranges
 *   listed in token.c.  '_' and all other ASCII punctuation separate, so
 *   snake_case and e-mail split into words.
 * - Folding: ASCII and fullwidth ASCII lowercased; U+00C0..U+024F lowercased
 *   and stripped to the base letter (e, o, ss, ae, oe, th, ...); Greek
 *   lowercased without tonos/dialytika, final sigma -> sigma; basic Cyrillic
 *   lowercased and e-with-diaeresis -> e; combining marks U+0300..U+036F
 *   dropped (so NFD text folds like NFC).  Every other non-CJK letter is
 *   folded by libutf8proc (compatibility decomposition, case folding,
 *   marks stripped): Vietnamese "Việt" -> "viet", the ligature "ﬁle" ->
 *   "file", "Ⅸ" -> "ix".
 * - Brackets around 1-3 letters or digits inside a word are not
 *   separators: "[c]reate", "g[z]ipped", "E[x]tract" are the words create,
 *   gzipped, extract (the mnemonic style of command references).  A
 *   bracket group not followed by a word character ("a[i]", "[x] done")
 *   still separates.
 * - A CJK character also ends any word in progress ("abc中文" -> abc 中 文)
 *   and is emitted unfolded.  So does a cluster, which is emitted in
 *   canonical form (NFC: marks typed in either order give one token) with
 *   ZWJ, ZWNJ and ZWSP dropped, and not compatibility-folded (Thai SARA AM
 *   stays one character).  The punctuation and symbols of those scripts
 *   (by general category) separate; a mark after a separator starts a
 *   cluster of marks only (CG_UNIT_MARKS).
 * - A word longer than CG_TOKEN_MAX folded bytes is cut at a code point
 *   boundary and the rest of it is skipped; its start/end still span the
 *   whole word in the original text.
 *
 * May be included by page/ and every layer above it (proto, index, node,
 * federation, gateway, cli).
 */
#ifndef CG_TOKEN_H
#define CG_TOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest token emitted, in bytes; longer words are cut (at a code point
 * boundary) to this length. */
#define CG_TOKEN_MAX 64

/*
 * Called for each token: tok/ntok is the folded token (not NUL-terminated,
 * valid only during the call), start/end the byte offsets of the original
 * text it came from, cjk whether it is a single CJK character or a single
 * grapheme cluster of a script without spaces (cg_token_unit).  A non-zero
 * return stops the walk and is returned by cg_token_each.
 */
typedef int (*cg_token_cb)(void *ctx, const char *tok, int ntok, int start,
                           int end, bool cjk);

/* Tokenizes n bytes of text (invalid UTF-8 bytes act as separators). */
int cg_token_each(const char *text, int n, cg_token_cb cb, void *ctx);

/* True for a code point that is indexed one character per token. */
bool cg_token_is_cjk(uint32_t cp);

/* True for a code point of a script indexed one grapheme cluster per
 * token (its punctuation included; that separates). */
bool cg_token_is_cluster(uint32_t cp);

/* What a token is, for the query side. */
enum cg_unit {
	CG_UNIT_OTHER,   /* a word or a CJK character */
	CG_UNIT_CLUSTER, /* a grapheme cluster starting with a base */
	CG_UNIT_MARKS,   /* marks with no base (after a separator) */
};

enum cg_unit cg_token_unit(const char *tok, int ntok);

/*
 * Cluster tails: a query that starts inside a cluster ("่ง", its base cut
 * off) begins with the cluster's trailing marks.  The index stores, next to
 * a cluster with marks after its base, each of its tails (the marks from
 * the k-th one on, k >= 1) marked with CG_TAIL_MARK as a token at the same
 * position, and the query looks its leading marks up as the marked tail.
 * Like a word form, a marked tail cannot come from text.
 */
#define CG_TAIL_MARK '\x03'

/* Writes tail k (1: all the marks after the base, 2: from the second on,
 * ...) of cluster token tok, marked (CG_TAIL_MARK, the marks, no NUL),
 * into out (CG_TOKEN_MAX + 1 bytes) and returns its length; 0 when the
 * cluster has no tail k or tok is not a cluster. */
int cg_token_tail(const char *tok, int ntok, int k, char *out);

/* True when the code point starting at text[at] (of n bytes) continues
 * the grapheme cluster of the code point before it, so that text must
 * not be cut there (a Thai tone mark after its consonant); false at 0,
 * at n or next to invalid bytes. */
bool cg_token_joins(const char *text, size_t at, size_t n);

/*
 * Word forms (English, Snowball's "english" stemmer from libstemmer).  The
 * index stores, next to a word whose stem differs from it, the stem marked
 * with CG_FORM_MARK as a token at the same position ("retried" also gives
 * "\x01retri"); a query looks a term's forms up by the marked stem and by
 * the bare stem.  Marked tokens cannot come from text (control characters
 * separate), so a form never matches as an exact word.  Only words of 3-40
 * ASCII letters have forms.  A stemmer is not thread-safe: one per
 * tokenizer instance or per call site.
 */
#define CG_FORM_MARK '\x01'
/* Room for a marked stem: the mark, the stem, a NUL. */
#define CG_FORM_MAX (CG_TOKEN_MAX + 2)

typedef struct cg_stemmer cg_stemmer;

/* NULL on allocation failure. */
cg_stemmer *cg_stemmer_new(void);
void cg_stemmer_free(cg_stemmer *s);

/* Writes the marked stem of folded token tok (CG_FORM_MARK, the stem, a
 * NUL) into out (CG_FORM_MAX bytes) and returns its length without the
 * NUL; 0 when the token has no forms. */
int cg_token_form(cg_stemmer *s, const char *tok, int ntok, char *out);

#endif
