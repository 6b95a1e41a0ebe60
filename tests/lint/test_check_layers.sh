#!/usr/bin/env bash
# test_check_layers.sh - scripts/check-layers catches what it promises to.
#
# Builds a tiny synthetic tree in a temporary directory: the repository's
# own layers.txt, and for each folder it names one module (f/f.h, f/f.c)
# that includes the headers of the folders it uses directly; the lowest
# folder also has a private header (low_int.h, which includes low.h) and a
# header-less helper.c behind it that low.c calls, the pattern the house
# style allows (no loop through includes, none through calls).  The
# checker must pass on that clean tree, with and without --objects (the
# tree compiled with $CC), and then fail, naming the offence and its
# file:line, on copies of it with one thing planted: an upward include, a
# sideways include, a relative include, a cycle in layers.txt, an unknown
# folder in layers.txt, a two-module and a three-module cycle in one
# folder, a private header included from another folder, a call cycle only
# the objects show (helper.c calling back into low.c), and an upward call
# through a prototype a lower layer declared itself.  tests/ may include anything: a planted test file that
# includes a private header and the top layer must not fail the check.
#
# It does not check the real tree (CI runs scripts/check-layers on it).
set -euo pipefail

src=${CG_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
check=$src/scripts/check-layers
cc=${CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/test_check_layers.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT # KEEP=1 keeps the cases, to read
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# --- the clean tree ----------------------------------------------------
clean=$work/clean
mkdir -p "$clean"
cp "$src/layers.txt" "$clean/"
mapfile -t lines < <(grep -E '^[a-z]+:' "$clean/layers.txt")
layers=()
for l in "${lines[@]}"; do
	layers+=("${l%%:*}")
done
if [ ${#layers[@]} -lt 3 ]; then
	echo "FAIL: layers.txt names fewer than 3 folders" >&2
	exit 1
fi
low=${layers[0]}
top=${layers[-1]}
topdeps=$(sed -n "s/^$top:[[:space:]]*//p" "$clean/layers.txt")
topdep=${topdeps%% *}

for l in "${lines[@]}"; do
	f=${l%%:*}
	deps=${l#*:}
	mkdir -p "$clean/$f"
	printf '/* %s/%s.h - the synthetic %s layer. */\nint %s_fn(void);\n' \
		"$f" "$f" "$f" "$f" >"$clean/$f/$f.h"
	{
		printf '/* %s/%s.c - calls the layers below. */\n' "$f" "$f"
		printf '#include "%s/%s.h"\n' "$f" "$f"
		for d in $deps; do
			printf '#include "%s/%s.h"\n' "$d" "$d"
		done
		printf 'int\n%s_fn(void)\n{\n\treturn 0' "$f"
		for d in $deps; do
			printf ' + %s_fn()' "$d"
		done
		printf ';\n}\n'
	} >"$clean/$f/$f.c"
done
# The lowest layer's private header and its helper (module low, then
# module helper -> low: no cycle).
cat >"$clean/$low/${low}_int.h" <<EOF
/* $low/${low}_int.h - private to $low/. */
#include "$low/$low.h"
int helper_fn(void);
EOF
cat >"$clean/$low/helper.c" <<EOF
/* $low/helper.c - implements ${low}_int.h. */
#include "$low/${low}_int.h"
int
helper_fn(void)
{
	return 1;
}
EOF
sed -i "s|^#include \"$low/$low.h\"\$|&\n#include \"$low/${low}_int.h\"|" \
	"$clean/$low/$low.c"
# The parent calls its helper, which includes the parent's header for the
# types: includes helper -> low, calls low -> helper, no loop in either.
printf 'int\nuse_helper(void)\n{\n\treturn helper_fn();\n}\n' \
	>>"$clean/$low/$low.c"

# A fresh copy of the clean tree for one case.
case_dir() {
	local d=$work/case-$1
	rm -rf "$d"
	cp -R "$clean" "$d"
	echo "$d"
}

# Appends a line to a file and prints its line number.
plant() {
	printf '%s\n' "$2" >>"$1"
	wc -l <"$1" | tr -d ' '
}

# Compiles a tree's production .c files where CMake puts their objects.
compile() {
	local root=$1 f c
	for f in "${layers[@]}" "${@:2}"; do
		for c in "$root/$f"/*.c; do
			[ -f "$c" ] || continue
			mkdir -p "$root/build/CMakeFiles/cg_$f.dir/$f"
			"$cc" -c -I"$root" -o \
				"$root/build/CMakeFiles/cg_$f.dir/$f/${c##*/}.o" "$c"
		done
	done
}

run() {
	out=$("$check" "$@" 2>&1) && rc=0 || rc=$?
}

expect_pass() {
	local name=$1
	shift
	run "$@"
	if [ "$rc" -ne 0 ]; then
		fail "$name: exit $rc on a clean tree:"$'\n'"$out"
	fi
}

# expect_fail NAME 'expected text' ARGS...: exit 1 and the text in the
# output (fixed string), and exactly one offence.
expect_fail() {
	local name=$1 want=$2
	shift 2
	run "$@"
	if [ "$rc" -ne 1 ]; then
		fail "$name: exit $rc, expected 1:"$'\n'"$out"
	elif ! grep -qF -- "$want" <<<"$out"; then
		fail "$name: no \"$want\" in:"$'\n'"$out"
	elif ! grep -qF 'check-layers: 1 offence ' <<<"$out"; then
		fail "$name: expected exactly one offence:"$'\n'"$out"
	else
		echo "ok: $name"
	fi
}

# --- clean --------------------------------------------------------------
expect_pass clean "$clean"
if ! grep -qE "^  $top +-> $topdep 1[,]?( |$)" <<<"$out"; then
	fail "graph: no \"$top -> $topdep 1\" arrow in:"$'\n'"$out"
fi
compile "$clean"
expect_pass "clean, with objects" --objects "$clean/build" "$clean"
grep -qF "include lines + calls" <<<"$out" ||
	fail "objects: the graph does not count calls:"$'\n'"$out"

d=$(case_dir tests-exempt)
mkdir -p "$d/tests/unit"
printf '#include "%s/%s_int.h"\n#include "%s/%s.h"\n' \
	"$low" "$low" "$top" "$top" >"$d/tests/unit/test_x.c"
expect_pass "tests/ may include anything" "$d"

# --- includes -----------------------------------------------------------
d=$(case_dir upward)
n=$(plant "$d/$low/$low.c" "#include \"$top/$top.h\"")
expect_fail "upward include" \
	"$low/$low.c:$n: error: #include \"$top/$top.h\": upward include" "$d"

d=$(case_dir sideways)
printf 'left: %s\nright: %s\n' "$low" "$low" >>"$d/layers.txt"
mkdir -p "$d/left" "$d/right"
echo 'int left_fn(void);' >"$d/left/left.h"
echo '/* right/right.h - a sibling of left/. */' >"$d/right/right.h"
n=$(plant "$d/right/right.h" '#include "left/left.h"')
expect_fail "sideways include" \
	"right/right.h:$n: error: #include \"left/left.h\": sideways include" \
	"$d"

d=$(case_dir relative)
n=$(plant "$d/$top/$top.c" "#include \"$top.h\"")
expect_fail "include relative to the file" \
	"$top/$top.c:$n: error: #include \"$top.h\" is relative to the file" \
	"$d"

d=$(case_dir private)
n=$(plant "$d/$top/$top.c" "#include \"$low/${low}_int.h\"")
expect_fail "private header from another folder" \
	"$top/$top.c:$n: error: #include \"$low/${low}_int.h\": a private header of $low/" \
	"$d"

# --- layers.txt ---------------------------------------------------------
d=$(case_dir layer-cycle)
n=$(grep -n "^$low:" "$d/layers.txt" | cut -d: -f1)
sed -i "s/^$low:.*/$low: $top/" "$d/layers.txt"
expect_fail "cycle in layers.txt" \
	"layers.txt:$n: error: cycle in layers.txt: $low -> $top -> " "$d"

d=$(case_dir unknown-folder)
n=$(grep -n "^$top:" "$d/layers.txt" | cut -d: -f1)
sed -i "s/^$top:.*/& nosuch/" "$d/layers.txt"
expect_fail "unknown folder in layers.txt" \
	"layers.txt:$n: error: $top uses nosuch, an unknown folder" "$d"

# --- module cycles ------------------------------------------------------
d=$(case_dir two-modules)
printf '#include "%s/a.h"\n' "$low" >"$d/$low/a.c"
echo 'int a_fn(void);' >"$d/$low/a.h"
echo 'int b_fn(void);' >"$d/$low/b.h"
printf '#include "%s/b.h"\n' "$low" >"$d/$low/b.c"
na=$(plant "$d/$low/a.c" "#include \"$low/b.h\"")
nb=$(plant "$d/$low/b.h" "#include \"$low/a.h\"")
expect_fail "two-module cycle" \
	"error: module cycle in $low/ between a, b " "$d"
for want in "a -> b: $low/a.c:$na: includes \"$low/b.h\"" \
	"b -> a: $low/b.h:$nb: includes \"$low/a.h\""; do
	grep -qF -- "$want" <<<"$out" ||
		fail "two-module cycle: no \"$want\" in:"$'\n'"$out"
done

d=$(case_dir three-modules)
for m in a b c; do
	echo "int ${m}_fn(void);" >"$d/$low/$m.h"
done
plant "$d/$low/a.h" "#include \"$low/b.h\"" >/dev/null
printf '#include "%s/c.h"\n' "$low" >"$d/$low/b.c"
printf '#include "%s/a.h"\n' "$low" >"$d/$low/c.c"
expect_fail "three-module cycle" \
	"error: module cycle in $low/ between a, b, c " "$d"

# --- what only the objects show -----------------------------------------
d=$(case_dir call-cycle)
n=$(plant "$d/$low/helper.c" "int back(void) { return ${low}_fn(); }")
compile "$d"
expect_pass "call cycle: includes alone see none" "$d"
expect_fail "call cycle, with objects" \
	"error: module cycle in $low/ between " --objects "$d/build" "$d"
for want in " through calls " \
	"helper -> $low: $low/helper.c:$n: calls ${low}_fn ($low/$low.c)" \
	"$low -> helper: $low/$low.c:"; do
	grep -qF -- "$want" <<<"$out" ||
		fail "call cycle: no \"$want\" in:"$'\n'"$out"
done

d=$(case_dir upward-call)
n=$(plant "$d/$low/$low.c" \
	"int ${top}_fn(void); int up(void) { return ${top}_fn(); }")
compile "$d"
expect_fail "upward call, with objects" \
	"$low/$low.c:$n: error: calls ${top}_fn ($top/$top.c): upward call" \
	--objects "$d/build" "$d"

if [ "$failures" -ne 0 ]; then
	echo "$failures check(s) failed" >&2
	exit 1
fi
echo "all checks passed"
