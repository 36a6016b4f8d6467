package retrieval

import (
	"context"
	"fmt"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// A Document is one indexed file of a collection.
type Document struct {
	// Path is the file's slash path relative to the workspace root; it
	// is the document's id.
	Path  string `json:"path"`
	Kind  string `json:"kind"`
	Title string `json:"title,omitempty"`
	// Hash is the hex SHA-256 of the file's content when it was indexed.
	Hash    string    `json:"hash"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	Lines   int       `json:"lines"`
	Pages   int       `json:"pages,omitempty"`
	Chunks  int       `json:"chunks"`
	// Embedded reports whether the chunks have vectors, and Model names
	// the embedding model that made them ([Config.EmbeddingModel]).
	Embedded bool      `json:"embedded,omitempty"`
	Model    string    `json:"model,omitempty"`
	Indexed  time.Time `json:"indexed"`
}

// A Chunk is a stretch of a document that is indexed and found as one.
type Chunk struct {
	// Path is the document's path.
	Path string `json:"path"`
	// N numbers the chunks of a document from 1, in order.
	N       int    `json:"n"`
	Heading string `json:"heading,omitempty"`
	Text    string `json:"text"`
	// StartLine and EndLine are the lines of the document's text the
	// chunk spans, from 1.
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
	// StartPage and EndPage are the pages a PDF's chunk spans, from 1;
	// zero for documents without pages.
	StartPage int `json:"start_page,omitempty"`
	EndPage   int `json:"end_page,omitempty"`
	// Vector is the chunk's embedding, or nil.
	Vector []float32 `json:"-"`
}

// ID returns the chunk's id, "path#n".
func (c *Chunk) ID() string { return fmt.Sprintf("%s#%d", c.Path, c.N) }

// A Hit is a chunk a search found, with its score (higher is better).
type Hit struct {
	Chunk
	Collection string  `json:"collection"`
	Score      float64 `json:"score"`
}

// A Filter narrows a search by the documents' paths. The zero Filter
// keeps everything.
type Filter struct {
	// Paths is a glob over the documents' slash paths, with ** for any
	// number of directories ("docs/**/*.md"); empty keeps all.
	Paths string
}

// Validate reports whether the filter is well formed.
func (f Filter) Validate() error {
	if f.Paths != "" && !doublestar.ValidatePattern(f.Paths) {
		return fmt.Errorf("filter %q is not a valid glob: check its brackets and braces", f.Paths)
	}
	return nil
}

// Match reports whether the filter keeps the document at path.
func (f Filter) Match(path string) bool {
	if f.Paths == "" {
		return true
	}
	ok, _ := doublestar.Match(f.Paths, path)
	return ok
}

// A Store holds the documents and chunks of one collection and ranks
// them: the index behind a [Library]. [OpenLocal] returns the one wield
// ships (BM25 and vectors in a file); a store on a server (Qdrant,
// PostgreSQL with pgvector) implements the same methods.
//
// A Store's methods may be called concurrently. Changes made with Put
// and Delete are seen by the searches that follow, and are durable once
// Flush returns. Slices passed in are owned by the caller; the store
// copies what it keeps. Slices returned are the caller's.
type Store interface {
	// Documents returns the collection's documents, sorted by path.
	Documents(ctx context.Context) ([]Document, error)
	// Chunks returns the chunks of the document at path, in order, or
	// none if there is no such document.
	Chunks(ctx context.Context, path string) ([]Chunk, error)
	// Put adds doc with chunks, replacing any document at doc.Path and
	// its chunks. Chunks have vectors of one length, or none.
	Put(ctx context.Context, doc Document, chunks []Chunk) error
	// Delete removes the document at path and its chunks; a path not in
	// the store is no error.
	Delete(ctx context.Context, path string) error
	// SearchText returns up to k chunks that filter keeps, ranked by how
	// well their words match query (BM25 in the local store), best first.
	SearchText(ctx context.Context, query string, k int, filter Filter) ([]Hit, error)
	// SearchVector returns up to k chunks that filter keeps and have
	// vectors, ranked by cosine similarity to vec, best first.
	SearchVector(ctx context.Context, vec []float32, k int, filter Filter) ([]Hit, error)
	// Flush makes the changes so far durable.
	Flush(ctx context.Context) error
	// Close releases the store; changes not flushed are lost.
	Close() error
}
