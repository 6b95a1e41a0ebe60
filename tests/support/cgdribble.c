/*
 * cgdribble.c - the trickling hostile node of cgdribble.h.  One thread:
 * accept a connection, exchange the SP handshake, read one request,
 * answer with a 1 MiB length and then the body in 64-byte writes with a
 * short pause between them, until the client closes (a write fails) or
 * cgd_stop; then the next connection (a client, cgd_client_start, does
 * the same to a node: a request it trickles).  Every socket call is bounded by
 * a poll of at most POLL_MS, so the thread sees the stop flag.  It must not
 * send a complete reply, block without a bound, or outlive cgd_stop.
 */
#define _GNU_SOURCE
#include "cgdribble.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS     50
#define REPLY_LEN   ((uint64_t)1 << 20)
#define CHUNK       64
#define PAUSE_NS    20000L
#define REQ0_PROTO  0x30 /* nng's REQ0 protocol number, 48 */
#define REP0_PROTO  0x31 /* nng's REP0 protocol number, 49 */
#define MAX_REQUEST (1 << 20)

struct cgd_dribble {
	int lfd;  /* the listener; -1 for a client */
	int port; /* a client's node */
	pthread_t thread;
	atomic_int stop;
	atomic_int requests;
	char url[64];
};

/* Waits until fd is ready for ev (POLLIN or POLLOUT) or POLL_MS pass:
 * 1 ready, 0 not yet, -1 error or hang-up. */
static int
ready(int fd, short ev)
{
	struct pollfd p = {fd, ev, 0};
	int n = poll(&p, 1, POLL_MS);

	if (n < 0 || (n > 0 && (p.revents & (POLLERR | POLLNVAL))))
		return -1;
	return n > 0 ? 1 : 0;
}

/* Reads exactly n bytes; 0, or -1 on end of file, error or stop. */
static int
read_all(struct cgd_dribble *d, int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n && !atomic_load(&d->stop)) {
		int r = ready(fd, POLLIN);
		ssize_t k;

		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		k = read(fd, (char *)buf + got, n - got);
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return got == n ? 0 : -1;
}

/* Writes all n bytes; 0, or -1 when the client went or on stop. */
static int
write_all(struct cgd_dribble *d, int fd, const void *buf, size_t n)
{
	size_t put = 0;

	while (put < n && !atomic_load(&d->stop)) {
		int r = ready(fd, POLLOUT);
		ssize_t k;

		if (r < 0)
			return -1;
		if (r == 0)
			continue;
		k = send(fd, (const char *)buf + put, n - put, MSG_NOSIGNAL);
		if (k <= 0)
			return -1;
		put += (size_t)k;
	}
	return put == n ? 0 : -1;
}

static void
put_be64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (56 - 8 * i));
}

/* Trickles the body of a REPLY_LEN message of which sent bytes are out,
 * all but its last chunk, then holds the connection until the peer goes
 * or stop. */
static void
trickle(struct cgd_dribble *d, int fd, uint64_t sent)
{
	char chunk[CHUNK];

	memset(chunk, '1', sizeof(chunk));
	for (; sent + CHUNK < REPLY_LEN; sent += CHUNK) {
		struct timespec ts = {0, PAUSE_NS};

		if (write_all(d, fd, chunk, sizeof(chunk)) != 0)
			return;
		(void)nanosleep(&ts, NULL);
	}
	while (!atomic_load(&d->stop)) {
		int r = ready(fd, POLLIN);

		if (r < 0 || (r > 0 && read(fd, chunk, sizeof(chunk)) <= 0))
			return;
	}
}

/* One connection: handshake, one request, a reply that never ends. */
static void
serve_conn(struct cgd_dribble *d, int fd)
{
	const unsigned char hello[8] = {0, 'S', 'P', 0, 0, REP0_PROTO, 0, 0};
	unsigned char peer[8];
	unsigned char len[8];
	unsigned char head[12];
	unsigned char id[4];
	char chunk[CHUNK];
	uint64_t n = 0;
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (write_all(d, fd, hello, sizeof(hello)) != 0 ||
	    read_all(d, fd, peer, sizeof(peer)) != 0 ||
	    read_all(d, fd, len, sizeof(len)) != 0)
		return;
	for (int i = 0; i < 8; i++)
		n = n << 8 | len[i];
	if (n < sizeof(id) || n > MAX_REQUEST ||
	    read_all(d, fd, id, sizeof(id)) != 0)
		return;
	for (n -= sizeof(id); n > 0; n -= n < CHUNK ? n : CHUNK)
		if (read_all(d, fd, chunk, n < CHUNK ? n : CHUNK) != 0)
			return;
	atomic_fetch_add(&d->requests, 1);
	/* The reply: its length, the request id back, then the trickle. */
	put_be64(head, REPLY_LEN);
	memcpy(head + 8, id, sizeof(id));
	if (write_all(d, fd, head, sizeof(head)) != 0)
		return;
	trickle(d, fd, sizeof(id));
}

static void *
serve(void *arg)
{
	struct cgd_dribble *d = arg;

	while (!atomic_load(&d->stop)) {
		int fd;

		if (ready(d->lfd, POLLIN) != 1)
			continue;
		fd = accept(d->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		serve_conn(d, fd);
		close(fd);
	}
	return NULL;
}

/* A connected, handshaken REQ peer of the node at port; -1 on failure. */
static int
dial_req(struct cgd_dribble *d, int port)
{
	const unsigned char hello[8] = {0, 'S', 'P', 0, 0, REQ0_PROTO, 0, 0};
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unsigned char peer[8];

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	int one = 1;

	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == 0 &&
	    write_all(d, fd, hello, sizeof(hello)) == 0 &&
	    read_all(d, fd, peer, sizeof(peer)) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* A client's connections, one after the other until stop: dial, the
 * handshake as a REQ peer, a request's length and id, the trickle. */
static void *
client(void *arg)
{
	struct cgd_dribble *d = arg;
	unsigned char head[12] = {0};

	put_be64(head, REPLY_LEN);
	head[8] = 0x80; /* a request id has its high bit set */
	head[11] = 1;
	while (!atomic_load(&d->stop)) {
		int fd = dial_req(d, d->port);

		if (fd >= 0 && write_all(d, fd, head, sizeof(head)) == 0) {
			atomic_fetch_add(&d->requests, 1);
			trickle(d, fd, 4);
		}
		if (fd >= 0)
			close(fd);
		if (!atomic_load(&d->stop)) {
			struct timespec ts = {0, 10000000L}; /* redial pause */

			(void)nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
cgd_send_huge(const char *url, uint64_t len, int wait_ms)
{
	struct cgd_dribble d = {.lfd = -1};
	const char *colon = strrchr(url, ':');
	int64_t until = mono_ms() + wait_ms;
	static char block[64 << 10];
	unsigned char head[12] = {0};
	uint64_t sent = 4;
	int fd;

	atomic_init(&d.stop, 0);
	if (colon == NULL || strncmp(url, "tcp://127.0.0.1:", 16) != 0 ||
	    (fd = dial_req(&d, atoi(colon + 1))) < 0)
		return -1;
	memset(block, ' ', sizeof(block));
	put_be64(head, len);
	head[8] = 0x80; /* a request id has its high bit set */
	head[11] = 1;
	if (write_all(&d, fd, head, sizeof(head)) != 0) {
		close(fd);
		return 0;
	}
	while (sent < len && mono_ms() < until) {
		size_t n = len - sent < sizeof(block) ? (size_t)(len - sent)
		                                      : sizeof(block);
		int r = ready(fd, POLLOUT);
		ssize_t k;

		if (r < 0)
			break;
		if (r == 0)
			continue;
		k = send(fd, block, n, MSG_NOSIGNAL);
		if (k <= 0)
			break;
		sent += (uint64_t)k;
	}
	close(fd);
	if (sent < len && mono_ms() >= until)
		return -1;
	return sent < len ? 0 : 1;
}

cgd_dribble *
cgd_client_start(const char *url)
{
	struct cgd_dribble *d = calloc(1, sizeof(*d));
	const char *colon = strrchr(url, ':');

	if (d == NULL)
		return NULL;
	d->lfd = -1;
	d->port = colon != NULL ? atoi(colon + 1) : 0;
	atomic_init(&d->stop, 0);
	atomic_init(&d->requests, 0);
	if (d->port <= 0 || strncmp(url, "tcp://127.0.0.1:", 16) != 0 ||
	    pthread_create(&d->thread, NULL, client, d) != 0) {
		free(d);
		return NULL;
	}
	return d;
}

cgd_dribble *
cgd_start(void)
{
	struct cgd_dribble *d = calloc(1, sizeof(*d));
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t sl = sizeof(sa);

	if (d == NULL)
		return NULL;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (d->lfd < 0 || bind(d->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(d->lfd, 16) ||
	    getsockname(d->lfd, (struct sockaddr *)&sa, &sl)) {
		if (d->lfd >= 0)
			close(d->lfd);
		free(d);
		return NULL;
	}
	(void)snprintf(d->url, sizeof(d->url), "tcp://127.0.0.1:%d",
	               ntohs(sa.sin_port));
	atomic_init(&d->stop, 0);
	atomic_init(&d->requests, 0);
	if (pthread_create(&d->thread, NULL, serve, d) != 0) {
		close(d->lfd);
		free(d);
		return NULL;
	}
	return d;
}

const char *
cgd_url(const cgd_dribble *d)
{
	return d->url;
}

int
cgd_requests(const cgd_dribble *d)
{
	return atomic_load(&d->requests);
}

void
cgd_stop(cgd_dribble *d)
{
	if (d == NULL)
		return;
	atomic_store(&d->stop, 1);
	pthread_join(d->thread, NULL);
	if (d->lfd >= 0)
		close(d->lfd);
	free(d);
}
