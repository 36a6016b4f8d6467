package skill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/wieldhq/wield/workspace"
)

// A Root is a directory of skills (each a subdirectory with a SKILL.md)
// and the scope of the skills in it.
type Root struct {
	Dir   string
	Scope Scope
	// Plugin names the plugin the skills come from, for ScopePlugin.
	Plugin string
}

// DirNames are the directories, under a workspace directory or the home
// directory, that hold skills, in order of precedence within one
// directory. .wield/skills is wield's own ([workspace.Layout.Skills]).
var DirNames = [...]string{".wield", ".agents", ".claude", ".codex", ".gemini"}

// Roots returns the skill directories of the workspace ws, the user's
// wield directory user and the home directory home, most specific first:
// the DirNames in ws and in each of its ancestors up to the repository
// root (the first directory holding .git; the filesystem root when there
// is none); user.Skills(); then the DirNames other than .wield in home.
// An empty ws, user.Dir or home leaves its directories out; a directory
// named twice is kept at its first place. Plugin skills are added by the
// caller after these.
func Roots(ws string, user workspace.UserLayout, home string) []Root {
	var roots []Root
	add := func(p string, s Scope) {
		p = filepath.Clean(p)
		if !slices.ContainsFunc(roots, func(r Root) bool { return r.Dir == p }) {
			roots = append(roots, Root{Dir: p, Scope: s})
		}
	}
	if ws != "" {
		for dir := filepath.Clean(ws); ; {
			for _, n := range DirNames {
				add(filepath.Join(dir, n, "skills"), ScopeProject)
			}
			if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	if user.Dir != "" {
		add(user.Skills(), ScopeUser)
	}
	if home != "" {
		for _, n := range DirNames[1:] {
			add(filepath.Join(home, n, "skills"), ScopeUser)
		}
	}
	return roots
}

// A Set holds the skills found by [Load], one per name. It is immutable
// and safe for concurrent use.
type Set struct {
	byName map[string]*Skill
	order  []*Skill // sorted by name
}

// NewSet returns a set of skills; of two with one name, the first wins.
// The set shares the skills: the caller must not modify them.
func NewSet(skills ...*Skill) *Set {
	s := &Set{byName: make(map[string]*Skill, len(skills))}
	for _, sk := range skills {
		if _, dup := s.byName[sk.Name]; !dup {
			s.byName[sk.Name] = sk
			s.order = append(s.order, sk)
		}
	}
	slices.SortFunc(s.order, func(a, b *Skill) int { return strings.Compare(a.Name, b.Name) })
	return s
}

// Get returns the skill named name. The skill is shared: the caller must
// not modify it.
func (s *Set) Get(name string) (*Skill, bool) {
	if s == nil {
		return nil, false
	}
	sk, ok := s.byName[name]
	return sk, ok
}

// All returns the skills sorted by name. The slice is the caller's; the
// skills are shared.
func (s *Set) All() []*Skill {
	if s == nil {
		return nil
	}
	return slices.Clone(s.order)
}

// Len returns the number of skills.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.order)
}

// Load reads the skills of roots, in order of precedence. A root that
// does not exist is skipped silently. A skill whose name an earlier root
// already holds is shadowed, reported as [Info]. Problems are never fatal:
// a broken skill is reported and skipped, the others load.
func Load(roots ...Root) (*Set, []Problem) {
	var all []*Skill
	var problems []Problem
	where := map[string]string{}
	for _, r := range roots {
		skills, ps := loadRoot(r)
		problems = append(problems, ps...)
		for _, sk := range skills {
			if first, ok := where[sk.Name]; ok {
				problems = append(problems, Problem{Path: sk.Path, Severity: Info,
					Msg: fmt.Sprintf("skill %q is shadowed by %s", sk.Name, first)})
				continue
			}
			where[sk.Name] = sk.Path
			all = append(all, sk)
		}
	}
	return NewSet(all...), problems
}

// loadRoot reads the skills of one root, sorted by directory name.
func loadRoot(r Root) ([]*Skill, []Problem) {
	root, err := os.OpenRoot(r.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []Problem{{Path: r.Dir, Severity: Warning, Msg: "cannot read the skills directory: " + err.Error()}}
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, []Problem{{Path: r.Dir, Severity: Warning, Msg: "cannot read the skills directory: " + err.Error()}}
	}
	var problems []Problem
	var names []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		switch {
		case e.IsDir():
		case e.Type()&fs.ModeSymlink != 0:
			// Stat through the root: a link that leaves the skills
			// directory fails here.
			info, err := root.Stat(name)
			if err != nil {
				problems = append(problems, Problem{Path: filepath.Join(r.Dir, name), Severity: Warning, Msg: "skipped: a symbolic link that leaves the skills directory"})
				continue
			}
			if !info.IsDir() {
				continue
			}
		default:
			continue
		}
		names = append(names, name)
	}
	// Reading is mostly waiting on the file system: read the skills
	// concurrently, keeping their order.
	type result struct {
		sk *Skill
		ps []Problem
	}
	results := make([]result, len(names))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(len(names), readers) {
		wg.Go(func() {
			for i := range next {
				results[i].sk, results[i].ps = readSkill(root, r, names[i])
			}
		})
	}
	for i := range names {
		next <- i
	}
	close(next)
	wg.Wait()
	var skills []*Skill
	for _, res := range results {
		problems = append(problems, res.ps...)
		if res.sk != nil {
			skills = append(skills, res.sk)
		}
	}
	return skills, problems
}

// readers is how many skills [Load] reads at once.
const readers = 8

// readSkill reads root/name/SKILL.md.
func readSkill(root *os.Root, r Root, name string) (*Skill, []Problem) {
	dir := filepath.Join(r.Dir, name)
	path := filepath.Join(dir, FileName)
	f, err := root.Open(filepath.Join(name, FileName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, []Problem{{Path: dir, Severity: Warning, Msg: "skipped: the directory has no " + FileName}}
		}
		return nil, []Problem{{Path: path, Severity: Error, Msg: "cannot read: " + err.Error()}}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, []Problem{{Path: path, Severity: Error, Msg: "cannot read: " + err.Error()}}
	}
	if len(data) > MaxFileSize {
		return nil, []Problem{{Path: path, Severity: Error, Msg: fmt.Sprintf("larger than %d KiB; move details into references/ files", MaxFileSize>>10)}}
	}
	sk, ps := Parse(data, name)
	for i := range ps {
		ps[i].Path = path
	}
	if sk != nil {
		sk.Dir, sk.Path, sk.Scope, sk.Plugin = dir, path, r.Scope, r.Plugin
	}
	return sk, ps
}
