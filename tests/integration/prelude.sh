# prelude.sh - sourced by the shell tests that work in a temporary
# directory, most with a server in the background: fail, and test_tmp,
# which makes the directory and an exit trap that kills the test's
# background process ($pid) and removes the directory.  Not a test by
# itself (its name does not start with test_); it starts nothing and
# writes nothing outside the directory it makes.

# fail MESSAGE...: ends the test with "FAIL: MESSAGE" on stderr.
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# test_tmp TAG: sets tmp to a new directory ${TMPDIR:-/tmp}/cg-TAG.XXXXXX
# and pid to "" (the test sets it to its background process and back to
# "" once it has reaped it); at exit, that process, when still running, is
# killed (SIGKILL) and tmp removed.
test_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/cg-$1.XXXXXX")
	pid=""
	trap test_cleanup EXIT
}

test_cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
