#!/usr/bin/env bash
# test_did_you_mean.sh - issue 12 "did you mean": an empty or thin result
# suggests the index's own close, more frequent word in the note, in every
# interface: the CLI's text and JSON, the MCP search tool (structured
# content and text, over stdio), and the HTTP API's JSON is the same
# answer as the CLI's.  A word already frequent is not "corrected", a
# short word gets no suggestion, and the MCP tool description documents
# the query syntax.  Fixtures are written here.
set -euo pipefail

: "${CG_BIN:?CG_BIN must name the corpus-gw binary}"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cg-dym.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ws="$tmp/acme"
wiki="$ws/.guild/wiki"
mkdir -p "$wiki/context" "$wiki/standards" "$ws/svc/.guild/wiki/context"
printf '{"schema": "guild.workspace.v1", "root_wiki": true, "sub_guilds": [{"name": "svc", "path": "svc", "kind": "service", "has_wiki": true}]}\n' \
	>"$ws/.guild/workspace.json"
page() { # path title body
	printf -- '---\ntype: context\n---\n# %s\n\n%s\n' "$2" "$3" >"$1"
}
page "$wiki/context/use-postgres.md" "PostgreSQL" "We store orders in postgres."
page "$wiki/standards/backups.md" "Backups" "Back up postgres nightly."
page "$ws/svc/.guild/wiki/context/db.md" "Database" "The service reads postgres replicas."
page "$wiki/context/typo.md" "Old note" "Someone wrote postgrez here once."
page "$wiki/context/deploy.md" "Deploys" "Deploy on Tuesdays."
for i in 1 2 3 4 5 6 7 8; do
	page "$wiki/context/db-$i.md" "Database note $i" "Tune postgres setting $i."
done

q() { "$CG_BIN" query --workspace "$ws" --cache "$tmp/cache" "$@"; }

# Empty result: postgress -> postgres (summed over both sources: 11).
json=$(q --json postgress)
[ "$(jq -r '.hits | length' <<<"$json")" = 0 ] || fail "postgress has hits"
[ "$(jq -r '.suggestions[0].suggest' <<<"$json")" = postgres ] ||
	fail "no suggestion for postgress: $json"
[ "$(jq -r '.suggestions[0].df' <<<"$json")" = 11 ] ||
	fail "df not summed over the sources: $json"
jq -r .note <<<"$json" | grep -q 'Did you mean "postgres"?' ||
	fail "note without the suggestion: $(jq -r .note <<<"$json")"
jq -e '.evidence.rounds | map(.op) | index("suggest")' <<<"$json" >/dev/null ||
	fail "no suggest round in the evidence"

# Thin result (postgrez is in the index once): still postgres, in eleven
# times as many sections.  (Not "postgre": it is a word form of postgres,
# stem "postgr", and finds every postgres page.)
json=$(q --json postgrez)
[ "$(jq -r '.hits | length' <<<"$json")" = 1 ] || fail "postgrez: $json"
[ "$(jq -r '.suggestions[0].suggest' <<<"$json")" = postgres ] ||
	fail "no suggestion for the thin postgrez: $json"
jq -r .note <<<"$json" | grep -q '^Few hits. Did you mean "postgres"?' ||
	fail "thin note: $(jq -r .note <<<"$json")"

# Several words: each named.
text=$(q "postgress deplyo")
grep -q 'Did you mean "postgres" (for "postgress"), "deploy" (for "deplyo")?' <<<"$text" ||
	fail "CLI text without both suggestions: $text"

# A word in use is not "corrected" to a neighbour: deploy (one section)
# has no suggestion though "deploys" is one edit away.
json=$(q --json deploy)
jq -e '.suggestions == null' <<<"$json" >/dev/null || fail "deploy: $json"
# No suggestion: a frequent word with enough hits runs no suggest round;
# a word nothing is close to gets the plain note; short words none.
json=$(q --json postgres)
jq -e '.suggestions == null and (.evidence.rounds | map(.op) | index("suggest")) == null' \
	<<<"$json" >/dev/null || fail "postgres got a suggestion: $json"
json=$(q --json zzzqqq)
jq -e '.suggestions == null' <<<"$json" >/dev/null || fail "zzzqqq: $json"
jq -r .note <<<"$json" | grep -q '^No hits. The index is lexical' ||
	fail "plain note changed: $json"
json=$(q --json pg)
jq -e '.suggestions == null' <<<"$json" >/dev/null || fail "pg: $json"

# MCP over stdio: the structured answer and the text both carry it, and
# the tool's description documents the query syntax.
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"corpus_search","arguments":{"q":"postgress"}}}' |
	"$CG_BIN" mcp --workspace "$ws" --cache "$tmp/cache" >"$tmp/mcp" 2>"$tmp/mcp.err" ||
	fail "corpus-gw mcp failed: $(cat "$tmp/mcp.err")"
list=$(jq -c 'select(.id == 1)' "$tmp/mcp")
call=$(jq -c 'select(.id == 2)' "$tmp/mcp")
jq -r '.result.tools[] | select(.name == "corpus_search") | .description' <<<"$list" |
	grep -q 'Query syntax: "exact phrase"' || fail "MCP description: $list"
[ "$(jq -r '.result.structuredContent.suggestions[0].suggest' <<<"$call")" = postgres ] ||
	fail "MCP structured content: $call"
jq -r '.result.content[0].text' <<<"$call" | grep -q 'Did you mean "postgres"' ||
	fail "MCP text: $call"
echo PASS
