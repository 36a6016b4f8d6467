package wield

import (
	"log/slog"
	"os"
	"strings"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/pgstore"
	"github.com/wieldhq/wield/workspace"
)

// OpenStore returns the session store of workspace ws, as the wield
// command chooses it, and the function that closes it. The store is the
// one [EnvSessions] names, read with getenv, when it is set: a
// postgres:// or postgresql:// URL is a PostgreSQL store (package
// session/pgstore), anything else a folder. Else it is
// $WIELD_HOME/sessions when WIELD_HOME is set, else .wield/sessions in the
// workspace, whose .wield/.gitignore then keeps wield's own state out of
// git (see [IgnoreState]).
//
// A PostgreSQL store connects on first use: a bad URL or an unreachable
// server is the error of the first call that reads or writes a session.
// Its Dir stays the folder above, for what is this machine's alone (the
// undo snapshots). Close releases its connections (sessions still open
// for writing keep theirs until they close); for a folder it does
// nothing. The store's Live secrets are unset: the caller sets them.
func OpenStore(ws string, getenv func(string) string, log *slog.Logger) (*session.Store, func() error) {
	dir, home := workspace.Layout{Root: ws}.SessionsDir(getenv)
	if !home {
		IgnoreState(ws)
	}
	st := &session.Store{Dir: dir, Logger: log}
	switch loc := getenv(EnvSessions); {
	case strings.HasPrefix(loc, "postgres://") || strings.HasPrefix(loc, "postgresql://"):
		b := pgstore.Open(loc, nil)
		st.Backend = b
		return st, func() error { b.Close(); return nil }
	case loc != "":
		st.Dir = loc
	}
	return st, func() error { return nil }
}

// stateIgnore keeps wield's own state out of the project's git status,
// itself included (each clone writes its own), so that a first run leaves
// git status as it was; project configuration in .wield (settings.json,
// tools/, mcp.json, agents/, skills/, memory/) stays visible.
const stateIgnore = "# wield's own state and personal settings; settings.json, tools/ and mcp.json are project configuration\n/.gitignore\nsessions/\nspill/\nlogs/\nplans/\nindex/\nsettings.local.json\n"

// IgnoreState writes .wield/.gitignore in workspace ws, if .wield has
// none, so that git sees none of wield's own state (sessions, spilled
// outputs, logs, personal settings) while the project's configuration in
// .wield stays visible. Failing to is harmless and is not reported.
func IgnoreState(ws string) {
	l := workspace.Layout{Root: ws}
	dir, path := l.State(), l.GitIgnore()
	if _, err := os.Lstat(path); err == nil {
		return
	}
	if os.MkdirAll(dir, 0o755) == nil {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			_, _ = f.WriteString(stateIgnore)
			_ = f.Close()
		}
	}
}
