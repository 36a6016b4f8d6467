#!/usr/bin/env bash
# bench/llm.sh measures what reading a model's streamed reply costs, per
# event, for each provider wield speaks: the OpenAI chat completions reader
# (the reference), the Responses API reader, and the Anthropic and Gemini
# readers. Each reads a synthetic stream of about a thousand text deltas
# and a tool call, and the recorded streams of ../shared/conformance where
# there are some; the whole path from bytes to an assembled llm.Response
# (SSE framing, JSON decoding into the SDK's types, assembly), without the
# network. It prints ns/event per case and the ratio to OpenAI chat's
# synthetic stream. It is not part of the test suite.
#
#   bench/llm.sh             # COUNT=5 runs of each, median
#   COUNT=9 bench/llm.sh
set -euo pipefail

count=${COUNT:-5}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

go test -run '^$' -bench 'BenchmarkReadStream' -benchmem -count "$count" \
	./llm/openai ./llm/anthropic ./llm/gemini | tee "$out" >&2

# Median ns/event per benchmark, and the ratio to openai chat synthetic.
awk '
/^pkg:/ { pkg = $2; sub(".*/llm/", "", pkg) }
/ns\/event/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 2; i <= NF; i++) if ($(i+1) == "ns/event") v = $i
	key = pkg " " name
	vals[key] = vals[key] " " v
}
END {
	for (k in vals) {
		n = split(vals[k], a, " ")
		# sort a[1..n]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		med[k] = a[int((n + 1) / 2)]
	}
	ref = med["openai BenchmarkReadStream/synthetic"]
	printf "%-55s %12s %8s\n", "reader / stream", "ns/event", "vs chat"
	for (k in med) printf "%-55s %12.0f %8.2f\n", k, med[k], (ref > 0 ? med[k] / ref : 0) | "sort"
}' "$out"
