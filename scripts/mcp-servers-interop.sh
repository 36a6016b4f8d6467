#!/usr/bin/env bash
# Runs wield's MCP client against the reference servers of the MCP project,
# @modelcontextprotocol/server-everything and @modelcontextprotocol/server-filesystem.
#
#   scripts/mcp-servers-interop.sh [go test flags...]
#
# The packages are installed at pinned versions into a cache outside the
# repository (${WIELD_CACHE:-$HOME/.cache/wield}/mcp-servers) the first time.
# WIELD_MCP_EVERYTHING and WIELD_MCP_FILESYSTEM are set to their executables
# and the interop tests of package mcp run with them:
#
#   go test -race -count=1 -run TestInterop ./mcp
#
# Extra arguments are passed to go test. With `--exec COMMAND [ARGS...]`
# the script runs COMMAND with both variables set instead (scripts/test.sh
# runs the whole suite that way, so the interop tests run with the rest).
# Without node and npm the script says so and exits with status 2.
set -euo pipefail

EVERYTHING_VERSION=2026.8.31
FILESYSTEM_VERSION=2026.8.31
root=$(cd "$(dirname "$0")/.." && pwd)
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "mcp-servers-interop.sh: node and npm are needed to run the reference MCP servers" >&2; exit 2; }

cache="${WIELD_CACHE:-$HOME/.cache/wield}/mcp-servers"
installed() { # package version
  [ "$(node -p "require('$cache/node_modules/$1/package.json').version" 2>/dev/null || true)" = "$2" ]
}
if ! installed @modelcontextprotocol/server-everything "$EVERYTHING_VERSION" ||
   ! installed @modelcontextprotocol/server-filesystem "$FILESYSTEM_VERSION"; then
  echo "mcp-servers-interop.sh: installing the reference MCP servers into $cache" >&2
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
    "@modelcontextprotocol/server-filesystem@$FILESYSTEM_VERSION" >&2
fi

export WIELD_MCP_EVERYTHING="$cache/node_modules/.bin/mcp-server-everything"
export WIELD_MCP_FILESYSTEM="$cache/node_modules/.bin/mcp-server-filesystem"
for bin in "$WIELD_MCP_EVERYTHING" "$WIELD_MCP_FILESYSTEM"; do
  [ -x "$bin" ] || { echo "mcp-servers-interop.sh: $bin is missing after the install" >&2; exit 1; }
done

cd "$root"
if [ "${1:-}" = "--exec" ]; then
  shift
  exec "$@"
fi
exec go test -race -count=1 -run 'TestInterop' "$@" ./mcp
