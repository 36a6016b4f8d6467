#!/usr/bin/env bash
# bench/retrieval.sh measures document retrieval at 10,000 chunks of real
# text (the Go source files of GOROOT, 14 MB): indexing throughput through
# the whole pipeline (documents/s: walk, read, hash, chunk, store, write;
# hybrid adds 768-dimensional vectors computed in process), the local
# store alone (chunks/s, index size on disk, loading the index), and the
# 50th and 99th percentiles of the time per search, BM25 alone and hybrid
# (BM25 and brute-force vectors fused by reciprocal rank). Embeddings come
# from a function in the process, so no network time is counted. It is not
# part of the test suite.
#
#   bench/retrieval.sh               # SEARCHES=2000
#   SEARCHES=10000 bench/retrieval.sh
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
search=$(go test -run '^$' -bench '^BenchmarkSearch$' -benchtime "${SEARCHES:-2000}x" ./retrieval/)
index=$(go test -run '^$' -bench '^Benchmark(LibraryIndex|StorePut|StoreOpen)$' -benchtime 2x ./retrieval/)
printf '%s\n%s\n' "$search" "$index" | awk '
	function field(unit,   i) { for (i = 2; i <= NF; i++) if ($(i) == unit) return $(i-1); return -1 }
	/^BenchmarkSearch\/bm25/ { bp50 = field("p50-ns"); bp99 = field("p99-ns"); n = $2 }
	/^BenchmarkSearch\/hybrid/ { hp50 = field("p50-ns"); hp99 = field("p99-ns") }
	/^BenchmarkLibraryIndex\/bm25/ { bdocs = field("docs/s"); chunks = field("chunks") }
	/^BenchmarkLibraryIndex\/hybrid/ { hdocs = field("docs/s") }
	/^BenchmarkStorePut/ { cps = field("chunks/s"); size = field("index-bytes"); text = field("text-bytes") }
	/^BenchmarkStoreOpen/ { open = field("ns/op") }
	END {
		if (n == "" || bdocs == "") { print "no benchmark results" > "/dev/stderr"; exit 1 }
		printf "retrieval, 10000 chunks of Go source text (%.1f MB), %d searches each\n", text / 1e6, n
		printf "index  bm25     %8.0f documents/s   (1000 files, %d chunks with overlap)\n", bdocs, chunks
		printf "index  hybrid   %8.0f documents/s   (768-dim vectors computed in process)\n", hdocs
		printf "store  put      %8.0f chunks/s      (BM25 only, file written)\n", cps
		printf "store  size     %8.1f MB            (index file; the text itself is %.1f MB)\n", size / 1e6, text / 1e6
		printf "store  open     %8.1f ms            (read the file and build the index: a process first search)\n", open / 1e6
		printf "search bm25     p50 %7.3f ms   p99 %7.3f ms\n", bp50 / 1e6, bp99 / 1e6
		printf "search hybrid   p50 %7.3f ms   p99 %7.3f ms\n", hp50 / 1e6, hp99 / 1e6
	}'
