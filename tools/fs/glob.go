package fs

import (
	"context"
	_ "embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wieldhq/wield/internal/fstree"
	"github.com/wieldhq/wield/tool"
)

// recentWindow is how recently a file must have changed for glob to list
// it first.
const recentWindow = 24 * time.Hour

//go:embed glob.md
var globDescription string

// GlobInput is the argument object of glob.
type GlobInput struct {
	Pattern       string `json:"pattern" jsonschema:"the glob to match, such as **/*.go or src/**/*.{ts,tsx}"`
	Path          string `json:"path,omitempty" jsonschema:"the directory to search, relative to the workspace root or absolute inside it (default the root); the pattern is matched against paths relative to it"`
	CaseSensitive bool   `json:"case_sensitive,omitempty" default:"false" jsonschema:"match letter case exactly"`
}

// GlobData is the structured result of glob.
type GlobData struct {
	// Files are paths relative to the workspace root, in the order shown.
	Files []string `json:"files"`
	// Total counts every matching file, shown or not.
	Total int `json:"total"`
	// Recent counts the files changed in the last 24 hours, listed first.
	Recent int `json:"recent,omitempty"`
	// Hidden counts the entries ignore rules hid.
	Hidden int64 `json:"hidden,omitempty"`
}

// NewGlob returns the glob tool.
func NewGlob(cfg Config) *tool.Tool {
	g := globber{cfg: cfg.withDefaults()}
	return tool.New(tool.Spec{
		Name:         "glob",
		Effect:       tool.EffectRead,
		KeyArgs:      []string{"pattern", "path"},
		Aliases:      []string{"Glob"},
		Description:  describe("glob", globDescription, g.cfg),
		OutputSchema: tool.SchemaOf[GlobData](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, inWorkspace(g.glob))
}

type globber struct{ cfg Config }

// A globMatch is a file that matched, with its modification time.
type globMatch struct {
	rel   string
	mtime time.Time
}

func (g globber) glob(ctx context.Context, _ *tool.Call, w *fstree.Tree, in GlobInput) (tool.Result, error) {
	dir, pattern, res, ok := globBase(w, in.Path, in.Pattern)
	if !ok {
		return res, nil
	}
	if !in.CaseSensitive {
		pattern = strings.ToLower(pattern)
	}
	// Walk only where the pattern can match: below its literal directory,
	// and no deeper than its number of slashes unless it has "**".
	base, rest := doublestar.SplitPattern(pattern)
	start := dir
	if base != "." {
		if !in.CaseSensitive {
			base, rest = ".", pattern // the literal part must match without case too
		} else {
			start = path.Join(dir, base)
		}
	}
	depth := -1
	if !strings.Contains(rest, "**") {
		depth = strings.Count(rest, "/")
	}
	if fi, err := w.Stat(start); err != nil || !fi.IsDir() {
		if start == dir {
			if err != nil {
				return notFound(w, display(in.Path), dir, err), nil
			}
			return tool.Failure(display(in.Path) + " is a file, not a directory: give a directory as path"), nil
		}
		return g.report(in, dir, nil, 0, nil), nil // the pattern's directory does not exist
	}
	prefix := len(start) + 1
	if start == "." {
		prefix = 0
	}
	rest = strings.TrimPrefix(rest, "./")
	wk := fstree.NewWalker(w.Root, g.cfg.walkConfig())
	match := globMatcher(rest)
	var (
		mu      sync.Mutex
		matches []globMatch
	)
	err := wk.Walk(ctx, fstree.Options{
		Start:    start,
		MaxDepth: depth,
		Want: func(rel, _ string) bool {
			name := rel[prefix:]
			if !in.CaseSensitive {
				name = strings.ToLower(name)
			}
			return match(name)
		},
		Stat:   true,
		Inline: true,
	}, func(_ int, f *fstree.Entry) error {
		m := globMatch{rel: f.Path, mtime: f.ModTime}
		if f.Link {
			// Files only: a link counts if it leads to a file inside.
			fi, err := w.Stat(f.Path)
			if err != nil || !fi.Mode().IsRegular() {
				return nil
			}
			m.mtime = fi.ModTime()
		}
		mu.Lock()
		matches = append(matches, m)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return tool.Result{}, err // only cancellation stops a walk
	}
	return g.report(in, dir, matches, wk.Stats().Hidden(), wk.Stats()), nil
}

// globBase checks the arguments of a glob-like search and returns the
// directory to search and the pattern relative to it. An absolute pattern
// inside the workspace is made relative.
func globBase(w *fstree.Tree, pathArg, pattern string) (dir, rel string, res tool.Result, ok bool) {
	if strings.TrimSpace(pattern) == "" {
		return "", "", tool.Failure("pattern is empty: give a glob such as **/*.go"), false
	}
	dir, err := w.Rel(pathArg)
	if err != nil {
		return "", "", pathFailure(pathArg, err), false
	}
	rel = pattern
	if path.IsAbs(rel) {
		base, restPattern := doublestar.SplitPattern(rel)
		r, ok := w.Inside(base)
		if !ok {
			return "", "", tool.Failure(fmt.Sprintf("pattern %q is outside the workspace", pattern)), false
		}
		dir, rel = r, restPattern
	}
	if !doublestar.ValidatePattern(rel) {
		return "", "", tool.Failure(fmt.Sprintf("pattern %q is not a valid glob: check its brackets and braces", pattern)), false
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".." {
			return "", "", tool.Failure(fmt.Sprintf("pattern %q leads outside the search path with \"..\": set path instead", pattern)), false
		}
	}
	return dir, strings.TrimPrefix(rel, "./"), tool.Result{}, true
}

// matchCount says "1 file matches" or "2 files match".
func matchCount(n int) string {
	if n == 1 {
		return "1 file matches"
	}
	return plural(n, "file") + " match"
}

func (g globber) report(in GlobInput, dir string, matches []globMatch, hidden int64, stats *fstree.Stats) tool.Result {
	// Recently changed files first, newest first; then by name.
	cutoff := time.Now().Add(-recentWindow)
	recent := 0
	for _, m := range matches {
		if m.mtime.After(cutoff) {
			recent++
		}
	}
	slices.SortFunc(matches, func(a, b globMatch) int {
		ar, br := a.mtime.After(cutoff), b.mtime.After(cutoff)
		switch {
		case ar && br:
			if c := b.mtime.Compare(a.mtime); c != 0 {
				return c
			}
		case ar:
			return -1
		case br:
			return 1
		}
		return strings.Compare(a.rel, b.rel)
	})
	data := GlobData{Total: len(matches), Recent: recent, Hidden: hidden, Files: []string{}}
	out := newOutput(g.cfg.OutputBudget)
	where := display(dir)
	switch {
	case len(matches) == 0:
		out.line(fmt.Sprintf("No files match %q in %s.", in.Pattern, where))
	case recent > 0:
		out.line(fmt.Sprintf("%s %q in %s (%d changed in the last %d hours, listed first):",
			matchCount(len(matches)), in.Pattern, where, recent, int(recentWindow.Hours())))
	default:
		out.line(fmt.Sprintf("%s %q in %s:", matchCount(len(matches)), in.Pattern, where))
	}
	for i, m := range matches {
		if i >= g.cfg.GlobLimit || !out.line(m.rel) {
			break
		}
		data.Files = append(data.Files, m.rel)
	}
	if left := len(matches) - len(data.Files); left > 0 {
		out.note("%s not shown; narrow the pattern or the path", plural(left, "more file"))
	}
	if s := hiddenNote(hidden); s != "" {
		out.note("%s", s)
	}
	if stats != nil {
		if s := stats.Summary(); s != "" {
			out.note("%s", s)
		}
	}
	return tool.Result{Success: true, Output: out.String(), Data: data}
}
