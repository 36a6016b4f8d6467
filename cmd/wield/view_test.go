package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
)

// viewWorkspace returns a workspace with one session, and the session's id.
func viewWorkspace(t *testing.T) (ws, id string) {
	t.Helper()
	ws = t.TempDir()
	t.Setenv("WIELD_HOME", "")
	st := &session.Store{Dir: filepath.Join(ws, ".wield", "sessions"), Sync: session.SyncNever}
	s, err := st.Create(t.Context(), session.Header{Agent: "wield", Purpose: "view me"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := s.Begin(ctx, "say hi"); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Content: "hi <b>there</b>"}, Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return ws, s.ID()
}

func TestView_ServesWithTokenUntilCancelled(t *testing.T) {
	ws, id := viewWorkspace(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"--workdir", ws, "view", "--no-open", id[:12]}, strings.NewReader(""), outW, &stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v (stderr: %s)", err, stderr.String())
	}
	u := strings.TrimSpace(line)
	if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.HasSuffix(u, "/#s="+id) {
		t.Fatalf("URL %q: want http://127.0.0.1:PORT/TOKEN/#s=%s", u, id)
	}
	base := strings.TrimSuffix(u, "#s="+id)
	root := base[:strings.Index(base[len("http://"):], "/")+len("http://")]
	for _, tt := range []struct {
		url  string
		code int
	}{
		{base, http.StatusOK},
		{base + "api/session?id=" + id, http.StatusOK},
		{root + "/", http.StatusForbidden},
		{root + "/api/session?id=" + id, http.StatusForbidden},
	} {
		resp, err := http.Get(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code {
			t.Errorf("GET %s = %d, want %d", tt.url, resp.StatusCode, tt.code)
		}
		if tt.code == http.StatusOK && strings.Contains(tt.url, "api/") {
			var p struct{ H []string }
			if err := json.Unmarshal(body, &p); err != nil || len(p.H) != 2 || !strings.Contains(p.H[1], "hi &lt;b&gt;there&lt;/b&gt;") {
				t.Errorf("GET %s: the round is missing or not escaped (%v):\n%s", tt.url, err, body)
			}
		}
	}
	cancel() // Ctrl-C
	if c := <-code; c != exitOK {
		t.Errorf("wield view exited %d after Ctrl-C, want %d (stderr: %s)", c, exitOK, stderr.String())
	}
}

func TestView_RefusesANonLoopbackAddress(t *testing.T) {
	ws, _ := viewWorkspace(t)
	var stdout, stderr bytes.Buffer
	if c := run(t.Context(), []string{"--workdir", ws, "view", "--no-open", "--addr", "0.0.0.0:0"}, strings.NewReader(""), &stdout, &stderr); c != exitUsage {
		t.Fatalf("exit %d, want %d", c, exitUsage)
	}
	if !strings.Contains(stderr.String(), "loopback") {
		t.Errorf("stderr %q does not say why", stderr.String())
	}
}

func TestSessionExportHTML(t *testing.T) {
	ws, id := viewWorkspace(t)
	var stdout, stderr bytes.Buffer
	if c := run(t.Context(), []string{"--workdir", ws, "session", "export", "--html", id}, strings.NewReader(""), &stdout, &stderr); c != exitOK {
		t.Fatalf("exit %d: %s", c, stderr.String())
	}
	page := stdout.String()
	if !strings.HasPrefix(page, "<!doctype html>") || !strings.Contains(page, "Content-Security-Policy") || !strings.Contains(page, "view me") {
		t.Errorf("not the viewer's page:\n%.300s", page)
	}
	file := filepath.Join(t.TempDir(), "s.html")
	stdout.Reset()
	if c := run(t.Context(), []string{"--workdir", ws, "session", "export", "--html", "-o", file, id}, strings.NewReader(""), &stdout, &stderr); c != exitOK {
		t.Fatalf("exit %d: %s", c, stderr.String())
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != page {
		t.Errorf("-o wrote %d bytes (%v), want the page stdout got", len(b), err)
	}
	if c := run(t.Context(), []string{"--workdir", ws, "session", "export", "--html", "nope"}, strings.NewReader(""), &stdout, &stderr); c != exitUsage {
		t.Errorf("unknown session: exit %d, want %d", c, exitUsage)
	}
	if c := run(t.Context(), []string{"--workdir", ws, "session", "export", "-o", file, id}, strings.NewReader(""), &stdout, &stderr); c != exitUsage {
		t.Errorf("-o without --html: exit %d, want %d", c, exitUsage)
	}
}
