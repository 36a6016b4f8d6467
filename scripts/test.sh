#!/usr/bin/env bash
# Runs wield's whole test suite: formatting, vet, staticcheck, then every
# Go test with the race detector. Third-party peers used by interop tests
# and benchmarks are installed here, at pinned versions.
set -euo pipefail
cd "$(dirname "$0")/.."

STATICCHECK_MODULE=honnef.co/go/tools/cmd/staticcheck@v0.8.2

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== staticcheck"
go run "$STATICCHECK_MODULE" ./...

echo "== the benchmark peers' module builds"
(cd bench/mcp/peers && go vet ./...)

echo "== go test -race (with the mock LLM server for the provider's interop tests)"
# scripts/mock-llm.sh installs @dwmkerr/mock-llm at a pinned version, serves
# it on 127.0.0.1 and sets WIELD_MOCK_LLM_URL for the tests that use it.
if command -v node >/dev/null && command -v npm >/dev/null; then
  scripts/mock-llm.sh go test -race -count=1 -timeout 20m ./...
  echo "== MCP client against the reference servers (pinned npm packages)"
  bash scripts/mcp-servers-interop.sh
  echo "== MCP server interop (pinned TypeScript SDK client, Inspector CLI, conformance suite)"
  bash scripts/mcp-interop.sh
else
  echo "node/npm not found: the mock-LLM interop tests will skip"
  go test -race -count=1 -timeout 20m ./...
fi
