#!/usr/bin/env bash
# Starts a Temporal development server (`temporal server start-dev`) for the
# tests of the durable/temporal module.
#
#   scripts/temporal-dev.sh --exec COMMAND [ARGS...]
#   scripts/temporal-dev.sh --install
#   scripts/temporal-dev.sh
#
# The temporal CLI is built from its Go module at a pinned version the first
# time and kept in ${XDG_CACHE_HOME:-$HOME/.cache}/wield/temporal (the cold
# build takes minutes). --install only builds it and prints its path.
#
# The server runs headless, in memory, with every port it opens (frontend
# gRPC and HTTP, metrics, its internal services) on 127.0.0.1, the frontend
# at a free port. Once it answers a health check, WIELD_TEMPORAL is set to
# its address (127.0.0.1:PORT) and WIELD_TEMPORAL_NAMESPACE to its namespace
# (default). With --exec the script runs COMMAND with both set, stops the
# server (whatever happens) and exits with COMMAND's status; COMMAND runs
# in the caller's directory:
#
#   scripts/temporal-dev.sh --exec bash -c 'cd durable/temporal && go test -race ./...'
#
# Without arguments it prints the variables and serves until interrupted.
# WIELD_TEMPORAL_START_TIMEOUT bounds the wait for the server (60 s by
# default); when it does not start, the tail of its log is printed.
set -euo pipefail

# v1.9.1, the newest release, cannot be built from its module: its go.mod
# replaces github.com/temporalio/cli/cliext with a directory that is not in
# the module, so `go install ...@v1.9.1` refuses. v1.5.1 embeds Temporal
# Server v1.29.1; SDK v1.50.0 works against it (the devserver tests prove it).
TEMPORAL_CLI_VERSION=v1.5.1

cache="${XDG_CACHE_HOME:-$HOME/.cache}/wield/temporal"
temporal="$cache/temporal-$TEMPORAL_CLI_VERSION"
if [ ! -x "$temporal" ]; then
  command -v go >/dev/null || { echo "temporal-dev.sh: go is needed to build the temporal CLI" >&2; exit 2; }
  echo "temporal-dev.sh: building the temporal CLI $TEMPORAL_CLI_VERSION (cached in $cache; minutes the first time)" >&2
  mkdir -p "$cache"
  rm -rf "$temporal.tmp"
  start=$SECONDS
  # The flags of the CLI's own release builds (stripped, version stamped).
  (cd "$cache" && GOWORK=off GOFLAGS= GOBIN="$temporal.tmp" go install -trimpath \
    -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION#v}" \
    "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_VERSION")
  "$temporal.tmp/temporal" --version | grep -q "version ${TEMPORAL_CLI_VERSION#v} " ||
    { echo "temporal-dev.sh: the temporal CLI just built does not report version $TEMPORAL_CLI_VERSION" >&2; exit 1; }
  mv "$temporal.tmp/temporal" "$temporal"
  rmdir "$temporal.tmp"
  echo "temporal-dev.sh: built in $((SECONDS - start)) s" >&2
fi
if [ "${1:-}" = "--install" ]; then
  echo "$temporal"
  exit 0
fi
if [ $# -gt 0 ] && [ "$1" != "--exec" ]; then
  echo "temporal-dev.sh: unknown argument $1 (usage: temporal-dev.sh [--install | --exec COMMAND [ARGS...]])" >&2
  exit 2
fi
if [ "${1:-}" = "--exec" ] && [ $# -lt 2 ]; then
  echo "temporal-dev.sh: --exec needs a command" >&2
  exit 2
fi

freeport() {
  if command -v python3 >/dev/null; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
  else
    node -e 'const s = require("net").createServer();
      s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
  fi
}

# The server's files (its log, and the configuration the CLI writes under
# $HOME when it runs in memory) live in a directory of their own, removed
# on exit; HOME points there so that no setting of the caller's temporal
# profile reaches the server or the health check.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wield-temporal.XXXXXX")
log="$tmp/server.log"
pid=
stop() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    # The server leads a process group of its own (setsid): the whole group
    # gets SIGTERM, then SIGKILL if it has not stopped within 10 s.
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 130' INT TERM

healthy() {
  HOME="$tmp" "$temporal" operator cluster health --address "$addr" --command-timeout 2s >/dev/null 2>&1
}

timeout=${WIELD_TEMPORAL_START_TIMEOUT:-60}
started=
for attempt in 1 2 3; do
  port=$(freeport)
  addr="127.0.0.1:$port"
  start=$(date +%s%3N)
  HOME="$tmp" setsid "$temporal" server start-dev --headless --ip 127.0.0.1 --port "$port" \
    --log-format text --log-level info >"$log" 2>&1 </dev/null &
  pid=$!
  while [ $(($(date +%s%3N) - start)) -lt $((timeout * 1000)) ]; do
    if healthy; then
      started=1
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  [ -z "$started" ] || break
  if ! kill -0 "$pid" 2>/dev/null && grep -q 'address already in use' "$log"; then
    # Another process took the free port between the pick and the bind.
    wait "$pid" 2>/dev/null || true
    pid=
    continue
  fi
  break
done
if [ -z "$started" ]; then
  if kill -0 "$pid" 2>/dev/null; then
    echo "temporal-dev.sh: the Temporal server did not answer on $addr within ${timeout}s; the end of its log:" >&2
  else
    echo "temporal-dev.sh: the Temporal server exited before it was ready; the end of its log:" >&2
  fi
  tail -n 40 "$log" >&2
  exit 1
fi
echo "temporal-dev.sh: Temporal server $TEMPORAL_CLI_VERSION ready on $addr in $(($(date +%s%3N) - start)) ms" >&2

export WIELD_TEMPORAL="$addr" WIELD_TEMPORAL_NAMESPACE=default
if [ $# -eq 0 ]; then
  echo "WIELD_TEMPORAL=$WIELD_TEMPORAL"
  echo "WIELD_TEMPORAL_NAMESPACE=$WIELD_TEMPORAL_NAMESPACE"
  wait "$pid"
else
  shift
  set +e
  "$@"
  status=$?
  set -e
  exit "$status"
fi
