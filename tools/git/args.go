package git

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// checkRef refuses a revision, branch or remote name that git could read
// as an option (a leading '-'), and one with spaces or control
// characters, which no ref name has. what names the argument in the
// message.
func checkRef(what, ref string) error {
	switch {
	case ref == "":
		return fmt.Errorf("%s is empty", what)
	case strings.HasPrefix(ref, "-"):
		return fmt.Errorf("%s %q starts with '-': give a revision or a name, not an option", what, ref)
	case strings.IndexFunc(ref, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("%s %q has a space or a control character; no revision or ref name does", what, ref)
	}
	return nil
}

// errOutside marks a path that leads out of the workspace.
var errOutside = errors.New("outside the workspace")

// workspacePath turns a path argument into a slash path relative to the
// workspace root dir (whose os.Root is root): relative paths are taken
// from the root, absolute ones must lie inside it, ".." may not climb out
// of it, and no symbolic link on the way may lead out of it (os.Root
// refuses those). The path need not exist: a deleted file can still be
// staged or diffed. Like policy's path rules, the check is lexical first;
// the os.Root check then catches links.
func workspacePath(root *os.Root, dir, p string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("path is empty")
	case strings.HasPrefix(p, "-"):
		return "", fmt.Errorf("path %q starts with '-': write ./%s for a file of that name", p, p)
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("path %q has a NUL byte", p)
	}
	rel := filepath.ToSlash(p)
	if filepath.IsAbs(p) || path.IsAbs(rel) {
		// The root may be known by a name with symbolic links in it, and
		// dir is the same place with them evaluated: either may prefix p.
		bases := []string{dir}
		if root != nil {
			if a, err := filepath.Abs(root.Name()); err == nil {
				bases = append(bases, a)
			}
		}
		rel = "../"
		for _, base := range bases {
			if r, err := filepath.Rel(base, filepath.Clean(p)); err == nil {
				if r = filepath.ToSlash(r); r != ".." && !strings.HasPrefix(r, "../") {
					rel = r
					break
				}
			}
		}
	}
	rel = path.Clean(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return "", fmt.Errorf("path %q is %w %s; give a path inside it", p, errOutside, dir)
	}
	if root != nil && rel != "." {
		if _, err := root.Lstat(rel); err != nil && !errors.Is(err, iofs.ErrNotExist) {
			return "", fmt.Errorf("path %q leads %w %s (through a symbolic link); give a path inside it", p, errOutside, dir)
		}
	}
	if strings.HasPrefix(rel, "-") {
		// "./-R" cleans to "-R"; keep it from reading as an option even
		// where it does not follow "--".
		rel = "./" + rel
	}
	return rel, nil
}

// parseRange reads a line range for git_blame: "START-END", "START,END"
// or "START" (from START to the end of the file), with 1 <= START <= END.
// It returns the argument of git blame -L.
func parseRange(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	a, b, two := strings.Cut(s, "-")
	if !two {
		a, b, two = strings.Cut(s, ",")
	}
	start, err := lineNumber(a)
	if err != nil {
		return "", fmt.Errorf("range %q: %w; write START-END, such as 10-20", s, err)
	}
	if !two {
		return strconv.Itoa(start) + ",", nil
	}
	end, err := lineNumber(b)
	if err != nil {
		return "", fmt.Errorf("range %q: %w; write START-END, such as 10-20", s, err)
	}
	if end < start {
		return "", fmt.Errorf("range %q ends before it starts; write START-END with START <= END", s)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(end), nil
}

// lineNumber reads a line number: digits only, from 1.
func lineNumber(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return 0, fmt.Errorf("%q is not a line number", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a line number from 1", s)
	}
	return n, nil
}
