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
#
# Measured 2026-11-25 on the shared 2-core machine (load about 4, which
# inflates every time: mcp-go's echo server takes 49 ms here, a few ms on
# an idle machine), 50 starts each, `wield mcp` with all its tools:
#
#                                    median   p90  cpu  page faults  init allocs
#   before (f654260)                  179    243  179      3964        38345
#   after (lazy init, schemas)        133    190  140      2998        34611
#   after + lazily compiled v6
#     metaschemas (not landed)        124    162  129      2619        13477
#   mcp-go echo / go-sdk echo        49/32  81/45 52/36   996/470          -
#
# Wield's own packages went from 6323 to 2589 allocations at init
# (TestInitBudget in cmd/wield keeps them under 3000); what remains is
# santhosh-tekuri/jsonschema/v6 compiling every draft's metaschema in
# init (21,000 allocations, the largest), session's regular expressions,
# and the init of the provider SDKs, grpc and protobuf that wield links.
set -euo pipefail
exec "$(dirname "$0")/bench.sh" -startup-only -startups 50 "$@"
