// Package fstree walks a workspace's file tree as wield's file tools see
// it: git's ignore rules (.gitignore files, .git/info/exclude, the
// tracked-file exception) plus .wieldignore files, wield's state directory
// hidden, paths kept inside an os.Root with symbolic links resolved
// within it, and directories read in parallel. The file tools
// (tools/fs) and the document index (retrieval) share it.
package fstree

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutside marks a path that leads out of the tree, lexically or through
// a symbolic link.
var ErrOutside = errors.New("outside the workspace")

// maxLinks bounds the symbolic links followed while resolving one path, as
// the kernel's ELOOP does.
const maxLinks = 40

// A Tree is a workspace root with the names it is known by. Its methods
// take slash paths relative to the root.
type Tree struct {
	// Root is the directory the tree is opened through.
	Root *os.Root
	// Abs is the root's absolute name.
	Abs string
	// Real is Abs with symbolic links evaluated; it may equal Abs.
	Real string
}

// New returns the tree of root, with its absolute and real names looked
// up.
func New(root *os.Root) *Tree {
	t := &Tree{Root: root}
	t.Abs = filepath.Clean(root.Name())
	if a, err := filepath.Abs(t.Abs); err == nil {
		t.Abs = a
	}
	t.Real = t.Abs
	if r, err := filepath.EvalSymlinks(t.Abs); err == nil {
		t.Real = r
	}
	return t
}

// Rel turns a path argument into a clean slash-separated path relative to
// the workspace root ("." for the root itself). Absolute paths must lie
// inside the root; ".." may not climb out of it. Symbolic links are not
// looked at here: every later access goes through the os.Root, which
// refuses links that lead out.
func (w *Tree) Rel(p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if filepath.IsAbs(p) || path.IsAbs(filepath.ToSlash(p)) {
		r, ok := w.Inside(p)
		if !ok {
			return "", ErrOutside
		}
		return r, nil
	}
	r := path.Clean(filepath.ToSlash(p))
	if r == ".." || strings.HasPrefix(r, "../") {
		return "", ErrOutside
	}
	return r, nil
}

// Inside returns the slash path of abs relative to the root, and whether
// abs lies inside it.
func (w *Tree) Inside(abs string) (string, bool) {
	abs = filepath.Clean(abs)
	for _, base := range []string{w.Abs, w.Real} {
		r, err := filepath.Rel(base, abs)
		if err != nil {
			continue
		}
		r = filepath.ToSlash(r)
		if r != ".." && !strings.HasPrefix(r, "../") && !filepath.IsAbs(r) {
			return r, true
		}
	}
	return "", false
}

// Resolve follows the symbolic links in rel and returns the path inside the
// workspace that it names, or ErrOutside. Elements that do not exist are
// kept as written. os.Root refuses absolute link targets even when they
// point inside the root; resolve accepts those, so callers may retry with
// the path it returns.
func (w *Tree) Resolve(rel string) (string, error) {
	parts := splitPath(rel)
	done := ""
	links := 0
	for len(parts) > 0 {
		part := parts[0]
		parts = parts[1:]
		switch part {
		case ".", "":
			continue
		case "..":
			if done == "" {
				return "", ErrOutside
			}
			done = Parent(done)
			continue
		}
		next := Join(done, part)
		fi, err := w.Root.Lstat(next)
		if err != nil {
			if errors.Is(err, iofs.ErrNotExist) {
				rest, err := w.Rel(path.Join(append([]string{next}, parts...)...))
				if err != nil {
					return "", err
				}
				return rest, nil
			}
			return "", err
		}
		if fi.Mode()&iofs.ModeSymlink == 0 {
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", &os.PathError{Op: "resolve", Path: rel, Err: syscall.ELOOP}
		}
		target, err := w.Root.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			t, ok := w.Inside(target)
			if !ok {
				return "", ErrOutside
			}
			done = ""
			parts = append(splitPath(t), parts...)
			continue
		}
		parts = append(splitPath(filepath.ToSlash(target)), parts...)
	}
	if done == "" {
		return ".", nil
	}
	return done, nil
}

// Open opens rel for reading. It follows links the way Resolve does, so a
// link with an absolute target inside the workspace works, and it reports
// links that lead out as ErrOutside.
func (w *Tree) Open(rel string) (*os.File, error) { return viaRoot(w, rel, w.Root.Open) }

// Stat is [Tree.Open]'s counterpart for os.Root.Stat.
func (w *Tree) Stat(rel string) (iofs.FileInfo, error) { return viaRoot(w, rel, w.Root.Stat) }

// viaRoot applies op (an os.Root method) to rel; when that fails, it
// resolves rel's links itself and tries again on the resolved path.
func viaRoot[T any](w *Tree, rel string, op func(string) (T, error)) (T, error) {
	v, err := op(rel)
	if err == nil {
		return v, nil
	}
	var zero T
	r, rerr := w.Resolve(rel)
	if rerr != nil {
		if errors.Is(rerr, ErrOutside) {
			return zero, ErrOutside
		}
		return zero, err
	}
	if r != rel {
		if v, err2 := op(r); err2 == nil {
			return v, nil
		}
	}
	return zero, err
}

// splitPath splits a slash path into its elements.
func splitPath(p string) []string {
	if p == "" || p == "." {
		return nil
	}
	return strings.Split(p, "/")
}

// Join joins a relative directory ("" or "." for the root) and a name.
func Join(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// Parent returns the directory of a relative path, "" for the root.
func Parent(rel string) string {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return ""
	}
	return rel[:i]
}

// DescribeError says what err, from an operation on path, means, in words
// a model can act on: "PATH does not exist", "PATH is outside the
// workspace".
func DescribeError(arg string, err error) string {
	if arg == "" {
		arg = "."
	}
	var errno syscall.Errno
	switch {
	case errors.Is(err, ErrOutside):
		return arg + " is outside the workspace"
	case errors.Is(err, iofs.ErrNotExist):
		return arg + " does not exist"
	case errors.Is(err, iofs.ErrPermission):
		return arg + ": permission denied"
	case errors.As(err, &errno) && errno == syscall.ENOTDIR:
		return arg + ": a parent of it is a file, not a directory"
	case errors.As(err, &errno) && errno == syscall.ELOOP:
		return arg + ": too many levels of symbolic links"
	case errors.As(err, &errno) && errno == syscall.ENAMETOOLONG:
		return arg + ": path too long"
	}
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %s %v", arg, pe.Op, pe.Err)
	}
	return fmt.Sprintf("%s: %v", arg, err)
}
