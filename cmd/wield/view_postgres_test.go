package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/pgstore"
)

// TestViewOnPostgres inspects a durable run whose session is in
// PostgreSQL, as a worker writes it (each step opens the session, writes
// and closes it, the transaction staying open for the run): wield session
// show reads it, and wield view, the store named by WIELD_SESSIONS, lists
// it, serves its rounds and follows a round the worker adds.
func TestViewOnPostgres(t *testing.T) {
	db := postgresDatabase(t)
	be, err := pgstore.New(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	worker := &session.Store{Backend: be}
	const id = "durable-view"
	step := func(f func(s *session.Session) error) {
		t.Helper()
		var s *session.Session
		var err error
		if _, serr := worker.Stat(t.Context(), id); serr != nil {
			s, err = worker.Create(t.Context(), session.Header{ID: id, Agent: "wield", Purpose: "a durable run to inspect"})
		} else {
			s, err = worker.Open(t.Context(), id)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := f(s); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ctx := t.Context()
	step(func(s *session.Session) error {
		if err := s.Set(map[string]any{session.MetaRunOwner: "run-1"}); err != nil {
			return err
		}
		return s.Begin(ctx, "inspect the durable run")
	})
	step(func(s *session.Session) error {
		return s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Content: "first round, from worker <b>A</b>"}, Model: "m"})
	})

	ws := workspaceDir(t)
	env := map[string]string{wield.EnvSessions: db, "WIELD_HOME": ""}
	code, stdout, stderr := runWield(t, ws, env, "session", "show", id)
	if code != 0 || !strings.Contains(stdout, "inspect the durable run") || !strings.Contains(stdout, "first round, from worker <b>A</b>") {
		t.Fatalf("session show: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}

	vctx, cancel := context.WithCancel(ctx)
	defer cancel()
	outR, outW := io.Pipe()
	var verr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(vctx, []string{"--workdir", ws, "--no-mcp", "view", "--no-open", "durable-v"}, strings.NewReader(""), outW, &verr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v (stderr: %s)", err, verr.String())
	}
	base, frag, _ := strings.Cut(strings.TrimSpace(line), "#")
	if frag != "s="+id {
		t.Fatalf("URL %q: want it to open session %s", line, id)
	}
	getJSON := func(path string, v any) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d: %s", path, resp.StatusCode, body)
		}
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v\n%s", path, err, body)
		}
	}
	var list struct{ List, Newest string }
	getJSON("api/sessions", &list)
	if list.Newest != id || !strings.Contains(list.List, "a durable run to inspect") {
		t.Errorf("the list (newest %q) lacks the run:\n%s", list.Newest, list.List)
	}
	var page struct {
		V     int64
		Live  bool
		Index []json.RawMessage
		H     []string
	}
	getJSON("api/session?id="+id, &page)
	if !page.Live || len(page.H) != 2 || !strings.Contains(page.H[1], "first round, from worker &lt;b&gt;A&lt;/b&gt;") {
		t.Fatalf("the page (live %v) shows %d rounds, want the run's task and response, escaped:\n%s", page.Live, len(page.H), strings.Join(page.H, "\n"))
	}

	// The page follows the run: a round another worker adds arrives.
	ectx, ecancel := context.WithTimeout(ctx, 20*time.Second)
	defer ecancel()
	req, _ := http.NewRequestWithContext(ectx, http.MethodGet, fmt.Sprintf("%sapi/events?id=%s&n=%d&v=%d", base, id, len(page.Index), page.V), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	if _, err := events.ReadString('\n'); err != nil { // the stream is open
		t.Fatal(err)
	}
	step(func(s *session.Session) error {
		if err := s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Content: "second round, from worker B"}, Model: "m"}); err != nil {
			return err
		}
		if err := s.Set(map[string]any{session.MetaRunOwner: nil}); err != nil {
			return err
		}
		return s.Commit(ctx)
	})
	for {
		line, err := events.ReadString('\n')
		if err != nil {
			t.Fatalf("the page was not sent the new round: %v", err)
		}
		if strings.HasPrefix(line, "data: ") && strings.Contains(line, "second round, from worker B") {
			break
		}
	}
	resp.Body.Close()

	cancel() // Ctrl-C
	if c := <-done; c != exitOK {
		t.Errorf("wield view exited %d after Ctrl-C, want %d (stderr: %s)", c, exitOK, verr.String())
	}
	if _, err := os.Stat(filepath.Join(ws, ".wield", "sessions")); err == nil {
		t.Error("wield view made a sessions directory in the workspace; it should read PostgreSQL only")
	}
}
