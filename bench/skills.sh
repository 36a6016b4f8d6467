#!/usr/bin/env bash
# bench/skills.sh measures loading 200 skills from disk and building the
# prompt's listing (BenchmarkLoadAndList in skill: SKILL.md files of about
# 300 bytes of body, read through an os.Root, parsed, and listed within a
# budget), and prints the 50th and 99th percentiles. The target is under
# 20 ms. It also prints the cost of the listing alone (descriptions
# shortened to fit). It is not part of the test suite.
#
#   bench/skills.sh            # LOADS=200
#   LOADS=1000 bench/skills.sh
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
load=$(go test -run '^$' -bench '^BenchmarkLoadAndList$' -benchtime "${LOADS:-200}x" ./skill/)
list=$(go test -run '^$' -bench '^BenchmarkListing$' -benchtime 200x ./skill/)
printf '%s\n%s\n' "$load" "$list" | awk '
	function field(unit,   i) { for (i = 2; i <= NF; i++) if ($(i) == unit) return $(i-1); return -1 }
	/^BenchmarkLoadAndList/ { p50 = field("p50-ns"); p99 = field("p99-ns"); n = $2 }
	/^BenchmarkListing/ { listing = field("ns/op") }
	END {
		if (n == "") { print "no benchmark results" > "/dev/stderr"; exit 1 }
		printf "skills: load 200 skills and build the listing, %d runs\n", n
		printf "p50      %8.2f ms\n", p50 / 1e6
		printf "p99      %8.2f ms   (target < 20 ms)\n", p99 / 1e6
		printf "listing  %8.2f ms   (200 skills, descriptions shortened to fit)\n", listing / 1e6
	}'
