/*
 * child_int.h - work run in a forked child process that reports a
 * fixed-size reply on a pipe, so the parent can bound it with a deadline
 * and kill it outright: a git fetch (libgit2 1.5 has no network timeout,
 * cache/git.c) and the whole git work of one corpus (cache/update.c).
 *
 * The child dies with the thread that forked it (PR_SET_PDEATHSIG
 * SIGKILL; it exits at once if that thread was already gone), runs fn,
 * writes fn's reply to the pipe and _exits without flushing stdio or
 * running atexit handlers.  The parent reads the pipe without blocking
 * (cg_child_poll, from its own poll loop or cg_child_wait), then reaps
 * the child.  Fork from a thread whose process holds no lock the child
 * needs (no other thread inside libgit2 or stdio at the fork).
 *
 * Must not: print, know what the work is.
 *
 * Private to cache/: only cache/child.c, cache/git.c and cache/update.c
 * include it.
 */
#ifndef CG_CHILD_INT_H
#define CG_CHILD_INT_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cg_err.h"

/* Runs in the child: fills reply (size bytes, zeroed) from arg. */
typedef void (*cg_child_fn)(void *arg, void *reply);

/* One child.  reply is the caller's buffer; the child's copy of it is
 * what fn fills and what arrives here. */
typedef struct cg_child {
	pid_t pid;   /* 0 once reaped */
	int fd;      /* read end (non-blocking, close-on-exec), -1 closed */
	void *reply; /* size bytes, filled as the pipe delivers them */
	size_t size;
	size_t got;  /* reply bytes received */
	int status;  /* waitpid status once reaped */
	bool killed; /* reaped after cg_child_kill */
} cg_child;

/* Forks a child running fn(arg, its copy of reply).  CG_EINVAL for a
 * reply over PIPE_BUF bytes (4096 on Linux: it goes in one write);
 * CG_EIO when the pipe or the fork fails. */
int cg_child_start(cg_child *c, cg_child_fn fn, void *arg, void *reply,
                   size_t size, cg_err *err);

/* Reads what the pipe holds; when the child has exited (end of file, or
 * reaped by waitpid) it is reaped and true is returned. */
bool cg_child_poll(cg_child *c);

/* Waits for the child until deadline_ms (cg_mono_ms() clock); true when
 * it ended, false when it was killed at the deadline. */
bool cg_child_wait(cg_child *c, int64_t deadline_ms);

/* SIGKILLs the child (when not reaped yet) and reaps it. */
void cg_child_kill(cg_child *c);

/* True when the whole reply arrived. */
bool cg_child_replied(const cg_child *c);

#endif
