package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/wieldhq/wield/tool"
)

// errOutside marks a path that leads out of the workspace, lexically or
// through a symbolic link.
var errOutside = errors.New("outside the workspace")

// maxLinks bounds the symbolic links followed while resolving one path, as
// the kernel's ELOOP does.
const maxLinks = 40

// A workspace is the root of one call, with the names it is known by.
type workspace struct {
	root *os.Root
	abs  string // the root's absolute name
	real string // abs with symbolic links evaluated; may equal abs
}

// noWorkspace is the failure of a call made without a workspace root.
var noWorkspace = tool.Failure("no workspace: the file tools need a workspace root, and this call has none")

// openWorkspace returns the workspace of c, or false if c has no root.
func openWorkspace(c *tool.Call) (*workspace, bool) {
	if c == nil || c.Root == nil {
		return nil, false
	}
	w := &workspace{root: c.Root}
	w.abs = filepath.Clean(c.Root.Name())
	if a, err := filepath.Abs(w.abs); err == nil {
		w.abs = a
	}
	w.real = w.abs
	if r, err := filepath.EvalSymlinks(w.abs); err == nil {
		w.real = r
	}
	return w, true
}

// rel turns a path argument into a clean slash-separated path relative to
// the workspace root ("." for the root itself). Absolute paths must lie
// inside the root; ".." may not climb out of it. Symbolic links are not
// looked at here: every later access goes through the os.Root, which
// refuses links that lead out.
func (w *workspace) rel(p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if filepath.IsAbs(p) || path.IsAbs(filepath.ToSlash(p)) {
		r, ok := w.inside(p)
		if !ok {
			return "", errOutside
		}
		return r, nil
	}
	r := path.Clean(filepath.ToSlash(p))
	if r == ".." || strings.HasPrefix(r, "../") {
		return "", errOutside
	}
	return r, nil
}

// inside returns the slash path of abs relative to the root, and whether
// abs lies inside it.
func (w *workspace) inside(abs string) (string, bool) {
	abs = filepath.Clean(abs)
	for _, base := range []string{w.abs, w.real} {
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

// resolve follows the symbolic links in rel and returns the path inside the
// workspace that it names, or errOutside. Elements that do not exist are
// kept as written. os.Root refuses absolute link targets even when they
// point inside the root; resolve accepts those, so callers may retry with
// the path it returns.
func (w *workspace) resolve(rel string) (string, error) {
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
				return "", errOutside
			}
			done = parentOf(done)
			continue
		}
		next := joinRel(done, part)
		fi, err := w.root.Lstat(next)
		if err != nil {
			if errors.Is(err, iofs.ErrNotExist) {
				rest, err := w.rel(path.Join(append([]string{next}, parts...)...))
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
		target, err := w.root.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			t, ok := w.inside(target)
			if !ok {
				return "", errOutside
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

// open opens rel for reading. It follows links the way resolve does, so a
// link with an absolute target inside the workspace works, and it reports
// links that lead out as errOutside.
func (w *workspace) open(rel string) (*os.File, error) { return viaRoot(w, rel, w.root.Open) }

// stat is [workspace.open]'s counterpart for os.Root.Stat.
func (w *workspace) stat(rel string) (iofs.FileInfo, error) { return viaRoot(w, rel, w.root.Stat) }

// viaRoot applies op (an os.Root method) to rel; when that fails, it
// resolves rel's links itself and tries again on the resolved path.
func viaRoot[T any](w *workspace, rel string, op func(string) (T, error)) (T, error) {
	v, err := op(rel)
	if err == nil {
		return v, nil
	}
	var zero T
	r, rerr := w.resolve(rel)
	if rerr != nil {
		if errors.Is(rerr, errOutside) {
			return zero, errOutside
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

// joinRel joins a relative directory ("" or "." for the root) and a name.
func joinRel(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// parentOf returns the directory of a relative path, "" for the root.
func parentOf(rel string) string {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return ""
	}
	return rel[:i]
}

// display is how a relative path is shown to the model.
func display(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// pathFailure turns an error about the path argument arg into a failed
// result that says what happened in words the model can act on.
func pathFailure(arg string, err error) tool.Result {
	return tool.Failure(describePathError(arg, err))
}

func describePathError(arg string, err error) string {
	if arg == "" {
		arg = "."
	}
	var errno syscall.Errno
	switch {
	case errors.Is(err, errOutside):
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
