package wield_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/session/pgstore"
)

// TestOpenStore: the store is the one WIELD_SESSIONS names (a PostgreSQL
// URL or a folder), else WIELD_HOME's, else the workspace's, which alone
// gets a .wield/.gitignore.
func TestOpenStore(t *testing.T) {
	tests := []struct {
		name          string
		env           map[string]string
		wantDir       string // relative to the workspace, or "HOME" for WIELD_HOME's, or "SESSIONS" for WIELD_SESSIONS'
		wantPostgres  bool
		wantGitIgnore bool
	}{
		{name: "the workspace's", wantDir: ".wield/sessions", wantGitIgnore: true},
		{name: "WIELD_HOME", env: map[string]string{"WIELD_HOME": "HOME"}, wantDir: "HOME"},
		{name: "a folder", env: map[string]string{wield.EnvSessions: "SESSIONS"}, wantDir: "SESSIONS", wantGitIgnore: true},
		{name: "a folder over WIELD_HOME", env: map[string]string{wield.EnvSessions: "SESSIONS", "WIELD_HOME": "HOME"}, wantDir: "SESSIONS"},
		{name: "PostgreSQL", env: map[string]string{wield.EnvSessions: "postgres://wield@127.0.0.1:1/none"}, wantDir: ".wield/sessions", wantPostgres: true, wantGitIgnore: true},
		{name: "PostgreSQL, the other scheme", env: map[string]string{wield.EnvSessions: "postgresql://wield@127.0.0.1:1/none", "WIELD_HOME": "HOME"}, wantDir: "HOME", wantPostgres: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, home, sessions := t.TempDir(), t.TempDir(), t.TempDir()
			dirs := map[string]string{"HOME": home, "SESSIONS": sessions}
			getenv := func(k string) string {
				if v, ok := dirs[tt.env[k]]; ok {
					return v
				}
				return tt.env[k]
			}
			st, closeStore := wield.OpenStore(ws, getenv, nil)
			defer func() {
				if err := closeStore(); err != nil {
					t.Errorf("close: %v", err)
				}
			}()
			want := filepath.Join(ws, tt.wantDir)
			switch tt.wantDir {
			case "HOME":
				want = filepath.Join(home, "sessions")
			case "SESSIONS":
				want = sessions
			}
			if st.Dir != want {
				t.Errorf("Dir = %s, want %s", st.Dir, want)
			}
			if _, ok := st.Backend.(*pgstore.Backend); ok != tt.wantPostgres {
				t.Errorf("Backend = %T, want PostgreSQL: %v", st.Backend, tt.wantPostgres)
			}
			_, err := os.Stat(filepath.Join(ws, ".wield", ".gitignore"))
			if ignored := err == nil; ignored != tt.wantGitIgnore {
				t.Errorf(".wield/.gitignore written: %v, want %v", ignored, tt.wantGitIgnore)
			}
		})
	}
}

// TestNew_storeOfTheEnvironment: without Options.Store, New keeps the
// sessions where WIELD_SESSIONS says, as the wield command does.
func TestNew_storeOfTheEnvironment(t *testing.T) {
	ws, sessions := newWorkspace(t), t.TempDir()
	getenv := func(k string) string {
		if k == wield.EnvSessions {
			return sessions
		}
		return os.Getenv(k)
	}
	a, err := wield.New(t.Context(), wield.Options{Workspace: ws, Provider: script(t, `{"round": 1, "text": "ok"}`), Model: "scripted", Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Store.Dir != sessions {
		t.Errorf("Store.Dir = %s, want %s", a.Store.Dir, sessions)
	}
}
