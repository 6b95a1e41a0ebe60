#!/usr/bin/env bash
# test_cli_nowrite - a CLI query that finds nothing changed writes nothing
# (issue 11): under strace, no write-family system call touches a file of
# the workspace or the index cache, and nothing is synced to disk (no
# fsync, no fdatasync) anywhere.  The same trace of a query after a page
# changed must show the writes, so the test sees a regression.  The only
# write left is the answer on stdout.  Nor does it start a thread per
# node: its nodes are called directly (gateway/direct.h), where each used
# to run a serve and a sync thread and nng its own pool; a round shares
# the nodes with one helper per other CPU the process may use, so on one
# CPU (taskset) it starts no thread at all.
set -euo pipefail
: "${CG_BIN:?}" "${CG_SRC:?}"
# shellcheck source=tests/integration/nowrite.sh
source "$CG_SRC/tests/integration/nowrite.sh"
need_strace test_cli_nowrite
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$CG_SRC/conf/example" "$tmp/ws"
export XDG_CACHE_HOME="$tmp/cache"

# traced QUERY OUT: runs `corpus-gw query QUERY` under strace; the answer
# goes to OUT, the trace to $tmp/trace (the untraced query below keeps the
# leak check).
traced() {
	traced_run "$tmp/trace" "$nowrite_calls" \
		"$CG_BIN" query --workspace "$tmp/ws" "$1" >"$2"
}

# writes: the traced calls that store something (a file of the workspace
# or the cache, or any fsync), one per line.
writes() {
	grep -E "$tmp/ws|$tmp/cache|fsync|fdatasync|sync_file_range" "$tmp/trace" |
		grep -v -- '--- SIG' || true
}

"$CG_BIN" query --workspace "$tmp/ws" deploy >/dev/null # builds the indexes

traced deploy "$tmp/out1"
grep -q "Rolling back a deploy" "$tmp/out1" || {
	echo "FAIL: the no-change query did not answer" >&2
	cat "$tmp/out1" >&2
	exit 1
}
if [ -n "$(writes)" ]; then
	echo "FAIL: a no-change query wrote:" >&2
	writes | head -20 >&2
	exit 1
fi

# threads: the threads a no-change query on one CPU starts (clone with
# CLONE_THREAD).
command -v taskset >/dev/null || {
	echo "test_cli_nowrite: taskset is not installed (util-linux)" >&2
	exit 1
}
traced_run "$tmp/threads" clone,clone3 taskset -c 0 "$CG_BIN" query \
	--workspace "$tmp/ws" deploy >"$tmp/out0"
grep -q "Rolling back a deploy" "$tmp/out0" || {
	echo "FAIL: the traced no-change query did not answer" >&2
	exit 1
}
if grep -q CLONE_THREAD "$tmp/threads"; then
	echo "FAIL: a no-change query started $(grep -c CLONE_THREAD \
		"$tmp/threads") thread(s):" >&2
	grep CLONE_THREAD "$tmp/threads" | head -5 >&2
	exit 1
fi

page=$(find "$tmp/ws/web/.guild/wiki" -name '*.md' | head -1)
printf '\n## Quokka notes\n\nThe quokkaword procedure.\n' >>"$page"
traced quokkaword "$tmp/out2"
grep -q "quokkaword\|Quokka" "$tmp/out2" || {
	echo "FAIL: the changed page was not found" >&2
	exit 1
}
if [ -z "$(writes)" ]; then
	echo "FAIL: a query after a change wrote nothing (is the trace empty?)" >&2
	exit 1
fi

traced quokkaword "$tmp/out3"
cmp -s "$tmp/out2" "$tmp/out3" || {
	echo "FAIL: the answer changed without a change to the files" >&2
	diff "$tmp/out2" "$tmp/out3" >&2 || true
	exit 1
}
if [ -n "$(writes)" ]; then
	echo "FAIL: a no-change query after a sync wrote:" >&2
	writes | head -20 >&2
	exit 1
fi
echo "test_cli_nowrite: ok"
