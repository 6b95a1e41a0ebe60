#!/usr/bin/env bash
# test_units - every systemd unit shipped in conf/ scores 2.0 or less
# ("OK" or better) in `systemd-analyze security --offline=yes` (issue 14),
# as installed: @bindir@ replaced as packaging/CMakeLists.txt does, a
# template checked as one of its instances.  Also: each service has a
# Documentation= line, the gateway an ExecReload=, and none runs as root.
set -euo pipefail
: "${CG_SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
max=2.0
n=0
for src in "$CG_SRC"/conf/*.service; do
	unit=$(basename "$src")
	sed 's|@bindir@|/usr/bin|g' "$src" >"$tmp/$unit"
	grep -q '@[a-z]*@' "$tmp/$unit" && {
		echo "test_units: $unit: an unreplaced @variable@" >&2
		fail=1
	}
	check=$unit
	if [[ $unit == *@.service ]]; then
		check=${unit/@.service/@example.service}
		cp "$tmp/$unit" "$tmp/$check"
	fi
	out=$(cd "$tmp" && systemd-analyze security --offline=yes "$check" 2>&1) || true
	score=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p' <<<"$out")
	if [ -z "$score" ]; then
		echo "test_units: $unit: no score:" >&2
		echo "$out" | tail -5 >&2
		fail=1
		continue
	fi
	echo "$unit: $score"
	if ! awk -v s="$score" -v m="$max" 'BEGIN { exit !(s <= m) }'; then
		echo "test_units: $unit scores $score (> $max):" >&2
		grep '✗' <<<"$out" >&2 || true
		fail=1
	fi
	grep -q '^Documentation=' "$src" || {
		echo "test_units: $unit has no Documentation=" >&2
		fail=1
	}
	grep -Eq '^User=root|^DynamicUser=no' "$src" && {
		echo "test_units: $unit runs as root" >&2
		fail=1
	}
	n=$((n + 1))
done
grep -q '^ExecReload=' "$CG_SRC/conf/corpus-gw.service" || {
	echo "test_units: corpus-gw.service has no ExecReload=" >&2
	fail=1
}
[ "$n" -ge 3 ] || { echo "test_units: only $n units" >&2; fail=1; }
exit $fail
