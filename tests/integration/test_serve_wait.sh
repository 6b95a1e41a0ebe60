#!/usr/bin/env bash
# test_serve_wait.sh - serve.sh's helpers, which every shell test that
# starts `corpus-gw serve` in the background waits with: the output file
# the job writes may appear only after the test first looks (a slow start
# under ASan failed test_package in CI that way, sed's "can't read" ending
# the test under set -e), the URL must still be found; a job that exits
# without printing one must be reported, not waited on for 30 s.
set -euo pipefail
: "${CG_SRC:?CG_SRC must name the source tree}"
# shellcheck source=tests/integration/serve.sh
source "$CG_SRC/tests/integration/serve.sh"

tmp=$(mktemp -d)
job=
trap '[ -n "$job" ] && kill "$job" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The file appears late, after two lines that are not the URL.
{
	sleep 0.5
	printf 'info: starting\nmcp http://127.0.0.1:9/mcp\n' >"$tmp/late.out"
	sleep 0.3
	echo 'listening http://127.0.0.1:9' >>"$tmp/late.out"
	exec sleep 30
} &
job=$!
url=$(serve_url "$tmp/late.out" listening "$job") ||
	fail "serve_url gave up on a file that appears late"
[ "$url" = http://127.0.0.1:9 ] || fail "serve_url printed '$url'"
mcp=$(serve_url "$tmp/late.out" mcp "$job")
[ "$mcp" = http://127.0.0.1:9/mcp ] || fail "serve_url mcp printed '$mcp'"
kill "$job"
wait "$job" 2>/dev/null || true

# A job that dies without a URL: reported at once (well under 30 s).
{ sleep 0.2; echo 'error: no config' >"$tmp/dead.out"; } &
job=$!
start=$SECONDS
if url=$(serve_url "$tmp/dead.out" listening "$job"); then
	fail "serve_url found '$url' in a job that printed none"
fi
[ $((SECONDS - start)) -lt 10 ] || fail "serve_url waited on a dead job"
job=
echo "test_serve_wait: ok"
