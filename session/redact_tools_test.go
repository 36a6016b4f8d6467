package session_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/fs"
	"github.com/wieldhq/wield/tools/shell"
)

// TestRedactionOfRealToolOutput journals what real tools return (Go
// source read from GOROOT, search results, shell output) twice: without
// secrets and with secrets of various lengths, some too short to count.
// Line for line, the two journals must be valid JSON and equal except
// exactly at the occurrences of the secrets that count (session.HideOracle),
// and none of those may survive.
func TestRedactionOfRealToolOutput(t *testing.T) {
	ctx := t.Context()
	ws := goSourceWorkspace(t, "errors", "io", "strings", "encoding/json")
	// A key in no format the built-in patterns know, so that only the
	// configured secret can hide it.
	apiKey := "wld-Qm3vT8xW2pL9nR4kY7sD1fH6jZ0cB5gA"
	must(t, os.WriteFile(filepath.Join(ws, "creds.txt"), []byte("account "+apiKey+"\nport 8080\n"), 0o644))
	secrets := []string{
		"x", "func", "return", "1234567", // short: hidden only as whole tokens
		"errorStr", "errorString", "Marshaler", "ErrUnexpectedEOF", "interface", // in the sources; one inside another
		apiKey,
		`<tag>&"quoted"\`, // needs escaping in JSON
	}

	root, err := os.OpenRoot(ws)
	must(t, err)
	defer root.Close()
	jobs, err := shell.NewJobs(nil)
	must(t, err)
	defer jobs.Close()
	reg, err := tool.NewRegistry(append(fs.Tools(fs.Config{}), shell.Tools(shell.Config{Jobs: jobs})...)...)
	must(t, err)
	runner := tool.NewRunner(reg, &tool.RunnerOptions{SpillDir: t.TempDir()})
	requests := []tool.Request{
		{Name: "read_file", Arguments: json.RawMessage(`{"path": "errors/errors.go"}`)},
		{Name: "read_file", Arguments: json.RawMessage(`{"path": "io/io.go"}`)},
		{Name: "read_file", Arguments: json.RawMessage(`{"path": "encoding/json/encode.go"}`)},
		{Name: "read_file", Arguments: json.RawMessage(`{"path": "strings/strings.go", "offset": 100, "limit": 400}`)},
		{Name: "read_file", Arguments: json.RawMessage(`{"path": "creds.txt"}`)},
		{Name: "search_file_content", Arguments: json.RawMessage(`{"pattern": "errorString|Marshaler|ErrUnexpectedEOF|wld-"}`)},
		{Name: "glob", Arguments: json.RawMessage(`{"pattern": "**/*.go"}`)},
		{Name: "run_shell_command", Arguments: json.RawMessage(`{"command": "grep -rn 'errorString\\|interface' errors io | head -50; cat creds.txt; printf '%s\\n' '<tag>&\"quoted\"\\\\' exhausted"}`)},
		{Name: "run_shell_command", Arguments: json.RawMessage(`{"command": "ls -la encoding/json; tr a-z A-Z < creds.txt"}`)},
	}
	type exchange struct {
		req tool.Request
		res tool.Result
	}
	var exchanges []exchange
	for i, req := range requests {
		req.ID = fmt.Sprintf("call-%d", i)
		res, err := runner.Call(ctx, tool.Call{Root: root, ID: req.ID}, req)
		must(t, err)
		if !res.Success {
			t.Fatalf("%s %s failed: %s", req.Name, req.Arguments, res.Error)
		}
		exchanges = append(exchanges, exchange{req, res})
	}

	// The same session, journaled by a store without secrets and by one
	// with them.
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var warnings bytes.Buffer
	plain := &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return clock }}
	secret := &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&warnings, nil)), Now: func() time.Time { return clock },
		Secrets: secrets}
	for _, st := range []*session.Store{plain, secret} {
		s, err := st.Create(ctx, session.Header{ID: "real", Purpose: "read errorString and interface docs, exhausted", CreatedAt: clock})
		must(t, err)
		for _, ex := range exchanges {
			call := &tool.Call{ID: ex.req.ID, Tool: ex.req.Name}
			must(t, s.Begin(ctx, "look at "+string(ex.req.Arguments)+" with key "+apiKey+", x and func"))
			must(t, s.RecordResponse(ctx, &llm.Response{Model: "m", Message: llm.Message{Role: llm.RoleAssistant,
				Content:   "calling " + ex.req.Name + " for Marshaler",
				ToolCalls: []llm.ToolCall{{ID: ex.req.ID, Name: ex.req.Name, Arguments: ex.req.Arguments}}}}))
			must(t, s.RecordCall(ctx, call, ex.req.Arguments))
			must(t, s.RecordResult(ctx, call, ex.res))
			must(t, s.Commit(ctx))
		}
		must(t, s.Set(map[string]any{"note": "the key is " + apiKey, "errorString": []any{1, "interface{}", nil}}))
		must(t, s.Close())
	}

	plainLines := readLines(t, plain.Path("real"))
	secretLines := readLines(t, secret.Path("real"))
	if len(plainLines) != len(secretLines) {
		t.Fatalf("the journals have %d and %d lines", len(plainLines), len(secretLines))
	}
	for i := range plainLines {
		session.CheckRedactedLine(t, plainLines[i], secretLines[i], secrets)
	}
	// The test means something only if the secrets were there to hide.
	plainJournal, secretJournal := bytes.Join(plainLines, nil), bytes.Join(secretLines, nil)
	for _, s := range secrets {
		if !session.Counts(s) {
			continue
		}
		if !bytes.Contains(plainJournal, []byte(s)) && !bytes.Contains(plainJournal, []byte(strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`))) {
			t.Errorf("secret %q never occurs in the unredacted journal", s)
		}
	}
	if n := bytes.Count(secretJournal, []byte(session.Redacted)); n < 50 {
		t.Errorf("only %d markers in the redacted journal", n)
	}
	if n := strings.Count(warnings.String(), "too short"); n != 1 {
		t.Errorf("%d warnings about short secrets, want 1:\n%s", n, warnings.String())
	}
	t.Logf("%d journal lines, %d bytes unredacted, %d markers", len(plainLines), len(plainJournal), bytes.Count(secretJournal, []byte(session.Redacted)))

	// The redacted journal still loads.
	st, err := secret.Load(ctx, "real")
	must(t, err)
	if len(st.Turns) != 4*len(exchanges) {
		t.Errorf("the redacted journal loads %d turns, want %d", len(st.Turns), 4*len(exchanges))
	}
}

// goSourceWorkspace copies the Go files of some GOROOT/src packages into a
// new workspace.
func goSourceWorkspace(t *testing.T, pkgs ...string) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	ws := t.TempDir()
	for _, pkg := range pkgs {
		files, err := filepath.Glob(filepath.Join(src, pkg, "*.go"))
		must(t, err)
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", filepath.Join(src, pkg))
		}
		must(t, os.MkdirAll(filepath.Join(ws, pkg), 0o755))
		for _, f := range files {
			data, err := os.ReadFile(f)
			must(t, err)
			must(t, os.WriteFile(filepath.Join(ws, pkg, filepath.Base(f)), data, 0o644))
		}
	}
	return ws
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	must(t, sc.Err())
	return lines
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
