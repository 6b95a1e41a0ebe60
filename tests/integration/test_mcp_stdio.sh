#!/usr/bin/env bash
# test_mcp_stdio.sh - issue 13, acceptance 2: `corpus-gw mcp --workspace
# DIR` serves MCP over stdio, and the official MCP TypeScript SDK client
# (tests/mcp/client.mjs, with StdioClientTransport) passes its whole run
# against it: every tool with its outputSchema, the resources, a failing
# tool call and an unknown tool.  Then the process must exit 0 when the
# client closes stdin (the SDK closes it and waits).  Node and the SDK
# come from scripts/install-deps; without them this test FAILS, never
# passes.
set -euo pipefail

: "${CG_BIN:?CG_BIN must name the corpus-gw binary}"
: "${CG_SRC:?CG_SRC must name the source tree}"
mcp_dir="$CG_SRC/tests/mcp"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

command -v node >/dev/null ||
	fail "node is not installed: run scripts/install-deps"
[ -f "$mcp_dir/node_modules/@modelcontextprotocol/sdk/package.json" ] ||
	fail "the MCP SDK is not installed in $mcp_dir/node_modules: run" \
		"scripts/install-deps"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cg-mcp-stdio.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ws="$tmp/acme"
# shellcheck source=../mcp/workspace.sh
. "$mcp_dir/workspace.sh"
mcp_workspace "$ws"

# The SDK client starts the server itself, as Claude Code would.
(cd "$mcp_dir" && node client.mjs --stdio "$CG_BIN" mcp --workspace "$ws" \
	--cache "$tmp/cache") || fail "the SDK client failed over stdio"

# Input ends: a clean exit 0, and nothing but JSON-RPC lines on stdout.
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"ping"}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'not json' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"corpus_nope","arguments":{}}}' |
	"$CG_BIN" mcp --workspace "$ws" --cache "$tmp/cache" >"$tmp/out" \
		2>"$tmp/err" || fail "corpus-gw mcp exited $? at end of input"
[ "$(wc -l <"$tmp/out")" -eq 3 ] ||
	fail "expected 3 reply lines (ping, parse error, unknown tool), got: $(cat "$tmp/out")"
grep -q '"id":1,"result":{}' "$tmp/out" || fail "no ping reply"
grep -q '"code":-32700' "$tmp/out" || fail "no parse error for 'not json'"
grep -q '"id":2,"error":{"code":-32602' "$tmp/out" ||
	fail "no JSON-RPC error for an unknown tool"
echo "PASS"
