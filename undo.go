package wield

import (
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/ledger"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/workspace"
)

// UndoTracker returns the observer that snapshots, around each round of
// the sessions of store, wield's own configuration (the workspace's state
// directory and .mcp.json, the user's configuration directory), so that
// what an agent changed of wield is undone with the rest, and the
// workspace ws, so that shell changes are: in a git repository unless
// WIELD_SNAPSHOTS=0, elsewhere only with WIELD_SNAPSHOTS=1.
func UndoTracker(ws string, store *session.Store, getenv func(string) string, log *slog.Logger) agent.RoundObserver {
	abs, err := filepath.Abs(ws)
	if err != nil {
		return nil
	}
	dir := filepath.Join(store.Dir, "snapshots")
	self := []string{"settings.json", "settings.local.json", "config.json", "mcp.json", "agents", "skills", "memory", "tools", "plugins"}
	t := &ledger.Tracker{Store: store, Logger: log, MaxBlobBytes: undoLimit(getenv, log), Watch: []ledger.Watched{
		{Root: workspace.Layout{Root: abs}.State(), Snapshots: &ledger.Snapshotter{Dir: dir, Only: self}},
	}}
	if u, err := workspace.User(); err == nil {
		t.Watch = append(t.Watch, ledger.Watched{Root: u.Dir, Snapshots: &ledger.Snapshotter{Dir: dir, Only: self}})
	}
	whole := false
	switch getenv("WIELD_SNAPSHOTS") {
	case "0", "false", "off":
	case "1", "true", "on":
		whole = true
	default:
		_, err := os.Lstat(filepath.Join(abs, ".git"))
		whole = err == nil
	}
	if whole {
		t.Watch = append(t.Watch, ledger.Watched{Root: abs, Snapshots: &ledger.Snapshotter{Dir: dir}})
	} else {
		t.Watch = append(t.Watch, ledger.Watched{Root: abs, Snapshots: &ledger.Snapshotter{Dir: dir, Only: []string{".mcp.json"}}})
	}
	return t
}

// undoLimit returns the cap on a session's saved contents that
// WIELD_UNDO_MAX_MB sets, or zero for the default (512 MiB).
func undoLimit(getenv func(string) string, log *slog.Logger) int64 {
	v := getenv("WIELD_UNDO_MAX_MB")
	if v == "" {
		return 0
	}
	mb, err := strconv.ParseInt(v, 10, 64)
	if err != nil || mb <= 0 {
		log.Warn("WIELD_UNDO_MAX_MB is not a positive number of MiB; using the default, 512", "value", v)
		return 0
	}
	return mb << 20
}
