#!/usr/bin/env bash
# test_receipt_names.sh - issue 13: every receipt names a source as
# "workspace/source".  A config serves two workspaces, "alpha" and "beta",
# whose root wikis are both the source "root"; the evidence of search
# (sources_asked, sources_answered, per_source, nodes[].sources), of a walk
# tool (list) and of a page tool (read) must tell them apart, embedded
# (--config) and against a running gateway (--gateway).  Bare names
# ("root" twice) are the ambiguity this guards against.  The hits' own
# "source" stays the bare name: their uri carries the workspace.
set -euo pipefail

: "${CG_BIN:?CG_BIN must name the corpus-gw binary}"
: "${CG_SRC:?CG_SRC must name the source tree}"
# shellcheck source=tests/integration/prelude.sh
source "$CG_SRC/tests/integration/prelude.sh"
# shellcheck source=tests/integration/alpha_beta.sh
source "$CG_SRC/tests/integration/alpha_beta.sh"

test_tmp receipt

alpha_beta "$tmp" quince Quince quince

# expect WHAT JQ-FILTER WANT: the filter's output (compact) must be WANT.
expect() {
	local got
	got=$(jq -c "$2" "$tmp/ans.json") || fail "$1: not JSON: $(head -c 300 "$tmp/ans.json")"
	[ "$got" = "$3" ] || fail "$1: $2 is $got, want $3"
}

both='["alpha/root","beta/root"]'

check() {
	"$CG_BIN" query "$@" --json quince >"$tmp/ans.json"
	expect "query $*" '.evidence.sources_asked | sort' "$both"
	expect "query $*" '.evidence.sources_answered | sort' "$both"
	expect "query $*" '.evidence.per_source | keys' "$both"
	expect "query $*" '[.evidence.nodes[].sources[]] | sort' "$both"
	expect "query $*" '[.evidence.per_source[].candidates >= 1] | all' true
	expect "query $*" '[.hits[].source] | unique' '["root"]'
	expect "query $*" '[.hits[].uri | split("/")[2]] | sort' '["alpha","beta"]'

	# A qualified name given back as the scope keeps one workspace.
	"$CG_BIN" query "$@" --source beta/root --json quince >"$tmp/ans.json"
	expect "query $* --source beta/root" '.evidence.sources_asked' '["beta/root"]'
	expect "query $* --source beta/root" '.evidence.per_source | keys' '["beta/root"]'

	"$CG_BIN" list "$@" --json >"$tmp/ans.json"
	expect "list $*" '.evidence.sources_asked | sort' "$both"
	expect "list $*" '.evidence.sources_answered | sort' "$both"
	expect "list $*" '[.evidence.nodes[].sources[]] | sort' "$both"

	"$CG_BIN" read "$@" --json cg://beta/root/.guild/wiki/concepts/quince.md >"$tmp/ans.json"
	expect "read $*" '.evidence.sources_asked' '["beta/root"]'
	expect "read $*" '.evidence.sources_answered' '["beta/root"]'
}

check --config "$tmp/gw.yaml"

serve_config "$tmp/gw.yaml"
check --gateway "$url"
serve_stop
echo "PASS"
