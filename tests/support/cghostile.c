/*
 * cghostile.c - the hostile HTTP client (cghostile.h): blocking raw
 * exchanges for single requests, and a flood thread that keeps n
 * non-blocking connections open with one poll() over all of them.  A
 * flood reopens at most RECONNECTS_PER_PASS closed connections per pass,
 * so an attacker that is refused at once does not spin a core of this
 * shared machine.  Its sockets close with SO_LINGER 0 (a reset), so
 * thousands of them leave no TIME_WAIT behind on the client side.  It must
 * not assert (benchmark tools link it) and must talk only to loopback.
 */
#define _GNU_SOURCE
#include "cghostile.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PASS_MS             100
#define TRICKLE_MS          1000
#define RECONNECTS_PER_PASS 256
#define MAX_FLOOD           20000

enum slot_state { FREE, CONNECTING, OPEN };

struct cgh_flood {
	pthread_t thread;
	atomic_int stop;
	atomic_long open;
	atomic_long made;
	atomic_long cut;
	struct sockaddr_in src;
	int port;
	int n;
	enum cgh_mode mode;
	int *fd;                /* per slot, -1 when FREE */
	enum slot_state *state; /* per slot */
	struct pollfd *pf;      /* scratch for poll, one per slot */
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* src as a loopback sockaddr (NULL: 127.0.0.1); -1 when not loopback. */
static int
loopback_addr(const char *src, int port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, src ? src : "127.0.0.1", &sa->sin_addr) != 1)
		return -1;
	return (ntohl(sa->sin_addr.s_addr) >> 24) == 127 ? 0 : -1;
}

/* A non-blocking socket bound to src and connecting to the server;
 * -1 on failure.  *done is 1 when connected already. */
static int
open_nb(const struct sockaddr_in *src, int port, int *done)
{
	struct sockaddr_in to;
	struct linger lg = {1, 0};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	(void)loopback_addr(NULL, port, &to);
	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	if (bind(fd, (const struct sockaddr *)src, sizeof(*src)) != 0) {
		close(fd);
		return -1;
	}
	*done = connect(fd, (struct sockaddr *)&to, sizeof(to)) == 0;
	if (!*done && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* 0 when the non-blocking connect on fd succeeded. */
static int
connect_error(int fd)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0)
		return -1;
	return e;
}

int
cgh_dial(const char *src, int port, int ms)
{
	struct sockaddr_in sa;
	struct pollfd pf;
	int done = 0;
	int fd;

	if (loopback_addr(src, 0, &sa) != 0)
		return -1;
	fd = open_nb(&sa, port, &done);
	if (fd < 0)
		return -1;
	pf = (struct pollfd){fd, POLLOUT, 0};
	if (!done && (poll(&pf, 1, ms) != 1 || connect_error(fd) != 0)) {
		close(fd);
		return -1;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int
cgh_send_all(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n > 0) {
		ssize_t k = send(fd, s, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

int
cgh_read_to_end(int fd, cg_buf *out, int ms)
{
	int64_t deadline = now_ms() + ms;
	char buf[16384];

	for (;;) {
		struct pollfd pf = {fd, POLLIN, 0};
		int64_t left = deadline - now_ms();
		ssize_t k;

		if (left <= 0)
			return 0;
		if (poll(&pf, 1, (int)left) <= 0)
			continue;
		k = recv(fd, buf, sizeof(buf), 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return 1;
		(void)cg_buf_append(out, buf, (size_t)k);
	}
}

int
cgh_status(const char *resp)
{
	int st = 0;

	if (resp == NULL || sscanf(resp, "HTTP/1.%*d %d", &st) != 1)
		return 0;
	return st;
}

int
cgh_count_responses(const char *resp)
{
	int n = 0;

	for (const char *p = resp; p != NULL && *p != '\0'; p++)
		if ((p == resp || p[-1] == '\n') &&
		    strncmp(p, "HTTP/1.", 7) == 0)
			n++;
	return n;
}

int
cgh_exchange(const char *src, int port, const void *raw, size_t len, int ms,
             cg_buf *resp, int *closed)
{
	int fd = cgh_dial(src, port, ms);
	cg_buf b;
	int st;
	int eof;

	if (closed != NULL)
		*closed = 0;
	if (fd < 0)
		return -1;
	cg_buf_init(&b, 64u << 20);
	/* A server that refuses early may close before all is sent: what it
	 * answered is still read below. */
	(void)cgh_send_all(fd, raw, len);
	eof = cgh_read_to_end(fd, &b, ms);
	close(fd);
	st = cgh_status(cg_buf_str(&b));
	if (closed != NULL)
		*closed = eof;
	if (resp != NULL)
		(void)cg_buf_append(resp, b.data, b.len);
	cg_buf_fini(&b);
	return st;
}

int
cgh_get(const char *src, int port, const char *path, int ms)
{
	char raw[512];
	int n = snprintf(raw, sizeof(raw),
	                 "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	                 "Connection: close\r\n\r\n",
	                 path, port);

	if (n < 0 || (size_t)n >= sizeof(raw))
		return -1;
	return cgh_exchange(src, port, raw, (size_t)n, ms, NULL, NULL);
}

/* --- the flood ------------------------------------------------------------
 */

static void
slot_close(cgh_flood *f, int i, int by_server)
{
	if (f->state[i] == OPEN) {
		atomic_fetch_sub(&f->open, 1);
		if (by_server)
			atomic_fetch_add(&f->cut, 1);
	}
	close(f->fd[i]);
	f->fd[i] = -1;
	f->state[i] = FREE;
}

/* Connected: a slowloris sends its request line (never the blank line
 * that would end the headers). */
static void
slot_opened(cgh_flood *f, int i)
{
	char head[128];
	int n;

	f->state[i] = OPEN;
	atomic_fetch_add(&f->made, 1);
	atomic_fetch_add(&f->open, 1);
	if (f->mode != CGH_SLOWLORIS)
		return;
	n = snprintf(
	    head, sizeof(head),
	    "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: ", f->port);
	if (send(f->fd[i], head, (size_t)n, MSG_NOSIGNAL) != n)
		slot_close(f, i, 1);
}

/* Opens up to RECONNECTS_PER_PASS free slots. */
static void
refill(cgh_flood *f)
{
	int budget = RECONNECTS_PER_PASS;
	int done = 0;

	for (int i = 0; i < f->n && budget > 0; i++) {
		if (f->state[i] != FREE)
			continue;
		budget--;
		f->fd[i] = open_nb(&f->src, f->port, &done);
		if (f->fd[i] < 0)
			continue;
		f->state[i] = CONNECTING;
		if (done)
			slot_opened(f, i);
	}
}

/* One poll over every slot: finished connects, server closes. */
static void
watch(cgh_flood *f)
{
	char buf[512];

	for (int i = 0; i < f->n; i++) {
		f->pf[i].fd = f->fd[i];
		f->pf[i].events = f->state[i] == CONNECTING ? POLLOUT : POLLIN;
		f->pf[i].revents = 0;
	}
	if (poll(f->pf, (nfds_t)f->n, PASS_MS) <= 0)
		return;
	for (int i = 0; i < f->n; i++) {
		if (f->fd[i] < 0 || f->pf[i].revents == 0)
			continue;
		if (f->state[i] == CONNECTING) {
			if (connect_error(f->fd[i]) == 0)
				slot_opened(f, i);
			else
				slot_close(f, i, 0);
			continue;
		}
		/* Any answer (a 408, a 503) or EOF ends this connection. */
		(void)recv(f->fd[i], buf, sizeof(buf), MSG_DONTWAIT);
		slot_close(f, i, 1);
	}
}

/* A slowloris sends one more header byte on every open connection. */
static void
trickle(cgh_flood *f)
{
	for (int i = 0; i < f->n; i++)
		if (f->state[i] == OPEN &&
		    send(f->fd[i], "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
		    errno != EAGAIN)
			slot_close(f, i, 1);
}

static void *
flood_main(void *arg)
{
	cgh_flood *f = arg;
	int64_t next_trickle = now_ms() + TRICKLE_MS;

	while (!atomic_load(&f->stop)) {
		refill(f);
		watch(f);
		if (f->mode == CGH_SLOWLORIS && now_ms() >= next_trickle) {
			trickle(f);
			next_trickle = now_ms() + TRICKLE_MS;
		}
	}
	for (int i = 0; i < f->n; i++)
		if (f->fd[i] >= 0)
			slot_close(f, i, 0);
	return NULL;
}

static void
flood_free(cgh_flood *f)
{
	free(f->fd);
	free(f->state);
	free(f->pf);
	free(f);
}

int
cgh_flood_start(cgh_flood **out, const char *src, int port, int n,
                enum cgh_mode mode)
{
	cgh_flood *f;

	*out = NULL;
	if (n <= 0 || n > MAX_FLOOD)
		return -1;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return -1;
	f->fd = malloc((size_t)n * sizeof(*f->fd));
	f->state = calloc((size_t)n, sizeof(*f->state));
	f->pf = calloc((size_t)n, sizeof(*f->pf));
	if (f->fd == NULL || f->state == NULL || f->pf == NULL ||
	    loopback_addr(src, 0, &f->src) != 0) {
		flood_free(f);
		return -1;
	}
	for (int i = 0; i < n; i++)
		f->fd[i] = -1;
	f->port = port;
	f->n = n;
	f->mode = mode;
	if (pthread_create(&f->thread, NULL, flood_main, f) != 0) {
		flood_free(f);
		return -1;
	}
	*out = f;
	return 0;
}

long
cgh_flood_open(const cgh_flood *f)
{
	return atomic_load(&f->open);
}

long
cgh_flood_made(const cgh_flood *f)
{
	return atomic_load(&f->made);
}

long
cgh_flood_cut(const cgh_flood *f)
{
	return atomic_load(&f->cut);
}

void
cgh_flood_stop(cgh_flood *f)
{
	if (f == NULL)
		return;
	atomic_store(&f->stop, 1);
	pthread_join(f->thread, NULL);
	flood_free(f);
}
