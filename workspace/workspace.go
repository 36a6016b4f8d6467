// Package workspace owns the layout of wield's files: it finds a
// workspace's root and names every path wield reads or writes under it
// (the .wield directory) and under the user's configuration directory.
//
// A workspace is the directory wield works in. [Find] takes the
// repository root, the nearest directory upward holding .git, as the root;
// outside a repository the directory itself is the root. A [Layout] names
// the paths under one root; [User] names the user's own files. Nothing in
// this package creates a file or a directory: callers do, when they need
// them.
package workspace

import (
	"fmt"
	"os"
	"path/filepath"
)

// Dir is the name of wield's directory at the root of a workspace.
const Dir = ".wield"

// HomeEnv is the environment variable that, when set to a non-empty
// directory, moves the sessions of every workspace into its sessions
// subdirectory (see [Layout.SessionsDir]).
const HomeEnv = "WIELD_HOME"

// Find returns the root of the workspace that holds dir: the nearest
// directory at or above dir that contains a .git entry (a directory, or a
// file as in worktrees and submodules), or dir itself when there is none.
// The result is absolute and clean. Find fails if dir is not a directory.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace: %s is not a directory", abs)
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, nil
		}
		d = parent
	}
}

// A Layout names the paths of one workspace. Root is the workspace root;
// the zero Layout names them relative to the root, for use with an
// [os.Root] opened there. The methods only build paths.
type Layout struct {
	Root string
}

func (l Layout) path(elem ...string) string {
	return filepath.Join(append([]string{l.Root, Dir}, elem...)...)
}

// State returns wield's directory of the workspace, Root/.wield.
func (l Layout) State() string { return l.path() }

// GitIgnore returns the .gitignore inside [Layout.State] that keeps
// wield's own state out of the project's git status.
func (l Layout) GitIgnore() string { return l.path(".gitignore") }

// Sessions returns the directory of the workspace's session journals,
// .wield/sessions.
func (l Layout) Sessions() string { return l.path("sessions") }

// SessionsDir returns where the sessions of the workspace live, given
// the environment lookup getenv (such as [os.Getenv]): $WIELD_HOME/sessions
// when [HomeEnv] is set and non-empty, else [Layout.Sessions]. home
// reports the former.
func (l Layout) SessionsDir(getenv func(string) string) (dir string, home bool) {
	if h := getenv(HomeEnv); h != "" {
		return filepath.Join(h, "sessions"), true
	}
	return l.Sessions(), false
}

// Spill returns the directory of whole outputs saved for the session
// named session, .wield/spill/<session>; an empty session names the
// spill directory itself. The caller makes session safe as a file name.
func (l Layout) Spill(session string) string {
	if session == "" {
		return l.path("spill")
	}
	return l.path("spill", session)
}

// Settings returns the workspace's permission settings file,
// .wield/settings.json.
func (l Layout) Settings() string { return l.path("settings.json") }

// Config returns the workspace's run configuration file,
// .wield/config.json.
func (l Layout) Config() string { return l.path("config.json") }

// MCP returns the workspace's own MCP server configuration,
// .wield/mcp.json.
func (l Layout) MCP() string { return l.path("mcp.json") }

// SharedMCP returns the project's MCP server configuration that other
// clients (Claude Code among them) read too, .mcp.json at the root.
func (l Layout) SharedMCP() string { return filepath.Join(l.Root, ".mcp.json") }

// Tools returns the directory of the workspace's declared tools,
// .wield/tools.
func (l Layout) Tools() string { return l.path("tools") }

// Logs returns the workspace's log directory, .wield/logs.
func (l Layout) Logs() string { return l.path("logs") }

// MCPLogs returns the directory of the stderr logs of mounted MCP
// servers, .wield/logs/mcp.
func (l Layout) MCPLogs() string { return l.path("logs", "mcp") }

// Agents returns the directory of the workspace's agent definitions,
// .wield/agents.
func (l Layout) Agents() string { return l.path("agents") }

// Skills returns the directory of the workspace's skills, .wield/skills.
func (l Layout) Skills() string { return l.path("skills") }

// Memory returns the directory of the workspace's memory, .wield/memory.
func (l Layout) Memory() string { return l.path("memory") }

// Index returns the directory of the workspace's document index,
// .wield/index: one file per collection.
func (l Layout) Index() string { return l.path("index") }

// Plans returns the directory of the workspace's plans, .wield/plans.
func (l Layout) Plans() string { return l.path("plans") }

// A UserLayout names the user's own wield files. Dir is the user's wield
// configuration directory, such as ~/.config/wield.
type UserLayout struct {
	Dir string
}

// User returns the layout of the user's files, under "wield" in
// [os.UserConfigDir]. It fails when the user has no configuration
// directory.
func User() (UserLayout, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return UserLayout{}, fmt.Errorf("workspace: %w", err)
	}
	return UserLayout{Dir: filepath.Join(dir, "wield")}, nil
}

// Settings returns the user's permission settings file, settings.json.
func (u UserLayout) Settings() string { return filepath.Join(u.Dir, "settings.json") }

// Config returns the user's run configuration file, config.json.
func (u UserLayout) Config() string { return filepath.Join(u.Dir, "config.json") }

// MCP returns the user's MCP server configuration, mcp.json.
func (u UserLayout) MCP() string { return filepath.Join(u.Dir, "mcp.json") }

// Agents returns the directory of the user's agent definitions, agents.
func (u UserLayout) Agents() string { return filepath.Join(u.Dir, "agents") }

// Skills returns the directory of the user's skills, skills.
func (u UserLayout) Skills() string { return filepath.Join(u.Dir, "skills") }

// Memory returns the directory of the user's memory, memory.
func (u UserLayout) Memory() string { return filepath.Join(u.Dir, "memory") }
