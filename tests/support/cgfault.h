/*
 * cgfault.h - file-system faults for the tests, injected under SQLite: a
 * VFS that wraps the default one and, while a fault is on, answers as a
 * full or a read-only file system would.  It is registered as the default
 * VFS, so the product's own sqlite3_open_v2 calls go through it unchanged;
 * with no fault on it only passes every call through.
 *
 * What it must not do: change what SQLite reads (a fault fails writes and
 * the growth of files, never alters bytes), or be used outside tests.
 * Tests run as root, where chmod stops nothing: this is the portable way to
 * get a read-only or full cache.  The mode is one process-wide setting (a
 * test's state, set between operations; node threads read it).
 */
#ifndef CG_TEST_FAULT_H
#define CG_TEST_FAULT_H

enum cgf_mode {
	CGF_OFF,      /* pass everything through */
	CGF_FULL,     /* the disk is full: writes and file growth fail with
	                 SQLITE_FULL (the wal-index: SQLITE_IOERR_SHMSIZE, as
	                 the unix VFS reports ENOSPC there) */
	CGF_READONLY, /* the file system is read-only: files open read-only,
	                 none is created, nothing is written */
};

/* Registers the fault VFS as the default (once; later calls do nothing).
 * Call before the first database is opened. */
void cgf_install(void);

/* Turns a fault on or off. */
void cgf_set(enum cgf_mode mode);

/* How many calls failed because of a fault since cgf_install: a test checks
 * it moved, so a fault that injects nothing cannot pass for one that
 * held. */
unsigned cgf_injected(void);

#endif
