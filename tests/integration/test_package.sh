#!/usr/bin/env bash
# test_package - the Debian package (issue 14): `cpack -G DEB` in the
# build directory makes corpus-gw_VERSION_ARCH.deb whose Depends come
# from dpkg-shlibdeps; dpkg installs it into a clean root (--root, an empty
# dpkg database: the libraries it depends on are the host's, hence
# --force-depends), and what it installed under the root's /usr works: the
# files in their places, the units starting /usr/bin/corpus-gw, --version,
# a query over the example, serve until /readyz answers.
set -euo pipefail
: "${CG_BIN:?}" "${CG_SRC:?}"
build=$(dirname "$CG_BIN")
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
# shellcheck source=tests/integration/installed.sh
source "$CG_SRC/tests/integration/installed.sh"

(cd "$build" && cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) ||
	{ cat "$tmp/cpack.log" >&2; exit 1; }
deb=$(ls "$tmp"/pkg/corpus-gw_*.deb)
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ "$(dpkg-deb -f "$deb" Package)" = corpus-gw ]
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ]
deps=$(dpkg-deb -f "$deb" Depends)
for lib in libnng libsqlite3 libmicrohttpd libgit2 libcurl libjansson libyaml; do
	grep -q "$lib" <<<"$deps" ||
		{ echo "test_package: Depends lacks $lib: $deps" >&2; exit 1; }
done

root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-not-root -i "$deb" \
	>"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log" >&2; exit 1; }
dpkg --root="$root" -L corpus-gw | grep -qx /usr/bin/corpus-gw
check_tree "$root/usr" vendor-completions "$version" /usr
echo "test_package: ok"
