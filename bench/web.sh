#!/usr/bin/env bash
# bench/web.sh measures web_fetch's extraction (readability, then
# html-to-markdown) on every page of ../shared/conformance/web-pages and
# prints the median and 95th percentile of the time per page, and of the
# bytes and allocations per page. It runs BenchmarkExtract in tools/web,
# one sub-benchmark per page; it is not part of the test suite.
#
#   bench/web.sh              # BENCHTIME=20x per page
#   BENCHTIME=2s bench/web.sh
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=$(go test -run '^$' -bench '^BenchmarkExtract$' -benchtime "${BENCHTIME:-20x}" -benchmem ./tools/web/)
echo "$out" | grep '^BenchmarkExtract/' | awk '
	{
		for (i = 2; i <= NF; i++) {
			if ($(i) == "ns/op") ns[n] = $(i-1)
			if ($(i) == "B/op") by[n] = $(i-1)
			if ($(i) == "allocs/op") al[n] = $(i-1)
		}
		n++
	}
	function sort(a, k,   i, j, t) {
		for (i = 1; i < k; i++) for (j = i; j > 0 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	}
	function pct(a, k, p,   i) { i = int(p * (k - 1) + 0.5); return a[i] }
	END {
		if (n == 0) { print "no benchmark results" > "/dev/stderr"; exit 1 }
		sort(ns, n); sort(by, n); sort(al, n)
		printf "extraction over %d pages    median      p95\n", n
		printf "time per page               %6.2f ms  %6.2f ms\n", pct(ns, n, 0.5) / 1e6, pct(ns, n, 0.95) / 1e6
		printf "bytes allocated per page    %6.2f MB  %6.2f MB\n", pct(by, n, 0.5) / 1e6, pct(by, n, 0.95) / 1e6
		printf "allocations per page        %9d  %9d\n", pct(al, n, 0.5), pct(al, n, 0.95)
	}'
