#!/usr/bin/env bash
# bench/undo.sh measures what undo costs (package ledger): a pure-Go
# snapshot of a generated 20,000-file tree, cold (an empty snapshot store:
# every file read, hashed and stored) and warm (hashes reused by size,
# modification time, inode and change time), beside a bare walk that only
# stats every file (the machine's floor), and the per-edit overhead of
# the ledger: write_file of a 4 KiB file with and without the recorder
# (the median of COUNT runs each). The warm target is under 300 ms. It is
# not part of the test suite.
#
#   bench/undo.sh             # COUNT=3 EDITS=300
#   COUNT=5 EDITS=1000 bench/undo.sh
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
count=${COUNT:-3}
snap=$(go test -run '^$' -bench '^BenchmarkSnapshot$' -benchtime 3x -count "$count" ./ledger/)
edit=$(go test -run '^$' -bench '^BenchmarkWriteFile$' -benchtime "${EDITS:-300}x" -count "$count" ./ledger/)
printf '%s\n%s\n' "$snap" "$edit" | awk '
	function median(name,   n, i, j, t, a) {
		n = cnt[name]; if (n == 0) return -1
		for (i = 1; i <= n; i++) a[i] = v[name, i]
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int((n + 1) / 2)]
	}
	/^Benchmark/ {
		name = $1; sub(/-[0-9]+$/, "", name)
		for (i = 2; i <= NF; i++) if ($(i) == "ns/op") v[name, ++cnt[name]] = $(i-1)
	}
	END {
		cold = median("BenchmarkSnapshot/cold"); warm = median("BenchmarkSnapshot/warm"); bare = median("BenchmarkSnapshot/bare-walk")
		plain = median("BenchmarkWriteFile/plain"); led = median("BenchmarkWriteFile/ledger")
		if (cold < 0 || plain < 0) { print "no benchmark results" > "/dev/stderr"; exit 1 }
		printf "undo costs (median of %d runs)\n", cnt["BenchmarkSnapshot/warm"]
		printf "snapshot, 20,000 files, cold   %9.1f ms\n", cold / 1e6
		printf "snapshot, 20,000 files, warm   %9.1f ms   (target < 300 ms)\n", warm / 1e6
		printf "bare walk + stat, same tree    %9.1f ms   (the machine'"'"'s floor, for comparison)\n", bare / 1e6
		printf "write_file, 4 KiB, no ledger   %9.2f ms\n", plain / 1e6
		printf "write_file, 4 KiB, ledger      %9.2f ms\n", led / 1e6
		printf "ledger overhead per edit       %9.2f ms\n", (led - plain) / 1e6
	}'
