#!/usr/bin/env bash
# bench/durable.sh measures durable runs on a real Temporal development
# server (started by scripts/temporal-dev.sh on 127.0.0.1):
#
#   history     the workflow history's bytes per round for runs of 10, 50
#               and 200 rounds whose conversation grows about 2 KB a round,
#               beside the session journal's bytes per round: the history
#               must stay flat while the journal grows
#   throughput  4 worker processes serving 100 concurrent runs of 5 rounds
#               (one tool call each) against a scripted model: runs/s,
#               rounds/s and run latency
#
#   bench/durable.sh
#   bench/durable.sh -workers 2 -runs 20 -history 10,100
#
# Flags go to durable/temporal/internal/durablebench. Not part of the test
# suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd durable/temporal && go build -o "$bin/durablebench" ./internal/durablebench)
bash scripts/temporal-dev.sh --exec "$bin/durablebench" "$@"
