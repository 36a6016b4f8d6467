package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// Hostile content a journal may hold: none of it may run in the page.
const (
	hostileScript = `<script>window.pwned=1</script>`
	hostileLink   = `[click me](javascript:window.pwned=2)`
	hostileAttr   = `" onmouseover="window.pwned=3" x="`
	hostileImg    = `<img src=x onerror="window.pwned=4">`
)

func newStore(t testing.TB) *session.Store {
	t.Helper()
	return &session.Store{Dir: t.TempDir(), Sync: session.SyncNever}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// recordRun writes a recorded run to st and returns its id and its
// child's: a task, a response in Markdown with hostile content, a read,
// an edit with its ledger record, a failed call, a subagent, todos and a
// compaction.
func recordRun(t testing.TB, st *session.Store) (id, childID string) {
	t.Helper()
	ctx := context.Background()
	s, err := st.Create(ctx, session.Header{Agent: "wield", Model: "test-model", Purpose: "fix the parser " + hostileScript})
	must(t, err)
	child, err := st.Create(ctx, session.Header{Agent: "reviewer", Purpose: "review the fix",
		Child: &session.ChildOf{Session: s.ID(), Call: "c4", Depth: 1, Agent: "reviewer"}})
	must(t, err)
	must(t, child.Begin(ctx, "review the parser fix"))
	must(t, child.RecordResponse(ctx, &llm.Response{Message: llm.Message{Content: "The child looked: **LGTM**."}, Model: "test-model"}))
	must(t, child.Commit(ctx))
	must(t, child.Close())

	must(t, s.SetTodos([]session.Todo{{Title: "read the parser", Status: session.TodoCompleted}, {Title: "fix it", Status: session.TodoInProgress}}))
	must(t, s.Begin(ctx, "Fix the parser.\n\n"+hostileImg))
	resp := func(text string, calls ...llm.ToolCall) {
		t.Helper()
		must(t, s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Content: text, ToolCalls: calls}, Model: "test-model",
			Usage: llm.Usage{InputTokens: 1200, OutputTokens: 80, CachedTokens: 1000, Cost: 0.0042}}))
	}
	result := func(id, name string, args string, r tool.Result) {
		t.Helper()
		c := &tool.Call{ID: id, Tool: name, SessionID: s.ID()}
		must(t, s.RecordCall(ctx, c, json.RawMessage(args)))
		must(t, s.RecordResult(ctx, c, r))
	}
	resp("# Plan\n\nI will *read* the file first:\n\n- `parser.go`\n- "+hostileLink+"\n\n```go\nfunc main() {}\n```\n\n"+hostileScript+" and "+hostileAttr,
		llm.ToolCall{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"parser.go"}`)})
	result("c1", "read_file", `{"path":"parser.go"}`, tool.Result{Success: true, Output: "package parser\n" + hostileScript})
	replaceArgs := `{"path":"parser.go","old_string":"return nil","new_string":"return err"}`
	resp("Now the edit.", llm.ToolCall{ID: "c2", Name: "replace", Arguments: json.RawMessage(replaceArgs)},
		llm.ToolCall{ID: "c3", Name: "run_shell", Arguments: json.RawMessage(`{"command":"go test ./..."}`)})
	c2 := &tool.Call{ID: "c2", Tool: "replace", SessionID: s.ID()}
	must(t, s.RecordCall(ctx, c2, json.RawMessage(replaceArgs)))
	must(t, s.RecordFileChange(ctx, session.FileChange{SessionID: s.ID(), CallID: "c2", Root: "/work", Path: "parser.go",
		Before: &session.FileContent{Data: []byte("package parser\n\nfunc parse() error {\n\treturn nil\n}\n"), Mode: 0o644},
		After:  &session.FileContent{Data: []byte("package parser\n\nfunc parse() error {\n\treturn err\n}\n"), Mode: 0o644}}))
	must(t, s.RecordResult(ctx, c2, tool.Result{Success: true, Output: "replaced 1 occurrence"}))
	result("c3", "run_shell", `{"command":"go test ./..."}`, tool.Result{Success: false, Output: "FAIL parser [build failed]", Error: "exit 1"})
	resp("Asking a reviewer.", llm.ToolCall{ID: "c4", Name: "agent", Arguments: json.RawMessage(`{"agent":"reviewer","task":"review the fix"}`)})
	c4 := &tool.Call{ID: "c4", Tool: "agent", SessionID: s.ID()}
	must(t, s.RecordCall(ctx, c4, json.RawMessage(`{"agent":"reviewer","task":"review the fix"}`)))
	must(t, s.AgentStarted(ctx, "c4", "reviewer", child.ID()))
	must(t, s.AgentFinished(ctx, "c4", "reviewer", child.ID(), "done", "LGTM", llm.Usage{InputTokens: 300, OutputTokens: 20}))
	must(t, s.RecordResult(ctx, c4, tool.Result{Success: true, Output: "LGTM"}))
	resp("Done: the parser returns its error now.")
	must(t, s.Commit(ctx))
	must(t, s.Compact(session.Compaction{Kind: session.CompactionSummary, Range: [2]int{1, 4}, Summary: "Read parser.go " + hostileScript,
		Trigger: session.TriggerManual, TokensBefore: 5000, TokensAfter: 900,
		Ledger: &session.Ledger{FilesRead: []session.FileRead{{Path: "parser.go"}}}}))
	must(t, s.Close())
	return s.ID(), child.ID()
}

// bigSession writes a session of n rounds: each a model response in
// Markdown with one tool call and its result, ten rounds to a task.
func bigSession(t testing.TB, st *session.Store, n int) string {
	t.Helper()
	ctx := context.Background()
	s, err := st.Create(ctx, session.Header{Agent: "wield", Model: "test-model", Purpose: fmt.Sprintf("a run of %d rounds", n)})
	must(t, err)
	for i := range n {
		if i%10 == 0 {
			must(t, s.Begin(ctx, fmt.Sprintf("task %d: keep going", i/10)))
		}
		id := fmt.Sprintf("call_%d", i)
		args := json.RawMessage(fmt.Sprintf(`{"path":"pkg/file_%d.go"}`, i))
		must(t, s.RecordResponse(ctx, &llm.Response{Message: llm.Message{
			Content:   fmt.Sprintf("Round %d. I read **file_%d.go** next, then check `go vet`:\n\n- one\n- two", i, i),
			ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: args}}},
			Model: "test-model", Usage: llm.Usage{InputTokens: 2000 + i, OutputTokens: 60, Cost: 0.001}}))
		c := &tool.Call{ID: id, Tool: "read_file", SessionID: s.ID()}
		must(t, s.RecordCall(ctx, c, args))
		must(t, s.RecordResult(ctx, c, tool.Result{Success: true, Output: fmt.Sprintf("package pkg\n\n// file %d\nfunc F%d() {}\n", i, i)}))
		if i%10 == 9 || i == n-1 {
			must(t, s.Commit(ctx))
		}
	}
	must(t, s.Close())
	return s.ID()
}
