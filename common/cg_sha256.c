/*
 * cg_sha256.c - SHA-256 through OpenSSL's libcrypto (EVP_Digest), which
 * the process already loads for libcurl's TLS: no digest code of our own.
 * libgit2's hashing is SHA-1 only and libcurl exposes none, so libcrypto
 * is the one library here that gives SHA-256 cleanly.  Must not allocate
 * (beyond what EVP does inside the call) or do I/O.
 */
#include "common/cg_sha256.h"

#include <openssl/evp.h>
#include <string.h>

void
cg_sha256(const void *p, size_t n, uint8_t out[32])
{
	unsigned int len = 32;

	/* EVP_Digest fails only when libcrypto cannot allocate its context;
	 * a zeroed digest then matches no recorded hash, so a change is
	 * assumed (the page is written again), never missed. */
	if (EVP_Digest(p, n, out, &len, EVP_sha256(), NULL) != 1)
		memset(out, 0, 32);
}

void
cg_sha256_text(const void *p, size_t n, char out[CG_SHA256_TEXT])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t d[32];

	cg_sha256(p, n, d);
	memcpy(out, "sha256:", 7);
	for (int i = 0; i < 32; i++) {
		out[7 + 2 * i] = hex[d[i] >> 4];
		out[7 + 2 * i + 1] = hex[d[i] & 15];
	}
	out[71] = '\0';
}
