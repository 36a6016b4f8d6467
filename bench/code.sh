#!/usr/bin/env bash
# bench/code.sh measures what run_code adds to each call over the bare
# interpreter: a call that does nothing in Python, JavaScript and Bash,
# against python3 -c pass, node -e 0 and bash -c true, under bubblewrap
# and Landlock, with three sandbox helpers: the tools/code test binary,
# wield itself (which re-executes itself when wield-sandbox is not
# installed beside it) and wield-sandbox, the small helper. It prints the
# overhead per call (sandboxed minus bare), in
# wall-clock time and in CPU time of the benchmark and its children (on a
# loaded machine waiting for a CPU dominates the wall clock; the CPU time
# of bwrap's sandboxed child is not counted, as bwrap does not report it).
# It is not part of the test suite; the target is under 30 ms on top of
# the interpreter.
#
#   bench/code.sh            # RUNS=30 calls per case
#   RUNS=100 bench/code.sh
set -euo pipefail

runs=${RUNS:-30}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$repo"
go build -o "$work/wield" ./cmd/wield
go build -o "$work/wield-sandbox" ./cmd/wield-sandbox
go test -c -o "$work/code.test" ./tools/code

bench() { # HELPER-NAME [HELPER-PATH]
	echo "== helper: $1"
	WIELD_SANDBOX_HELPER="${2:-}" "$work/code.test" -test.run '^$' -test.bench RunCode -test.benchtime "${runs}x" |
		grep '^Benchmark' | tee "$work/out" |
		awk '{ split($1, p, "/"); sub(/-[0-9]+$/, "", p[3]); ms[p[2] "/" p[3]] = $3 / 1e6; cpu[p[2] "/" p[3]] = $5 }
		END {
			for (k in ms) {
				split(k, q, "/")
				b = q[1] "/bare"
				if (q[2] != "bare" && (b in ms))
					printf "overhead %-24s %7.1f ms wall, %6.1f ms CPU per call (%.1f ms, %.1f ms CPU against %.1f ms, %.1f ms CPU bare)\n", k, ms[k] - ms[b], cpu[k] - cpu[b], ms[k], cpu[k], ms[b], cpu[b]
			}
		}' | sort
}
bench "the test binary"
bench wield "$work/wield"
bench wield-sandbox "$work/wield-sandbox"
echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg)"
