# serve.sh - sourced by the shell tests that start `corpus-gw serve` in the
# background: waiting for the URL it prints and for its first index.  Not a
# test by itself (its name does not start with test_).
#
# Why a helper: the job's `>"$tmp/serve.out"` redirection is made by the
# background subshell, so the file may not exist yet when the test first
# looks; under `set -e` a bare `url=$(sed ... serve.out)` then ends the test
# with sed's exit status (a CI failure under ASan, where the start is slow).

# serve_url OUT PREFIX PID: prints the URL of OUT's first "PREFIX URL" line
# once it appears (30 s at most); returns 1 if PID exits first or time
# runs out.
serve_url() {
	local out=$1 prefix=$2 pid=$3 url=
	for _ in $(seq 300); do
		if [ -f "$out" ]; then
			url=$(sed -n "s|^$prefix ||p" "$out" | head -n 1)
			[ -n "$url" ] && { printf '%s\n' "$url"; return 0; }
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# serve_ready URL: waits (30 s at most) until URL/readyz answers 200, that
# is until every node has its first index; returns 1 if it never does.
serve_ready() {
	for _ in $(seq 300); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "$1/readyz")" = 200 ] &&
			return 0
		sleep 0.1
	done
	return 1
}
