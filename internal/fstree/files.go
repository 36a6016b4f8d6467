package fstree

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// A File is a regular file that [Files] found.
type File struct {
	// Path is the file's slash path relative to the workspace root.
	Path    string
	Size    int64
	ModTime time.Time
}

// Files returns the regular files at or below start (a path relative to
// root, "." for all of it) that the ignore rules show, sorted
// by path: .gitignore files, .git/info/exclude and cfg.ExcludePatterns,
// then .wieldignore, with git's exception for tracked files, and wield's
// state directory hidden. A start that names a file is returned as it is,
// since asking for a path shows it. Symbolic links are followed only to
// files inside root. Directories that cannot be read are skipped; the
// error is returned for a start that cannot be read, a start outside
// root, and ctx's end. cfg.Workers goroutines walk at once.
func Files(ctx context.Context, root *os.Root, start string, cfg Config) ([]File, error) {
	w := &Tree{Root: root, Abs: root.Name(), Real: root.Name()}
	rel, err := w.Rel(start)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", start, err)
	}
	fi, err := w.Stat(rel)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file or a directory", start)
		}
		return []File{{Path: rel, Size: fi.Size(), ModTime: fi.ModTime()}}, nil
	}
	wk := NewWalker(root, cfg)
	var (
		mu    sync.Mutex
		files []File
	)
	err = wk.Walk(ctx, Options{Start: rel, MaxDepth: -1, Stat: true, Inline: true}, func(_ int, f *Entry) error {
		file := File{Path: f.Path, Size: f.Size, ModTime: f.ModTime}
		if f.Link {
			fi, err := w.Stat(f.Path)
			if err != nil || !fi.Mode().IsRegular() {
				return nil
			}
			file.Size, file.ModTime = fi.Size(), fi.ModTime()
		}
		mu.Lock()
		files = append(files, file)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}
