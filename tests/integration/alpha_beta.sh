# alpha_beta.sh - sourced by the shell tests of workspace names
# (test_receipt_names.sh, test_workspace_scope.sh): two workspaces whose
# root wikis are both the source "root", and a gateway config serving
# them as "alpha" and "beta".  Not a test by itself (its name does not
# start with test_); it writes only under the directory it is given.

# alpha_beta DIR NAME TITLE WORD: DIR/alpha and DIR/beta each hold one page
# .guild/wiki/concepts/NAME.md (type concept, titled "TITLE in W", the
# body "The WORD of W." where W is the workspace's name), and DIR/gw.yaml
# serves both (listen http://127.0.0.1:0, cache DIR/cache).
alpha_beta() {
	local dir=$1 name=$2 title=$3 word=$4 w
	for w in alpha beta; do
		mkdir -p "$dir/$w/.guild/wiki/concepts"
		printf -- '---\ntype: concept\ntitle: %s in %s\n---\n# %s in %s\n\nThe %s of %s.\n' \
			"$title" "$w" "$title" "$w" "$word" "$w" \
			>"$dir/$w/.guild/wiki/concepts/$name.md"
	done
	cat >"$dir/gw.yaml" <<EOF
listen: http://127.0.0.1:0
cache: $dir/cache
workspaces:
  - name: alpha
    path: $dir/alpha
  - name: beta
    path: $dir/beta
EOF
}
