package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/echo"
)

type waitInput struct {
	Steps int `json:"steps" jsonschema:"progress events to emit before waiting"`
}

// testTools returns echo, a tool that reports progress and then waits for
// cancellation, and a destructive one.
func testTools(t *testing.T, started chan<- struct{}) *tool.Registry {
	t.Helper()
	wait := tool.New(tool.Spec{Name: "wait", Description: "emits progress, then waits to be cancelled", Annotations: tool.Annotations{ReadOnly: true}},
		func(ctx context.Context, c *tool.Call, in waitInput) (tool.Result, error) {
			for i := range in.Steps {
				c.Emit(tool.Event{Message: "step", Progress: float64(i + 1), Total: float64(in.Steps)})
			}
			if in.Steps > 0 {
				return tool.Text("done"), nil
			}
			started <- struct{}{}
			<-ctx.Done()
			return tool.Failure("stopped"), nil
		})
	rm := tool.New(tool.Spec{Name: "rm", Description: "removes", Annotations: tool.Annotations{Destructive: true, OpenWorld: true},
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"removed":{"type":"integer"}},"required":["removed"]}`)},
		func(context.Context, *tool.Call, struct{}) (tool.Result, error) {
			return tool.Result{Success: true, Output: "gone", Data: map[string]int{"removed": 1}}, nil
		})
	reg, err := tool.NewRegistry(echo.New(), wait, rm)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// connect serves srv in memory and returns a connected client session.
func connect(t *testing.T, srv *Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// textOf returns the text the model reads: the first text content. (A
// structured result repeats its data as JSON in a second one.)
func textOf(r *sdk.CallToolResult) string {
	if r == nil {
		return ""
	}
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

func TestToolsListAndCall(t *testing.T) {
	srv, err := NewServer(testTools(t, nil), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv, nil)
	ctx := t.Context()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	for _, tl := range list.Tools {
		byName[tl.Name] = tl
	}
	if len(byName) != 3 {
		t.Fatalf("tools/list = %d tools, want 3", len(list.Tools))
	}
	if a := byName["echo"].Annotations; !a.ReadOnlyHint || *a.DestructiveHint || *a.OpenWorldHint {
		t.Errorf("echo annotations = %+v, want read-only, not destructive, closed world", a)
	}
	if a := byName["rm"].Annotations; a.ReadOnlyHint || !*a.DestructiveHint || !*a.OpenWorldHint {
		t.Errorf("rm annotations = %+v, want destructive, open world", a)
	}
	schema, _ := json.Marshal(byName["echo"].InputSchema)
	if !strings.Contains(string(schema), `"text"`) {
		t.Errorf("echo schema = %s", schema)
	}

	tests := []struct {
		name    string
		tool    string
		args    any
		isError bool
		want    []string
	}{
		{"valid", "echo", map[string]any{"text": "hi"}, false, []string{"hi"}},
		{"wrong type", "echo", map[string]any{"text": 5}, true, []string{"/text", "string"}},
		{"every violation", "echo", map[string]any{"extra": true}, true, []string{"text", "extra"}},
		{"no arguments", "echo", nil, true, []string{"text"}},
		{"structured", "rm", map[string]any{}, false, []string{"gone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatalf("CallTool: %v (invalid arguments must be a tool result, not a protocol error)", err)
			}
			if res.IsError != tt.isError {
				t.Errorf("isError = %v, want %v: %s", res.IsError, tt.isError, textOf(res))
			}
			for _, w := range tt.want {
				if !strings.Contains(textOf(res), w) {
					t.Errorf("result %q lacks %q", textOf(res), w)
				}
			}
		})
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "rm", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"removed":1}` {
		t.Errorf("structuredContent = %s, want the tool's data", b)
	}
	// An unknown tool is a protocol error, as the spec says.
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil {
		t.Error("calling an unknown tool succeeded")
	}
}

func TestProgressAndCancellation(t *testing.T) {
	started := make(chan struct{}, 1)
	srv, err := NewServer(testTools(t, started), &ServerOptions{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	progress := make(chan float64, 10)
	cs := connect(t, srv, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		progress <- r.Params.Progress
	}})
	p := &sdk.CallToolParams{Name: "wait", Arguments: map[string]any{"steps": 3}}
	p.SetProgressToken("tok")
	res, err := cs.CallTool(t.Context(), p)
	if err != nil || res.IsError {
		t.Fatalf("wait: %v %s", err, textOf(res))
	}
	// The client may handle notifications after the response; wait for
	// all three.
	var got []float64
	for range 3 {
		got = append(got, <-progress)
	}
	slices.Sort(got)
	if got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Errorf("progress = %v, want 1, 2, 3", got)
	}

	// Cancelling the client's request cancels the tool's context.
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "wait", Arguments: map[string]any{"steps": 0}})
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call returned %v", err)
	}
	// The server keeps serving.
	if res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "still here"}}); err != nil || textOf(res) != "still here" {
		t.Errorf("after a cancellation: %v %v", res, err)
	}
}

func TestSessionRecording(t *testing.T) {
	store := &session.Store{Dir: t.TempDir(), Logger: quiet()}
	s, err := store.Create(t.Context(), session.Header{ID: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(testTools(t, nil), &ServerOptions{Logger: quiet(), Store: store, SessionID: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv, nil)
	for _, args := range []any{map[string]any{"text": "a"}, map[string]any{"text": 1}} {
		if _, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "echo", Arguments: args}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Load(t.Context(), "mcp")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, tr := range st.Turns {
		kinds = append(kinds, string(tr.Kind)+":"+tr.Status)
	}
	want := "function_calling: tool_response:succeeded function_calling: tool_response:failed"
	if strings.Join(kinds, " ") != want {
		t.Errorf("journal turns = %v, want %s", kinds, want)
	}
	if msgs := session.Messages(st.Turns); len(msgs) != 4 || msgs[0].ToolCalls[0].Name != "echo" {
		t.Errorf("recorded pairs do not read as call/result messages: %+v", msgs)
	}
}
