package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/pgstore"
	"github.com/wieldhq/wield/session/pgstore/pgtest"
	"github.com/wieldhq/wield/session/sessiontest"
)

// postgresDatabase returns the URL of a database of the test's own on
// the server WIELD_POSTGRES_URL names (scripts/postgres.sh sets it),
// dropped when the test ends. Without the variable the test fails,
// unless WIELD_ALLOW_SKIP=1 on a machine where CI is unset.
func postgresDatabase(t *testing.T) string {
	t.Helper()
	server := pgtest.URL(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "wield_cli_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, server)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// TestSessionCommandsOnPostgres writes a session into PostgreSQL, as a
// worker on another machine would, and reads it with wield session ls,
// show and rm, the store named by WIELD_SESSIONS; then two wield runs
// journal one session there, the second carrying on the first.
func TestSessionCommandsOnPostgres(t *testing.T) {
	db := postgresDatabase(t)
	be, err := pgstore.New(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	s, err := (&session.Store{Backend: be}).Create(t.Context(), session.Header{ID: "durable-run", Purpose: "a run kept in PostgreSQL"})
	if err != nil {
		t.Fatal(err)
	}
	sessiontest.Round(t, s, "check the durable store", "c", 1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	ws := workspaceDir(t)
	env := map[string]string{wield.EnvSessions: db, "WIELD_HOME": ""}
	code, stdout, stderr := runWield(t, ws, env, "session", "ls")
	if code != 0 || !strings.Contains(stdout, "durable-run") || !strings.Contains(stdout, "a run kept in PostgreSQL") {
		t.Fatalf("session ls: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, stderr = runWield(t, ws, env, "session", "show", "durable-run")
	if code != 0 || !strings.Contains(stdout, "check the durable store") || !strings.Contains(stdout, "hi from c-1") {
		t.Fatalf("session show: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, stderr = runWield(t, ws, env, "session", "rm", "durable-run")
	if code != 0 || !strings.Contains(stderr, "backups/durable-run.") {
		t.Fatalf("session rm: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if _, err := (&session.Store{Backend: be}).Load(t.Context(), "durable-run"); err == nil {
		t.Fatal("the session is still there after session rm")
	}
	if _, err := os.Stat(filepath.Join(ws, ".wield", "sessions")); err == nil {
		t.Error("the session commands made a sessions directory in the workspace; they should use PostgreSQL only")
	}
	// A run journals in PostgreSQL, and the next run, which could be on
	// another machine, carries the session on.
	demo := filepath.Join(t.TempDir(), "demo.jsonl")
	script := `{"round": 1, "tool_calls": [{"id": "call_1", "name": "echo", "arguments": {"text": "hello from a tool"}}]}
{"round": 2, "text": "The echo tool answered: hello from a tool."}
`
	if err := os.WriteFile(demo, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runWield(t, ws, env, "run", "--replay", demo, "say hello")
	if code != 0 || !strings.Contains(stdout, "hello from a tool") {
		t.Fatalf("run: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	list, err := (&session.Store{Backend: be}).List(t.Context())
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions in PostgreSQL after the run: %+v, %v; want one", list, err)
	}
	id := list[0].ID
	code, stdout, stderr = runWield(t, ws, env, "run", "--replay", demo, "--session", id, "say hello again")
	if code != 0 {
		t.Fatalf("run --session: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, stderr = runWield(t, ws, env, "session", "show", id)
	if code != 0 || !strings.Contains(stdout, "say hello again") || strings.Count(stdout, "hello from a tool") < 2 {
		t.Fatalf("session show after two runs: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, ".wield", "sessions", id+".jsonl")); err == nil {
		t.Error("the run wrote its journal to a file too")
	}

	// A server that is not there is the commands' error, not a crash.
	env[wield.EnvSessions] = "postgres://wield@127.0.0.1:1/none?connect_timeout=5"
	if code, _, stderr := runWield(t, ws, env, "session", "show", "durable-run"); code == 0 || !strings.Contains(stderr, "127.0.0.1") {
		t.Fatalf("session show with no server: exit %d, stderr %s; want an error naming the server", code, stderr)
	}
}
