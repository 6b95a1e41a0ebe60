/*
 * conn_limits.c - the connection limits and deadlines of the HTTP
 * endpoint (conn_limits.h).  Every connection libmicrohttpd accepts is
 * linked into a list under a mutex by the connection notification; the
 * watchdog thread walks it every WATCHDOG_TICK_MS and shuts down the
 * socket of each connection past its deadline.  It shuts down only
 * sockets of connections libmicrohttpd has not closed yet: the close
 * notification unlinks them under the same mutex, before libmicrohttpd
 * closes the descriptor.  A shut-down socket reads end of file, so
 * libmicrohttpd closes the connection itself (and frees its slot in the
 * per-address count).  A connection whose whole header block waits,
 * unread, in the kernel's buffer is not cut (peeked, never consumed): the
 * client was on time and the server is late (its libmicrohttpd thread is
 * answering another request), which is no attack.  This file must not
 * read, parse or answer requests.
 */
#define _GNU_SOURCE
#include "gateway/conn_limits.h"

#include <sys/socket.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cg_time.h"

#define WATCHDOG_TICK_MS 100
#define PEEK_MAX         (64 * 1024) /* header bytes looked at, unread */

/* One open connection, for the deadline watchdog. */
struct conn {
	struct conn *prev;
	struct conn *next;
	int fd;
	int busy;         /* a complete request is being answered */
	int headers_in;   /* the awaited request's headers have arrived */
	int answered;     /* at least one answer went out on it */
	int cut;          /* already shut down by the watchdog */
	int64_t since_ms; /* waiting for a complete request since */
};

struct cg_conn_limits {
	cg_conn_limits_cfg cfg;
	int timeout_ms;        /* the request deadline */
	int header_timeout_ms; /* a new connection's headers: <= timeout_ms */
	/* conns and stop are guarded by mu; cv wakes the watchdog. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t watchdog;
	int running;
	int stop;
	struct conn conns;   /* sentinel of a circular list */
	char peek[PEEK_MAX]; /* the watchdog's, under mu */
};

static struct conn *
conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

void
cg_conn_limits_headers_in(cg_conn_limits *l, struct MHD_Connection *c)
{
	struct conn *k = conn_of(c);

	if (k == NULL)
		return;
	pthread_mutex_lock(&l->mu);
	k->headers_in = 1;
	pthread_mutex_unlock(&l->mu);
}

void
cg_conn_limits_busy(cg_conn_limits *l, struct MHD_Connection *c, int busy)
{
	struct conn *k = conn_of(c);

	if (k == NULL)
		return;
	pthread_mutex_lock(&l->mu);
	k->busy = busy;
	if (!busy) {
		k->since_ms = cg_mono_ms();
		k->headers_in = 0;
		k->answered = 1;
	}
	pthread_mutex_unlock(&l->mu);
}

static void
notify_conn(void *cls, struct MHD_Connection *c, void **socket_context,
            enum MHD_ConnectionNotificationCode code)
{
	cg_conn_limits *l = cls;
	struct conn *k = *socket_context;
	const union MHD_ConnectionInfo *ci;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c,
		                             MHD_CONNECTION_INFO_CONNECTION_FD);
		k = ci ? calloc(1, sizeof(*k)) : NULL;
		if (k == NULL)
			return; /* untracked: the idle timeout still holds */
		k->fd = ci->connect_fd;
		k->since_ms = cg_mono_ms();
		pthread_mutex_lock(&l->mu);
		k->next = l->conns.next;
		k->prev = &l->conns;
		l->conns.next->prev = k;
		l->conns.next = k;
		pthread_mutex_unlock(&l->mu);
		*socket_context = k;
		return;
	}
	if (k == NULL)
		return;
	pthread_mutex_lock(&l->mu);
	k->prev->next = k->next;
	k->next->prev = k->prev;
	pthread_mutex_unlock(&l->mu);
	free(k);
	*socket_context = NULL;
}

/* The deadline that applies to k now (ms after since_ms). */
static int64_t
deadline_of(const cg_conn_limits *l, const struct conn *k)
{
	if (k->headers_in || k->answered)
		return l->timeout_ms;
	return l->header_timeout_ms;
}

/* Whether a whole header block waits unread in fd's receive buffer (the
 * server has not read what the client sent in time); under l->mu. */
static int
headers_waiting(cg_conn_limits *l, int fd)
{
	ssize_t n = recv(fd, l->peek, sizeof(l->peek), MSG_PEEK | MSG_DONTWAIT);

	return n >= 4 && memmem(l->peek, (size_t)n, "\r\n\r\n", 4) != NULL;
}

/* Shuts down every connection past its deadline; under l->mu. */
static void
cut_late(cg_conn_limits *l, int64_t now)
{
	for (struct conn *k = l->conns.next; k != &l->conns; k = k->next) {
		if (k->busy || k->cut || now - k->since_ms < deadline_of(l, k))
			continue;
		if (!k->headers_in && headers_waiting(l, k->fd))
			continue;
		/* libmicrohttpd sees end of file and closes the connection;
		 * the fd is still its own (not yet closed, see above). */
		(void)shutdown(k->fd, SHUT_RDWR);
		k->cut = 1;
	}
}

static void *
watchdog_main(void *arg)
{
	cg_conn_limits *l = arg;
	struct timespec ts;

	pthread_mutex_lock(&l->mu);
	while (!l->stop) {
		cut_late(l, cg_mono_ms());
		ts = cg_mono_deadline(WATCHDOG_TICK_MS);
		(void)pthread_cond_timedwait(&l->cv, &l->mu, &ts);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

int
cg_conn_limits_new(cg_conn_limits **out, const cg_conn_limits_cfg *cfg)
{
	cg_conn_limits *l = calloc(1, sizeof(*l));
	int hdr = cfg->header_timeout_s < cfg->timeout_s ? cfg->header_timeout_s
	                                                 : cfg->timeout_s;
	int rc;

	*out = NULL;
	if (l == NULL)
		return -1;
	l->cfg = *cfg;
	l->timeout_ms = cfg->timeout_s * 1000;
	l->header_timeout_ms = hdr * 1000;
	l->conns.next = l->conns.prev = &l->conns;
	if (pthread_mutex_init(&l->mu, NULL) != 0) {
		free(l);
		return -1;
	}
	rc = cg_cond_init_mono(&l->cv);
	if (rc == 0 &&
	    pthread_create(&l->watchdog, NULL, watchdog_main, l) == 0) {
		l->running = 1;
		*out = l;
		return 0;
	}
	if (rc == 0)
		pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->mu);
	free(l);
	return -1;
}

void
cg_conn_limits_stop(cg_conn_limits *l)
{
	if (l == NULL || !l->running)
		return;
	pthread_mutex_lock(&l->mu);
	l->stop = 1;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->watchdog, NULL);
	l->running = 0;
}

void
cg_conn_limits_free(cg_conn_limits *l)
{
	if (l == NULL)
		return;
	cg_conn_limits_stop(l);
	pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->mu);
	free(l);
}

void
cg_conn_limits_options(cg_conn_limits *l, struct MHD_OptionItem *items)
{
	const struct MHD_OptionItem v[CG_CONN_LIMITS_NOPTS] = {
	    {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)l->cfg.total, NULL},
	    {MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)l->cfg.per_addr,
	     NULL},
	    {MHD_OPTION_CONNECTION_TIMEOUT, l->cfg.timeout_s, NULL},
	    {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)l->cfg.memory, NULL},
	    {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify_conn, l},
	    {MHD_OPTION_END, 0, NULL},
	};

	for (size_t i = 0; i < CG_CONN_LIMITS_NOPTS; i++)
		items[i] = v[i];
}
