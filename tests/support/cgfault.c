/*
 * cgfault.c - the fault-injecting SQLite VFS of the tests (see cgfault.h):
 * every call goes to the default VFS of the process; while a fault is on,
 * the calls a full or read-only file system would refuse fail as the unix
 * VFS reports them there.
 *
 * What it must not do: alter bytes read or written, or keep state beyond
 * the mode, the count and the default VFS it wraps.
 */
#define _GNU_SOURCE
#include "cgfault.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

static sqlite3_vfs *real_vfs;   /* the default VFS before ours */
static sqlite3_vfs fault_vfs;   /* ours: a copy of it, wrapped */
static atomic_int fault_mode;   /* enum cgf_mode */
static atomic_uint fault_count; /* calls failed by a fault */

/* A file of ours: the real VFS's file follows it in the same block. */
struct ffile {
	sqlite3_file base;
	sqlite3_file *real;
	const char *name; /* the main database's path (SQLite keeps it
	                     valid until xClose), else NULL */
};

static int
mode(void)
{
	return atomic_load(&fault_mode);
}

static int
inject(int code)
{
	atomic_fetch_add(&fault_count, 1);
	return code;
}

static sqlite3_file *
real(sqlite3_file *f)
{
	return ((struct ffile *)f)->real;
}

static int
f_close(sqlite3_file *f)
{
	return real(f)->pMethods->xClose(real(f));
}

static int
f_read(sqlite3_file *f, void *p, int n, sqlite3_int64 off)
{
	return real(f)->pMethods->xRead(real(f), p, n, off);
}

static int
f_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 off)
{
	if (mode() == CGF_FULL)
		return inject(SQLITE_FULL);
	if (mode() == CGF_READONLY)
		return inject(SQLITE_READONLY);
	return real(f)->pMethods->xWrite(real(f), p, n, off);
}

static int
f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	if (mode() == CGF_READONLY)
		return inject(SQLITE_IOERR_TRUNCATE);
	return real(f)->pMethods->xTruncate(real(f), size);
}

static int
f_sync(sqlite3_file *f, int flags)
{
	return real(f)->pMethods->xSync(real(f), flags);
}

static int
f_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return real(f)->pMethods->xFileSize(real(f), size);
}

static int
f_lock(sqlite3_file *f, int l)
{
	return real(f)->pMethods->xLock(real(f), l);
}

static int
f_unlock(sqlite3_file *f, int l)
{
	return real(f)->pMethods->xUnlock(real(f), l);
}

static int
f_reserved(sqlite3_file *f, int *out)
{
	return real(f)->pMethods->xCheckReservedLock(real(f), out);
}

static int
f_control(sqlite3_file *f, int op, void *arg)
{
	return real(f)->pMethods->xFileControl(real(f), op, arg);
}

static int
f_sector(sqlite3_file *f)
{
	return real(f)->pMethods->xSectorSize(real(f));
}

static int
f_device(sqlite3_file *f)
{
	return real(f)->pMethods->xDeviceCharacteristics(real(f));
}

/* The wal-index: on a full disk a region that does not exist yet cannot
 * be added (the unix VFS writes to grow the -shm file: ENOSPC is
 * SQLITE_IOERR_SHMSIZE); on a read-only one a missing -shm file cannot be
 * created (SQLITE_CANTOPEN). */
static int
f_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp)
{
	const char *name = ((struct ffile *)f)->name;
	int m = mode();
	int rc;

	if (m == CGF_READONLY && name != NULL) {
		char shm[4096];

		(void)snprintf(shm, sizeof(shm), "%s-shm", name);
		if (access(shm, F_OK) != 0) {
			*pp = NULL;
			return inject(SQLITE_CANTOPEN);
		}
	}
	if (m == CGF_OFF)
		return real(f)->pMethods->xShmMap(real(f), pg, pgsz, extend,
		                                  pp);
	rc = real(f)->pMethods->xShmMap(real(f), pg, pgsz, 0, pp);
	if (rc == SQLITE_OK && *pp == NULL && extend)
		return inject(m == CGF_FULL ? SQLITE_IOERR_SHMSIZE
		                            : SQLITE_READONLY_CANTINIT);
	return rc;
}

static int
f_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
	return real(f)->pMethods->xShmLock(real(f), off, n, flags);
}

static void
f_shm_barrier(sqlite3_file *f)
{
	real(f)->pMethods->xShmBarrier(real(f));
}

static int
f_shm_unmap(sqlite3_file *f, int del)
{
	if (del && mode() == CGF_READONLY)
		del = 0; /* nothing is deleted on a read-only file system */
	return real(f)->pMethods->xShmUnmap(real(f), del);
}

static int
f_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **pp)
{
	return real(f)->pMethods->xFetch(real(f), off, n, pp);
}

static int
f_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	return real(f)->pMethods->xUnfetch(real(f), off, p);
}

static const sqlite3_io_methods fault_io = {
    3,         f_close,   f_read,     f_write,       f_truncate,  f_sync,
    f_size,    f_lock,    f_unlock,   f_reserved,    f_control,   f_sector,
    f_device,  f_shm_map, f_shm_lock, f_shm_barrier, f_shm_unmap, f_fetch,
    f_unfetch,
};

static int
v_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags,
       int *out)
{
	struct ffile *f = (struct ffile *)file;
	int rc;

	(void)vfs;
	memset(f, 0, sizeof(*f));
	f->real = (sqlite3_file *)(f + 1);
	if (mode() == CGF_READONLY && name != NULL) {
		if (access(name, F_OK) != 0)
			return inject(SQLITE_CANTOPEN);
		if (flags & SQLITE_OPEN_READWRITE)
			flags = (flags & ~(SQLITE_OPEN_READWRITE |
			                   SQLITE_OPEN_CREATE)) |
			        SQLITE_OPEN_READONLY;
	}
	rc = real_vfs->xOpen(real_vfs, name, f->real, flags, out);
	if (f->real->pMethods != NULL)
		f->base.pMethods = &fault_io;
	if (flags & SQLITE_OPEN_MAIN_DB)
		f->name = name;
	return rc;
}

static int
v_delete(sqlite3_vfs *vfs, const char *name, int dirsync)
{
	(void)vfs;
	if (mode() == CGF_READONLY)
		return inject(SQLITE_IOERR_DELETE);
	return real_vfs->xDelete(real_vfs, name, dirsync);
}

static int
v_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return real_vfs->xAccess(real_vfs, name, flags, out);
}

static int
v_fullpath(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return real_vfs->xFullPathname(real_vfs, name, n, out);
}

void
cgf_install(void)
{
	if (real_vfs != NULL)
		return;
	real_vfs = sqlite3_vfs_find(NULL);
	fault_vfs = *real_vfs;
	fault_vfs.pNext = NULL;
	fault_vfs.zName = "cgfault";
	fault_vfs.szOsFile = (int)sizeof(struct ffile) + real_vfs->szOsFile;
	fault_vfs.xOpen = v_open;
	fault_vfs.xDelete = v_delete;
	fault_vfs.xAccess = v_access;
	fault_vfs.xFullPathname = v_fullpath;
	(void)sqlite3_vfs_register(&fault_vfs, 1);
}

void
cgf_set(enum cgf_mode m)
{
	atomic_store(&fault_mode, (int)m);
}

unsigned
cgf_injected(void)
{
	return atomic_load(&fault_count);
}
