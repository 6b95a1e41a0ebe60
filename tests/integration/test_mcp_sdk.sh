#!/usr/bin/env bash
# test_mcp_sdk.sh - issue 5, acceptance 1: the official MCP TypeScript SDK
# client connects to `corpus-gw serve` over Streamable HTTP, lists the
# tools and calls every one (tests/mcp/client.mjs does the talking).
#
# Writes a workspace (a root wiki and a sub-guild "api") in a temporary
# directory, starts `$CG_BIN serve` on port 0, runs the client against the
# printed MCP URL and stops the server with SIGTERM, which must exit 0 (an
# ASan build reports leaks there).  Node and the SDK come from
# scripts/install-deps (Debian's nodejs and npm, then `npm ci` in
# tests/mcp): when either is missing this test FAILS saying so; it never
# passes without running the client.
set -euo pipefail

: "${CG_BIN:?CG_BIN must name the corpus-gw binary}"
: "${CG_SRC:?CG_SRC must name the source tree}"
# shellcheck source=tests/integration/prelude.sh
source "$CG_SRC/tests/integration/prelude.sh"
mcp_dir="$CG_SRC/tests/mcp"

need_node
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 18 ] ||
	fail "node $(node --version) is too old (need >= 18)"
[ -f "$mcp_dir/node_modules/@modelcontextprotocol/sdk/package.json" ] ||
	fail "the MCP SDK is not installed in $mcp_dir/node_modules: run" \
		"scripts/install-deps (it runs npm ci there; needs the npm" \
		"registry)"

test_tmp mcp-sdk

ws="$tmp/acme"
# shellcheck source=../mcp/workspace.sh
. "$mcp_dir/workspace.sh"
mcp_workspace "$ws"

"$CG_BIN" serve --workspace "$ws" --listen http://127.0.0.1:0 \
	--cache "$tmp/cache" >"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
url=$(serve_url "$tmp/serve.out" mcp "$pid") || url=""
if [ -z "$url" ]; then
	cat "$tmp/serve.err" >&2
	fail "corpus-gw serve printed no 'mcp URL' line within 30 s"
fi
echo "server: $url (node $(node --version))"

rc=0
(cd "$mcp_dir" && node client.mjs "$url") || rc=$?

serve_finish "$rc" "the SDK client"
