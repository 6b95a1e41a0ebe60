#!/usr/bin/env bash
# test_completions - the bash, zsh and fish completions (issue 14) are the
# ones the binary generates from its option tables (the build's copies are
# not stale), and each real shell, asked to complete, offers exactly the
# commands of `corpus-gw --help` and, for every command, exactly the
# options of `corpus-gw CMD --help`; an option with a fixed set of values
# completes to those values.  zsh's completion widgets only run inside
# its line editor, so zsh is asked for the _arguments specs the script
# hands to the completion system, with _arguments and _describe recording
# what they get.
set -euo pipefail
: "${CG_BIN:?}"
gen=$(dirname "$CG_BIN")/packaging
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
	echo "test_completions: $*" >&2
	fail=1
}
# same WHAT WANT GOT: two word lists, compared as sorted sets.
same() {
	local want got
	want=$(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort -u)
	got=$(tr ' ' '\n' <<<"$3" | sed '/^$/d' | sort -u)
	[ "$want" = "$got" ] ||
		bad "$1: want [$(echo $want)] got [$(echo $got)]"
}

for sh in bash zsh fish; do
	"$CG_BIN" completions "$sh" >"$tmp/$sh"
done
cmp -s "$tmp/bash" "$gen/corpus-gw.bash" || bad "build's bash completion is stale"
cmp -s "$tmp/zsh" "$gen/_corpus-gw" || bad "build's zsh completion is stale"
cmp -s "$tmp/fish" "$gen/corpus-gw.fish" || bad "build's fish completion is stale"
zsh -n "$tmp/zsh" || bad "zsh: syntax"
bash -n "$tmp/bash" || bad "bash: syntax"
fish --no-execute "$tmp/fish" || bad "fish: syntax"

commands=$("$CG_BIN" --help | awk '/^commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1 }')
opts_of() {
	"$CG_BIN" "$1" --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p'
}

# bash: the completion function with COMP_WORDS as bash would set them.
bash_complete() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		_corpus_gw; printf "%s\n" "${COMPREPLY[@]}"' _ "$tmp/bash" "$@"
}
same "bash: commands" "$commands --help --version" "$(bash_complete corpus-gw '')"
for c in $commands; do
	same "bash: $c options" "$(opts_of "$c")" "$(bash_complete corpus-gw "$c" --)"
done
same "bash: query --category" \
	"context standard product entity concept decision source" \
	"$(bash_complete corpus-gw query --category '')"

# fish: its own completion engine.
fish_complete() {
	fish --no-config -c "source $tmp/fish; complete -C '$1'" | cut -f1
}
same "fish: commands" "$commands" "$(fish_complete 'corpus-gw ' | grep -v '^-')"
for c in $commands; do
	same "fish: $c options" "$(opts_of "$c")" \
		"$(fish_complete "corpus-gw $c --" | grep '^--')"
done
same "fish: query --confidence" "low medium high" \
	"$(fish_complete 'corpus-gw query --confidence ')"

# zsh: the specs handed to _arguments for `corpus-gw CMD `, each reduced
# to its option names; and the commands handed to _describe.
zsh_specs() {
	zsh -f -c 'compdef() { :; }
		_arguments() { printf "%s\n" "$@"; }
		_describe() { local -a v; v=("${(@P)4}"); printf "%s\n" "${v[@]%%:*}"; }
		source "$1"; shift; words=("$@"); CURRENT=$#
		curcontext=:; _corpus-gw' _ "$tmp/zsh" "$@"
}
same "zsh: commands" "$commands" \
	"$(zsh_specs corpus-gw '' | grep -v -e '^-' -e '^(')"
for c in $commands; do
	got=$(zsh_specs corpus-gw "$c" '' | grep -e '--' |
		sed -e 's/^(\([^)]*\))//' -e 's/^\*//' -e 's/[=[].*//' |
		grep '^--')
	same "zsh: $c options" "$(opts_of "$c")" "$got"
done
exit $fail
