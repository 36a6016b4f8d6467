#!/usr/bin/env bash
# Starts @dwmkerr/mock-llm, an OpenAI-compatible mock server, for wield's
# interop tests.
#
#   scripts/mock-llm.sh [-c rules.yaml] [command [args...]]
#
# The package is installed at a pinned version into a cache outside the
# repository (${WIELD_CACHE:-$HOME/.cache/wield}/mock-llm) the first time.
# The server listens on 127.0.0.1 at a free port, with the rules of
# llm/openai/testdata/mock-llm.yaml unless -c names others, and
# WIELD_MOCK_LLM_URL is set to its base URL (http://127.0.0.1:PORT/v1).
#
# With a command, the script runs it with that variable set, stops the
# server and exits with the command's status:
#
#   scripts/mock-llm.sh go test -race -count=1 -run TestInterop ./llm/openai
#
# Without one, it prints the URL and serves until interrupted.
set -euo pipefail

MOCK_LLM_VERSION=0.1.29
root=$(cd "$(dirname "$0")/.." && pwd)
config="$root/llm/openai/testdata/mock-llm.yaml"
if [ "${1:-}" = "-c" ]; then
  config=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  shift 2
fi
[ -f "$config" ] || { echo "mock-llm.sh: no rules file $config" >&2; exit 2; }
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "mock-llm.sh: node and npm are needed to run @dwmkerr/mock-llm" >&2; exit 2; }

cache="${WIELD_CACHE:-$HOME/.cache/wield}/mock-llm"
pkg="$cache/node_modules/@dwmkerr/mock-llm"
installed=$(node -p "require('$pkg/package.json').version" 2>/dev/null || true)
if [ "$installed" != "$MOCK_LLM_VERSION" ]; then
  echo "mock-llm.sh: installing @dwmkerr/mock-llm@$MOCK_LLM_VERSION into $cache" >&2
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error \
    "@dwmkerr/mock-llm@$MOCK_LLM_VERSION" >&2
fi

port=$(node -e 'const s = require("net").createServer();
  s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
log="$cache/server-$port.log"
# Run from the cache so that no mock-llm.yaml in the caller's directory is read.
(cd "$cache" && HOST=127.0.0.1 PORT="$port" exec node "$pkg/dist/main.js" --config "$config") >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
trap 'exit 130' INT TERM

url="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
  if node -e 'fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$url/health"; then
    break
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "mock-llm.sh: the server exited:" >&2; cat "$log" >&2; exit 1
  fi
  sleep 0.1
done
node -e 'fetch(process.argv[1]).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$url/health" ||
  { echo "mock-llm.sh: the server did not answer on $url within 10s:" >&2; cat "$log" >&2; exit 1; }

export WIELD_MOCK_LLM_URL="$url/v1"
if [ $# -eq 0 ]; then
  echo "WIELD_MOCK_LLM_URL=$WIELD_MOCK_LLM_URL"
  wait "$pid"
else
  set +e
  "$@"
  status=$?
  set -e
  exit "$status"
fi
