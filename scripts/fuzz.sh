#!/usr/bin/env bash
# Runs every fuzz target of the module for a short time on top of its seed
# corpus (the f.Add seeds and testdata/fuzz), one target at a time.
#
#   scripts/fuzz.sh [-t DURATION] [PACKAGE_PATTERN...]
#
# DURATION is per target, in go test's -fuzztime form (2s by default, or
# $WIELD_FUZZTIME); the packages default to ./... . A target that finds a
# failure stops the script with go test's output and a non-zero status; the
# failing input is written to the package's testdata/fuzz, as go test does,
# so it becomes a seed once committed.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${WIELD_FUZZTIME:-2s}
if [ "${1:-}" = "-t" ]; then
  fuzztime=$2
  shift 2
fi
[ $# -gt 0 ] || set -- ./...

out=$(mktemp)
bin=$(mktemp -d)
trap 'rm -rf "$out" "$bin"' EXIT
fuzzcache="$(go env GOCACHE)/fuzz" # where go test -fuzz keeps what it learns
targets=0
start=$SECONDS
for pkg in $(go list "$@"); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  # Only packages whose test files declare a fuzz target are built.
  grep -qs '^func Fuzz' "$dir"/*_test.go || continue
  # One instrumented test binary per package, run once per target: go test
  # -fuzz would link it again for each (seconds apiece for the large ones).
  # It runs in the package's directory, so that it reads the seeds in
  # testdata/fuzz and writes a failing input there, as go test does.
  test="$bin/$(echo "$pkg" | tr / _).test"
  go test -c -o "$test" -fuzz=. "$pkg"
  for fn in $(cd "$dir" && "$test" -test.list '^Fuzz' | grep '^Fuzz' || true); do
    echo "-- $pkg $fn ($fuzztime)"
    if ! (cd "$dir" && "$test" -test.run='^$' -test.fuzz="^${fn}\$" -test.fuzztime="$fuzztime" \
      -test.fuzzcachedir="$fuzzcache/$pkg") >"$out" 2>&1; then
      # go test -fuzz can end a clean run with "context deadline exceeded"
      # when -fuzztime runs out while a worker is busy (a race in the Go
      # toolchain's fuzzing coordinator, seen on loaded machines). It then
      # writes no failing input; a real failure always writes one.
      if grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written' "$out"; then
        echo "   the fuzzing deadline raced with a worker (no failing input); counted as passed"
      else
        cat "$out"
        echo "fuzz.sh: $fn in $pkg failed; the failing input is in $pkg's testdata/fuzz/$fn" >&2
        exit 1
      fi
    fi
    grep -E '^(fuzz: elapsed|ok|PASS)' "$out" | tail -2 | sed 's/^/   /'
    targets=$((targets + 1))
  done
done
[ "$targets" -gt 0 ] || { echo "fuzz.sh: no fuzz targets found" >&2; exit 1; }
echo "fuzz.sh: $targets targets, $fuzztime each, no failure ($((SECONDS - start)) s)"
