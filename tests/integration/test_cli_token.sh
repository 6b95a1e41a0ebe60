#!/usr/bin/env bash
# test_cli_token.sh - issue 13, acceptance 3: the CLI against a gateway
# with tokens.  `corpus-gw serve --config` runs with two tokens (one sees
# only the sub-guild "api"); then `query`/`read --gateway URL`:
#   - with --token (or CORPUS_GW_TOKEN): allowed, and the token's scope
#     holds (the api-only token never sees a root page);
#   - with a wrong token: exit 2, "refused", the secret never printed;
#   - without a token: exit 2, saying to pass --token or CORPUS_GW_TOKEN;
#   - --token without --gateway: exit 2 (an embedded gateway takes none);
# and `corpus-gw mcp --gateway URL --token T` relays MCP over stdio.
# Also: `corpus-gw --version` prints the version /healthz reports.
set -euo pipefail

: "${CG_BIN:?CG_BIN must name the corpus-gw binary}"
: "${CG_SRC:?CG_SRC must name the source tree}"
# shellcheck source=tests/integration/prelude.sh
source "$CG_SRC/tests/integration/prelude.sh"

test_tmp cli-token

ws="$tmp/acme"
# shellcheck source=../mcp/workspace.sh
. "$CG_SRC/tests/mcp/workspace.sh"
mcp_workspace "$ws"
cat >"$tmp/gw.yaml" <<EOF2
listen: http://127.0.0.1:0
cache: $tmp/cache
workspaces:
  - name: acme
    path: $ws
tokens:
  - name: admin
    secret_env: CGT_ADMIN
  - name: api-only
    secret_env: CGT_API
    allow: ["cg://acme/api/*"]
EOF2
admin="admin-secret-7f3a9c"
api="api-secret-11b2e4"
CGT_ADMIN=$admin CGT_API=$api "$CG_BIN" serve --config "$tmp/gw.yaml" \
	>"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
url=$(serve_url "$tmp/serve.out" listening "$pid") || url=""
[ -n "$url" ] || { cat "$tmp/serve.err" >&2; fail "serve printed no URL"; }

# Wait for the first index (a query finds the page).
for _ in $(seq 1 300); do
	if "$CG_BIN" query --gateway "$url" --token "$admin" --json Postgres \
		2>/dev/null | grep -q use-postgres.md; then
		break
	fi
	sleep 0.2
done

run() { # run NAME EXPECTED_EXIT ARGS... : output in $tmp/NAME.{out,err}
	local name=$1 want=$2 rc=0
	shift 2
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	[ "$rc" -eq "$want" ] ||
		fail "$name: exit $rc, expected $want: $(cat "$tmp/$name.err")"
	if grep -q -e "$admin" -e "$api" "$tmp/$name.out" "$tmp/$name.err"; then
		fail "$name: a secret was printed"
	fi
}

run allowed 0 "$CG_BIN" query --gateway "$url" --token "$admin" Postgres
grep -q 'cg://acme/root/.guild/wiki/decisions/use-postgres.md' \
	"$tmp/allowed.out" || fail "allowed: no hit: $(cat "$tmp/allowed.out")"

run env 0 env CORPUS_GW_TOKEN="$admin" "$CG_BIN" query --gateway "$url" \
	--json Postgres
grep -q use-postgres.md "$tmp/env.out" || fail "CORPUS_GW_TOKEN: no hit"

# The option wins over the environment.
run option_wins 0 env CORPUS_GW_TOKEN=wrong "$CG_BIN" query --gateway \
	"$url" --token "$admin" --json Postgres

# A token sees what it grants: the api-only token finds no root page.
run scoped 0 "$CG_BIN" query --gateway "$url" --token "$api" --json \
	Postgres
if grep -q 'acme/root/' "$tmp/scoped.out"; then
	fail "the api-only token saw a root page"
fi
grep -q 'auth-flow.md' "$tmp/scoped.out" ||
	fail "the api-only token did not see its own page"

run denied 2 "$CG_BIN" read --gateway "$url" --token wrong-token \
	cg://acme/root/.guild/wiki/decisions/use-postgres.md
grep -q 'HTTP 401.*the token was refused' "$tmp/denied.err" ||
	fail "denied: $(cat "$tmp/denied.err")"

run missing 2 env -u CORPUS_GW_TOKEN "$CG_BIN" query --gateway "$url" \
	Postgres
grep -q 'HTTP 401.*--token or CORPUS_GW_TOKEN' "$tmp/missing.err" ||
	fail "missing: $(cat "$tmp/missing.err")"

run embedded 2 "$CG_BIN" query --workspace "$ws" --cache "$tmp/c2" \
	--token "$admin" Postgres
grep -q -- '--token is for --gateway' "$tmp/embedded.err" ||
	fail "embedded: $(cat "$tmp/embedded.err")"

# MCP over stdio, relayed to the gateway with the token.
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"corpus_search","arguments":{"q":"Postgres"}}}' |
	"$CG_BIN" mcp --gateway "$url" --token "$admin" >"$tmp/mcp.out" \
		2>"$tmp/mcp.err" || fail "mcp --gateway exited $?"
grep -q '"id":1' "$tmp/mcp.out" && grep -q 'use-postgres.md' "$tmp/mcp.out" ||
	fail "mcp --gateway: $(cat "$tmp/mcp.out" "$tmp/mcp.err")"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"ping"}' |
	"$CG_BIN" mcp --gateway "$url" --token wrong >"$tmp/mcp2.out" \
		2>"$tmp/mcp2.err" || true
grep -q 'the token was refused' "$tmp/mcp2.err" ||
	fail "mcp --gateway with a wrong token: $(cat "$tmp/mcp2.err")"

# --version and /healthz name the same version.
ver=$("$CG_BIN" --version)
[[ "$ver" =~ ^corpus-gw\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version: $ver"
curl -fsS "$url/healthz" | grep -q "\"version\":\"${ver#corpus-gw }\"" ||
	fail "/healthz does not report ${ver#corpus-gw }"

serve_stop
echo "PASS"
