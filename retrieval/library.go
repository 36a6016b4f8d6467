package retrieval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// An Embedder turns texts into vectors whose cosine similarity measures
// how close their meanings are: one vector per text, in order. It may be
// called concurrently. memory.HTTPEmbedder, on any OpenAI-compatible
// /embeddings endpoint, is one.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Defaults of [Config].
const (
	DefaultCollection   = "default"
	DefaultMaxFileBytes = 32 << 20
	DefaultK            = 10
	// RRFK is the constant of reciprocal rank fusion: a chunk ranked r
	// (from 1) by one ranking adds 1/(RRFK + r) to its fused score.
	RRFK = 60
	// embedBatch is how many chunks go to the embedder in one request.
	embedBatch = 64
)

// Config configures a [Library]. Dir is required; every other zero field
// means the default documented on it.
type Config struct {
	// Dir is the directory that holds the collections' index files,
	// such as the workspace's .wield/index.
	Dir string
	// Embedder, if not nil, gives chunks and queries vectors, and
	// searches rank by both BM25 and vectors, fused by reciprocal rank.
	// Nil means BM25 alone.
	Embedder Embedder
	// EmbeddingModel names the Embedder's model. Documents embedded
	// under another name are embedded again by the next Index, since
	// vectors of two models cannot be compared. Empty is a name too.
	EmbeddingModel string
	// Chunking says how documents are cut into chunks.
	Chunking ChunkOptions
	// MaxFileBytes is the largest file indexed; zero means
	// DefaultMaxFileBytes. Larger files are skipped and reported.
	MaxFileBytes int64
	// ExcludePatterns are ignore patterns applied below the workspace's
	// own (.gitignore, .wieldignore), as in the file tools. Nil means none.
	ExcludePatterns []string
	// Workers is how many files are read and extracted at once; zero
	// means GOMAXPROCS.
	Workers int
	// OpenStore opens the store of a collection; nil means [OpenLocal]
	// on Dir/<collection>.idx.
	OpenStore func(collection string) (Store, error)
	// Logger receives a record per file that could not be indexed; nil
	// discards.
	Logger *slog.Logger
	// Now returns the time; nil means time.Now.
	Now func() time.Time
}

// A Library is the collections of indexed documents of one workspace.
// It opens each collection's store on first use and keeps it open until
// [Library.Close]. It is safe for concurrent use.
type Library struct {
	cfg Config

	mu     sync.Mutex
	stores map[string]Store
}

// New returns a library on cfg, which it copies. It fails when cfg.Dir
// is empty.
func New(cfg Config) (*Library, error) {
	if cfg.Dir == "" {
		return nil, errors.New("retrieval: Config.Dir is required: the directory for the index files")
	}
	cfg.Chunking = cfg.Chunking.withDefaults()
	if cfg.MaxFileBytes <= 0 {
		cfg.MaxFileBytes = DefaultMaxFileBytes
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.OpenStore == nil {
		dir := cfg.Dir
		cfg.OpenStore = func(c string) (Store, error) { return OpenLocal(filepath.Join(dir, c+indexExt)) }
	}
	cfg.ExcludePatterns = slices.Clone(cfg.ExcludePatterns)
	return &Library{cfg: cfg, stores: map[string]Store{}}, nil
}

// indexExt is the extension of the local store's files.
const indexExt = ".idx"

var collectionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`) })

// ValidCollection returns an error saying what is wrong with a
// collection name, or nil: names are 1 to 64 lower-case letters, digits,
// dots, dashes and underscores, beginning with a letter or digit.
func ValidCollection(name string) error {
	if !collectionName().MatchString(name) {
		return fmt.Errorf("collection %q is not a valid name: use 1 to 64 lower-case letters, digits, '.', '-' and '_', beginning with a letter or digit", name)
	}
	return nil
}

// store returns the open store of a collection.
func (l *Library) store(collection string) (Store, error) {
	if err := ValidCollection(collection); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.stores[collection]; ok {
		return s, nil
	}
	s, err := l.cfg.OpenStore(collection)
	if err != nil {
		return nil, err
	}
	l.stores[collection] = s
	return s, nil
}

// Collections returns the names of the collections that have an index
// file in Dir, sorted, and those open in this library.
func (l *Library) Collections() ([]string, error) {
	var names []string
	entries, err := os.ReadDir(l.cfg.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("retrieval: %w", err)
	}
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), indexExt); ok && ValidCollection(n) == nil {
			names = append(names, n)
		}
	}
	l.mu.Lock()
	for n := range l.stores {
		names = append(names, n)
	}
	l.mu.Unlock()
	slices.Sort(names)
	return slices.Compact(names), nil
}

// Documents returns the documents of a collection, sorted by path.
func (l *Library) Documents(ctx context.Context, collection string) ([]Document, error) {
	s, err := l.store(collection)
	if err != nil {
		return nil, err
	}
	return s.Documents(ctx)
}

// Chunks returns the chunks of the document at path in a collection, in
// order, or none when the collection has no such document.
func (l *Library) Chunks(ctx context.Context, collection, path string) ([]Chunk, error) {
	s, err := l.store(collection)
	if err != nil {
		return nil, err
	}
	return s.Chunks(ctx, path)
}

// Close closes the open stores.
func (l *Library) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for n, s := range l.stores {
		errs = append(errs, s.Close())
		delete(l.stores, n)
	}
	return errors.Join(errs...)
}
