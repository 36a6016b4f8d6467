#!/usr/bin/env bash
# bench/sandbox.sh measures the start cost of the sandbox: running true
# plainly, and through the sandbox under each mechanism (bubblewrap,
# Landlock, limits only), first with the sandbox package's test binary as
# the helper, then with wield itself, as in production. Each run of a
# sandboxed command starts the helper (a Go program), which then executes
# bwrap or the command; the difference between the two helpers is wield's
# own start-up. It is not part of the test suite.
#
#   bench/sandbox.sh              # RUNS=50 runs per case
#   RUNS=200 bench/sandbox.sh
set -euo pipefail

runs=${RUNS:-50}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$repo"
go build -o "$work/wield" ./cmd/wield
go test -c -o "$work/sandbox.test" ./sandbox

echo "== helper: the sandbox package's test binary"
"$work/sandbox.test" -test.run '^$' -test.bench Start -test.benchtime "${runs}x" | grep '^Benchmark'
echo "== helper: wield"
WIELD_SANDBOX_HELPER="$work/wield" "$work/sandbox.test" -test.run '^$' -test.bench Start -test.benchtime "${runs}x" | grep '^Benchmark'
