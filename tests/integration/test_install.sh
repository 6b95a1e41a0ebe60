#!/usr/bin/env bash
# test_install - `cmake --install BUILD --prefix DIR` gives a working tree
# (issue 14): the binary, both man pages, the three completions, the
# example config and workspace and the systemd units land in their FHS
# places under DIR, the units start DIR's binary, and the installed binary
# prints the project's version, answers a query over the installed example
# and serves it until /readyz answers.  Also: configuring without tests
# (-DBUILD_TESTING=OFF) does not look for cmocka.
set -euo pipefail
: "${CG_BIN:?}" "${CG_SRC:?}"
build=$(dirname "$CG_BIN")
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
# shellcheck source=tests/integration/installed.sh
source "$CG_SRC/tests/integration/installed.sh"

cmake --install "$build" --prefix "$tmp/inst" >/dev/null
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
check_tree "$tmp/inst" site-functions "$version"

# cmocka is looked for only when the tests are built.
cmake -S "$CG_SRC" -B "$tmp/notest" -DBUILD_TESTING=OFF >"$tmp/notest.log" 2>&1 ||
	{ cat "$tmp/notest.log" >&2; exit 1; }
if grep -q CMOCKA "$tmp/notest/CMakeCache.txt"; then
	echo "test_install: cmocka is looked for without tests" >&2
	exit 1
fi
echo "test_install: ok"
