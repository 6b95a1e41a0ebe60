/*
 * heap.c - the allocator policy of the commands that run for days (serve,
 * node, mcp).  glibc's malloc raises its mmap threshold each time a mapped
 * block is freed (up to 32 MiB on 64-bit); after that, big transient
 * buffers - a node's reply that nng reads whole (up to the 16 MiB reply
 * cap), a grep answer, a large request body - are carved from the heap
 * arenas and their pages stay resident after free.  bench/resilience's
 * hostile-node phase took the gateway from 90 to 178 MB that way, and
 * kept it there.  A fixed threshold keeps every block of 1 MiB and more
 * mapped on its own, so free gives it back to the system at once; blocks
 * that size are rare on the query path, so the extra mmap/munmap costs
 * nothing measurable.  One-shot commands keep glibc's default.  It must
 * not change what is allocated, only where; on a C library other than
 * glibc it does nothing.
 */
#include "cli/cli.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#define BIG_BLOCK (1 << 20) /* bytes; a block this big is always mapped */

void
cli_heap_for_service(void)
{
#ifdef __GLIBC__
	/* Called first thing, before the command starts any thread. */
	/* NOLINTNEXTLINE(concurrency-mt-unsafe) */
	(void)mallopt(M_MMAP_THRESHOLD, BIG_BLOCK);
#endif
}
