package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// TestMain lets the test binary act as a child process for the crash and
// locking tests.
func TestMain(m *testing.M) {
	switch os.Getenv("WIELD_SESSION_CHILD") {
	case "crash":
		crashChild(os.Getenv("WIELD_SESSION_DIR"), os.Getenv("WIELD_SESSION_ID"))
		return
	case "hold":
		holdChild(os.Getenv("WIELD_SESSION_DIR"), os.Getenv("WIELD_SESSION_ID"))
		return
	}
	os.Exit(m.Run())
}

func newStore(t testing.TB) *Store {
	t.Helper()
	clock := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	return &Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return clock }}
}

func call(id, name string) *tool.Call { return &tool.Call{ID: id, Tool: name} }

// round records one complete round: task, a response with calls, their
// results, and a commit.
func round(t testing.TB, s *Session, task string, calls ...string) {
	t.Helper()
	ctx := context.Background()
	must(t, s.Begin(ctx, task))
	resp := &llm.Response{Model: "m", Message: llm.Message{Role: llm.RoleAssistant, Content: "working on " + task}, Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}}
	for _, c := range calls {
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, llm.ToolCall{ID: c, Name: "echo", Arguments: json.RawMessage(`{"text":"` + c + `"}`)})
	}
	must(t, s.RecordResponse(ctx, resp))
	for _, c := range calls {
		must(t, s.RecordCall(ctx, call(c, "echo"), json.RawMessage(`{"text":"`+c+`"}`)))
	}
	for _, c := range calls {
		must(t, s.RecordResult(ctx, call(c, "echo"), tool.Result{Success: true, Output: c, Data: map[string]string{"text": c}}))
	}
	must(t, s.Commit(ctx))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(t.Context(), Header{Purpose: "test", Roles: []string{"coder"}, Model: "m"})
	must(t, err)
	round(t, s, "first", "c1", "c2")
	round(t, s, "second")
	must(t, s.SetTodos([]Todo{{Title: "a", Status: TodoPending}}))
	must(t, s.AddReference("main.go", false))
	must(t, s.Set(map[string]any{"title": "hello"}))
	want := s.State()
	must(t, s.Close())

	got, err := st.Load(t.Context(), s.ID())
	must(t, err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loaded state differs from the written one (-written +loaded):\n%s", diff)
	}
	if len(got.Turns) != 2+2+2+2 {
		t.Errorf("turns = %d, want 8 (task, response, 2 calls, 2 results; task, response)", len(got.Turns))
	}
	msgs := Messages(got.Turns)
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		roles[i] = string(m.Role)
	}
	if diff := cmp.Diff([]string{"user", "assistant", "tool", "tool", "user", "assistant"}, roles); diff != "" {
		t.Errorf("message roles (-want +got):\n%s", diff)
	}
	if len(msgs[1].ToolCalls) != 2 || msgs[2].ToolCallID != "c1" || msgs[3].ToolCallID != "c2" {
		t.Errorf("calls and results are not paired in order: %+v", msgs[1:4])
	}
	if got.Pools[0].Status != PoolCommitted || got.Pools[0].Turns != [2]int{1, 6} {
		t.Errorf("first pool = %+v, want committed turns 1-6", got.Pools[0])
	}
}

func TestAbortGivesEveryDanglingCallOneResult(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{})
	must(t, err)
	must(t, s.Begin(ctx, "task"))
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
		{ID: "a", Name: "echo", Arguments: json.RawMessage(`{}`)}, {ID: "b", Name: "echo", Arguments: json.RawMessage(`{}`)}, {ID: "c", Name: "echo"}}}}
	must(t, s.RecordResponse(ctx, resp))
	must(t, s.RecordCall(ctx, call("a", "echo"), json.RawMessage(`{}`)))
	must(t, s.RecordCall(ctx, call("b", "echo"), json.RawMessage(`{}`)))
	must(t, s.RecordResult(ctx, call("a", "echo"), tool.Text("done")))
	must(t, s.Abort(ctx, "cancelled"))
	must(t, s.Abort(ctx, "again")) // no open transaction: nothing happens
	got := s.State()
	checkOneResultPerCall(t, got.Turns)
	if got.Open() || got.Pools[0].Status != PoolAborted || got.Pools[0].Reason != "cancelled" {
		t.Errorf("pool = %+v, open %v; want one aborted pool", got.Pools, got.Open())
	}
	var interrupted []string
	for _, tr := range got.Turns {
		if tr.Interrupted {
			interrupted = append(interrupted, tr.CallID)
		}
	}
	if diff := cmp.Diff([]string{"b", "c"}, interrupted); diff != "" {
		t.Errorf("interrupted calls (-want +got):\n%s", diff)
	}
}

// checkOneResultPerCall fails unless every call in turns has exactly one
// tool_response, after it.
func checkOneResultPerCall(t testing.TB, turns []Turn) {
	t.Helper()
	calls := map[string]int{}
	results := map[string]int{}
	for i, tr := range turns {
		switch tr.Kind {
		case TurnModelResponse:
			for _, c := range tr.Calls {
				calls[c.ID] = i
			}
		case TurnFunctionCalling:
			if _, ok := calls[tr.CallID]; !ok {
				calls[tr.CallID] = i
			}
		case TurnToolResponse:
			at, ok := calls[tr.CallID]
			if !ok || at > i {
				t.Errorf("turn %d: result for call %s comes before any call", i+1, tr.CallID)
			}
			results[tr.CallID]++
		}
	}
	for id := range calls {
		if results[id] != 1 {
			t.Errorf("call %s has %d results, want exactly 1", id, results[id])
		}
	}
}

func TestOpenRepairs(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{ID: "repair"})
	must(t, err)
	round(t, s, "committed", "c1")
	must(t, s.Begin(ctx, "left open"))
	must(t, s.RecordCall(ctx, call("x", "echo"), json.RawMessage(`{"text":"x"}`)))
	must(t, s.Close())
	// A crash mid-append leaves a torn line.
	f, err := os.OpenFile(st.Path("repair"), os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.WriteString(`{"op":"pool","turn":{"kind":"tool_re`)
	must(t, err)
	must(t, f.Close())

	var logs bytes.Buffer
	st.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	s, err = st.Open(ctx, "repair")
	must(t, err)
	defer s.Close()
	got := s.State()
	if got.Open() {
		t.Fatal("the open transaction was not closed on open")
	}
	checkOneResultPerCall(t, got.Turns)
	if n := len(got.Turns); n != 4+3 {
		t.Errorf("turns = %d, want 7 (4 committed, task + call + interrupted result)", n)
	}
	for _, w := range []string{"incomplete line", "open transaction"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("no warning mentioning %q in logs:\n%s", w, logs.String())
		}
	}
	// The repair itself is durable: a reader sees it.
	loaded, err := st.Load(ctx, "repair")
	must(t, err)
	if diff := cmp.Diff(got, loaded); diff != "" {
		t.Errorf("reloaded state differs (-open +load):\n%s", diff)
	}
}

func TestJournalErrors(t *testing.T) {
	header := `{"wield_session":1,"id":"j","created_at":"2026-11-23T12:00:00Z"}` + "\n"
	tests := []struct {
		name    string
		journal string
		want    string // substring of the error; empty means success
		torn    bool
		target  error
	}{
		{name: "ok", journal: header + `{"op":"begin"}` + "\n"},
		{name: "torn last line", journal: header + `{"op":"begin"}` + "\n" + `{"op":"po`, torn: true},
		{name: "unparsable last line", journal: header + `{"op":"begin"}` + "\n" + `{"op":"po}` + "\n", torn: true},
		{name: "corrupt middle line", journal: header + `{"op":"begin"` + "\n" + `{"op":"commit"}` + "\n", want: "journal line 2 is corrupt"},
		{name: "commit without begin", journal: header + `{"op":"commit"}` + "\n" + `{"op":"begin"}` + "\n", want: "line 2"},
		{name: "newer version", journal: `{"wield_session":7,"id":"j"}` + "\n", want: "upgrade wield", target: ErrNewerVersion},
		{name: "a feature's record", journal: header + `{"op":"teleport","turn":3}` + "\n" + `{"op":"begin"}` + "\n"},
		{name: "no operation", journal: header + `{"turn":3}` + "\n" + `{"op":"begin"}` + "\n", want: "unknown operation"},
		{name: "a session operation of the wrong shape", journal: header + `{"op":"begin","turn":3}` + "\n" + `{"op":"commit"}` + "\n", want: "line 2"},
		{name: "not a journal", journal: `{"hello":1}` + "\n" + `{"op":"begin"}` + "\n", want: "not a wield session journal"},
		{name: "empty", journal: "", want: "empty"},
		{name: "compress out of bounds", journal: header + `{"op":"compress","range":[1,5],"summary":"s"}` + "\n\n", want: "out of bounds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, rr, err := readJournal(strings.NewReader(tt.journal))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("readJournal: %v", err)
				}
				if (rr.torn > 0) != tt.torn {
					t.Errorf("torn = %d, want torn %v", rr.torn, tt.torn)
				}
				if tt.torn && rr.good != int64(len(header)+len(`{"op":"begin"}`)+1) {
					t.Errorf("good = %d, want the length up to the last complete event", rr.good)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if tt.target != nil && !errors.Is(err, tt.target) {
				t.Errorf("err = %v, want it to wrap %v", err, tt.target)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(t.Context(), Header{ID: "s"})
	must(t, err)
	defer s.Close()
	round(t, s, "one", "c1")
	round(t, s, "two")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"unknown id", func() error { _, err := st.Load(t.Context(), "nope"); return err }(), "session not found"},
		{"path id", func() error { _, err := st.Open(t.Context(), "../x"); return err }(), "invalid session id"},
		{"busy here", func() error { _, err := st.Open(t.Context(), "s"); return err }(), "in use"},
		{"delete running", func() error { _, err := st.Delete(t.Context(), "s"); return err }(), "running here"},
		{"inverted", func() error { _, err := s.Compress(t.Context(), 3, 2, "x"); return err }(), "inverted"},
		{"out of bounds", func() error { _, err := s.Compress(t.Context(), 1, 99, "x"); return err }(), "out of bounds; the session has 6 turns"},
		{"zero", func() error { _, err := s.Compress(t.Context(), 0, 2, "x"); return err }(), "numbered from 1"},
		{"splits a call", func() error { _, err := s.Compress(t.Context(), 1, 3, "x"); return err }(), "separates call c1"},
		{"empty summary", func() error { _, err := s.Compress(t.Context(), 1, 4, ""); return err }(), "summary is empty"},
		{"bad todo", s.SetTodos([]Todo{{Title: "a", Status: "later"}}), `status "later"`},
		{"commit nothing", s.Commit(t.Context()), "no open transaction"},
		{"fork out of bounds", func() error { _, err := st.Fork(t.Context(), "s", 9); return err }(), "out of bounds"},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.name, tt.err, tt.want)
		}
	}
	ctx := t.Context()
	must(t, s.Begin(ctx, "open"))
	if _, err := s.Compress(ctx, 5, 7, "x"); err == nil || !strings.Contains(err.Error(), "open transaction") {
		t.Errorf("compressing into the open pool: err = %v", err)
	}
	if err := s.Begin(ctx, "again"); err == nil || !strings.Contains(err.Error(), "already open") {
		t.Errorf("second Begin: err = %v", err)
	}
}

func TestCompress(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(t.Context(), Header{ID: "c"})
	must(t, err)
	defer s.Close()
	round(t, s, "one", "c1")
	round(t, s, "two")
	round(t, s, "three")
	backup, err := s.Compress(t.Context(), 1, 6, "did one and two")
	must(t, err)
	got := s.State()
	if len(got.Turns) != 8 || len(got.Compactions) != 1 || got.Compactions[0].Range != [2]int{1, 6} || got.Compactions[0].Trigger != TriggerTool {
		t.Fatalf("after compress: %d turns, compactions %+v; want the 8 turns kept and one compaction of 1-6", len(got.Turns), got.Compactions)
	}
	if b, err := st.loadFile(backup); err != nil || len(b.Turns) != 8 {
		t.Errorf("backup %s: %v; want the 8 turns before compression", backup, err)
	}
	loaded, err := st.Load(t.Context(), "c")
	must(t, err)
	if diff := cmp.Diff(got, loaded); diff != "" {
		t.Errorf("reloaded state differs (-live +loaded):\n%s", diff)
	}
	if m := s.History(); len(m) != 3 || !strings.Contains(m[0].Content, "did one and two") {
		t.Errorf("history after compress = %+v; want the summary, then task three and its answer", m)
	}
}

func (s *Store) loadFile(path string) (*State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, _, err := readJournal(f)
	return st, err
}

func TestForkAndDelete(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{ID: "parent", Purpose: "p"})
	must(t, err)
	round(t, s, "one", "c1", "c2")
	must(t, s.SetTodos([]Todo{{Title: "t", Status: TodoDone}}))
	must(t, s.Close())
	// Fork after the first call's result: the second call is cut off.
	id, err := st.Fork(ctx, "parent", 5)
	must(t, err)
	f, err := st.Load(ctx, id)
	must(t, err)
	if f.Header.ParentID != "parent" || f.ForkedFrom == nil || f.ForkedFrom.Turn != 5 || f.Header.Purpose != "p" {
		t.Errorf("fork header = %+v, origin %+v", f.Header, f.ForkedFrom)
	}
	checkOneResultPerCall(t, f.Turns)
	if len(f.Todos) != 1 {
		t.Errorf("fork todos = %+v, want the parent's", f.Todos)
	}
	// The fork is writable and independent.
	fs, err := st.Open(ctx, id)
	must(t, err)
	must(t, fs.Begin(ctx, "more"))
	must(t, fs.Commit(ctx))
	must(t, fs.Close())

	dst, err := st.Delete(ctx, "parent")
	must(t, err)
	if _, err := os.Stat(dst); err != nil {
		t.Errorf("deleted session not in backups: %v", err)
	}
	if _, err := st.Load(ctx, "parent"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Load after delete: %v, want ErrNotFound", err)
	}
	if _, err := st.Delete(ctx, "parent"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
	list, err := st.List(t.Context())
	must(t, err)
	if len(list) != 1 || list[0].ID != id || list[0].Turns != len(f.Turns)+1 {
		t.Errorf("List = %+v, want only the fork", list)
	}
}

func TestReferencesAndTodos(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{})
	must(t, err)
	defer s.Close()
	must(t, s.AddReference("a.go", false))
	must(t, s.AddReference("b.go", true))
	for i := range DefaultReferenceTTL {
		if got := s.References(); len(got) != 2 {
			t.Fatalf("before task %d: references = %v, want both", i+1, got)
		}
		must(t, s.Begin(ctx, "task"))
		must(t, s.Commit(ctx))
	}
	if diff := cmp.Diff([]string{"b.go"}, s.References()); diff != "" {
		t.Errorf("after %d tasks only the persistent reference stays (-want +got):\n%s", DefaultReferenceTTL, diff)
	}
	must(t, s.AddReference("a.go", false)) // renewed
	if len(s.References()) != 2 {
		t.Errorf("renewed reference is not active: %v", s.References())
	}
	must(t, s.SetTodos([]Todo{{Title: "x", Status: TodoInProgress}}))
	must(t, s.SetTodos(nil))
	if len(s.Todos()) != 0 {
		t.Errorf("todos after delete = %v", s.Todos())
	}
}

func TestSecretsNeverWritten(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	st.Secrets = []string{"literal-secret-value-123"}
	s, err := st.Create(ctx, Header{ID: "sec"})
	must(t, err)
	must(t, s.Begin(ctx, "use key sk-abcdefghijklmnopqrstuvwx and literal-secret-value-123"))
	must(t, s.RecordCall(ctx, call("c", "http"), json.RawMessage(`{"headers":{"Authorization":"Bearer tok_live_123456"},"api_key":"k-987654321","n":12345678}`)))
	must(t, s.RecordResult(ctx, call("c", "http"), tool.Result{Success: true, Output: "curl -H 'Authorization: Bearer abcdef123456' ; password=hunter22", Data: map[string]any{"token": "ghp_0123456789abcdefghijABCDEFGHIJ"}}))
	must(t, s.Commit(ctx))
	must(t, s.Set(map[string]any{"OPENAI_API_KEY": "sk-zyxwvutsrqponmlkjihgfedcba"}))
	must(t, s.Close())
	raw, err := os.ReadFile(st.Path("sec"))
	must(t, err)
	for _, secret := range []string{"sk-abcdefghijklmnopqrstuvwx", "literal-secret-value-123", "tok_live_123456", "k-987654321",
		"abcdef123456", "hunter22", "ghp_0123456789", "sk-zyxwvuts"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("journal contains secret %q", secret)
		}
	}
	if !bytes.Contains(raw, []byte(Redacted)) {
		t.Error("journal has no redaction marker")
	}
	// Redaction keeps the journal readable and numbers intact.
	got, err := st.Load(ctx, "sec")
	must(t, err)
	var args map[string]any
	must(t, json.Unmarshal(got.Turns[1].Arguments, &args))
	if args["n"] != 12345678.0 {
		t.Errorf("non-secret number changed: %v", args["n"])
	}
}

// fullDisk is a journal file that accepts only part of a write and then
// fails, as a full disk does.
type fullDisk struct {
	*os.File
}

func (f fullDisk) Write(p []byte) (int, error) {
	n, _ := f.File.Write(p[:len(p)/2])
	return n, syscall.ENOSPC
}

func TestFailedWriteKeepsJournal(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{ID: "full"})
	must(t, err)
	round(t, s, "kept", "c1")
	before, err := os.ReadFile(st.Path("full"))
	must(t, err)
	good := s.file
	s.file = fullDisk{good.(*os.File)}
	if err := s.Begin(ctx, "lost"); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Begin on a full disk: %v, want ENOSPC", err)
	}
	if s.State().Open() {
		t.Error("a failed write changed the in-memory state")
	}
	after, err := os.ReadFile(st.Path("full"))
	must(t, err)
	if !bytes.Equal(before, after) {
		t.Errorf("the partial write was not undone: %q", after[len(before):])
	}
	s.file = good
	round(t, s, "after", "c2") // the session goes on once the disk has room
	must(t, s.Close())
	got, err := st.Load(ctx, "full")
	must(t, err)
	if len(got.Pools) != 2 || got.Pools[1].Status != PoolCommitted {
		t.Errorf("pools = %+v, want two committed", got.Pools)
	}
}

func TestResumeDoesNotRecordCallsTwice(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{})
	must(t, err)
	defer s.Close()
	must(t, s.Begin(ctx, "t"))
	must(t, s.RecordCall(ctx, call("a", "echo"), json.RawMessage(`{}`)))
	must(t, s.RecordCall(ctx, call("a", "echo"), json.RawMessage(`{}`)))
	if n := len(s.State().Pool); n != 2 {
		t.Errorf("pool has %d turns, want 2 (task and one call)", n)
	}
	// Invalid JSON arguments are kept, as a string.
	must(t, s.RecordCall(ctx, call("b", "echo"), json.RawMessage(`{"text":`)))
	if got := s.State().Pool[2].Arguments; string(got) != `"{\"text\":"` {
		t.Errorf("invalid arguments stored as %s", got)
	}
}

// holdChild opens a session, says so, and holds it until stdin closes.
func holdChild(dir, id string) {
	st := &Store{Dir: dir}
	s, err := st.Open(context.Background(), id)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = s.Close()
}

func TestOneWriterAcrossProcesses(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(t.Context(), Header{ID: "shared"})
	must(t, err)
	round(t, s, "one")
	must(t, s.Close())

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WIELD_SESSION_CHILD=hold", "WIELD_SESSION_DIR="+st.Dir, "WIELD_SESSION_ID=shared")
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	must(t, err)
	if line != "locked\n" {
		t.Fatalf("child said %q", line)
	}
	_, err = st.Open(t.Context(), "shared")
	var busy *BusyError
	if !errors.As(err, &busy) || busy.PID != cmd.Process.Pid {
		t.Errorf("Open while another process writes: %v, want a BusyError naming pid %d", err, cmd.Process.Pid)
	}
	if _, err := st.Delete(t.Context(), "shared"); !errors.As(err, &busy) {
		t.Errorf("Delete while another process writes: %v, want a BusyError", err)
	}
	// Readers need no lock.
	if got, err := st.Load(t.Context(), "shared"); err != nil || len(got.Turns) != 2 {
		t.Errorf("Load while locked: %v, %v", got, err)
	}
	must(t, stdin.Close())
	must(t, cmd.Wait())
	s, err = st.Open(t.Context(), "shared")
	must(t, err)
	must(t, s.Close())
}

func TestRecordFromOutside(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{ID: "ext"})
	must(t, err)
	must(t, s.Close())
	// Nobody writes the session: the pair is committed at once.
	must(t, st.Record(ctx, "ext", call("m1", "echo"), json.RawMessage(`{"text":"a"}`), tool.Text("a")))
	got, err := st.Load(ctx, "ext")
	must(t, err)
	if len(got.Turns) != 2 || got.Open() || got.Pools[0].Status != PoolCommitted {
		t.Fatalf("after Record on a free session: %+v", got)
	}
	// Another process writes it: the pair waits in the inbox and joins the
	// writer's pool when it commits.
	other := &Store{Dir: st.Dir, Logger: st.Logger}
	w, err := other.Open(ctx, "ext")
	must(t, err)
	must(t, w.Begin(ctx, "task"))
	// A second Store stands in for the other process: its lock is taken.
	must(t, st.Record(ctx, "ext", call("m2", "echo"), json.RawMessage(`{"text":"b"}`), tool.Failure("boom")))
	if got, _ := st.Load(ctx, "ext"); len(got.Turns) != 2 {
		t.Fatalf("the inbox pair reached the journal before the writer committed")
	}
	must(t, w.Commit(ctx))
	must(t, w.Close())
	got, err = st.Load(ctx, "ext")
	must(t, err)
	checkOneResultPerCall(t, got.Turns)
	if n := len(got.Turns); n != 2+3 || got.Turns[4].Status != StatusFailed || got.Turns[4].CallID != "m2" {
		t.Errorf("turns = %+v, want the writer's task then the inbox pair", got.Turns)
	}
	// The same Store has it open: the pair joins the open transaction.
	w, err = st.Open(ctx, "ext")
	must(t, err)
	defer w.Close()
	must(t, w.Begin(ctx, "another"))
	must(t, st.Record(ctx, "ext", call("m3", "echo"), json.RawMessage(`{}`), tool.Text("c")))
	if n := len(w.State().Pool); n != 3 {
		t.Errorf("pool = %d turns, want task and the pair", n)
	}
}

func TestPauseSurvivesReopen(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	s, err := st.Create(ctx, Header{ID: "p"})
	must(t, err)
	must(t, s.Begin(ctx, "task"))
	must(t, s.RecordCall(ctx, call("a", "rm"), json.RawMessage(`{}`)))
	if err := s.Pause(ctx, []tool.PendingCall{{ID: "a", Tool: "rm", Reason: "deletes"}}); err != nil {
		t.Fatal(err)
	}
	must(t, s.Close())
	s, err = st.Open(ctx, "p")
	must(t, err)
	if got := s.State(); !got.Open() || len(got.Paused) != 1 || got.Paused[0].ID != "a" {
		t.Fatalf("paused transaction after reopen: open %v, paused %v", got.Open(), got.Paused)
	}
	// Once the run goes on, a crash is repaired again.
	must(t, s.RecordResult(ctx, call("a", "rm"), tool.Text("done")))
	must(t, s.RecordCall(ctx, call("b", "rm"), json.RawMessage(`{}`)))
	must(t, s.Close())
	s, err = st.Open(ctx, "p")
	must(t, err)
	defer s.Close()
	got := s.State()
	if got.Open() || got.Paused != nil {
		t.Fatalf("a resumed-then-crashed run was not repaired: open %v", got.Open())
	}
	checkOneResultPerCall(t, got.Turns)
}

func TestContextMode(t *testing.T) {
	st := newStore(t)
	s, err := st.Create(t.Context(), Header{ID: "cm"})
	must(t, err)
	defer s.Close()
	if m := s.ContextMode(); m != ContextInline {
		t.Errorf("default mode = %q", m)
	}
	must(t, s.Set(map[string]any{"context_mode": ContextReferences}))
	if m := s.ContextMode(); m != ContextReferences {
		t.Errorf("after $set: %q", m)
	}
	r, err := st.Create(t.Context(), Header{ID: "cm2", ContextMode: ContextReferences})
	must(t, err)
	defer r.Close()
	if m := r.ContextMode(); m != ContextReferences {
		t.Errorf("from the header: %q", m)
	}
}
