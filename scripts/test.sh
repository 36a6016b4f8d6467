#!/usr/bin/env bash
# Runs wield's whole test suite: formatting, vet, staticcheck, every Go test
# with the race detector (the provider and MCP client interop tests
# included), every fuzz target for a short time, and the MCP server interop
# with the official clients. Third-party peers are installed here, at pinned
# versions; nothing is skipped: a missing peer is a failure.
#
#   scripts/test.sh
#
# WIELD_FUZZTIME sets how long each fuzz target runs (2s by default; 0
# leaves fuzzing out, for a quick local run). On a developer machine,
# WIELD_ALLOW_SKIP=1 lets tests skip what the machine lacks; in CI (CI set)
# it is ignored.
set -euo pipefail
cd "$(dirname "$0")/.."

STATICCHECK_MODULE=honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOTESTSUM_MODULE=gotest.tools/gotestsum@v1.13.0

# stage NAME prints the time the stage before took, and NAME; at the end
# the last stage's time and the whole run's follow, so that a slow stage
# shows in CI's log.
stage_name= stage_start=$SECONDS
stage() {
  [ -z "$stage_name" ] || echo "   ($stage_name: $((SECONDS - stage_start)) s)"
  stage_name=$1 stage_start=$SECONDS
  echo "== $1"
}

stage "peers: node and npm"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's nodejs and npm"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
  fi
  command -v node >/dev/null && command -v npm >/dev/null || {
    echo "test.sh: node and npm are needed (for the mock LLM server and the MCP peers); install them and run again" >&2
    exit 1
  }
fi
stage "peers: bubblewrap"
# The sandbox tests run every assertion under each mechanism that works:
# bubblewrap (Debian's package) and Landlock. Without bwrap, Landlock
# carries them alone.
if ! command -v bwrap >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's bubblewrap"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  fi
  command -v bwrap >/dev/null || echo "test.sh: bwrap not found: the sandbox tests run under Landlock only (install bubblewrap for both)" >&2
fi
stage "peers: python3"
# run_code's tests run Python, JavaScript (the node above) and Bash in the
# sandbox.
if ! command -v python3 >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's python3"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 >/dev/null
  fi
  command -v python3 >/dev/null || { echo "test.sh: python3 is needed by run_code's tests; install it and run again" >&2; exit 1; }
fi
stage "peers: chromium"
# The session viewer's browser tests drive Debian's Chromium with chromedp
# (pinned in go.mod); a missing browser fails them.
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chromium" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's chromium"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  chromium=$(command -v chromium || true)
fi
[ -n "$chromium" ] || { echo "test.sh: Chromium is needed by the viewer's browser tests (Debian: apt-get install chromium); install it and run again" >&2; exit 1; }
stage "peers: Xvfb, xterm and x11-apps"
# The desktop tool's tests start Debian's Xvfb, launch xterm and xlogo on
# it and drive them; a missing one fails them.
if ! command -v Xvfb >/dev/null || ! command -v xterm >/dev/null || ! command -v xlogo >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's xvfb, xterm and x11-apps"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq xvfb xterm x11-apps >/dev/null
  fi
fi
for tool in Xvfb xterm xlogo; do
  command -v "$tool" >/dev/null || { echo "test.sh: $tool is needed by the desktop tool's tests (Debian: apt-get install xvfb xterm x11-apps); install it and run again" >&2; exit 1; }
done
for tool in bash git; do
  command -v "$tool" >/dev/null || { echo "test.sh: $tool is needed by the tests" >&2; exit 1; }
done

stage "peers: PostgreSQL 15"
# session/pgstore's tests run against a real server that
# scripts/postgres.sh starts from Debian's postgresql-15 for the go test
# stage below.
if [ ! -x /usr/lib/postgresql/15/bin/postgres ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's postgresql-15"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
  fi
  [ -x /usr/lib/postgresql/15/bin/postgres ] || { echo "test.sh: PostgreSQL 15 is needed by session/pgstore's tests (Debian: apt-get install postgresql-15); install it and run again" >&2; exit 1; }
fi

stage "peers: the OpenTelemetry Collector"
# The tracing test sends a run's spans to a real collector: the small one
# in otel/internal/collector (OTLP receiver, file exporter), a module of
# its own pinned by its go.sum. Its build takes minutes cold, so the binary
# is kept between runs, named for the module's contents.
collector_key=$(cat otel/internal/collector/go.mod otel/internal/collector/go.sum otel/internal/collector/main.go | sha256sum | cut -c1-16)
collector_dir="${XDG_CACHE_HOME:-$HOME/.cache}/wield/otelcol"
export WIELD_OTELCOL="$collector_dir/collector-$collector_key"
if [ ! -x "$WIELD_OTELCOL" ]; then
  echo "building the test collector (cached in $collector_dir)"
  mkdir -p "$collector_dir"
  (cd otel/internal/collector && go build -trimpath -o "$WIELD_OTELCOL.tmp" .)
  mv "$WIELD_OTELCOL.tmp" "$WIELD_OTELCOL"
fi
stage "peers: the temporal CLI"
# durable/temporal's tests run against a Temporal development server that
# scripts/temporal-dev.sh starts with the temporal CLI, built from its Go
# module at a pinned version and kept between runs (minutes cold). A cold
# build goes on in the background while the stages below run; the
# durable/temporal stage waits for it.
temporal_log=$(mktemp)
bash scripts/temporal-dev.sh --install >"$temporal_log" 2>&1 &
temporal_build=$!

stage "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

stage "go vet"
go vet ./...

stage "staticcheck"
go run "$STATICCHECK_MODULE" ./...

stage "the benchmark peers' module builds"
(cd bench/mcp/peers && go vet ./...)

stage "go test -race, with the mock LLM server and the reference MCP servers"
# scripts/mock-llm.sh serves @dwmkerr/mock-llm on 127.0.0.1 and sets
# WIELD_MOCK_LLM_URL; scripts/mcp-servers-interop.sh --exec installs the
# reference MCP servers and sets WIELD_MCP_EVERYTHING and
# WIELD_MCP_FILESYSTEM; both pinned. scripts/postgres.sh starts a
# throwaway PostgreSQL and sets WIELD_POSTGRES_URL.
events=$(mktemp)
temporal_events=$(mktemp)
trap 'rm -f "$events" "$temporal_events" "$temporal_log"' EXIT
# no_skips EVENTS fails the run when the go test events list a skipped test.
no_skips() {
  local skipped
  skipped=$(grep '"Action":"skip"' "$1" | grep '"Test":"' | sed -E 's/.*"Package":"([^"]*)","Test":"([^"]*)".*/\1 \2/' || true)
  if [ -n "$skipped" ]; then
    echo "tests skipped:"; echo "$skipped" | sed 's/^/  /'
    if [ -n "${CI:-}" ] || [ "${WIELD_ALLOW_SKIP:-}" != 1 ]; then
      echo "test.sh: no test may skip (WIELD_ALLOW_SKIP=1 allows it on a developer machine)" >&2
      exit 1
    fi
  fi
}
scripts/mock-llm.sh bash scripts/mcp-servers-interop.sh --exec bash scripts/postgres.sh --exec \
  go run "$GOTESTSUM_MODULE" --format pkgname --jsonfile "$events" -- -race -count=1 -timeout 20m ./...
no_skips "$events"

stage "durable/temporal module: go vet, staticcheck, go test -race against a Temporal dev server"
# A module of its own, so that the core never imports Temporal: ./... above
# leaves it out (gofmt covers it). scripts/temporal-dev.sh --exec starts
# the server on 127.0.0.1 and sets WIELD_TEMPORAL for the tests;
# scripts/postgres.sh, the PostgreSQL the workers of one test share.
if ! wait "$temporal_build"; then
  cat "$temporal_log" >&2
  echo "test.sh: the temporal CLI did not build (above)" >&2
  exit 1
fi
(
  cd durable/temporal
  go vet ./...
  go run "$STATICCHECK_MODULE" ./...
  bash ../../scripts/postgres.sh --exec bash ../../scripts/temporal-dev.sh --exec \
    go run "$GOTESTSUM_MODULE" --format pkgname --jsonfile "$temporal_events" -- -race -count=1 -timeout 20m ./...
)
no_skips "$temporal_events"
# wield built with -tags temporal (wield worker, run --temporal, approve)
# and the durable-worker example: their files are left out of every stage
# above.
go vet -tags temporal ./cmd/wield ./examples/durable-worker
go run "$STATICCHECK_MODULE" -tags temporal ./cmd/wield ./examples/durable-worker
bash scripts/temporal-dev.sh --exec \
  go run "$GOTESTSUM_MODULE" --format pkgname --jsonfile "$temporal_events" -- -tags temporal -race -count=1 -run 'TestDurable' ./cmd/wield ./examples/durable-worker
no_skips "$temporal_events"

stage "allocation budgets (built without the race detector, which allocates)"
# Files with the build constraint !race hold testing.AllocsPerRun budgets.
# durable/temporal is a module of its own: its budgets run from its directory.
alloc_pkgs=$(grep -l '^//go:build !race' $(git ls-files '*_test.go' ':!:durable/temporal/**') | xargs -r -n1 dirname | sort -u | sed 's|^|./|')
[ -z "$alloc_pkgs" ] || go test -count=1 -run 'Allocs' $alloc_pkgs
alloc_pkgs=$( (cd durable/temporal && grep -l '^//go:build !race' $(git ls-files '*_test.go') /dev/null || true) | xargs -r -n1 dirname | sort -u | sed 's|^|./|')
[ -z "$alloc_pkgs" ] || (cd durable/temporal && go test -count=1 -run 'Allocs' $alloc_pkgs)

if [ "${WIELD_FUZZTIME:-2s}" != 0 ]; then
  stage "fuzz: every target for ${WIELD_FUZZTIME:-2s} on top of its seed corpus"
  # scripts/fuzz.sh lists the root module's packages (go list ./...), which
  # leave out the modules nested in it, durable/temporal among them: a fuzz
  # target there would not run until fuzz.sh learns to visit them.
  bash scripts/fuzz.sh
fi

stage "MCP server interop (pinned TypeScript SDK client, Inspector CLI, conformance suite)"
bash scripts/mcp-interop.sh
stage "done"
echo "   (all: ${SECONDS} s)"
