/*
 * cghostile.h - a hostile HTTP client on raw sockets, for the gateway's
 * tests and benchmarks: connections from a chosen loopback source address
 * (127.0.0.2 binds on Linux without any set-up, so a test can be a "fresh
 * client" beside a flooding 127.0.0.1), raw request bytes sent exactly as
 * given (smuggling, duplicate headers, chunked bodies), and floods held by
 * a thread: idle connections that never send a byte, or slowloris
 * connections that trickle a header byte at a time.  A flood reconnects
 * every connection the server closes, as a real attacker does.
 *
 * It reports what happened and asserts nothing (no cmocka here), so that
 * benchmark tools link it too; tests assert on what it returns.  It talks
 * only to loopback addresses, every wait is bounded, and a flood stops by
 * itself at cgh_flood_stop.  Never linked into the product.
 */
#ifndef CG_HOSTILE_H
#define CG_HOSTILE_H

#include <stddef.h>

#include "common/cg_buf.h"

/* A blocking TCP connection to 127.0.0.1:port from the loopback address
 * src (NULL: the kernel's choice, 127.0.0.1); -1 when the address is not
 * a loopback one or the connection fails within ms. */
int cgh_dial(const char *src, int port, int ms);

/* Sends all of p; 0, or -1 when the peer closed or reset. */
int cgh_send_all(int fd, const void *p, size_t n);

/* Reads into out until EOF or reset (1) or until ms pass (0). */
int cgh_read_to_end(int fd, cg_buf *out, int ms);

/* The status of the first response in resp ("HTTP/1.x NNN"), 0 if none. */
int cgh_status(const char *resp);

/* How many responses (status lines at the start of a line) resp holds. */
int cgh_count_responses(const char *resp);

/*
 * Sends the raw bytes of one or more requests on a new connection from
 * src and reads until the server closes it or ms pass.  Returns the
 * status of the first response (0: none), -1 when the connection could
 * not be made; *closed (may be NULL) gets 1 when the server closed the
 * connection; resp (may be NULL) gets every byte read.
 */
int cgh_exchange(const char *src, int port, const void *raw, size_t len, int ms,
                 cg_buf *resp, int *closed);

/* GET path with Host 127.0.0.1:port and Connection: close from src: the
 * status, 0 when no response came within ms, -1 when no connection. */
int cgh_get(const char *src, int port, const char *path, int ms);

/* What a flood's connections do once connected. */
enum cgh_mode {
	CGH_IDLE,     /* send nothing */
	CGH_SLOWLORIS /* a request line, then a header byte per second */
};

typedef struct cgh_flood cgh_flood;

/* Starts a thread holding n connections from src to port (n <= 20,000;
 * the caller raises RLIMIT_NOFILE when needed).  Returns 0, or -1 when
 * the thread cannot start. */
int cgh_flood_start(cgh_flood **out, const char *src, int port, int n,
                    enum cgh_mode mode);

/* Connections open now, made in all, and closed by the server. */
long cgh_flood_open(const cgh_flood *f);
long cgh_flood_made(const cgh_flood *f);
long cgh_flood_cut(const cgh_flood *f);

/* Stops the thread, closes every connection, frees; NULL accepted. */
void cgh_flood_stop(cgh_flood *f);

#endif
