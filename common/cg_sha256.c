/*
 * cg_sha256.c - SHA-256 through OpenSSL's libcrypto, which the process
 * already loads for libcurl's TLS: no digest code of our own.  libgit2's
 * hashing is SHA-1 only and libcurl exposes none, so libcrypto is the one
 * library here that gives SHA-256 cleanly.  Must not allocate or do I/O.
 *
 * Through SHA256_Init/Update/Final, not EVP_Digest: the EVP interface of
 * OpenSSL 3 initialises the library on first use (reads openssl.cnf,
 * loads the default provider), 1-4 ms of CPU on this 2-core VM that every
 * CLI command paid for one digest (the local socket's name,
 * gateway/local.c).  The low-level functions hash in place, without that
 * initialisation; deprecated in OpenSSL 3.0 but kept (and Debian 12's
 * libcrypto has them), hence OPENSSL_SUPPRESS_DEPRECATED.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "common/cg_sha256.h"

#include <openssl/sha.h>
#include <string.h>

void
cg_sha256(const void *p, size_t n, uint8_t out[32])
{
	SHA256_CTX c;

	/* The low-level calls fail only on a NULL context; a zeroed digest
	 * then matches no recorded hash, so a change is assumed (the page is
	 * written again), never missed. */
	if (SHA256_Init(&c) != 1 || SHA256_Update(&c, p, n) != 1 ||
	    SHA256_Final(out, &c) != 1)
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
