#!/usr/bin/env bash
# test_web_browser.sh - issue 13, acceptance 6: the search page at / in a
# real browser, Debian's headless chromium driven by playwright-core
# (tests/browser/web.mjs does the clicking; see there for each check):
# the token form, type a query, apply a filter, open a hit, follow a
# backlink, conflicts side by side, a run with JavaScript disabled that
# still searches, an XSS fixture shown as text with no script run, and a
# token whose hidden page never appears in any HTML the gateway sends.
# Before the browser, curl checks the bad input: a token form with bytes
# a cookie cannot hold, a POST elsewhere, /page without a uri, an unknown
# argument, an unknown asset, and that the cookie opens the page only
# (the JSON API still wants the Bearer header).
#
# Writes a workspace (a root wiki and a sub-guild "api") in a temporary
# directory, starts `$CG_BIN serve --config` with two tokens (admin sees
# everything, api-only sees cg://acme/api/*) on port 0, runs the driver
# and stops the server with SIGTERM, which must exit 0.  chromium comes
# from scripts/install-deps (apt), playwright-core from `npm ci` in
# tests/browser: when either is missing this test FAILS saying so; it
# never passes without running the browser.
set -euo pipefail

: "${CG_BIN:?CG_BIN must name the corpus-gw binary}"
: "${CG_SRC:?CG_SRC must name the source tree}"
# shellcheck source=tests/integration/prelude.sh
source "$CG_SRC/tests/integration/prelude.sh"
dir="$CG_SRC/tests/browser"

need_node
chromium=${CG_CHROMIUM:-$(command -v chromium || true)}
[ -n "$chromium" ] ||
	fail "chromium is not installed: run scripts/install-deps"
[ -f "$dir/node_modules/playwright-core/package.json" ] ||
	fail "playwright-core is not installed in $dir/node_modules: run" \
		"scripts/install-deps (it runs npm ci there; needs the npm" \
		"registry)"

test_tmp web

page() { # page WS FILE FRONTMATTER BODY
	mkdir -p "$(dirname "$1/$2")"
	printf -- '---\n%s\n---\n%s' "$3" "$4" >"$1/$2"
}

ws="$tmp/acme"
mkdir -p "$ws/.guild"
cat >"$ws/.guild/workspace.json" <<'JSON'
{"schema": "guild.workspace.v1", "root_wiki": true,
 "sub_guilds": [{"name": "api", "path": "services/api", "kind": "service",
                 "has_wiki": true}]}
JSON
w=.guild/wiki
page "$ws" $w/decisions/use-postgres.md \
	$'type: decision\ntitle: Use Postgres\nupdated_at: 2026-01-10' \
	$'# Use Postgres\n\nWe chose Postgres for storage. See [[caching]].\n'
page "$ws" $w/concepts/caching.md 'type: concept' \
	$'# Caching\n\nCaching sits in front of Postgres.\nBack to [[use-postgres]].\n'
# Two decisions with one title and different bodies: a conflict, the
# newer wins.
page "$ws" $w/decisions/queue-a.md \
	$'type: decision\nconfidence: medium\nupdated_at: 2026-02-01' \
	$'# Message Queue Choice\n\nWe picked rabbitmq for the message queue.\n'
page "$ws" $w/decisions/queue-b.md \
	$'type: decision\nconfidence: medium\nupdated_at: 2026-05-01' \
	$'# Message Queue Choice\n\nWe picked nats for the message queue.\n'
# Hidden from the api-only token.
page "$ws" $w/context/vault-secrets.md 'type: context' \
	$'# Vault Secrets\n\nThe zanzibar vault combination is kept offline.\n'
# The XSS fixture: markup and script in the title and the body.
page "$ws" $w/concepts/hostile.md \
	$'type: concept\ntitle: \'<b id="xss-b">bold</b><script>window.__xss=1</script>\'' \
	$'# Hostile\n\nxssprobe <img src=x onerror="window.__xss=2"> and\n<script>window.__xss=3</script> and **xssprobe** & "quotes".\n'
page "$ws" services/api/$w/concepts/auth-flow.md 'type: concept' \
	$'# Auth Flow\n\nSessions live in [[root/Use Postgres]].\n'

# A second workspace whose sub-guild is also named "api": the source
# filter must tell the two apart.
beta="$tmp/beta"
mkdir -p "$beta/.guild"
cat >"$beta/.guild/workspace.json" <<'JSON'
{"schema": "guild.workspace.v1", "root_wiki": false,
 "sub_guilds": [{"name": "api", "path": "api", "kind": "service",
                 "has_wiki": true}]}
JSON
page "$beta" api/$w/concepts/quetzal.md 'type: concept' \
	$'# Quetzal Notes\n\nThe quetzal lives in the beta api only.\n'

cat >"$tmp/gw.yaml" <<EOF
listen: http://127.0.0.1:0
cache: $tmp/cache
workspaces:
  - name: acme
    path: $ws
  - name: beta
    path: $beta
tokens:
  - name: admin
    secret_env: CGT_ADMIN
  - name: api-only
    secret_env: CGT_API
    allow: ["cg://acme/api/*"]
EOF
export CG_ADMIN_TOKEN="admin-web-secret-5d1e"
export CG_API_TOKEN="api-only-web-secret-93c0"
CGT_ADMIN=$CG_ADMIN_TOKEN CGT_API=$CG_API_TOKEN "$CG_BIN" serve \
	--config "$tmp/gw.yaml" >"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
url=$(serve_url "$tmp/serve.out" listening "$pid") || url=""
[ -n "$url" ] || { cat "$tmp/serve.err" >&2; fail "serve printed no URL"; }
# Wait for the first index: the ready probe answers 200.
serve_ready "$url" || fail "/readyz never answered 200"
echo "server: $url ($("$chromium" --version 2>/dev/null || echo chromium))"

# Bad input over plain HTTP first: each a clear status and message.
expect() { # expect STATUS GREP CURL-ARGS...: the answer's status and text
	local want=$1 text=$2 got
	shift 2
	got=$(curl -sS -o "$tmp/body" -w '%{http_code}' "$@") ||
		fail "curl $*: exit $?"
	[ "$got" = "$want" ] || fail "curl $*: HTTP $got, expected $want"
	grep -q -- "$text" "$tmp/body" ||
		fail "curl $*: no '$text' in: $(cat "$tmp/body")"
}
admin_cookie="Cookie: cg_token=$CG_ADMIN_TOKEN"
expect 400 'printable ASCII' -X POST -d 'token=abc%3Bdef' "$url/token"
expect 400 'printable ASCII' -X POST -d 'token=%zz' "$url/token"
expect 400 'printable ASCII' -X POST -d 'nothing=1' "$url/token"
expect 405 'use GET' -X POST -d 'token=x' "$url/"
expect 400 "&#39;uri&#39; is required" -H "$admin_cookie" "$url/page"
expect 400 'unknown argument &#39;bogus&#39;' -H "$admin_cookie" \
	"$url/?q=x&bogus=1"
expect 404 'no such asset' "$url/static/nope.js"
expect 404 'no such asset' "$url/static/layout.html"
expect 200 'color' "$url/static/page.css"
expect 401 'needs a token' "$url/?q=Postgres"
expect 401 'Authorization' -H "$admin_cookie" "$url/v1/search?q=Postgres"
expect 200 'use-postgres.md' -H "Authorization: Bearer $CG_ADMIN_TOKEN" \
	"$url/v1/search?q=Postgres"
# The source filter names each source with its workspace: acme's api and
# beta's api are two options, and each filters to its own pages.
expect 200 '<option value="acme/api"' -H "$admin_cookie" "$url/"
expect 200 '<option value="beta/api"' -H "$admin_cookie" "$url/"
expect 200 'quetzal.md' -H "$admin_cookie" "$url/?q=quetzal&source=beta%2Fapi"
expect 200 'quetzal' -H "$admin_cookie" "$url/?q=quetzal&source=acme%2Fapi"
if grep -q 'quetzal.md' "$tmp/body"; then
	fail "acme/api's filter shows beta's page"
fi

rc=0
(cd "$dir" && CG_CHROMIUM="$chromium" node web.mjs "$url") || rc=$?

serve_finish "$rc" "the browser test"
