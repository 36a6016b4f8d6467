// Package memory keeps what an agent should remember across sessions:
// notes as Markdown files with YAML frontmatter, in a project directory
// (.wield/memory) and a user directory, searched locally with BM25.
//
// # Files are the truth
//
// A note is one file, ID.md, where the id is its slash path under the
// scope's directory without the .md suffix ("build/toolchain"):
//
//	---
//	id: build/toolchain
//	scope: project
//	tags: [build, go]
//	created: 2026-05-01T10:00:00Z
//	modified: 2026-05-02T09:30:00Z
//	source: agent
//	source_session: 20260502-093000-ab12
//	---
//	The project builds with Go 1.26; go.mod pins the toolchain.
//
// The path decides a note's id and scope; the frontmatter repeats them
// for readers of the file. A file without frontmatter is a note too (its
// times come from the file). A person may edit, move or delete the files
// with any editor: a [Store] reads them again when a directory changes,
// or when told to ([Store.Reload]).
//
// Beside the notes, each directory holds MEMORY.md, an index generated
// on every write: one line per note, the newest first, at most
// [IndexLines] lines, ending with a count of the notes left out. The
// index is what goes into a prompt; notes are read on demand.
//
// # Writes
//
// Every write goes to a temporary file in the note's directory, is
// synced, and is renamed over the note, so a crash leaves either the old
// note or the new one, never a mix; a temporary file a crash left behind
// (a name beginning with a dot) is never read as a note. All file access
// goes through an [os.Root] opened at the scope's directory, so an id
// cannot leave it (ids are checked first anyway: [ValidID]).
//
// Saving a note whose text has the same words in the same order as
// another note of its scope (ignoring case, punctuation and spacing) is
// refused with a [*DuplicateError]; notes whose word sets overlap by at
// least [NearDuplicate] (Jaccard similarity) are reported in the
// [SaveResult], so the caller can merge them.
//
// Several processes may share the directories. Writes are not locked
// across processes: two that save at once both land, and MEMORY.md,
// rebuilt by whichever wrote last, lists both once the later writer has
// seen the earlier one's file (the next write repairs any gap).
//
// # Search
//
// [Store.Search] ranks notes with BM25F over three fields: the title (the
// note's first line, weight 2), the rest of the text (weight 1) and the
// tags (weight 2), with k1 = 1.2, b = 0.75 and Lucene's idf,
// ln(1 + (N − n + 0.5)/(n + 0.5)). Filters narrow by tags (all must be
// present), scope and modification time.
//
// The index is a small in-memory inverted index rebuilt from the files,
// not bleve: bleve would add some forty modules and an on-disk index
// that duplicates the files and can drift from them, while notes are
// few and short (ten thousand notes index in tens of milliseconds and a
// query takes well under a millisecond; BenchmarkSearch measures it).
// BM25F over three fields is a page of code that tests can check by
// hand.
//
// An [Embedder] (such as [HTTPEmbedder], any
// OpenAI-compatible /embeddings endpoint) adds cosine similarity, blended
// with the normalised BM25 score.
package memory
