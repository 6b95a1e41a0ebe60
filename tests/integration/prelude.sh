# prelude.sh - sourced by the shell tests that work in a temporary
# directory, most with `corpus-gw serve` in the background: fail,
# need_node, test_tmp (the directory, and an exit trap that kills the
# test's background process $pid and removes the directory), and starting
# and stopping that server (serve.sh, which it sources, waits for it).
# Not a test by itself (its name does not start with test_); it writes
# nothing outside the directory it makes, and it judges only the server's
# start and exit, never what a test asks of it.  Needs CG_SRC (and CG_BIN
# for serve_config).

# shellcheck source=tests/integration/serve.sh
source "$CG_SRC/tests/integration/serve.sh"

# fail MESSAGE...: ends the test with "FAIL: MESSAGE" on stderr.
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# need_node: ends the test when node (scripts/install-deps) is missing.
need_node() {
	command -v node >/dev/null ||
		fail "node is not installed: run scripts/install-deps"
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

# serve_config CFG: starts `corpus-gw serve --config CFG` in the
# background (stdout in $tmp/serve.out, stderr in $tmp/serve.err), sets
# pid, and url once /readyz answers 200; ends the test when it prints no
# URL or never gets ready.
serve_config() {
	"$CG_BIN" serve --config "$1" >"$tmp/serve.out" 2>"$tmp/serve.err" &
	pid=$!
	url=$(serve_url "$tmp/serve.out" listening "$pid") || url=""
	[ -n "$url" ] || fail "serve printed no listening line: $(cat "$tmp/serve.err")"
	serve_ready "$url" || fail "/readyz never answered 200"
}

# serve_stop: SIGTERM to the server $pid; ends the test unless it exits 0.
serve_stop() {
	kill -TERM "$pid"
	wait "$pid" || fail "serve exited $? on SIGTERM"
	pid=""
}

# serve_finish RC WHAT [LINES]: stops the server $pid with SIGTERM after
# the test's client WHAT exited RC.  When either exit is not 0, shows the
# server's stderr (its last LINES lines when given) and ends the test
# saying which failed; else prints PASS.
serve_finish() {
	local rc=$1 what=$2 lines=${3:-} status=0
	kill -TERM "$pid"
	wait "$pid" || status=$?
	pid=""
	if [ "$rc" -ne 0 ] || [ "$status" -ne 0 ]; then
		if [ -n "$lines" ]; then
			echo "--- server stderr (last $lines lines)" >&2
			tail -n "$lines" "$tmp/serve.err" >&2
		else
			echo "--- server stderr" >&2
			cat "$tmp/serve.err" >&2
		fi
	fi
	[ "$rc" -eq 0 ] || fail "$what failed (exit $rc)"
	[ "$status" -eq 0 ] || fail "corpus-gw serve exited $status on SIGTERM"
	echo "PASS"
}
