package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/wieldhq/wield/internal/treecopy"
	"go.yaml.in/yaml/v3"
)

// ErrExists is returned by [Create] when a skill of that name is already
// in the directory.
var ErrExists = errors.New("skill already exists")

// A NewSkill is what [Create] writes.
type NewSkill struct {
	Name        string
	Description string
	// Body is the Markdown instructions.
	Body string
	// Files are more files of the skill, by slash-separated path relative
	// to its directory ("scripts/check.sh", "references/api.md"); nil
	// means none. SKILL.md is not one of them.
	Files map[string]string
}

// Format returns the SKILL.md text of n: the frontmatter with name and
// description, then the body.
func (n NewSkill) Format() ([]byte, error) {
	front, err := yaml.Marshal(map[string]string{"name": n.Name, "description": n.Description})
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", n.Name, err)
	}
	return []byte("---\n" + string(front) + "---\n\n" + strings.TrimSpace(n.Body) + "\n"), nil
}

// Check reports the first thing wrong with n: a name or description the
// specification refuses, a file path that is absolute, leaves the
// skill's directory or names SKILL.md.
func (n NewSkill) Check() error {
	if !ValidName(n.Name) {
		return fmt.Errorf("name %q is not a skill name: use lower-case letters, digits and single '-', at most %d characters", n.Name, MaxNameLen)
	}
	if d := oneLine(n.Description); d == "" || len([]rune(d)) > MaxDescriptionLen {
		return fmt.Errorf("the description must say in 1 to %d characters what the skill does and when to use it", MaxDescriptionLen)
	}
	for p := range n.Files {
		if !fs.ValidPath(p) || p == "." || path.Clean(p) == FileName || strings.Contains(p, "\\") {
			return fmt.Errorf("file %q: give a relative path inside the skill, such as scripts/run.sh, other than %s", p, FileName)
		}
	}
	return nil
}

// Create writes the skill n into the skills directory dir (created when
// missing) and returns the skill's directory. It writes into a temporary
// directory inside dir, through an [os.Root], and renames it into place,
// so that a crash leaves either no skill or the whole one. It returns an
// error wrapping [ErrExists] when dir already has a skill of that name.
func Create(dir string, n NewSkill) (string, error) {
	if err := n.Check(); err != nil {
		return "", err
	}
	body, err := n.Format()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create skill %s: %w", n.Name, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("create skill %s: %w", n.Name, err)
	}
	defer root.Close()
	if _, err := root.Lstat(n.Name); err == nil {
		return "", fmt.Errorf("create skill %s in %s: %w; choose another name or remove it first", n.Name, dir, ErrExists)
	}
	tmp := fmt.Sprintf(".%s.tmp-%d", n.Name, os.Getpid())
	_ = root.RemoveAll(tmp)
	if err := writeTree(root, tmp, body, n.Files); err != nil {
		_ = root.RemoveAll(tmp)
		return "", fmt.Errorf("create skill %s: %w", n.Name, err)
	}
	if err := root.Rename(tmp, n.Name); err != nil {
		_ = root.RemoveAll(tmp)
		return "", fmt.Errorf("create skill %s: %w", n.Name, err)
	}
	syncDir(dir)
	return filepath.Join(dir, n.Name), nil
}

func writeTree(root *os.Root, tmp string, skillMD []byte, files map[string]string) error {
	if err := root.Mkdir(tmp, 0o755); err != nil {
		return err
	}
	write := func(name string, data []byte) error {
		p := path.Join(tmp, name)
		if err := root.MkdirAll(path.Dir(p), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(name, "scripts/") {
			mode = 0o755
		}
		f, err := root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if err := write(FileName, skillMD); err != nil {
		return err
	}
	for name, data := range files {
		if err := write(path.Clean(name), []byte(data)); err != nil {
			return err
		}
	}
	return nil
}

// syncDir makes a directory's entries durable; failures are ignored, as
// some file systems cannot sync directories.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Install copies the skill in directory src into the skills directory
// dir (created when missing) and returns it as loaded from there. The
// copy holds regular files and directories only (links and .git are left
// out) and is renamed into place, so a crash leaves no half skill. Nothing
// of the skill is run. It returns an error wrapping [ErrExists] when dir
// has a skill of that name already, and the parse problems of SKILL.md:
// a skill with an [Error] problem is not installed.
func Install(dir, src string) (*Skill, []Problem, error) {
	data, err := os.ReadFile(filepath.Join(src, FileName))
	if err != nil {
		return nil, nil, fmt.Errorf("install skill from %s: %w", src, err)
	}
	sk, problems := Parse(data, filepath.Base(filepath.Clean(src)))
	if sk == nil {
		return nil, problems, fmt.Errorf("install skill from %s: %s is refused; fix the errors above", src, FileName)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, problems, fmt.Errorf("install skill %s: %w", sk.Name, err)
	}
	dest := filepath.Join(dir, sk.Name)
	if _, err := os.Lstat(dest); err == nil {
		return nil, problems, fmt.Errorf("install skill %s in %s: %w; remove it first", sk.Name, dir, ErrExists)
	}
	tmp, err := os.MkdirTemp(dir, "."+sk.Name+".tmp-")
	if err != nil {
		return nil, problems, fmt.Errorf("install skill %s: %w", sk.Name, err)
	}
	defer os.RemoveAll(tmp)
	if err := treecopy.Copy(src, tmp, ".git"); err != nil {
		return nil, problems, fmt.Errorf("install skill %s: %w", sk.Name, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return nil, problems, fmt.Errorf("install skill %s: %w", sk.Name, err)
	}
	syncDir(dir)
	set, _ := Load(Root{Dir: dir})
	installed, ok := set.Get(sk.Name)
	if !ok {
		return nil, problems, fmt.Errorf("install skill %s: it does not load from %s", sk.Name, dest)
	}
	return installed, problems, nil
}
