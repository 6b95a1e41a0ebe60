/*
 * cg_sha256.h - SHA-256 (FIPS 180-4) of a buffer, written as hiivmind
 * records content hashes ("sha256:<64 lowercase hex>"): the llms.txt
 * manifest's `last_hash` and the hashes corpus-gw keeps of fetched pages.
 * Change detection and interoperability, not a security boundary.
 * Computed by OpenSSL's libcrypto (cg_sha256.c).
 *
 * Must not: allocate, do I/O.
 *
 * May be included by any layer.
 */
#ifndef CG_SHA256_H
#define CG_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define CG_SHA256_TEXT 72 /* "sha256:" + 64 hex + NUL, rounded up */

/* The 32-byte digest of the n bytes at p. */
void cg_sha256(const void *p, size_t n, uint8_t out[32]);

/* "sha256:<hex>" of the n bytes at p, into out. */
void cg_sha256_text(const void *p, size_t n, char out[CG_SHA256_TEXT]);

#endif
