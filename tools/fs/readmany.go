package fs

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wieldhq/wield/internal/fstree"
	"github.com/wieldhq/wield/tool"
)

// Limits of read_many_files.
const (
	defaultMaxFiles = 200 // files read when max_files is not given
	maxSkipListed   = 20  // skipped files named in the output
)

// defaultExcludes are the files read_many_files leaves out of directories
// and globs unless use_default_excludes is false: dependencies, build
// output, binaries, media and lock files, which are rarely worth reading
// whole. A path given by name is read anyway.
var defaultExcludes = []string{
	"**/node_modules/**", "**/__pycache__/**", "**/.venv/**", "**/.tox/**",
	"**/*.{pyc,pyo,class,o,a,so,dylib,dll,exe,bin,obj,wasm,jar,war}",
	"**/*.{zip,tar,gz,tgz,bz2,xz,zst,7z,rar}",
	"**/*.{pdf,png,jpg,jpeg,gif,webp,bmp,ico,svgz,mp3,mp4,mov,avi,woff,woff2,ttf,otf,eot}",
	"**/*.min.{js,css}", "**/*.map",
	"**/{package-lock.json,yarn.lock,pnpm-lock.yaml,Cargo.lock,poetry.lock,go.sum,composer.lock}",
	"**/.DS_Store",
}

//go:embed readmany.md
var readManyDescription string

// ReadManyInput is the argument object of read_many_files.
type ReadManyInput struct {
	Paths              []string `json:"paths" jsonschema:"files, directories or glob patterns such as src/**/*.go, relative to the workspace root"`
	Include            []string `json:"include,omitempty" jsonschema:"more glob patterns of files to read, added to paths"`
	Exclude            []string `json:"exclude,omitempty" jsonschema:"glob patterns of files to leave out, such as **/*_test.go"`
	Recursive          *bool    `json:"recursive,omitempty" default:"true" jsonschema:"read the files of subdirectories of the directories in paths too"`
	UseDefaultExcludes *bool    `json:"use_default_excludes,omitempty" default:"true" jsonschema:"leave out dependencies, build output, binaries, media and lock files found in directories and globs"`
	MaxFiles           int      `json:"max_files,omitempty" default:"200" jsonschema:"the most files to read"`
}

// ReadManyData is the structured result of read_many_files.
type ReadManyData struct {
	// Files are the files read, in the order shown.
	Files []ReadManyFile `json:"files"`
	// Skipped are the files found but not read, with the reason.
	Skipped []SkippedFile `json:"skipped,omitempty"`
	// DefaultExcluded counts the files the default excludes left out.
	DefaultExcluded int   `json:"defaultExcluded,omitempty"`
	Hidden          int64 `json:"hidden,omitempty"`
}

// A ReadManyFile is a file read_many_files read.
type ReadManyFile struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
}

// A SkippedFile is a file read_many_files did not read, and why.
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// NewReadMany returns the read_many_files tool.
func NewReadMany(cfg Config) *tool.Tool {
	r := manyReader{cfg: cfg.withDefaults()}
	return tool.New(tool.Spec{
		Name:        "read_many_files",
		Effect:      tool.EffectRead,
		KeyArgs:     []string{"paths", "include"},
		Description: describe("read_many_files", readManyDescription, r.cfg),
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, inWorkspace(r.read))
}

type manyReader struct{ cfg Config }

// A candidate is a file found for read_many_files.
type candidate struct {
	rel      string
	size     int64
	explicit bool // named in paths, not found in a directory or by a glob
	content  []byte
	skip     string // why it is not shown
}

func (r manyReader) read(ctx context.Context, c *tool.Call, w *fstree.Tree, in ReadManyInput) (tool.Result, error) {
	specs := append(append([]string(nil), in.Paths...), in.Include...)
	if len(specs) == 0 {
		return tool.Failure("paths is empty: give files, directories or glob patterns to read"), nil
	}
	for _, p := range append(append([]string(nil), specs...), in.Exclude...) {
		if !doublestar.ValidatePattern(strings.TrimPrefix(p, "/")) {
			return tool.Failure(fmt.Sprintf("%q is not a valid path or glob: check its brackets and braces", p)), nil
		}
	}
	if in.MaxFiles < 0 {
		return tool.Failure(fmt.Sprintf("max_files %d is negative", in.MaxFiles)), nil
	}
	maxFiles := in.MaxFiles
	if maxFiles == 0 {
		maxFiles = defaultMaxFiles
	}
	recursive := in.Recursive == nil || *in.Recursive
	defaults := in.UseDefaultExcludes == nil || *in.UseDefaultExcludes

	found := map[string]*candidate{}
	var skipped []SkippedFile
	var hidden int64
	var mu sync.Mutex
	add := func(rel string, size int64, explicit bool) {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := found[rel]; ok {
			c.explicit = c.explicit || explicit
			return
		}
		found[rel] = &candidate{rel: rel, size: size, explicit: explicit}
	}
	for _, spec := range specs {
		res, h, err := r.expand(ctx, w, spec, recursive, add)
		switch {
		case err != nil && errors.Is(err, fstree.ErrOutside):
			return pathFailure(spec, err), nil
		case err != nil && ctx.Err() != nil:
			return tool.Result{}, err
		case err != nil:
			return tool.Failure(err.Error()), nil
		}
		hidden = max(hidden, h) // walks may overlap: do not count twice
		if res != "" {
			skipped = append(skipped, SkippedFile{Path: spec, Reason: res})
		}
	}

	var files []*candidate
	byDefault := 0
	for _, c := range found {
		switch {
		case matchesAny(in.Exclude, c.rel):
			continue // left out as asked: not worth listing
		case defaults && !c.explicit && matchesAny(defaultExcludes, c.rel):
			byDefault++ // counted, not listed: there may be thousands
			continue
		case c.size > maxReadBytes:
			c.skip = fmt.Sprintf("%s, too large; search it with search_file_content", formatSize(c.size))
		}
		files = append(files, c)
	}
	slices.SortFunc(files, func(a, b *candidate) int { return strings.Compare(a.rel, b.rel) })
	r.load(w, files, maxFiles)
	if s, ok := r.cfg.referenceSession(c); ok {
		var rels []string
		for _, f := range files {
			if f.skip == "" {
				rels = append(rels, f.rel)
			}
		}
		if len(rels) > 0 {
			return addReferences(s, rels, nil), nil
		}
	}

	data := ReadManyData{Files: []ReadManyFile{}, Hidden: hidden}
	out := newOutput(r.cfg.OutputBudget)
	size := 0
	for _, c := range files {
		size += len(c.content) + len(c.rel) + 10
	}
	out.b.Grow(size + 1024)
	var total int
	for _, c := range files {
		if c.skip != "" {
			skipped = append(skipped, SkippedFile{Path: c.rel, Reason: c.skip})
			continue
		}
		out.force("--- " + c.rel + " ---")
		out.force(strings.TrimSuffix(string(c.content), "\n"))
		data.Files = append(data.Files, ReadManyFile{Path: c.rel, Bytes: len(c.content)})
		total += len(c.content)
	}
	data.Skipped = skipped
	switch {
	case len(data.Files) == 0 && len(skipped) == 0:
		out.note("no files match %s", strings.Join(quoteAll(specs), ", "))
	default:
		out.note("read %s (%s)", plural(len(data.Files), "file"), formatSize(int64(total)))
	}
	if len(skipped) > 0 {
		var parts []string
		for i, s := range skipped {
			if i == maxSkipListed {
				parts = append(parts, fmt.Sprintf("and %d more", len(skipped)-i))
				break
			}
			parts = append(parts, s.Path+" ("+s.Reason+")")
		}
		out.note("skipped %d: %s", len(skipped), strings.Join(parts, "; "))
	}
	if byDefault > 0 {
		out.note("%s left out by the default excludes (dependencies, build output, binaries, media, lock files); set use_default_excludes=false to read them",
			plural(byDefault, "file"))
	}
	if s := hiddenNote(hidden); s != "" {
		out.note("%s", s)
	}
	data.DefaultExcluded = byDefault
	return tool.Result{Success: true, Output: out.String(), Data: data}, nil
}

func quoteAll(ss []string) []string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return q
}

// matchesAny reports whether rel matches one of the globs; a glob without
// a slash matches the file name.
func matchesAny(globs []string, rel string) bool {
	for _, g := range globs {
		g = strings.TrimPrefix(g, "./")
		target := rel
		if !strings.Contains(g, "/") {
			target = baseOf(rel)
		}
		if doublestar.MatchUnvalidated(g, target) {
			return true
		}
	}
	return false
}

// expand finds the files one path or glob names and passes them to add.
// It returns why spec gave nothing, if it is worth saying, and how many
// entries ignore rules hid; an error for a spec that must not be used
// (fstree.ErrOutside, a glob climbing out) or for cancellation.
func (r manyReader) expand(ctx context.Context, w *fstree.Tree, spec string, recursive bool, add func(string, int64, bool)) (string, int64, error) {
	dir, pattern := ".", ""
	if strings.ContainsAny(spec, "*?[{") {
		d, p, res, ok := globBase(w, "", spec)
		if !ok {
			return "", 0, errors.New(res.Error)
		}
		dir, pattern = d, p
		if base, rest := doublestar.SplitPattern(p); base != "." {
			dir, pattern = path.Join(d, base), rest
		}
	} else {
		rel, err := w.Rel(spec)
		if err != nil {
			return "", 0, err
		}
		fi, err := w.Stat(rel)
		if errors.Is(err, fstree.ErrOutside) {
			return "", 0, err
		}
		if err != nil {
			return fstree.DescribeError(spec, err), 0, nil
		}
		if !fi.IsDir() {
			if !fi.Mode().IsRegular() {
				return "not a regular file", 0, nil
			}
			add(rel, fi.Size(), true)
			return "", 0, nil
		}
		dir = rel
	}
	if fi, err := w.Stat(dir); err != nil || !fi.IsDir() {
		return "", 0, nil // a glob whose directory does not exist matches nothing
	}
	depth := -1
	switch {
	case pattern != "" && !strings.Contains(pattern, "**"):
		depth = strings.Count(pattern, "/")
	case pattern == "" && !recursive:
		depth = 0
	}
	prefix := len(dir) + 1
	if dir == "." {
		prefix = 0
	}
	var want func(rel, name string) bool
	if pattern != "" {
		want = func(rel, _ string) bool { return doublestar.MatchUnvalidated(pattern, rel[prefix:]) }
	}
	wk := fstree.NewWalker(w.Root, r.cfg.walkConfig())
	err := wk.Walk(ctx, fstree.Options{Start: dir, MaxDepth: depth, Want: want, Stat: true, Inline: true}, func(_ int, f *fstree.Entry) error {
		size := f.Size
		if f.Link {
			fi, err := w.Stat(f.Path)
			if err != nil || !fi.Mode().IsRegular() {
				return nil
			}
			size = fi.Size()
		}
		add(f.Path, size, false)
		return nil
	})
	return "", wk.Stats().Hidden(), err
}

// load reads the files to show, in parallel: the first maxFiles files, in
// order, that fit in the output budget. Files that do not fit, and binary
// or unreadable ones, get a skip reason.
func (r manyReader) load(w *fstree.Tree, files []*candidate, maxFiles int) {
	budget := r.cfg.OutputBudget
	var plan []*candidate
	for _, c := range files {
		if c.skip != "" {
			continue
		}
		switch need := int(c.size) + len(c.rel) + 10; {
		case len(plan) == maxFiles:
			c.skip = fmt.Sprintf("more than max_files=%d", maxFiles)
		case need > budget:
			c.skip = fmt.Sprintf("%s, more than the output budget left; read it with read_file", formatSize(c.size))
		default:
			plan = append(plan, c)
			budget -= need
		}
	}
	sem := make(chan struct{}, r.cfg.Workers)
	var wg sync.WaitGroup
	for _, c := range plan {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f, err := w.Open(c.rel)
			if err != nil {
				c.skip = fstree.DescribeError(c.rel, err)
				return
			}
			defer f.Close()
			// The size is known: read into a buffer of that size (plus
			// one byte, to see the file grow) instead of growing one.
			data := make([]byte, c.size+1)
			n, eof, err := fill(f, data)
			data = data[:n]
			switch {
			case err != nil:
				c.skip = fstree.DescribeError(c.rel, err)
			case !eof:
				c.skip = "it grew while it was read; read it with read_file"
			case bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0:
				c.skip = "binary"
			case !utf8.Valid(data):
				c.content = []byte(strings.ToValidUTF8(string(data), "\uFFFD"))
			default:
				c.content = data
			}
		})
	}
	wg.Wait()
}
