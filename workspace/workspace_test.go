package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	// top/              a repository (.git directory)
	//   sub/deep/       plain directories inside it
	//   nested/         a repository inside it
	//     in/
	//   wt/             a worktree or submodule (.git file)
	//     in/
	// plain/in/         no repository anywhere above (below the temp dir)
	base := t.TempDir()
	base, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"top/.git", "top/sub/deep", "top/nested/.git", "top/nested/in", "top/wt/in", "plain/in"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "top/wt/.git"), []byte("gitdir: ../.git/worktrees/wt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "top/sub/file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The oracle for "no repository" is that none of base's ancestors has
	// one; if the test machine keeps its temp dir inside a repository,
	// the plain cases resolve there instead.
	plainRoot := filepath.Join(base, "plain", "in")
	for d := base; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			plainRoot = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	tests := []struct {
		name, dir, want string
	}{
		{"repository root", "top", "top"},
		{"subdirectory of a repository", "top/sub/deep", "top"},
		{"unclean path", "top/sub/../sub/deep/", "top"},
		{"nested repository", "top/nested/in", "top/nested"},
		{"nested repository root", "top/nested", "top/nested"},
		{".git file (worktree, submodule)", "top/wt/in", "top/wt"},
		{"no repository", "plain/in", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := plainRoot
			if tt.want != "" {
				want = filepath.Join(base, tt.want)
			}
			got, err := Find(filepath.Join(base, tt.dir))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("Find(%s) = %s, want %s", tt.dir, got, want)
			}
		})
	}
	t.Run("relative", func(t *testing.T) {
		t.Chdir(filepath.Join(base, "top", "sub"))
		got, err := Find("deep")
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(base, "top"); got != want {
			t.Errorf("Find(deep) = %s, want %s", got, want)
		}
	})
	for _, dir := range []string{"top/sub/file", "missing"} {
		t.Run("not a directory: "+dir, func(t *testing.T) {
			if got, err := Find(filepath.Join(base, dir)); err == nil {
				t.Errorf("Find(%s) = %s, want an error", dir, got)
			}
		})
	}
}

func TestLayout(t *testing.T) {
	root := filepath.FromSlash("/r")
	l := Layout{Root: root}
	tests := []struct {
		name string
		got  string
		want string // slash-separated, relative to root
	}{
		{"State", l.State(), ".wield"},
		{"GitIgnore", l.GitIgnore(), ".wield/.gitignore"},
		{"Sessions", l.Sessions(), ".wield/sessions"},
		{"Spill", l.Spill(""), ".wield/spill"},
		{"Spill(s)", l.Spill("s"), ".wield/spill/s"},
		{"Settings", l.Settings(), ".wield/settings.json"},
		{"Config", l.Config(), ".wield/config.json"},
		{"MCP", l.MCP(), ".wield/mcp.json"},
		{"SharedMCP", l.SharedMCP(), ".mcp.json"},
		{"Tools", l.Tools(), ".wield/tools"},
		{"Logs", l.Logs(), ".wield/logs"},
		{"MCPLogs", l.MCPLogs(), ".wield/logs/mcp"},
		{"Agents", l.Agents(), ".wield/agents"},
		{"Skills", l.Skills(), ".wield/skills"},
		{"Memory", l.Memory(), ".wield/memory"},
		{"Plans", l.Plans(), ".wield/plans"},
		{"zero Spill", Layout{}.Spill("s"), ".wield/spill/s"},
		{"zero Settings", Layout{}.Settings(), ".wield/settings.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := filepath.FromSlash(tt.want)
			if !strings.HasPrefix(tt.name, "zero") {
				want = filepath.Join(root, want)
			}
			if tt.got != want {
				t.Errorf("%s = %s, want %s", tt.name, tt.got, want)
			}
		})
	}
}

func TestSessionsDir(t *testing.T) {
	l := Layout{Root: filepath.FromSlash("/r")}
	tests := []struct {
		name     string
		env      map[string]string
		wantDir  string
		wantHome bool
	}{
		{"unset", nil, filepath.FromSlash("/r/.wield/sessions"), false},
		{"empty", map[string]string{"WIELD_HOME": ""}, filepath.FromSlash("/r/.wield/sessions"), false},
		{"set", map[string]string{"WIELD_HOME": filepath.FromSlash("/h")}, filepath.FromSlash("/h/sessions"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, home := l.SessionsDir(func(k string) string { return tt.env[k] })
			if dir != tt.wantDir || home != tt.wantHome {
				t.Errorf("SessionsDir = %s, %v; want %s, %v", dir, home, tt.wantDir, tt.wantHome)
			}
		})
	}
}

func TestUser(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", cfg)
	t.Setenv("AppData", cfg)
	base, err := os.UserConfigDir()
	if err != nil {
		t.Fatal(err)
	}
	u, err := User()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "wield")
	tests := []struct{ name, got, want string }{
		{"Dir", u.Dir, dir},
		{"Settings", u.Settings(), filepath.Join(dir, "settings.json")},
		{"Config", u.Config(), filepath.Join(dir, "config.json")},
		{"MCP", u.MCP(), filepath.Join(dir, "mcp.json")},
		{"Agents", u.Agents(), filepath.Join(dir, "agents")},
		{"Skills", u.Skills(), filepath.Join(dir, "skills")},
		{"Memory", u.Memory(), filepath.Join(dir, "memory")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("%s = %s, want %s", tt.name, tt.got, tt.want)
			}
		})
	}
	t.Run("no configuration directory", func(t *testing.T) {
		t.Setenv("XDG_CONFIG_HOME", "")
		t.Setenv("HOME", "")
		t.Setenv("AppData", "")
		if _, err := os.UserConfigDir(); err == nil {
			t.Fatal("os.UserConfigDir succeeds without HOME; the oracle is gone")
		}
		if u, err := User(); err == nil {
			t.Errorf("User() = %+v, want an error", u)
		}
	})
}
