# shellcheck shell=bash
# lib.sh - shared by the benchmark scripts under bench/ (sourced, not run):
# paths, the corpus check, building corpus-gw and the helper programs, the
# FTS5 peer databases, machine notes and order statistics.
#
# It must not write outside bench/out/ and build-bench/, and it never
# touches the corpus (read-only under ../shared/corpora).

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
build="${CG_BENCH_BUILD:-$repo/build-bench}"
out="$here/out"
bin="$out/bin"
corpus="${TLDR_CORPUS:-$(cd "$repo/.." && pwd)/shared/corpora/tldr}"
cgw="$build/corpus-gw"

# Exits 3 with a message when the tldr corpus is not there.
require_corpus() {
	if [ ! -d "$corpus/pages" ] || [ ! -d "$corpus/pages.zh" ]; then
		echo "$(basename "$0"): the tldr corpus is absent:" \
			"$corpus/pages and pages.zh not found." >&2
		echo "  It is read from ../shared/corpora/tldr next to the" \
			"repository (set TLDR_CORPUS=DIR to point elsewhere);" \
			"nothing was measured." >&2
		exit 3
	fi
}

# Needs a command; apt-get installs its Debian package when missing and
# we are root (sqlite3, ripgrep, jq are all Debian packages).
require_tool() {
	local cmd="$1" pkg="$2"
	command -v "$cmd" >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "installing $pkg for $cmd" >&2
		apt-get install -y "$pkg" >/dev/null
	fi
	if ! command -v "$cmd" >/dev/null 2>&1; then
		echo "$(basename "$0"): $cmd is missing (Debian package $pkg)" >&2
		exit 2
	fi
}

# Builds corpus-gw (Release) into build-bench unless CG_BENCH_NOBUILD=1.
build_project() {
	if [ "${CG_BENCH_NOBUILD:-0}" != 1 ]; then
		mkdir -p "$out"
		if ! { cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release &&
			cmake --build "$build" -j2 --target corpus-gw bench_query; } \
			>"$out/build.log" 2>&1; then
			tail -20 "$out/build.log" >&2
			echo "$(basename "$0"): the build failed (bench/out/build.log)" >&2
			exit 1
		fi
	fi
	if [ ! -x "$cgw" ] || [ ! -x "$build/bench_query" ]; then
		echo "$(basename "$0"): no $cgw / bench_query; build failed?" >&2
		exit 1
	fi
}

# Compiles the helper programs into bench/out/bin.
build_tools() {
	local warn=(-std=c11 -O2 -Wall -Wextra -Wshadow -Wstrict-prototypes
		-Wmissing-prototypes -Wno-unused-parameter)
	mkdir -p "$bin"
	gcc "${warn[@]}" -I"$here" "$here/timeit.c" "$here/bench_common.c" \
		-o "$bin/timeit" -lm
	gcc "${warn[@]}" -I"$here" "$here/bench_fts5.c" "$here/bench_common.c" \
		-o "$bin/bench_fts5" -lsqlite3 -lm
	cp "$build/bench_query" "$bin/bench_query"
}

# Lays out the workspace (bench/tldr-workspace) at $1.
make_workspace() {
	"$here/tldr-workspace" --corpus "$corpus" "$1" >/dev/null
}

# SQL that builds an FTS5 table docs(path, body) with tokenizer $1 from
# the pages of the workspace in the current directory: the same files
# corpus-gw indexes (it skips index.md, log.md and lint-*.md by design).
fts5_sql() {
	cat <<EOF
CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, body, tokenize='$1');
INSERT INTO docs(path, body)
  SELECT name, CAST(data AS TEXT) FROM fsdir('.')
  WHERE name GLOB '*/.guild/wiki/*.md' AND name NOT GLOB '*/index.md'
    AND name NOT GLOB '*/log.md' AND name NOT GLOB '*/lint-*.md';
EOF
}

# Builds the FTS5 database $2 (fresh) with tokenizer $1 over workspace $3.
make_fts5_db() {
	rm -f -- "$2" "$2-journal" "$2-wal"
	fts5_sql "$1" >"$out/fts5-$1.sql"
	(cd "$3" && sqlite3 "$2" ".read $out/fts5-$1.sql")
}

# Bytes of the files a tool indexed: $1 is a directory.
dir_bytes() {
	du -sb -- "$1" | cut -f1
}

# Bytes of the workspace's pages as corpus-gw sees them.
page_bytes() {
	find "$1" -path '*/.guild/wiki/*' -type f -name '*.md' \
		! -name index.md ! -name log.md ! -name 'lint-*.md' -print0 |
		xargs -0 cat | wc -c
}

# One line about the machine: cores, CPU, load.
machine_notes() {
	local cpu
	cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
	echo "host: $(nproc) cores ($cpu), $(uname -sr)," \
		"load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "tools: sqlite3 $(sqlite3 --version | cut -d' ' -f1)," \
		"$(rg --version | sed -n 1p), gcc $(gcc -dumpversion)," \
		"corpus-gw $(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' \
			"$build/CMakeCache.txt") build"
}

# stdin: numbers, one a line; prints "median p90" (nearest rank).
med_p90() {
	sort -g | awk '{ v[NR] = $1 }
		END {
			if (NR == 0) { print "NA NA"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			k = int(0.9 * NR); if (k < 0.9 * NR) k++; if (k < 1) k = 1
			print m, v[k]
		}'
}

# Warns when a 1-minute load average ($1, $2: before and after) exceeded
# the core count (the benchmark itself keeps about one core busy): other
# work shared the machine, so the numbers are noisy.
busy_note() {
	awk -v a="${1%% *}" -v b="${2%% *}" -v n="$(nproc)" 'BEGIN {
		m = a > b ? a : b
		if (m > n)
			printf "WARNING: load average reached %.2f on %d cores: other work shared the machine, numbers are noisy\n", m, n }'
}
