#!/usr/bin/env bash
# test_workspace_scope.sh - issue 13: the CLI's workspace scope.  A config
# serves two workspaces, "alpha" and "beta", whose root wikis are both the
# source "root" and both hold a page with the word kumquat.
# `--workspace-name NAME` (repeatable) on query, list, map, grep and status
# keeps each answer to that workspace's sources, embedded (--config) and
# against a running gateway (--gateway); with --source it intersects; an
# unknown name exits 2 naming the valid ones.  The uris of the answers tell
# the workspaces apart (cg://alpha/root/... against cg://beta/root/...).
set -euo pipefail

: "${CG_BIN:?CG_BIN must name the corpus-gw binary}"
: "${CG_SRC:?CG_SRC must name the source tree}"
# shellcheck source=tests/integration/prelude.sh
source "$CG_SRC/tests/integration/prelude.sh"
# shellcheck source=tests/integration/alpha_beta.sh
source "$CG_SRC/tests/integration/alpha_beta.sh"

test_tmp ws-scope

alpha_beta "$tmp" fruit Fruit kumquat

# The workspaces named by the cg:// uris of an answer, sorted, one line.
workspaces_in() {
	grep -o 'cg://[a-z]*/' | sort -u | sed 's|cg://||; s|/$||' | tr '\n' ' '
}

# check WHERE...: every command with and without the scope.
check() {
	local got
	got=$("$CG_BIN" query "$@" --json kumquat | workspaces_in)
	[ "$got" = "alpha beta " ] || fail "query $* without a scope: '$got'"
	got=$("$CG_BIN" query "$@" --workspace-name beta --json kumquat | workspaces_in)
	[ "$got" = "beta " ] || fail "query $* --workspace-name beta: '$got'"
	got=$("$CG_BIN" query "$@" --workspace-name alpha --workspace-name beta \
		--json kumquat | workspaces_in)
	[ "$got" = "alpha beta " ] || fail "query $* with both: '$got'"
	got=$("$CG_BIN" query "$@" --workspace-name alpha --source root --json \
		kumquat | workspaces_in)
	[ "$got" = "alpha " ] || fail "query $* --workspace-name alpha --source root: '$got'"
	got=$("$CG_BIN" list "$@" --workspace-name alpha --json | workspaces_in)
	[ "$got" = "alpha " ] || fail "list $* --workspace-name alpha: '$got'"
	got=$("$CG_BIN" map "$@" --workspace-name beta --json | grep -c '"alpha' || true)
	[ "$got" = 0 ] || fail "map $* --workspace-name beta names alpha"
	got=$("$CG_BIN" map "$@" --workspace-name beta --json | grep -c 'Fruit in beta' || true)
	[ "$got" -ge 1 ] || fail "map $* --workspace-name beta misses beta's page"
	got=$("$CG_BIN" grep "$@" --workspace-name beta --json kumquat | workspaces_in)
	[ "$got" = "beta " ] || fail "grep $* --workspace-name beta: '$got'"
	got=$("$CG_BIN" status "$@" --workspace-name alpha --json |
		grep -o '"node": *"[a-z]*/' | sort -u | tr -d ' "' | tr '\n' ' ')
	[ "$got" = "node:alpha/ " ] || fail "status $* --workspace-name alpha: '$got'"
	rc=0
	"$CG_BIN" query "$@" --workspace-name gamma kumquat >/dev/null \
		2>"$tmp/err" || rc=$?
	[ "$rc" = 2 ] || fail "an unknown workspace exits $rc, not 2"
	grep -q 'alpha' "$tmp/err" && grep -q 'beta' "$tmp/err" ||
		fail "the error does not name the valid workspaces: $(cat "$tmp/err")"
}

check --config "$tmp/gw.yaml"

serve_config "$tmp/gw.yaml"
check --gateway "$url"
serve_stop
echo "PASS"
