# installed.sh - sourced by test_install.sh and test_package.sh: checks an
# installed tree (a prefix, or a root's /usr) and runs what it installed.
# Not a test by itself (its name does not start with test_).

# shellcheck source=tests/integration/serve.sh
source "$CG_SRC/tests/integration/serve.sh"

# check_tree PREFIX ZSHDIR VERSION
check_tree() {
	local p=$1 zdir=$2 version=$3 f out url
	for f in bin/corpus-gw share/man/man1/corpus-gw.1 \
		share/man/man5/corpus-gw.yaml.5 \
		share/bash-completion/completions/corpus-gw \
		"share/zsh/$zdir/_corpus-gw" \
		share/fish/vendor_completions.d/corpus-gw.fish \
		share/doc/corpus-gw/examples/gateway.yaml \
		share/doc/corpus-gw/examples/corpus-gw-fetch.cron \
		share/doc/corpus-gw/examples/example/.guild/workspace.json \
		lib/systemd/system/corpus-gw.service \
		lib/systemd/system/corpus-gw-node@.service \
		lib/systemd/system/corpus-gw-fetch.service \
		lib/systemd/system/corpus-gw-fetch.timer; do
		[ -e "$p/$f" ] || { echo "installed: $p/$f is missing" >&2; return 1; }
	done
	# The units start the installed binary (the root's path for a
	# package: "$4", else the prefix).
	grep -q "^ExecStart=${4:-$p}/bin/corpus-gw serve " \
		"$p/lib/systemd/system/corpus-gw.service" ||
		{ echo "installed: corpus-gw.service ExecStart:" >&2;
		  grep ExecStart "$p/lib/systemd/system/corpus-gw.service" >&2;
		  return 1; }
	man -l "$p/share/man/man1/corpus-gw.1" >/dev/null 2>&1 ||
		{ echo "installed: man -l corpus-gw.1 fails" >&2; return 1; }

	out=$("$p/bin/corpus-gw" --version)
	[ "$out" = "corpus-gw $version" ] ||
		{ echo "installed: --version says '$out', want $version" >&2; return 1; }

	# A query over the installed example (read-only: the cache is ours).
	out=$("$p/bin/corpus-gw" query --workspace \
		"$p/share/doc/corpus-gw/examples/example" --cache "$tmp/cache" \
		--json refund)
	grep -q '"title": *"Refund window"' <<<"$out" ||
		{ echo "installed: query found no refund page: $out" >&2; return 1; }

	# serve until /readyz answers.
	"$p/bin/corpus-gw" serve --workspace \
		"$p/share/doc/corpus-gw/examples/example" --cache "$tmp/cache" \
		--listen http://127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
	pid=$!
	url=$(serve_url "$tmp/serve.out" listening "$pid") || url=
	serve_ready "$url" || true
	out=$(curl -sf "$url/readyz") ||
		{ echo "installed: /readyz never answered" >&2;
		  cat "$tmp/serve.err" >&2; return 1; }
	[ "$out" = '{"ready":true}' ] || { echo "installed: /readyz: $out" >&2; return 1; }
	kill "$pid"
	wait "$pid" || { echo "installed: serve did not stop cleanly" >&2; return 1; }
	pid=
}
