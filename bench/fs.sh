#!/usr/bin/env bash
# bench/fs.sh times wield's search_file_content and glob against ripgrep on
# a copy of $(go env GOROOT)/src in a fresh git repository, checks that both
# find exactly the same lines and files, and prints the median times and the
# ratio wield/rg. It is not part of the test suite.
#
# wield runs as bench/fsbench, a small command that calls the tool once:
# "wall" and "cpu" include starting that process (about 10 ms more than rg,
# mostly package initialisation); "tool call" is the call alone.
# Results go through the tools' structured Data with the limits lifted, so
# that every match can be compared.
#
#   bench/fs.sh            # RUNS=15 runs per case, interleaved
#   RUNS=31 bench/fs.sh
#
# ripgrep is installed from the distribution if rg is missing.
set -euo pipefail

runs=${RUNS:-15}
repo=$(cd "$(dirname "$0")/.." && pwd)

if ! command -v rg >/dev/null; then
	echo "installing ripgrep" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get install -y ripgrep >/dev/null || { $sudo apt-get update >/dev/null && $sudo apt-get install -y ripgrep >/dev/null; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$(go env GOROOT)/src" "$work/src"
git -C "$work/src" init -q
(cd "$repo" && go build -o "$work/fsbench" ./bench/fsbench)
cd "$work/src"

# The cases. rg searches hidden files too (as git ls-files lists them) but
# not .git, and runs on all cores, as fsbench does.
names=(literal regex case-insensitive glob)
timing=""
wield() {
	case $1 in
	literal) "$work/fsbench" $timing grep Marshal ;;
	regex) "$work/fsbench" $timing grep 'func \w+Marshal\w*\(' ;;
	case-insensitive) "$work/fsbench" $timing grep -i content-type ;;
	glob) "$work/fsbench" $timing glob '**/*.go' ;;
	esac
}
ripgrep() {
	case $1 in
	literal) rg -n --hidden -g '!.git' Marshal ;;
	regex) rg -n --hidden -g '!.git' 'func \w+Marshal\w*\(' ;;
	case-insensitive) rg -n -i --hidden -g '!.git' content-type ;;
	glob) rg --files --hidden -g '!.git' -g '*.go' ;;
	esac
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# timed prints "wall user+sys" in milliseconds for one run of its arguments.
timed() {
	local t
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null; } 2>&1 )
	awk '{printf "%d %d\n", $1*1000, ($2+$3)*1000}' <<<"$t"
}

status=0
echo "GOROOT/src copy: $(find . -type f -not -path './.git/*' | wc -l) files, $(du -sh --exclude=.git . | cut -f1); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for name in "${names[@]}"; do
	# Same results? rg -n prints path:line:text; fsbench prints path:line.
	wield "$name" | sort >"$work/w.txt"
	ripgrep "$name" | cut -d: -f1,2 | sort >"$work/r.txt"
	if cmp -s "$work/w.txt" "$work/r.txt"; then
		same="identical ($(wc -l <"$work/w.txt") results)"
	else
		same="DIFFERENT: $(diff "$work/r.txt" "$work/w.txt" | grep -c '^[<>]') lines differ"
		status=1
	fi
	# Interleaved runs, after one warm-up each.
	wield "$name" >/dev/null
	ripgrep "$name" >/dev/null
	: >"$work/tw"
	: >"$work/tr"
	: >"$work/tt"
	for _ in $(seq "$runs"); do
		timing="-time $work/tt"
		timed wield "$name" >>"$work/tw"
		timing=""
		timed ripgrep "$name" >>"$work/tr"
	done
	wt=$(median <"$work/tt")
	ww=$(cut -d' ' -f1 "$work/tw" | median)
	wc=$(cut -d' ' -f2 "$work/tw" | median)
	rw=$(cut -d' ' -f1 "$work/tr" | median)
	rc=$(cut -d' ' -f2 "$work/tr" | median)
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b ? a/b : 0)}'; }
	printf '%-16s wield %4d ms (cpu %4d, tool call %4d)  rg %4d ms (cpu %4d)  wield/rg: wall %s cpu %s tool-call %s  %s\n' \
		"$name" "$ww" "$wc" "$wt" "$rw" "$rc" "$(ratio "$ww" "$rw")" "$(ratio "$wc" "$rc")" "$(ratio "$wt" "$rw")" "$same"
done
exit $status
