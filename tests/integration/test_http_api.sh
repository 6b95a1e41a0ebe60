#!/usr/bin/env bash
# test_http_api.sh - issue 13, acceptance 5: the HTTP API conventions of
# `corpus-gw serve` against a live gateway with two tokens.
#
# Here: /readyz answers 503 (not_ready) for as long as a node cannot finish
# its first index (the test holds the index's writer lock, which the sync
# waits for, after changing a page), then 200 with the change searchable.
# Then tests/mcp/http_api.mjs checks the rest (OpenAPI validated and walked
# against the routes, POST, offset/total, facets, tokens in facets and
# metrics, /metrics, the access log written to the server's stderr).
#
# The workspace "acme" (a root wiki and a sub-guild "api", the MCP tests'
# pages plus fifteen "widget" pages spread over both) is written here.
# Node and its packages come from scripts/install-deps (npm ci in
# tests/mcp): when missing, this test FAILS saying so.
set -euo pipefail

: "${CG_BIN:?CG_BIN must name the corpus-gw binary}"
: "${CG_SRC:?CG_SRC must name the source tree}"
# shellcheck source=tests/integration/prelude.sh
source "$CG_SRC/tests/integration/prelude.sh"
mcp_dir="$CG_SRC/tests/mcp"

need_node
command -v flock >/dev/null || fail "flock (util-linux) is not installed"
[ -f "$mcp_dir/node_modules/@seriousme/openapi-schema-validator/package.json" ] ||
	fail "the OpenAPI validator is not installed in $mcp_dir/node_modules:" \
		"run scripts/install-deps (npm ci there)"

test_tmp http-api

ws="$tmp/acme"
# shellcheck source=../mcp/workspace.sh
. "$mcp_dir/workspace.sh"
mcp_workspace "$ws"
cats=(decision concept standard)
confs=(high low medium)
for i in $(seq 1 15); do
	if [ "$i" -le 10 ]; then dir="$ws/.guild/wiki"; else
		dir="$ws/services/api/.guild/wiki"
	fi
	c=${cats[$((i % 3))]}
	conf=""
	[ $((i % 2)) -eq 0 ] && conf="\nconfidence: ${confs[$((i % 3))]}"
	tag="Gadget"
	[ $((i % 2)) -eq 0 ] && tag="gadget"
	page "$dir" "${c}s/widget-$i.md" \
		"type: $c\ntitle: Widget note $i\ntags: [$tag, t$((i % 4))]$conf" \
		"# Widget note $i\n\nThe widget number $i and its parts.\n"
done

# Two remote corpora as `corpus-gw fetch` publishes them (no fetch here:
# the metrics read what is cached): "book", whose last refresh failed, and
# "notes", fresh.  Their files are written in the hiivmind formats.
reg="$ws/.hiivmind/corpus"
mkdir -p "$reg/cache/.corpus-gw"
printf 'schema_version: 1\ncorpora:\n' >"$reg/registry.yaml"
for id in book notes; do
	printf '  - id: %s\n    source:\n      type: github\n      repo: acme/corpus-%s\n      ref: main\n    cache:\n      strategy: fetch\n      ttl: 7d\n' \
		"$id" "$id" >>"$reg/registry.yaml"
	mkdir -p "$reg/cache/$id/docs/$id-src"
	printf 'schema_version: 2\ncorpus:\n  name: "%s"\n  keywords: [%s]\nsources:\n  - id: "%s-src"\n    type: "git"\n    repo_owner: "acme"\n    repo_name: "%s-src"\n    branch: "main"\n    docs_root: "docs/"\n    last_commit_sha: "1111111111111111111111111111111111111111"\n' \
		"$id" "$id" "$id" "$id" >"$reg/cache/$id/config.yaml"
	printf 'entries:\n  - id: "%s-src:ch01.md"\n    source: %s-src\n    path: "ch01.md"\n    title: "Gearbox"\n    summary: "How the gearbox starts"\n    concepts: ["gearbox"]\n    category: guide\n' \
		"$id" "$id" >"$reg/cache/$id/index.yaml"
	printf '# Gearbox\n\nThe gearbox starts here.\n' \
		>"$reg/cache/$id/docs/$id-src/ch01.md"
	printf '{"corpus_id": "%s", "source_repo": "acme/corpus-%s", "source_ref": "main", "cached_at": "2026-11-01T00:00:00Z", "cached_commit_sha": "2222222222222222222222222222222222222222", "ttl_days": 7}\n' \
		"$id" "$id" >"$reg/cache/$id/_cache_meta.json"
done
printf '{"etag": "", "remote_sha": "2222222222222222222222222222222222222222", "checked_at": "2026-11-30T00:00:00Z", "last_error": "HTTP 503 from the remote", "last_error_at": "2026-11-30T00:00:00Z"}\n' \
	>"$reg/cache/.corpus-gw/book.json"
printf '{"etag": "", "remote_sha": "2222222222222222222222222222222222222222", "checked_at": "2026-11-30T00:00:00Z", "last_error": "", "last_error_at": ""}\n' \
	>"$reg/cache/.corpus-gw/notes.json"

export CG_T_ALL="secret-all-$RANDOM$RANDOM"
export CG_T_API="secret-api-$RANDOM$RANDOM"
cat >"$tmp/gateway.yaml" <<YAML
listen: http://127.0.0.1:0
workspaces:
  - name: acme
    path: $ws
tokens:
  - name: all-team
    secret_env: CG_T_ALL
  - name: api-team
    secret_env: CG_T_API
    allow: ["cg://acme/api/?*"]
YAML

# --- /readyz: 503 until the first index ---------------------------------------
"$CG_BIN" index --workspace "$ws" --cache "$tmp/cache" >/dev/null
printf '\nThe sprocket appears once the index is ready.\n' \
	>>"$ws/.guild/wiki/context/overview.md"
lock=$(echo "$tmp"/cache/*-root/lock)
[ -f "$lock" ] || fail "no index lock file under $tmp/cache"
exec 9>>"$lock"
flock 9

"$CG_BIN" serve --config "$tmp/gateway.yaml" --cache "$tmp/cache" \
	>"$tmp/serve.out" 2>"$tmp/serve.err" 9>&- &
pid=$!
url=$(serve_url "$tmp/serve.out" listening "$pid") || url=""
if [ -z "$url" ]; then
	cat "$tmp/serve.err" >&2
	fail "corpus-gw serve printed no 'listening URL' line within 30 s"
fi
echo "server: $url (node $(node --version))"

# While the root node cannot take its index's lock, it has no first index of
# this run: not ready, every time, while healthz says the process lives.
for _ in $(seq 1 10); do
	body=$(curl -s -w ' %{http_code}' "$url/readyz")
	case "$body" in
	*'"not_ready"'*' 503') ;;
	*) fail "/readyz before the first index answered: $body" ;;
	esac
	[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/healthz")" = 200 ] ||
		fail "/healthz is not 200 while indexing"
	sleep 0.1
done
flock -u 9
exec 9>&-
ready=""
for _ in $(seq 1 300); do
	ready=$(curl -s -o /dev/null -w '%{http_code}' "$url/readyz")
	[ "$ready" = 200 ] && break
	[ "$ready" = 503 ] || fail "/readyz answered $ready"
	sleep 0.1
done
[ "$ready" = 200 ] || fail "/readyz is not 200 within 30 s of the lock's release"
hits=$(curl -s -H "Authorization: Bearer $CG_T_ALL" "$url/v1/search?q=sprocket")
case "$hits" in
*'overview.md'*) ;;
*) fail "ready, but the page changed before the start is not indexed: $hits" ;;
esac

# --- the rest, from node ------------------------------------------------------
rc=0
(cd "$mcp_dir" && node http_api.mjs "$url" "$tmp/serve.err") || rc=$?

serve_finish "$rc" "http_api.mjs" 40
