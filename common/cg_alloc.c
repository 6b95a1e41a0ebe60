/*
 * cg_alloc.c - the allocator seam's counter (common/cg_alloc.h): one
 * process-wide count of allocations and the number of the one to fail.
 * Atomic, so that a hook called from another thread counts without a
 * lock; a sweep runs its operation on one thread, which is what makes the
 * count, and so the allocation that fails, the same from run to run.
 *
 * Must not allocate, lock or do I/O: it runs inside malloc.
 */
#include "common/cg_alloc.h"

#include <stdatomic.h>

static atomic_bool armed;    /* counting at all */
static atomic_ulong count;   /* allocations counted since arming */
static atomic_ulong fail_at; /* the one to fail, 1-based; 0 none */
static atomic_ulong failed;  /* failures injected since arming */

void
cg_alloc_arm(unsigned long n)
{
	atomic_store(&armed, false);
	atomic_store(&count, 0);
	atomic_store(&failed, 0);
	atomic_store(&fail_at, n);
	atomic_store(&armed, true);
}

unsigned long
cg_alloc_disarm(void)
{
	atomic_store(&armed, false);
	return atomic_load(&count);
}

bool
cg_alloc_fault(void)
{
	unsigned long k;

	if (!atomic_load_explicit(&armed, memory_order_relaxed))
		return false;
	k = atomic_fetch_add(&count, 1) + 1;
	if (k != atomic_load(&fail_at))
		return false;
	atomic_fetch_add(&failed, 1);
	return true;
}

unsigned long
cg_alloc_failed(void)
{
	return atomic_load(&failed);
}
