/*
 * framing.h - the framing of an HTTP/1.1 request as RFC 9112 section 6
 * wants it checked, on its headers alone, before any body byte is read.
 * libmicrohttpd 0.9.75 reads a request with both Content-Length and
 * Transfer-Encoding by the chunked coding and keeps the connection, so a
 * request smuggled behind the chunked end (read as body by a proxy that
 * trusts Content-Length) is answered; and it takes the first of two
 * different Content-Length values.  Refused here:
 *   Content-Length and Transfer-Encoding together      400
 *   Content-Length values that differ                  400
 *   a transfer coding other than a lone "chunked"      501
 * Each refusal is answered with "Connection: close", and the connection
 * closes after it, so nothing behind it is ever read as a request.
 *
 * It must not judge anything but the framing (routes, methods and sizes
 * are http.c's).
 *
 * May be included by gateway/ only.
 */
#ifndef CG_FRAMING_H
#define CG_FRAMING_H

#include <microhttpd.h>

/* 0 when the framing is sound; else 1, with a refusal queued on c (its
 * queueing result in *ok). */
int cg_framing_check(struct MHD_Connection *c, enum MHD_Result *ok);

#endif
