/*
 * token.c - the project tokenizer: splits UTF-8 text into folded Latin-style
 * words, single CJK characters and single grapheme clusters of the scripts
 * written without spaces (Thai, Lao, Khmer, Myanmar, ...), and exposes the
 * same walk to SQLite as the FTS5 tokenizer "cgw", so the index and the
 * query parser cannot disagree.
 *
 * It decodes with cg_utf8_decode only, writes each word into a fixed stack
 * buffer (no allocation per token), and never changes the text it is given.
 * Folding outside its own small tables is libutf8proc's, and word forms are
 * libstemmer's (cg_token_form), and grapheme clusters and their
 * normalisation are libutf8proc's too; it must not grow language knowledge
 * of its own: no hand-written stemming rules, no dictionary segmentation,
 * no hand-written cluster rules (only the list of script blocks).
 */
#include "page/token.h"

#include <libstemmer.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "common/cg_err.h"
#include "common/cg_utf8.h"

/* What a code point does to the token stream. */
enum cls {
	CLS_SEP,     /* ends the word in progress */
	CLS_WORD,    /* part of a folded word */
	CLS_CJK,     /* a token of its own, emitted as is */
	CLS_CLUSTER, /* starts a grapheme cluster that is a token of its own */
};

/* A closed range of code points. */
struct cp_range {
	uint32_t lo; /* first code point */
	uint32_t hi; /* last code point, inclusive */
};

/* Non-ASCII code points that separate words, sorted.  CJK characters are
 * tested first, so U+3005 and U+3007 escape the U+3000 block. */
static const struct cp_range sep_ranges[] = {
    {0x0080, 0x00A9},   /* C1 controls, NBSP, Latin-1 punctuation, but */
    {0x00AB, 0x00B4},   /* not U+00AA, U+00B5, U+00BA (letters) */
    {0x00B6, 0x00B9},   /* pilcrow .. superscript one */
    {0x00BB, 0x00BF},   /* right guillemet .. inverted question mark */
    {0x00D7, 0x00D7},   /* multiplication sign */
    {0x00F7, 0x00F7},   /* division sign */
    {0x037E, 0x037E},   /* Greek question mark */
    {0x0387, 0x0387},   /* Greek ano teleia */
    {0x2000, 0x206F},   /* general punctuation, spaces */
    {0x2190, 0x2BFF},   /* arrows, math, box drawing, shapes, dingbats */
    {0x2E00, 0x2E7F},   /* supplemental punctuation */
    {0x3000, 0x303F},   /* CJK symbols and punctuation */
    {0xE000, 0xF8FF},   /* private use */
    {0xFE10, 0xFE1F},   /* vertical forms */
    {0xFE30, 0xFE6F},   /* CJK compatibility forms, small form variants */
    {0xFEFF, 0xFEFF},   /* byte order mark */
    {0xFF00, 0xFF0F},   /* fullwidth punctuation ... */
    {0xFF1A, 0xFF20},   /* ... fullwidth : to @ */
    {0xFF3B, 0xFF40},   /* ... fullwidth [ to ` */
    {0xFF5B, 0xFF65},   /* ... fullwidth { to halfwidth middle dot */
    {0xFFF0, 0xFFFF},   /* specials */
    {0x1F000, 0x1FAFF}, /* emoji, symbols, game pieces */
};

/* Code points indexed one character per token. */
static const struct cp_range cjk_ranges[] = {
    {0x1100, 0x11FF},   /* Hangul jamo */
    {0x3005, 0x3005},   /* 々 iteration mark */
    {0x3007, 0x3007},   /* 〇 */
    {0x3040, 0x309F},   /* Hiragana */
    {0x30A0, 0x30FF},   /* Katakana */
    {0x3130, 0x318F},   /* Hangul compatibility jamo */
    {0x31F0, 0x31FF},   /* Katakana phonetic extensions */
    {0x3400, 0x4DBF},   /* Han extension A */
    {0x4E00, 0x9FFF},   /* Han unified */
    {0xAC00, 0xD7AF},   /* Hangul syllables */
    {0xF900, 0xFAFF},   /* Han compatibility */
    {0xFF66, 0xFF9F},   /* halfwidth Katakana */
    {0x20000, 0x2FFFF}, /* Han extensions B and later */
};

/* Blocks of the scripts written without spaces between words whose unit
 * is the grapheme cluster (Unicode line-break class SA, "South East
 * Asian"): their letters, marks and digits form clusters; their
 * punctuation and symbols separate (by general category, utf8proc's). */
static const struct cp_range cluster_ranges[] = {
    {0x0E00, 0x0E7F},   /* Thai */
    {0x0E80, 0x0EFF},   /* Lao */
    {0x1000, 0x109F},   /* Myanmar */
    {0x1780, 0x17FF},   /* Khmer */
    {0x1950, 0x197F},   /* Tai Le */
    {0x1980, 0x19DF},   /* New Tai Lue */
    {0x19E0, 0x19FF},   /* Khmer symbols */
    {0x1A20, 0x1AAF},   /* Tai Tham */
    {0xA9E0, 0xA9FF},   /* Myanmar extended-B */
    {0xAA60, 0xAA7F},   /* Myanmar extended-A */
    {0xAA80, 0xAADF},   /* Tai Viet */
    {0x11700, 0x1174F}, /* Ahom */
};

/*
 * Folding of U+00C0..U+024F, one character per code point, 16 per row:
 * a lowercase letter is the base letter; '.' keeps the letter (only
 * lowercased, see latin_lower());
 * '_' marks a separator (never reached, sep_ranges catches it first); an
 * uppercase letter is a two-letter expansion, see latin_pair().
 */
static const char latin_fold[] = "aaaaaaAceeeeiiii"  /* 00C0 */
                                 "dnooooo_ouuuuyTS"  /* 00D0 */
                                 "aaaaaaAceeeeiiii"  /* 00E0 */
                                 "dnooooo_ouuuuyTy"  /* 00F0 */
                                 "aaaaaaccccccccdd"  /* 0100 */
                                 "ddeeeeeeeeeegggg"  /* 0110 */
                                 "gggghhhhiiiiiiii"  /* 0120 */
                                 "iiIIjjkkklllllll"  /* 0130 */
                                 "lllnnnnnnnnnoooo"  /* 0140 */
                                 "ooOOrrrrrrssssss"  /* 0150 */
                                 "ssttttttuuuuuuuu"  /* 0160 */
                                 "uuuuwwyyyzzzzzzs"  /* 0170 */
                                 "bbbb..occdddd.ee"  /* 0180 */
                                 "effg.Hiikkl.mnno"  /* 0190 */
                                 "ooQQppr....ttttu"  /* 01A0 */
                                 "uuvyyzz........."  /* 01B0 */
                                 "....DDDLLLNNNaai"  /* 01C0 */
                                 "ioouuuuuuuuuueaa"  /* 01D0 */
                                 "aaAAggggkkoooo.."  /* 01E0 */
                                 "jDDDggH.nnaaAAoo"  /* 01F0 */
                                 "aaaaeeeeiiiioooo"  /* 0200 */
                                 "rrrruuuusstt..hh"  /* 0210 */
                                 "ndUUzzaaeeoooooo"  /* 0220 */
                                 "ooyylntjBPacclts"  /* 0230 */
                                 "z..buveejjqqrryy"; /* 0240 */

_Static_assert(sizeof(latin_fold) == 0x250 - 0xC0 + 1,
               "latin_fold covers U+00C0..U+024F");

/* The two-letter expansions used in latin_fold: code pair_codes[i] stands
 * for pair_text[i]. */
static const char pair_codes[] = "ABDHILNOPQSTU";
static const char pair_text[][3] = {"ae", "db", "dz", "hv", "ij", "lj", "nj",
                                    "oe", "qp", "oi", "ss", "th", "ou"};

_Static_assert(sizeof(pair_text) / sizeof(pair_text[0]) ==
                   sizeof(pair_codes) - 1,
               "one expansion per code");

static const char *
latin_pair(char code)
{
	const char *at = code != '\0' ? strchr(pair_codes, code) : NULL;

	return at != NULL ? pair_text[at - pair_codes] : NULL;
}

/* Lowercase of the '.' (kept) letters of latin_fold that have one. */
static uint32_t
latin_lower(uint32_t cp)
{
	switch (cp) {
	case 0x0184:
	case 0x01A7:
	case 0x01B8:
	case 0x01BC:
	case 0x01EE:
	case 0x021C:
	case 0x0241:
		return cp + 1;
	case 0x0194:
		return 0x0263; /* gamma */
	case 0x01A9:
		return 0x0283; /* esh */
	case 0x01B7:
		return 0x0292; /* ezh */
	case 0x01F7:
		return 0x01BF; /* wynn */
	default:
		return cp;
	}
}

static bool
in_ranges(uint32_t cp, const struct cp_range *r, size_t n)
{
	for (size_t i = 0; i < n && cp >= r[i].lo; i++)
		if (cp <= r[i].hi)
			return true;
	return false;
}

bool
cg_token_is_cjk(uint32_t cp)
{
	if (cp < 0x1100)
		return false;
	return in_ranges(cp, cjk_ranges,
	                 sizeof(cjk_ranges) / sizeof(cjk_ranges[0]));
}

bool
cg_token_is_cluster(uint32_t cp)
{
	if (cp < 0x0E00)
		return false;
	return in_ranges(cp, cluster_ranges,
	                 sizeof(cluster_ranges) / sizeof(cluster_ranges[0]));
}

enum cg_unit
cg_token_unit(const char *tok, int ntok)
{
	uint32_t cp = 0;
	int bc;

	if (ntok < 1 ||
	    cg_utf8_decode((const unsigned char *)tok, (size_t)ntok, &cp) ==
	        0 ||
	    !cg_token_is_cluster(cp))
		return CG_UNIT_OTHER;
	/* A cluster UAX #29 would have joined to the character before it
	 * (Myanmar's tall AA and visarga are clusters of their own). */
	bc = utf8proc_get_property((utf8proc_int32_t)cp)->boundclass;
	return bc == UTF8PROC_BOUNDCLASS_EXTEND ||
	               bc == UTF8PROC_BOUNDCLASS_SPACINGMARK ||
	               bc == UTF8PROC_BOUNDCLASS_ZWJ
	           ? CG_UNIT_MARKS
	           : CG_UNIT_CLUSTER;
}

/* True for a punctuation, symbol, separator or control code point. */
static bool
is_punct_or_symbol(uint32_t cp)
{
	switch (utf8proc_category((utf8proc_int32_t)cp)) {
	case UTF8PROC_CATEGORY_LU:
	case UTF8PROC_CATEGORY_LL:
	case UTF8PROC_CATEGORY_LT:
	case UTF8PROC_CATEGORY_LM:
	case UTF8PROC_CATEGORY_LO:
	case UTF8PROC_CATEGORY_MN:
	case UTF8PROC_CATEGORY_MC:
	case UTF8PROC_CATEGORY_ME:
	case UTF8PROC_CATEGORY_ND:
	case UTF8PROC_CATEGORY_NL:
	case UTF8PROC_CATEGORY_NO:
		return false;
	default:
		return true;
	}
}

static bool
is_ascii_alnum(uint32_t cp)
{
	return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') ||
	       (cp >= 'A' && cp <= 'Z');
}

/* Classifies cp, which has already gone through fullwidth_to_ascii(). */
static enum cls
classify(uint32_t cp)
{
	if (cp < 0x80)
		return is_ascii_alnum(cp) ? CLS_WORD : CLS_SEP;
	if (cg_token_is_cjk(cp))
		return CLS_CJK;
	if (cg_token_is_cluster(cp))
		return is_punct_or_symbol(cp) ? CLS_SEP : CLS_CLUSTER;
	if (in_ranges(cp, sep_ranges,
	              sizeof(sep_ranges) / sizeof(sep_ranges[0])))
		return CLS_SEP;
	return CLS_WORD;
}

static uint32_t
fullwidth_to_ascii(uint32_t cp)
{
	if (cp >= 0xFF01 && cp <= 0xFF5E)
		return cp - 0xFEE0;
	return cp;
}

/* Lowercases Greek and strips its tonos and dialytika. */
static uint32_t
fold_greek(uint32_t cp)
{
	switch (cp) {
	case 0x0386:
	case 0x03AC:
		return 0x03B1; /* alpha */
	case 0x0388:
	case 0x03AD:
		return 0x03B5; /* epsilon */
	case 0x0389:
	case 0x03AE:
		return 0x03B7; /* eta */
	case 0x038A:
	case 0x0390:
	case 0x03AA:
	case 0x03AF:
	case 0x03CA:
		return 0x03B9; /* iota */
	case 0x038C:
	case 0x03CC:
		return 0x03BF; /* omicron */
	case 0x038E:
	case 0x03AB:
	case 0x03B0:
	case 0x03CB:
	case 0x03CD:
		return 0x03C5; /* upsilon */
	case 0x038F:
	case 0x03CE:
		return 0x03C9; /* omega */
	case 0x03C2:
		return 0x03C3; /* final sigma */
	default:
		break;
	}
	if (cp >= 0x0391 && cp <= 0x03A9 && cp != 0x03A2)
		return cp + 0x20;
	return cp;
}

/* Lowercases basic Cyrillic; ё and Ё fold to е as Russian search expects. */
static uint32_t
fold_cyrillic(uint32_t cp)
{
	if (cp == 0x0401 || cp == 0x0451)
		return 0x0435;
	if (cp >= 0x0410 && cp <= 0x042F)
		return cp + 0x20;
	if (cp >= 0x0400 && cp <= 0x040F)
		return cp + 0x50;
	return cp;
}

/* Room fold() may use: the longest compatibility decomposition
 * (U+FDFA, 18 code points) fits. */
#define FOLD_MAX 80

/* libutf8proc's fold of cp: compatibility decomposition, case fold, marks
 * stripped; only the word characters of the result are kept. */
static int
fold_utf8proc(uint32_t cp, char *out)
{
	utf8proc_int32_t d[20];
	utf8proc_ssize_t n =
	    utf8proc_decompose_char((utf8proc_int32_t)cp, d, 20,
	                            UTF8PROC_COMPAT | UTF8PROC_CASEFOLD |
	                                UTF8PROC_STRIPMARK | UTF8PROC_DECOMPOSE,
	                            NULL);
	int len = 0;

	if (n < 0 || n > 20)
		return cg_utf8_encode(cp, out);
	for (utf8proc_ssize_t i = 0; i < n; i++) {
		uint32_t c = (uint32_t)d[i];

		if (c < 0x80 && c >= 'A' && c <= 'Z')
			c += 32;
		if (classify(c) == CLS_WORD && len + 4 <= FOLD_MAX - 4)
			len += cg_utf8_encode(c, out + len);
	}
	return len;
}

/*
 * Writes the folded form of word character cp into out (FOLD_MAX bytes of
 * room) and returns its length; 0 for a combining mark, which folds away.
 */
static int
fold(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
		return 1;
	}
	if (cp >= 0xC0 && cp <= 0x24F) {
		char c = latin_fold[cp - 0xC0];
		const char *pair = latin_pair(c);

		if (pair != NULL) {
			memcpy(out, pair, 2);
			return 2;
		}
		if (c >= 'a' && c <= 'z') {
			out[0] = c;
			return 1;
		}
		return cg_utf8_encode(latin_lower(cp), out);
	}
	if (cp >= 0x0300 && cp <= 0x036F)
		return 0;
	if (cp >= 0x0370 && cp <= 0x03FF)
		return cg_utf8_encode(fold_greek(cp), out);
	if (cp >= 0x0400 && cp <= 0x045F)
		return cg_utf8_encode(fold_cyrillic(cp), out);
	return fold_utf8proc(cp, out);
}

/* State of one walk over a text. */
struct walk {
	cg_token_cb cb;          /* the caller's callback */
	void *ctx;               /* its context */
	char word[CG_TOKEN_MAX]; /* the folded word in progress */
	int len;                 /* bytes used in word */
	int start;               /* byte offset where the word began */
	int end;                 /* byte offset just past its last character */
	bool in_word;            /* a word is in progress */
	bool full;               /* word is full; the rest is skipped */
};

/* Emits the word in progress, if it folded to anything. */
static int
flush_word(struct walk *w)
{
	int rc = 0;

	if (w->in_word && w->len > 0)
		rc = w->cb(w->ctx, w->word, w->len, w->start, w->end, false);
	w->in_word = false;
	return rc;
}

static void
add_to_word(struct walk *w, uint32_t cp, int at, int clen)
{
	char f[FOLD_MAX];
	int k;

	if (!w->in_word) {
		w->in_word = true;
		w->full = false;
		w->len = 0;
		w->start = at;
	}
	w->end = at + clen;
	if (w->full)
		return;
	k = fold(cp, f);
	if (w->len + k > CG_TOKEN_MAX) {
		w->full = true;
		return;
	}
	memcpy(w->word + w->len, f, (size_t)k);
	w->len += k;
}

static bool
is_word_byte_at(const unsigned char *u, int i, int n)
{
	uint32_t cp = 0;
	int clen;

	if (i >= n)
		return false;
	clen = cg_utf8_decode(u + i, (size_t)(n - i), &cp);
	return clen > 0 && classify(fullwidth_to_ascii(cp)) == CLS_WORD;
}

/* Bytes to skip at u[i] == '[' or ']' of a mnemonic bracket group:
 * "[" 1-3 ASCII letters or digits "]" followed by a word character. */
static int
bracket_skip(const unsigned char *u, int i, int n, bool *in_group)
{
	int k = 1;

	if (u[i] == ']' && *in_group) {
		*in_group = false;
		return 1;
	}
	if (u[i] != '[')
		return 0;
	while (k <= 3 && i + k < n && is_ascii_alnum(u[i + k]))
		k++;
	if (k == 1 || i + k >= n || u[i + k] != ']' ||
	    !is_word_byte_at(u, i + k + 1, n))
		return 0;
	*in_group = true;
	return 1;
}

/* Code points a cluster token is normalised in; a longer cluster is
 * emitted as its bytes, cut at CG_TOKEN_MAX. */
#define CLUSTER_CP_MAX CG_TOKEN_MAX

/* The end of the grapheme cluster starting at u[i] (utf8proc's extended
 * grapheme clusters, UAX #29): a cluster is never split. */
static int
cluster_end(const unsigned char *u, int i, int n)
{
	utf8proc_int32_t state = 0;
	uint32_t prev = 0;
	int j = i + cg_utf8_decode(u + i, (size_t)(n - i), &prev);

	while (j < n) {
		uint32_t cp = 0;
		int clen = cg_utf8_decode(u + j, (size_t)(n - j), &cp);

		if (clen == 0 ||
		    utf8proc_grapheme_break_stateful(
		        (utf8proc_int32_t)prev, (utf8proc_int32_t)cp, &state))
			break;
		prev = cp;
		j += clen;
	}
	return j;
}

bool
cg_token_joins(const char *text, size_t at, size_t n)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t from = at;
	uint32_t prev = 0;
	uint32_t cp = 0;

	if (at == 0 || at >= n)
		return false;
	while (from > 0 && (u[from - 1] & 0xC0) == 0x80 && at - from < 3)
		from--;
	if (from == 0 ||
	    cg_utf8_decode(u + from - 1, n - from + 1, &prev) !=
	        (int)(at - from + 1) ||
	    cg_utf8_decode(u + at, n - at, &cp) == 0)
		return false;
	return !utf8proc_grapheme_break((utf8proc_int32_t)prev,
	                                (utf8proc_int32_t)cp);
}

int
cg_token_tail(const char *tok, int ntok, int k, char *out)
{
	const unsigned char *u = (const unsigned char *)tok;
	int at = 0;

	if (k < 1 || cg_token_unit(tok, ntok) != CG_UNIT_CLUSTER)
		return 0;
	for (int i = 0; i < k && at < ntok; i++) {
		uint32_t cp = 0;
		int clen = cg_utf8_decode(u + at, (size_t)(ntok - at), &cp);

		if (clen == 0)
			return 0;
		at += clen;
	}
	if (at >= ntok || ntok - at + 1 > CG_TOKEN_MAX + 1)
		return 0;
	out[0] = CG_TAIL_MARK;
	memcpy(out + 1, tok + at, (size_t)(ntok - at));
	return ntok - at + 1;
}

/* Cuts a UTF-8 string of len bytes to at most CG_TOKEN_MAX bytes at a
 * code point boundary. */
static int
cut_utf8(const char *s, int len)
{
	if (len <= CG_TOKEN_MAX)
		return len;
	len = CG_TOKEN_MAX;
	while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
		len--;
	return len;
}

/* Emits the cluster text[i, j) as one token: canonically composed and
 * ordered (NFC, so the tone mark and the vowel mark of a Thai syllable
 * typed in either order are the same token), default-ignorable code
 * points (ZWJ, ZWNJ, ZWSP) dropped. */
static int
emit_cluster(const char *text, int i, int j, cg_token_cb cb, void *ctx)
{
	utf8proc_int32_t buf[CLUSTER_CP_MAX + 1];
	utf8proc_ssize_t n = -1;
	int len;

	if (j - i <= CLUSTER_CP_MAX)
		n = utf8proc_decompose((const utf8proc_uint8_t *)text + i,
		                       j - i, buf, CLUSTER_CP_MAX,
		                       UTF8PROC_STABLE | UTF8PROC_DECOMPOSE |
		                           UTF8PROC_IGNORE);
	if (n > 0 && n <= CLUSTER_CP_MAX)
		n = utf8proc_reencode(buf, n,
		                      UTF8PROC_STABLE | UTF8PROC_COMPOSE);
	if (n <= 0 || n > (utf8proc_ssize_t)sizeof(buf) - 1) {
		/* Longer than CLUSTER_CP_MAX: its bytes, cut. */
		len = cut_utf8(text + i, j - i);
		return len > 0 ? cb(ctx, text + i, len, i, j, true) : 0;
	}
	len = cut_utf8((const char *)buf, (int)n);
	return cb(ctx, (const char *)buf, len, i, j, true);
}

int
cg_token_each(const char *text, int n, cg_token_cb cb, void *ctx)
{
	const unsigned char *u = (const unsigned char *)text;
	struct walk w = {.cb = cb, .ctx = ctx};
	bool group = false;
	int i = 0;
	int rc;

	while (i < n) {
		uint32_t cp = 0;
		int clen = bracket_skip(u, i, n, &group);
		enum cls c = CLS_SEP;

		if (clen > 0) {
			i += clen; /* a mnemonic bracket: not a separator */
			continue;
		}
		clen = cg_utf8_decode(u + i, (size_t)(n - i), &cp);

		if (clen == 0) {
			clen = 1; /* an invalid byte separates */
		} else {
			cp = fullwidth_to_ascii(cp);
			c = classify(cp);
		}
		if (c == CLS_WORD) {
			add_to_word(&w, cp, i, clen);
			i += clen;
			continue;
		}
		rc = flush_word(&w);
		if (rc == 0 && c == CLS_CLUSTER) {
			int j = cluster_end(u, i, n);

			rc = emit_cluster(text, i, j, cb, ctx);
			clen = j - i;
		} else if (rc == 0 && c == CLS_CJK) {
			rc = cb(ctx, text + i, clen, i, i + clen, true);
		}
		if (rc != 0)
			return rc;
		i += clen;
	}
	return flush_word(&w);
}

/* --- word forms ---------------------------------------------------------- */

struct cg_stemmer {
	struct sb_stemmer *sb; /* Snowball "english", UTF-8 */
};

cg_stemmer *
cg_stemmer_new(void)
{
	cg_stemmer *s = malloc(sizeof(*s));

	if (s == NULL)
		return NULL;
	s->sb = sb_stemmer_new("english", NULL);
	if (s->sb == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

void
cg_stemmer_free(cg_stemmer *s)
{
	if (s == NULL)
		return;
	sb_stemmer_delete(s->sb);
	free(s);
}

/* Words of 3-40 lowercase ASCII letters have forms. */
#define FORM_MIN 3
#define FORM_MAX 40

int
cg_token_form(cg_stemmer *s, const char *tok, int ntok, char *out)
{
	const sb_symbol *st;
	int len;

	if (s == NULL || ntok < FORM_MIN || ntok > FORM_MAX)
		return 0;
	for (int i = 0; i < ntok; i++)
		if (tok[i] < 'a' || tok[i] > 'z')
			return 0;
	st = sb_stemmer_stem(s->sb, (const sb_symbol *)tok, ntok);
	len = st != NULL ? sb_stemmer_length(s->sb) : 0;
	if (len <= 0 || len > CG_FORM_MAX - 2)
		return 0;
	out[0] = CG_FORM_MARK;
	memcpy(out + 1, st, (size_t)len);
	out[len + 1] = '\0';
	return len + 1;
}
