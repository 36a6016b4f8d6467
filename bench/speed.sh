#!/usr/bin/env bash
# bench/speed.sh prints issue 25's whole speed report in one run: the agent
# loop against its peers (bench/loop.sh), `wield mcp` against mcp-go and
# go-sdk over stdio and HTTP with the start-to-initialize time
# (bench/mcp/bench.sh, bench/mcp/startup.sh), fs search against ripgrep
# (bench/fs.sh), and session appends on a journal of 100,000 turns (the
# session package's benchmarks). Each part is the script of its own, run
# as it is; this one only runs them in turn and says which goals were
# missed. Not part of the test suite; it takes a while (set ROUNDS for
# bench/loop.sh, RUNS for bench/fs.sh).
#
#   bench/speed.sh                  # everything
#   PARTS="loop startup" bench/speed.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
parts=${PARTS:-loop mcp startup fs session}
missed=()
part() {
	local name=$1
	shift
	echo
	echo "=================== $name"
	if ! "$@"; then
		missed+=("$name")
	fi
}
for p in $parts; do
	case $p in
	loop) part "agent loop against its peers (bench/loop.sh)" bash bench/loop.sh ;;
	mcp) part "wield mcp against mcp-go and go-sdk (bench/mcp/bench.sh)" bash bench/mcp/bench.sh ;;
	startup) part "exec to initialize (bench/mcp/startup.sh)" bash bench/mcp/startup.sh ;;
	fs) part "fs search against ripgrep (bench/fs.sh)" bash bench/fs.sh ;;
	session) part "session append and load at 100,000 turns (session benchmarks)" \
		go test -run '^$' -bench 'Append|Load' -benchmem -count 5 ./session/ ;;
	*) echo "bench/speed.sh: unknown part $p (loop, mcp, startup, fs, session)" >&2; exit 2 ;;
	esac
done
echo
if [ ${#missed[@]} -gt 0 ]; then
	echo "goals missed or parts failed: ${missed[*]}"
	exit 1
fi
echo "every part met its goals"
