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
# It also starts bench/mcp/peers/floor, a Go program that answers
# initialize with a constant and links no MCP library: the machine's floor
# for starting a Go process at all.
#
# Measured 2026-11-25 on the shared 2-core machine, quiet (load under
# 0.5), 40 starts each; faults are the process's page faults, each the
# first touch of a page of memory or of the binary, which this virtual
# machine makes cost 8 to 15 µs apiece:
#
#                                      median   p90   min  faults
#   wield mcp before (1ed67ff)           94.9  100.5  90.8   3038
#   wield mcp (BuildServer, PollStdin)   51.1   59.5  47.0   2640
#   wield mcp --tools echo               51.6   56.4  46.1   2304
#   mcp-go echo                          30.7   32.4  27.8   1028
#   go-sdk echo                          20.4   22.2  18.3    559
#   floor (no MCP library)                6.7    7.7   5.6    191
#
# Of wield's 51 ms, about 45 go before main runs: the runtime and the
# initialisation of the 354 packages the one binary links, 15 ms of it
# santhosh-tekuri/jsonschema/v6 compiling every draft's metaschema in its
# init (21,000 allocations). After main, answering takes about 4 ms: the
# tools are built and the configured MCP servers mounted on another
# goroutine while the handshake is answered, and standard input waits in
# the runtime's poller, so that the answer does not queue behind the
# build for a processor. Wield's own packages allocate 408 times at init
# (TestInitBudget in cmd/wield keeps them under 3000).
set -euo pipefail
exec "$(dirname "$0")/bench.sh" -startup-only -startups 50 "$@"
