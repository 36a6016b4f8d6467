#!/usr/bin/env bash
# Benchmarks `wield mcp` against the same echo server built with mcp-go and
# with go-sdk's generic AddTool (bench/mcp/peers, a module of its own so
# that wield does not depend on mcp-go):
#
#   bench/mcp/bench.sh [-rounds N] [driver flags...]
#
# It builds the three servers and the driver (bench/mcp/peers/driver), which
# lets them take turns (each measurement cut into ten pieces) and prints,
# over stdio, pipelined throughput (20,000 calls), sequential latency
# (5,000 calls: mean and p99),
# throughput with 16 calls in flight, and over streamable HTTP (127.0.0.1),
# latency one call at a time and throughput with 16 concurrent clients;
# plus the time from process start to the initialize answer; each as the
# median over rounds, with ratios to mcp-go.
#
# It exits 1 when wield misses a goal (printed as MISSED). For exploratory
# runs pass -explore, or set WIELD_BENCH_EXPLORE=1, to exit 0 anyway:
#
#   bench/mcp/bench.sh -explore -rounds 1
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(mktemp -d "${TMPDIR:-/tmp}/wield-mcp-bench.XXXXXX")
trap 'rm -rf "$bin"' EXIT

echo "== building (wield, mcp-go and go-sdk echo servers, driver)" >&2
(cd "$root" && go build -o "$bin/wield" ./cmd/wield)
(cd "$root/bench/mcp/peers" && go build -o "$bin/mcpgo" ./mcpgo && go build -o "$bin/gosdk" ./gosdk &&
  go build -o "$bin/floor" ./floor && go build -o "$bin/driver" ./driver)
echo "== $(go version), $(nproc) CPUs" >&2
floor=()
for a in "$@"; do
  if [ "$a" = -startup-only ]; then floor=(-floor "$bin/floor"); fi
done
"$bin/driver" -wield "$bin/wield" -mcpgo "$bin/mcpgo" -gosdk "$bin/gosdk" "${floor[@]}" "$@"
