#!/usr/bin/env bash
# Measures how long `wield mcp` takes from exec to its answer to initialize
# over stdio (issue 25: within 10 ms), beside the mcp-go and go-sdk echo
# servers, and prints wield's package initialisation as
# GODEBUG=inittrace=1 reports it (totals and the ten slowest packages):
#
#   bench/mcp/startup.sh [-startups N] [-explore] [-also NAME=PATH ...]
#
# It is bench/mcp/bench.sh's driver with -startup-only: N starts per server
# (default 50), taken in turns, reported as median, p90 and minimum. It
# exits 1 when wield's median misses 10 ms, unless -explore is given or
# WIELD_BENCH_EXPLORE=1 is set. -also NAME=PATH measures another build of
# wield in the same turns (say, one built before a change), for a fair
# before and after on a machine whose load drifts.
set -euo pipefail
exec "$(dirname "$0")/bench.sh" -startup-only -startups 50 "$@"
