package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wieldhq/wield"
	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm/replay"
)

// inTempWorkspace makes the test's working directory a fresh workspace
// holding notes.txt, with HOME and the user's configuration in a folder
// of their own, so that no settings of the machine's user apply.
func inTempWorkspace(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("WIELD_HOME", "")
	t.Chdir(t.TempDir())
	if err := os.WriteFile("notes.txt", []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// post sends task to url and returns the streamed events, by kind and
// data, in order.
func post(t *testing.T, url, task string) (kinds []string, events []agent.Event) {
	t.Helper()
	resp, err := http.Post(url, "text/plain", strings.NewReader(task))
	if err != nil {
		t.Errorf("POST %q: %v", task, err)
		return nil, nil
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		body, _ := io.ReadAll(resp.Body)
		t.Errorf("POST %q: %s, Content-Type %q, want 200 and an event stream: %s", task, resp.Status, ct, body)
		return nil, nil
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if kind, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			kinds = append(kinds, kind)
		}
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var e agent.Event
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				t.Errorf("POST %q: event %q: %v", task, data, err)
			}
			events = append(events, e)
		}
	}
	if err := sc.Err(); err != nil {
		t.Errorf("POST %q: reading the events: %v", task, err)
	}
	return kinds, events
}

// TestHandler runs two tasks at once, each in a session of its own, and
// checks that each stream carries its own run's events only.
func TestHandler(t *testing.T) {
	inTempWorkspace(t)
	entries, err := replay.Parse([]byte(`
{"round": 1, "when": "notes", "tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "notes.txt"}}]}
{"round": 2, "when": "notes", "text": "The notes say 42."}
{"round": 1, "when": "files", "tool_calls": [{"id": "c1", "name": "glob", "arguments": {"pattern": "*.txt"}}]}
{"round": 2, "when": "files", "text": "There is one file, notes.txt."}`))
	if err != nil {
		t.Fatal(err)
	}
	model, err := replay.New(entries)
	if err != nil {
		t.Fatal(err)
	}
	h := &handler{opts: wield.Options{Provider: model, Toolbox: &wield.Toolbox{}, Tools: []string{"read_file", "glob"}}}
	defer h.opts.Toolbox.Close()
	srv := httptest.NewServer(h) // on 127.0.0.1
	defer srv.Close()

	tests := []struct {
		task, tool, wantOutput, wantText string
	}{
		{task: "What do the notes say?", tool: "read_file", wantOutput: "the answer is 42", wantText: "The notes say 42."},
		{task: "Which files are there?", tool: "glob", wantOutput: "notes.txt", wantText: "There is one file, notes.txt."},
	}
	sessions := make([]string, len(tests))
	var wg sync.WaitGroup
	for i, tt := range tests {
		wg.Go(func() {
			kinds, events := post(t, srv.URL, tt.task)
			// The answer streams in as text deltas, as many as the model sends.
			var text strings.Builder
			for _, e := range events {
				text.WriteString(e.Text)
			}
			want := []string{"run_started", "round_started", "call_started", "call_finished", "round_finished", "round_started", "text_delta", "round_finished", "run_finished"}
			if got := slices.Compact(slices.Clone(kinds)); !slices.Equal(got, want) || text.String() != tt.wantText {
				t.Errorf("POST %q: events %q with text %q, want %q with %q", tt.task, got, text.String(), want, tt.wantText)
				return
			}
			if c := events[3].Call; c.Tool != tt.tool || !c.Result.Success || !strings.Contains(c.Result.Output, tt.wantOutput) {
				t.Errorf("POST %q: call %s = %+v, want %s's success with %q", tt.task, c.Tool, c.Result, tt.tool, tt.wantOutput)
			}
			last := events[len(events)-1]
			if last.Outcome == nil || last.Outcome.Text != tt.wantText || last.Session != events[0].Session {
				t.Errorf("POST %q: run_finished = %+v in session %s, want %q in session %s", tt.task, last.Outcome, last.Session, tt.wantText, events[0].Session)
			}
			sessions[i] = events[0].Session
		})
	}
	wg.Wait()
	if sessions[0] == "" || sessions[0] == sessions[1] {
		t.Errorf("sessions = %q, want one of its own per request", sessions)
	}

	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %s, want 405", resp.Status)
	}
}

// TestRun serves with the built-in script on a free port, runs a task,
// then stops the server.
func TestRun(t *testing.T) {
	inTempWorkspace(t)
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, pw)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address: %v", err)
	}
	go io.Copy(io.Discard, pr)
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "http-agent: POST a task to ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("run printed %q, want the URL it serves on 127.0.0.1", line)
	}
	kinds, events := post(t, url, "What is in this folder?")
	if len(events) == 0 || kinds[len(kinds)-1] != "run_finished" || !strings.Contains(events[len(events)-1].Outcome.Text, "scripted answer") {
		t.Errorf("events %q, want a run that ends with the scripted answer", kinds)
	}
	var listed bool
	for _, e := range events {
		listed = listed || e.Kind == agent.EventToolFinished && e.Call.Tool == "list_directory" && strings.Contains(e.Call.Result.Output, "notes.txt")
	}
	if !listed {
		t.Errorf("no list_directory call listed notes.txt: %+v", events)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run = %v after ctx was cancelled, want nil", err)
	}
}

func TestRun_loopbackOnly(t *testing.T) {
	err := run(t.Context(), []string{"-addr", "0.0.0.0:0"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("run(-addr 0.0.0.0:0) = %v, want an error asking for a loopback address", err)
	}
}
