# workspace.sh - sourced by the MCP SDK tests (tests/integration/
# test_mcp_*.sh): mcp_workspace DIR writes the workspace client.mjs
# expects there: a root wiki with "Use Postgres" (linking [[caching]]),
# "Caching" and an overview, and a sub-guild "api" whose page links back
# to the root.  Fixture text written for these tests; nothing else.
page() { # page WS FILE FRONTMATTER BODY
	mkdir -p "$(dirname "$1/$2")"
	printf -- '---\n%b\n---\n%b' "$3" "$4" >"$1/$2"
}

mcp_workspace() {
	local ws=$1
	mkdir -p "$ws/.guild"
	cat >"$ws/.guild/workspace.json" <<'JSON'
{"schema": "guild.workspace.v1", "root_wiki": true,
 "sub_guilds": [{"name": "api", "path": "services/api", "kind": "service",
                 "has_wiki": true}]}
JSON
	page "$ws" .guild/wiki/decisions/use-postgres.md \
		'type: decision\ntitle: Use Postgres\naliases: [pg-choice]\ntags: [db]\nupdated_at: 2026-01-10' \
		'# Use Postgres\n\nWe chose Postgres for storage. See [[caching]].\n\n## Why\n\nTransactions.\n'
	page "$ws" .guild/wiki/concepts/caching.md 'type: concept' \
		'# Caching\n\nBack to [[use-postgres]].\n'
	page "$ws" .guild/wiki/context/overview.md 'type: context' \
		'# Overview\n\nThe root overview.\n'
	page "$ws" services/api/.guild/wiki/concepts/auth-flow.md 'type: concept' \
		'# Auth Flow\n\nSessions live in [[root/Use Postgres]].\n'
}
