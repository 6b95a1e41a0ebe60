/*
 * child.c - work in a forked child with a fixed-size reply on a pipe (see
 * child_int.h).  The reply (at most PIPE_BUF bytes) is written with one
 * write(2), which a pipe makes whole or nothing, and read back without
 * blocking; the child is reaped on end of
 * file or when waitpid says it exited (a grandchild holding the pipe open
 * does not keep it alive).  Must not print or keep state between calls.
 */
#define _GNU_SOURCE /* pipe2 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cache/child_int.h"
#include "common/cg_time.h"

#define WAIT_TICK_MS 50 /* how often cg_child_wait looks for a dead child */

static void __attribute__((noreturn))
child_main(int wfd, pid_t parent, cg_child_fn fn, void *arg, void *reply,
           size_t size)
{
	/* Dies with the thread that waits for it, should that one die. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	memset(reply, 0, size);
	fn(arg, reply);
	/* At most PIPE_BUF bytes: one write, whole or not at all. */
	while (write(wfd, reply, size) < 0 && errno == EINTR)
		;
	_exit(0);
}

int
cg_child_start(cg_child *c, cg_child_fn fn, void *arg, void *reply, size_t size,
               cg_err *err)
{
	pid_t self = getpid();
	int fds[2];

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->reply = reply;
	c->size = size;
	if (size > PIPE_BUF)
		return cg_err_set(
		    err, CG_EINVAL,
		    "child: a reply of %zu bytes is over PIPE_BUF", size);
	if (pipe2(fds, O_CLOEXEC) != 0)
		return cg_err_set(err, CG_EIO, "pipe: %s",
		                  cg_strerror(errno).s);
	c->pid = fork();
	if (c->pid == 0) {
		close(fds[0]);
		child_main(fds[1], self, fn, arg, reply, size);
	}
	close(fds[1]);
	if (c->pid < 0) {
		c->pid = 0;
		close(fds[0]);
		return cg_err_set(err, CG_EIO, "fork: %s",
		                  cg_strerror(errno).s);
	}
	(void)fcntl(fds[0], F_SETFL, O_NONBLOCK);
	c->fd = fds[0];
	return 0;
}

/* Reads what the pipe holds now; true at end of file. */
static bool
drain(cg_child *c)
{
	char spill[256];

	while (c->fd >= 0) {
		bool full = c->got >= c->size;
		ssize_t k = full ? read(c->fd, spill, sizeof(spill))
		                 : read(c->fd, (char *)c->reply + c->got,
		                        c->size - c->got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return false; /* EAGAIN: nothing more yet */
		if (k == 0)
			return true;
		if (!full)
			c->got += (size_t)k;
	}
	return true;
}

static void
reap(cg_child *c, bool block)
{
	int st = 0;
	pid_t w;

	if (c->pid == 0)
		return;
	do
		w = waitpid(c->pid, &st, block ? 0 : WNOHANG);
	while (w < 0 && errno == EINTR);
	if (w == c->pid || (w < 0 && errno == ECHILD)) {
		c->status = st;
		c->pid = 0;
	}
}

bool
cg_child_poll(cg_child *c)
{
	bool eof = drain(c);

	reap(c, eof);
	if (c->pid != 0)
		return false;
	(void)drain(c); /* what it wrote before exiting */
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	return true;
}

bool
cg_child_wait(cg_child *c, int64_t deadline_ms)
{
	struct pollfd pfd = {.fd = c->fd, .events = POLLIN};

	for (;;) {
		int64_t left = deadline_ms - cg_mono_ms();

		if (cg_child_poll(c))
			return true;
		if (left <= 0)
			break;
		(void)poll(&pfd, 1,
		           left < WAIT_TICK_MS ? (int)left : WAIT_TICK_MS);
	}
	cg_child_kill(c);
	return false;
}

void
cg_child_kill(cg_child *c)
{
	if (c->pid != 0) {
		(void)kill(c->pid, SIGKILL);
		reap(c, true);
		c->killed = true;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

bool
cg_child_replied(const cg_child *c)
{
	return c->got == c->size;
}
