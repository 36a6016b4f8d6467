package fs

import (
	"context"
	_ "embed"
	"fmt"
	iofs "io/fs"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wieldhq/wield/internal/fstree"
	"github.com/wieldhq/wield/tool"
)

// listLimit caps the entries list_directory shows.
const listLimit = 1000

//go:embed list.md
var listDescription string

// ListInput is the argument object of list_directory.
type ListInput struct {
	Path   string   `json:"path" jsonschema:"the directory to list, relative to the workspace root or absolute inside it; . for the root"`
	Ignore []string `json:"ignore,omitempty" jsonschema:"glob patterns of entry names to leave out, such as *.test or node_modules"`
}

// ListData is the structured result of list_directory.
type ListData struct {
	Path    string      `json:"path"`
	Entries []ListEntry `json:"entries"`
	// Hidden counts the entries that ignore rules or the ignore argument
	// left out.
	Hidden int `json:"hidden,omitempty"`
	// Omitted counts the entries shown in no list because of the limit.
	Omitted int `json:"omitted,omitempty"`
}

// A ListEntry is one entry of a directory listing.
type ListEntry struct {
	Name string `json:"name"`
	// Type is "dir", "file" or "symlink".
	Type string `json:"type"`
	Size int64  `json:"size,omitempty"`
	// Target is where a symbolic link points, as written in the link.
	Target string `json:"target,omitempty"`
}

// NewList returns the list_directory tool.
func NewList(cfg Config) *tool.Tool {
	l := lister{cfg: cfg.withDefaults()}
	return tool.New(tool.Spec{
		Name:         "list_directory",
		Effect:       tool.EffectRead,
		KeyArgs:      []string{"path"},
		Aliases:      []string{"LS"},
		Description:  describe("list_directory", listDescription, l.cfg),
		OutputSchema: tool.SchemaOf[ListData](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, inWorkspace(l.list))
}

type lister struct{ cfg Config }

func (l lister) list(ctx context.Context, _ *tool.Call, w *fstree.Tree, in ListInput) (tool.Result, error) {
	for _, p := range in.Ignore {
		if !doublestar.ValidatePattern(p) {
			return tool.Failure(fmt.Sprintf("ignore pattern %q is not a valid glob", p)), nil
		}
	}
	rel, err := w.Rel(in.Path)
	if err != nil {
		return pathFailure(in.Path, err), nil
	}
	fi, err := w.Stat(rel)
	if err != nil {
		return notFound(w, display(in.Path), rel, err), nil
	}
	if !fi.IsDir() {
		return tool.Failure(display(in.Path) + " is a file, not a directory: use read_file to read it"), nil
	}
	if r, err := w.Resolve(rel); err == nil {
		rel = r // list a linked directory under its real name
	}
	wk := fstree.NewWalker(w.Root, l.cfg.walkConfig())
	entries, err := wk.List(rel)
	if err != nil {
		return pathFailure(display(in.Path), err), nil
	}
	data := ListData{Path: display(rel)}
	hidden := int(wk.Stats().Hidden())
	var dirs, files []ListEntry
	for _, e := range entries {
		if slices.ContainsFunc(in.Ignore, func(p string) bool { return doublestar.MatchUnvalidated(p, e.Name) }) {
			hidden++
			continue
		}
		le := ListEntry{Name: e.Name}
		switch {
		case e.Type.IsDir():
			le.Type = "dir"
			dirs = append(dirs, le)
			continue
		case e.Type&iofs.ModeSymlink != 0:
			le.Type = "symlink"
			le.Target, _ = w.Root.Readlink(fstree.Join(rel, e.Name))
		default:
			le.Type = "file"
			if fi, err := w.Root.Lstat(fstree.Join(rel, e.Name)); err == nil {
				le.Size = fi.Size()
			}
		}
		files = append(files, le)
	}
	byName := func(a, b ListEntry) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(dirs, byName)
	slices.SortFunc(files, byName)
	all := append(dirs, files...)
	data.Hidden = hidden

	out := newOutput(l.cfg.OutputBudget)
	header := fmt.Sprintf("%s: %s, %s", data.Path, plural(len(dirs), "directory"), plural(len(files), "file"))
	if hidden > 0 {
		header += fmt.Sprintf("; %d hidden by ignore rules", hidden)
	}
	out.line(header)
	for i, e := range all {
		var s string
		switch e.Type {
		case "dir":
			s = e.Name + "/"
		case "symlink":
			s = e.Name + " -> " + e.Target
		default:
			s = e.Name + "  " + formatSize(e.Size)
		}
		if i >= listLimit || !out.line(s) {
			data.Omitted = len(all) - i
			break
		}
		data.Entries = append(data.Entries, e)
	}
	if data.Omitted > 0 {
		out.note("%s not shown; narrow with ignore, or use glob with a pattern", plural(data.Omitted, "more entry"))
	}
	if s := wk.Stats().Summary(); s != "" {
		out.note("%s", s)
	}
	return tool.Result{Success: true, Output: out.String(), Data: data}, nil
}
