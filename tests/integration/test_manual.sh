#!/usr/bin/env bash
# test_manual - the man pages built from packaging/*.scd.in (issue 14):
# both format without a warning (man --warnings) and have a NAME line
# lexgrog reads; corpus-gw(1) has a section for every command `corpus-gw
# --help` lists, and names every option of every command's --help in that
# command's section (or in SESSION OPTIONS, which the session commands
# share); corpus-gw.yaml(5) describes every key of conf/gateway.yaml.
set -euo pipefail
: "${CG_BIN:?}" "${CG_SRC:?}"
pages=$(dirname "$CG_BIN")/packaging
fail=0
bad() {
	echo "test_manual: $*" >&2
	fail=1
}

for p in "$pages/corpus-gw.1" "$pages/corpus-gw.yaml.5"; do
	[ -s "$p" ] || { echo "test_manual: $p was not built" >&2; exit 1; }
	warn=$(MANWIDTH=100 man --warnings -l "$p" 2>&1 >/dev/null)
	[ -z "$warn" ] || bad "$p: man --warnings: $warn"
	lexgrog "$p" >/dev/null || bad "$p: lexgrog finds no NAME section"
done

text=$(MANWIDTH=1000 man -l "$pages/corpus-gw.1" 2>/dev/null | col -b)
# The lines of a section: from its heading to the next heading of the
# same or a higher level ("   corpus-gw CMD" subsections, "NAME"-like
# sections at column 0).
section() {
	awk -v h="$1" '
		$0 == h { on = 1; next }
		on && (/^[A-Z]/ || /^   corpus-gw /) { exit }
		on { print }' <<<"$text"
}
session=$(section "SESSION OPTIONS")
[ -n "$session" ] || bad "corpus-gw(1) has no SESSION OPTIONS section"

commands=$("$CG_BIN" --help | awk '/^commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1 }')
[ "$(wc -w <<<"$commands")" -ge 13 ] || bad "too few commands: $commands"
for c in $commands; do
	body=$(section "   corpus-gw $c")
	if [ -z "$body" ]; then
		bad "corpus-gw(1) has no section 'corpus-gw $c'"
		continue
	fi
	for o in $("$CG_BIN" "$c" --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p'); do
		grep -qe "$o\b" <<<"$body" || grep -qe "$o\b" <<<"$session" ||
			bad "corpus-gw(1): 'corpus-gw $c' does not name $o"
	done
done

yaml=$(MANWIDTH=1000 man -l "$pages/corpus-gw.yaml.5" 2>/dev/null | col -b)
for k in $(sed -n 's/^[# ]*-\{0,1\} *\([a-z_]\{3,\}\):.*/\1/p' \
	"$CG_SRC/conf/gateway.yaml" | sort -u); do
	grep -qw "$k" <<<"$yaml" || bad "corpus-gw.yaml(5) does not describe '$k'"
done
exit $fail
