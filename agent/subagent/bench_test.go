package subagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// reportAtOnce answers every request with a complete_task call, and
// notes when the first request of each child came.
type reportAtOnce struct {
	first func()
}

func (p reportAtOnce) Stream(_ context.Context, req *llm.Request, _ func(llm.Event)) (*llm.Response, error) {
	p.first()
	args := json.RawMessage(`{"status":"done","result":"ok"}`)
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
		ToolCalls: []llm.ToolCall{{ID: "done", Name: subagent.CompleteTaskName, Arguments: args}}}, Stop: llm.StopToolUse}, nil
}

// BenchmarkStartChild measures what starting a child costs before its
// first model call: admission, the child's tools, its session (a journal
// created and synced, its start recorded in the parent's) and its agent,
// up to the request. The provider answers at once, so ns/op is the whole
// delegation and ns/start the part before the model is asked.
func BenchmarkStartChild(b *testing.B) {
	for _, durable := range []bool{true, false} {
		b.Run(fmt.Sprintf("journal=%v", durable), func(b *testing.B) {
			var began, reached time.Time
			var total time.Duration
			p := reportAtOnce{first: func() {
				if reached.IsZero() {
					reached = time.Now()
				}
			}}
			var tools []*tool.Tool
			for _, n := range []string{"read_file", "write_file", "replace", "glob", "search_file_content", "list_directory", "run_shell_command", "web_fetch"} {
				tools = append(tools, tool.New(tool.Spec{Name: n, Description: n}, func(context.Context, *tool.Call, textIn) (tool.Result, error) {
					return tool.Text("x"), nil
				}))
			}
			reg, err := tool.NewRegistry(tools...)
			if err != nil {
				b.Fatal(err)
			}
			cfg := subagent.Config{Provider: p, Tools: reg, SpawnBudget: 1 << 30}
			c := &tool.Call{Tool: subagent.ToolName}
			var store *session.Store
			if durable {
				store = &session.Store{Dir: b.TempDir(), Logger: slog.New(slog.DiscardHandler)}
				cfg.Store = store
			}
			r, err := subagent.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			h := r.Tool().Handler()
			args := json.RawMessage(`{"type":"general","prompt":"Do the task."}`)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n++
				// Each child has a parent of its own, whose run is open,
				// so that the parent's journal does not grow over the
				// benchmark.
				c.ID, c.SessionID = "call_1", fmt.Sprint("parent-", n)
				var parent *session.Session
				if durable {
					if parent, err = store.Create(b.Context(), session.Header{ID: c.SessionID}); err != nil {
						b.Fatal(err)
					}
					if err := parent.Begin(b.Context(), "delegate"); err != nil {
						b.Fatal(err)
					}
				}
				began, reached = time.Now(), time.Time{}
				res, err := h.Handle(b.Context(), c, args)
				if err != nil || !res.Success || !strings.Contains(res.Output, "done") {
					b.Fatalf("delegation = %+v, %v", res, err)
				}
				total += reached.Sub(began)
				if parent != nil {
					parent.Close()
				}
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(n), "ns/start")
		})
	}
}
