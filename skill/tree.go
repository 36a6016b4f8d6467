package skill

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// MaxTreeEntries is the most files [Skill.Tree] lists.
const MaxTreeEntries = 200

// Tree returns the files of the skill's directory, as slash-separated
// paths relative to it, sorted, directories with a trailing "/", at most
// [MaxTreeEntries] (more reports truncated). Hidden entries are left out,
// and so is a symbolic link that leaves the directory. Scripts are listed,
// never run.
func (s *Skill) Tree() (files []string, truncated bool, err error) {
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return nil, false, err
	}
	defer root.Close()
	errFull := errors.New("full")
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: leave it out
		}
		if p == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if _, err := root.Stat(p); err != nil {
				return nil // leaves the skill's directory, or dangles
			}
		}
		if len(files) == MaxTreeEntries {
			truncated = true
			return errFull
		}
		if d.IsDir() {
			files = append(files, p+"/")
		} else {
			files = append(files, p)
		}
		return nil
	})
	if errors.Is(err, errFull) {
		err = nil
	}
	return files, truncated, err
}

// Scripts returns the files of tree that look like programs: those under
// scripts/ and those with an extension of a script language.
func Scripts(tree []string) []string {
	var out []string
	for _, f := range tree {
		if strings.HasSuffix(f, "/") {
			continue
		}
		if strings.HasPrefix(f, "scripts/") || hasScriptExt(f) {
			out = append(out, f)
		}
	}
	return out
}

func hasScriptExt(f string) bool {
	for _, e := range []string{".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".ts", ".rb", ".pl", ".ps1", ".bat", ".cmd"} {
		if strings.HasSuffix(f, e) {
			return true
		}
	}
	return false
}
