#!/usr/bin/env bash
# bench/viewer.sh measures the session viewer (package viewer) on a
# generated session of 10,000 rounds, in headless Chromium (installed as
# scripts/test.sh installs it): how long the page takes to show its first
# rounds and answer a script, by the page's own clock, cold (the journal
# read on the page's request) and prepared (read before, as wield view
# does for the session it names); a search over every round; and the
# export to one HTML file (wall clock and CPU time) and opening that file.
# The targets, checked by the test, are under 1 s to open (prepared) and
# under 1 s of CPU to export. Then the server's side alone, as Go
# benchmarks: reading the session and rendering its first answer, and the
# export. It is not part of the test suite; it runs without the race
# detector, which slows Go down several times.
#
#   bench/viewer.sh
#   COUNT=3 bench/viewer.sh   # the benchmarks COUNT times each
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
go test -count=1 -run '^TestBrowser_LargeSessionOpensInUnderASecond$' -v ./viewer/ | grep -E 'FIGURE|generated|^(--- |ok|FAIL)' | sed 's/^ *browser_test.go:[0-9]*: //; s/^FIGURE //'
go test -run '^$' -bench '^Benchmark(Open|Export)$' -benchtime 3x -count "${COUNT:-1}" ./viewer/ | grep -E '^Benchmark'
