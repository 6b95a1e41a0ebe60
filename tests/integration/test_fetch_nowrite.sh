#!/usr/bin/env bash
# test_fetch_nowrite - a `corpus-gw fetch --refresh` that finds no corpus
# moved writes nothing under the cache and syncs nothing (issue 14): under
# strace, no write-family call touches a file of the cache and no fsync or
# fdatasync runs anywhere; the probes still went out (the fake API logged
# a 304 per corpus) and the state's checked_at still moved (the state
# file's mtime: cache/corpus.h).  The same trace after a corpus moved
# upstream must show the writes, so the test sees a regression.  The
# no-change refresh also starts no thread or process (the writer threads
# start with the first write).
#
# Real things only: git repositories served over file://, the fake GitHub
# commits API (cg-fake-github, $FAKE_GITHUB) on 127.0.0.1, the real binary.
set -euo pipefail
: "${CG_BIN:?}" "${CG_SRC:?}" "${FAKE_GITHUB:?}"
# shellcheck source=tests/integration/nowrite.sh
source "$CG_SRC/tests/integration/nowrite.sh"
need_strace test_fetch_nowrite
tmp=$(mktemp -d)
fake_pid=
cleanup() {
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
calls=$nowrite_calls,mkdir,mkdirat,clone,clone3,fork,vfork
gitc() { git -c user.name=t -c user.email=t@localhost "$@"; }
n=3
ws="$tmp/ws"
cache="$ws/.hiivmind/corpus/cache"
mkdir -p "$ws/.hiivmind/corpus" "$ws/.guild/wiki" "$tmp/git/acme"
echo "# Home" >"$ws/.guild/wiki/home.md"

# corpus K: a docs repository and a corpus repository pinned at its head.
make_corpus() {
	local d="$tmp/git/acme/docs-$1.git" c="$tmp/git/acme/corpus-$1.git"
	[ -d "$d" ] || {
		git init -q -b main "$d"
		mkdir -p "$d/docs"
	}
	printf '# Page %s\n\n> Text of corpus %s, version %s.\n' "$1" "$1" "$2" \
		>"$d/docs/page.md"
	(cd "$d" && git add -A && gitc commit -q -m "v$2")
	[ -d "$c" ] || git init -q -b main "$c"
	printf 'schema_version: 2\ncorpus:\n  name: "c%s"\nsources:\n' "$1" >"$c/config.yaml"
	printf '  - id: "d"\n    type: "git"\n    repo_owner: "acme"\n' >>"$c/config.yaml"
	printf '    repo_name: "docs-%s"\n    branch: "main"\n' "$1" >>"$c/config.yaml"
	printf '    docs_root: "docs/"\n    last_commit_sha: "%s"\n' \
		"$(git -C "$d" rev-parse HEAD)" >>"$c/config.yaml"
	printf 'entries:\n  - id: "d:page.md"\n    source: d\n    path: "page.md"\n    title: "Page %s"\n' \
		"$1" >"$c/index.yaml"
	(cd "$c" && git add -A && gitc commit -q -m "v$2")
}
shas() {
	local k
	for ((k = 0; k < n; k++)); do
		echo "acme/corpus-$k main $(git -C "$tmp/git/acme/corpus-$k.git" rev-parse HEAD)"
	done >"$tmp/shas.tmp"
	mv "$tmp/shas.tmp" "$tmp/shas"
}
echo "schema_version: 1" >"$ws/.hiivmind/corpus/registry.yaml"
echo "corpora:" >>"$ws/.hiivmind/corpus/registry.yaml"
for ((k = 0; k < n; k++)); do
	make_corpus "$k" 1
	printf '  - id: c%d\n    source:\n      type: github\n      repo: acme/corpus-%d\n      ref: main\n    cache:\n      ttl: 7d\n' \
		"$k" "$k" >>"$ws/.hiivmind/corpus/registry.yaml"
done
shas

"$FAKE_GITHUB" --port 0 --shas "$tmp/shas" --log "$tmp/api.log" >"$tmp/api.out" 2>&1 &
fake_pid=$!
for _ in $(seq 100); do
	grep -q listening "$tmp/api.out" 2>/dev/null && break
	sleep 0.05
done
api=$(sed -n 's/^listening //p' "$tmp/api.out")
[ -n "$api" ] || {
	echo "FAIL: cg-fake-github did not start" >&2
	cat "$tmp/api.out" >&2
	exit 1
}

# fetch ARGS...: corpus-gw fetch of the workspace; stderr in $tmp/err.
fetch() {
	"$CG_BIN" fetch --workspace "$ws" --api-base "$api" \
		--git-base "file://$tmp/git" "$@" 2>"$tmp/err"
}
# traced ARGS...: the same under strace, the trace in $tmp/trace.
traced() {
	traced_run "$tmp/trace" "$calls" \
		"$CG_BIN" fetch --workspace "$ws" --api-base "$api" \
		--git-base "file://$tmp/git" "$@" 2>"$tmp/err"
}
# writes: the traced calls that store something under the cache, and any
# sync to disk, one per line (a call that failed, such as the mkdir of a
# folder that exists, stored nothing).
writes() {
	grep -E "$cache|fsync|fdatasync|sync_file_range" "$tmp/trace" |
		grep -v -e '--- SIG' -e ' = -1 E' || true
}
stamp() { stat -c %Y "$cache/.corpus-gw/c0.json"; }
fail() {
	echo "FAIL: $1" >&2
	shift
	for f in "$@"; do cat "$f" >&2; done
	exit 1
}

fetch -v || fail "the first fetch failed" "$tmp/err"
grep -q "0 failed" "$tmp/err" || fail "the first fetch failed" "$tmp/err"
meta0=$(cat "$cache/c0/_cache_meta.json")
sleep 1.1 # stamps and mtimes compared below have a one-second grain
t0=$(stamp)
asked0=$(grep -c ' 304 ' "$tmp/api.log" || true)

traced --refresh -v || fail "the no-change refresh failed" "$tmp/err"
grep -q "$n unchanged, 0 updated, 0 failed" "$tmp/err" ||
	fail "the no-change refresh did not find $n unchanged corpora" "$tmp/err"
asked1=$(grep -c ' 304 ' "$tmp/api.log" || true)
[ $((asked1 - asked0)) = "$n" ] ||
	fail "expected $n probes answered 304, saw $((asked1 - asked0))" "$tmp/api.log"
if [ -n "$(writes)" ]; then
	echo "FAIL: a no-change refresh wrote under the cache or synced:" >&2
	writes | head -20 >&2
	exit 1
fi
[ "$(stamp)" -gt "$t0" ] || fail "the probe was not recorded (state mtime)"
[ "$(cat "$cache/c0/_cache_meta.json")" = "$meta0" ] ||
	fail "_cache_meta.json changed on a no-change refresh"
# Nor did it start a thread or a process: the writer threads start with
# the first write (cache/fetch.c), and the API is an IP literal (no
# resolver thread).
if grep -qE '^[0-9]+ +(clone|clone3|fork|vfork)\(' "$tmp/trace"; then
	echo "FAIL: a no-change refresh started a thread or a process:" >&2
	grep -E '(clone|clone3|fork|vfork)\(' "$tmp/trace" | head -5 >&2
	exit 1
fi

# Corpus 1 moves upstream: the same trace must show the publish.
make_corpus 1 2
shas
sleep 0.3 # cg-fake-github re-reads the file within 100 ms
traced --refresh -v || fail "the refresh after a change failed" "$tmp/err"
grep -q "corpus c1: updated" "$tmp/err" ||
	fail "the moved corpus was not updated" "$tmp/err"
grep -q "rename.*$cache" "$tmp/trace" ||
	fail "a refresh after a change wrote nothing (is the trace empty?)" "$tmp/trace"
grep -q "fsync" "$tmp/trace" ||
	fail "a refresh after a change synced nothing (is the trace empty?)" "$tmp/trace"
grep -q "Text of corpus 1, version 2" "$cache/c1/docs/d/page.md" ||
	fail "the new version was not published"

# And once more with nothing moved: nothing written again.
traced --refresh || fail "the second no-change refresh failed" "$tmp/err"
if [ -n "$(writes)" ]; then
	echo "FAIL: a no-change refresh after an update wrote or synced:" >&2
	writes | head -20 >&2
	exit 1
fi
echo "test_fetch_nowrite: ok"
