/*
 * gate.h - a counting gate for heavy requests (grep): at most `slots` run
 * at once, at most `queue` more wait for a slot, each for at most
 * `wait_ms`; anyone else, and a waiter whose wait runs out, is refused at
 * once with CG_EUNAVAIL ("busy", HTTP 503) and a message saying so.  A
 * request is therefore always answered, never left hanging, and the
 * threads that run such requests are never all taken by waiters.
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

/* The grep gate of a federation (fed.h, cg_fed_grep_gate): 2 running and
 * 1 waiting bound the memory and the node time greps take.  The HTTP
 * endpoint runs greps on a lane of their own of its tool pool
 * (gateway/tool_pool.h), never on its HTTP threads, so the gate no longer
 * has to leave those free. */
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

/* Refuses a request as cg_gate_enter does when the gate is full (counted
 * in refused; the same busy message): for a server that turns a request
 * away before it reaches the gate (its own queue is full).  Returns
 * CG_EUNAVAIL. */
int cg_gate_refuse(cg_gate *g, cg_err *err);

/* Gives the slot back (only after a successful cg_gate_enter). */
void cg_gate_leave(cg_gate *g);

/* Requests running and waiting now, and refused so far (for tests and
 * metrics). */
void cg_gate_counts(cg_gate *g, int *running, int *waiting, long *refused);

#endif
