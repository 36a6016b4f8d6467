// Package retrieval indexes a workspace's documents (Markdown, text,
// HTML and PDF) and finds the passages that answer a query, with their
// source path and line or page range, so that an agent can cite them.
//
//	lib, _ := retrieval.New(retrieval.Config{Dir: workspace.Layout{Root: ws}.Index()})
//	rep, _ := lib.Index(ctx, root, "default", []string{"docs"}, nil)
//	hits, _ := lib.Search(ctx, retrieval.Query{Text: "when do backups rotate"})
//	// hits[0].Path, hits[0].StartLine, hits[0].EndLine, hits[0].Text
//
// The tools on it (index_documents, search_documents, list_documents,
// get_document) are in tools/docs; wield index and wield docs are the
// commands.
//
// # Documents
//
// [Library.Index] finds files with the file tools' ignore rules
// (internal/fstree, which the file tools walk with too: .gitignore,
// .wieldignore, git's tracked-file exception),
// through an [os.Root], so no path leads out of the workspace. [Extract]
// reads Markdown and text as they are, HTML through the web tools'
// extractor (internal/readable: the article, as Markdown) and PDF with
// github.com/ledongthuc/pdf (pure Go; a panic in it becomes an error).
// [Split] cuts a text into chunks of at most [ChunkOptions.MaxChars]
// bytes at line ends: a Markdown heading (outside code fences) or a PDF
// page starts a new section, no chunk crosses a section, and within one
// each chunk repeats up to [ChunkOptions.Overlap] bytes of whole lines of
// the one before. Each [Chunk] keeps its lines (and pages) and the
// headings above it.
//
// A document is read again only when its size or time changed and then
// only re-chunked when its SHA-256 did; documents that no longer exist
// below an indexed path are dropped.
//
// # Ranking
//
// Chunks are ranked with BM25 (k1 = 1.2, b = 0.75, Lucene's idf) over
// their words, title and headings, lower-cased, without stopwords and
// with plural endings taken off. With an [Embedder] (memory.HTTPEmbedder
// serves any OpenAI-compatible /embeddings endpoint) chunks and queries
// get vectors too; a search then ranks by BM25 and by cosine similarity
// and fuses the two rankings by reciprocal rank ([Fuse], k = [RRFK]).
//
// # The index
//
// A collection's index is a [Store]. The one wield ships, [OpenLocal],
// keeps the whole index in memory and in one gob file per collection
// (.wield/index/NAME.idx, which ignores itself in git); it holds the
// chunks' text, term counts and unit vectors, and builds the postings
// and a contiguous vector array on the first search after a change.
// Vectors are searched by brute force. A server store (Qdrant,
// PostgreSQL with pgvector) can implement [Store] and be given to
// [Config.OpenStore].
//
// Why not bleve (github.com/blevesearch/bleve/v2, v2.6.3)? Both were
// measured on the same 10,000 chunks of 1,500 bytes of Go source text
// (14.3 MB), one run after the other on the same shared 2-core machine
// under the same load (a load average of about 15: the absolute times
// are slow, the comparison holds; bench/retrieval.sh for this package):
//
//	                      bleve (scorch)     local store
//	modules added         52                 0
//	index on disk         47 MB (3.3×)       17 MB (1.2×)
//	indexing              454 chunks/s       2,848 chunks/s
//	open                  5 ms (mmap)        455 ms (read and build)
//	query p50 / p99       0.48 / 10.6 ms     0.13 / 16.5 ms
//
// The local store is a third of the size, indexes six times as fast,
// adds no dependency (bleve brings 52 modules, among them bbolt and
// protobuf) and keeps vectors beside the text in one file; its median
// query is faster, its tail as slow as the busy machine makes either.
// It pays on opening: it reads the whole file, where bleve maps
// segments, so a one-shot wield docs search over 10,000 chunks spends
// under half a second loading; a long-running agent loads once. The
// ranking is BM25 either way; the memory package made the same choice
// for its notes.
//
// # Quality
//
// The quality test (quality_test.go) is a known-item set built from
// public, licensed text that this machine can reach: the package
// documentation of the Go standard library (176 documents, BSD licence)
// and 130 queries written by hand, each judged by the package or
// packages that answer it. BEIR's SciFact was not used: its licence is
// CC BY-NC, and it cannot be fetched here. Measured: BM25 nDCG@10 0.931,
// recall@100 1.000; hybrid with a deterministic trigram embedder (a
// local httptest server) nDCG@10 0.935, recall@100 1.000. The test holds
// both at nDCG@10 ≥ 0.90 and recall@100 ≥ 0.98.
//
// # Concurrency
//
// A [Library] and the local store are safe for concurrent use. Indexing
// a collection takes a lock file beside its index, so two processes take
// turns; a store reads the file again when another process rewrote it.
package retrieval
