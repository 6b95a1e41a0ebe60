# nowrite.sh - sourced by the no-write tests (test_cli_nowrite.sh,
# test_fetch_nowrite.sh): strace required, the write-family calls they
# trace, and a command run under strace.  Not a test by itself (its name
# does not start with test_); it traces, and never judges a trace: each
# test knows which paths and calls count as a write.

# need_strace NAME: ends the test NAME when strace is not installed.
need_strace() {
	command -v strace >/dev/null && return 0
	echo "$1: strace is not installed (scripts/install-deps)" >&2
	exit 1
}

# The calls that store data, rename or remove a file, or sync to disk.
nowrite_calls=write,pwrite64,writev,pwritev,pwritev2,fsync,fdatasync
nowrite_calls=$nowrite_calls,sync_file_range,ftruncate,rename,renameat
nowrite_calls=$nowrite_calls,renameat2,unlink,unlinkat

# traced_run TRACE CALLS CMD...: runs CMD under strace (threads and
# children followed, paths of file descriptors shown), the calls CALLS
# logged to TRACE.  LeakSanitizer cannot run under ptrace (an ASan build
# aborts at exit), so the traced run goes without it; each test keeps an
# untraced run of the same command for the leak check.
traced_run() {
	local trace=$1 calls=$2
	shift 2
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -y -qq -e trace="$calls" -o "$trace" "$@"
}
