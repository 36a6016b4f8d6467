#!/usr/bin/env bash
# bench/compact.sh measures what every round of the agent loop pays for
# the prompt view of a long session: building session.History (the
# projection of the turns through a mask and a summary with its ledger)
# for a session of 10,000 journal records. It runs BenchmarkProjection in
# compact; it is not part of the test suite.
#
#   bench/compact.sh              # BENCHTIME=200x
#   BENCHTIME=2s bench/compact.sh
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=$(go test -run "^$" -bench "^BenchmarkProjection$" -benchtime "${BENCHTIME:-200x}" -benchmem ./compact/) || { echo "$out" >&2; exit 1; }
echo "$out" | grep '^BenchmarkProjection' | awk '
	{
		for (i = 2; i <= NF; i++) {
			if ($(i) == "ns/op") ns = $(i-1)
			if ($(i) == "B/op") by = $(i-1)
			if ($(i) == "allocs/op") al = $(i-1)
			if ($(i) == "records") rec = $(i-1)
		}
	}
	END {
		if (ns == "") { print "no benchmark results" > "/dev/stderr"; exit 1 }
		printf "prompt projection of a session of %d journal records (a mask and a summary)\n", rec
		printf "time per projection     %8.3f ms\n", ns / 1e6
		printf "bytes allocated         %8.2f MB\n", by / 1e6
		printf "allocations             %8d\n", al
	}'
