/*
 * gate.h - a counting gate for heavy requests (grep): at most `slots` run
 * at once, at most `queue` more wait for a slot, each for at most
 * `wait_ms`; anyone else, and a waiter whose wait runs out, is refused at
 * once with CG_EUNAVAIL ("busy", HTTP 503) and a message saying so.  A
 * request is therefore always answered, never left hanging, and the
 * threads of a server that runs requests (the HTTP pool) are never all
 * taken by one kind of request: slots + queue is kept below the pool.
 *
 * The gate holds no request data and allocates nothing after cg_gate_new.
 * It is shared across threads (a mutex and a monotonic condition
 * variable); it must be freed only when no thread is inside.
 *
 * May be included by federation/ and the layers above it.
 */
#ifndef CG_GATE_H
#define CG_GATE_H

#include "common/cg_err.h"

/* The grep gate of a federation (fed.h, cg_fed_grep_gate): the HTTP pool
 * has CG_HTTP_THREADS (4) threads; 2 running and 1 waiting leave one free
 * for /healthz and the other tools whatever the greps do. */
#define CG_GREP_SLOTS   2
#define CG_GREP_QUEUE   1
#define CG_GREP_WAIT_MS 1000

typedef struct cg_gate cg_gate;

/* slots >= 1, queue >= 0, wait_ms >= 0; what names the requests in the
 * busy message ("grep"). */
int cg_gate_new(cg_gate **out, const char *what, int slots, int queue,
                int wait_ms, cg_err *err);
void cg_gate_free(cg_gate *g);

/* Takes a slot (0), waiting as above, or CG_EUNAVAIL with err set.  A
 * NULL gate admits everyone. */
int cg_gate_enter(cg_gate *g, cg_err *err);

/* Gives the slot back (only after a successful cg_gate_enter). */
void cg_gate_leave(cg_gate *g);

/* Requests running and waiting now, and refused so far (for tests and
 * metrics). */
void cg_gate_counts(cg_gate *g, int *running, int *waiting, long *refused);

#endif
