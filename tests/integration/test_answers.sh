#!/usr/bin/env bash
# test_answers - the answers over the example workspace stay what they were
# (issue 11: a faster query path must not change what is found): every
# query of tests/golden/example-queries.txt, normalized (no evidence, no
# timings), compared with tests/golden/example-answers.jsonl, which holds
# what the query path answered before it was rebuilt.  New fields are
# allowed; a changed or missing value, a reordered or lost hit, a changed
# score (beyond 1e-9 relative) fail.  Regenerate the saved answers only for
# a change that is meant to change answers, and say so in the commit.
set -euo pipefail
: "${CG_BIN:?}" "${CG_SRC:?}" "${ANSWER_CMP:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$CG_SRC/conf/example" "$tmp/ws"
"$CG_SRC/tests/golden/answers" "$CG_BIN" "$ANSWER_CMP" "$tmp/ws" "$tmp/cache" \
	"$CG_SRC/tests/golden/example-queries.txt" >"$tmp/new.jsonl"
"$ANSWER_CMP" compare "$CG_SRC/tests/golden/example-answers.jsonl" "$tmp/new.jsonl"
