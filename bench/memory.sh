#!/usr/bin/env bash
# bench/memory.sh measures memory search among 10,000 generated notes
# (BenchmarkSearch in memory: Zipf-distributed words, queries of one to
# four words, every fourth with a tag filter) and prints the 50th and
# 99th percentiles of the time per search, with the cost of loading the
# notes and of one save. The target is a p99 under 5 ms. It is not part
# of the test suite.
#
#   bench/memory.sh              # SEARCHES=10000
#   SEARCHES=50000 bench/memory.sh
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
search=$(go test -run '^$' -bench '^BenchmarkSearch$' -benchtime "${SEARCHES:-10000}x" ./memory/)
rest=$(go test -run '^$' -bench '^Benchmark(Load|Save)$' -benchtime 5x ./memory/)
printf '%s\n%s\n' "$search" "$rest" | awk '
	function field(unit,   i) { for (i = 2; i <= NF; i++) if ($(i) == unit) return $(i-1); return -1 }
	/^BenchmarkSearch/ { p50 = field("p50-ns"); p99 = field("p99-ns"); n = $2 }
	/^BenchmarkLoad/ { load = field("ns/op") }
	/^BenchmarkSave/ { save = field("ns/op") }
	END {
		if (n == "") { print "no benchmark results" > "/dev/stderr"; exit 1 }
		printf "memory search, 10000 notes, %d searches\n", n
		printf "p50    %8.3f ms\n", p50 / 1e6
		printf "p99    %8.3f ms   (target < 5 ms)\n", p99 / 1e6
		printf "load   %8.1f ms   (reading and indexing every note, once per store)\n", load / 1e6
		printf "save   %8.1f ms   (one note, MEMORY.md rewritten)\n", save / 1e6
	}'
