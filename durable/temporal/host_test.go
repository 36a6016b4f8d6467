package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/shell"
)

// script is the scripted model: the reply for each round of a run, by
// the number of assistant messages since the task. It answers the same
// prompt the same way on any worker.
type script [][]llm.ToolCall

func (s script) Stream(_ context.Context, req *llm.Request, _ func(llm.Event)) (*llm.Response, error) {
	round := 0
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != llm.RoleUser; i-- {
		if req.Messages[i].Role == llm.RoleAssistant {
			round++
		}
	}
	resp := &llm.Response{Usage: llm.Usage{InputTokens: 100 + len(req.Messages), OutputTokens: 10}}
	if round >= len(s) {
		resp.Message = llm.Message{Role: llm.RoleAssistant, Content: "done"}
		return resp, nil
	}
	resp.Message = llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("round %d", round+1), ToolCalls: s[round]}
	return resp, nil
}

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// testHost serves the tests' agents: the scripted model, the tools look
// (read-only, parallel-safe), mark (appends its call id to a file: its
// effect is counted) and risky (asks for approval).
type testHost struct {
	store  *session.Store
	script script
	marks  string
	// started, if set, is told when a mark call with "block" starts; the
	// call then blocks until its context ends.
	started func(id string)
	// shell, if set, adds the real run_shell_command tool, working in
	// root.
	shell bool
	root  *os.Root
	// provider and compactor, if set, replace the script and add a
	// compactor.
	provider  llm.Provider
	compactor agent.Compactor

	mu sync.Mutex
	ag *agent.Agent
}

func (h *testHost) Sessions() *session.Store { return h.store }

func (h *testHost) Agent(context.Context, string) (*agent.Agent, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ag != nil {
		return h.ag, nil
	}
	reg, err := tool.NewRegistry(h.tools()...)
	if err != nil {
		return nil, err
	}
	var p llm.Provider = h.script
	if h.provider != nil {
		p = h.provider
	}
	h.ag, err = agent.New(agent.Config{Provider: p, Tools: reg, MaxRounds: 20, Root: h.root, Compactor: h.compactor,
		RunnerOptions: tool.RunnerOptions{Gate: askFor("risky"), PauseForApproval: true}})
	return h.ag, err
}

type lookIn struct {
	What string `json:"what"`
}

type markIn struct {
	Block bool `json:"block,omitempty"`
}

func (h *testHost) tools() []*tool.Tool {
	look := tool.New(tool.Spec{Name: "look", Description: "Looks at something.", Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}},
		func(_ context.Context, _ *tool.Call, in lookIn) (tool.Result, error) {
			return tool.Result{Success: true, Output: "seen " + in.What}, nil
		})
	mark := tool.New(tool.Spec{Name: "mark", Description: "Leaves a mark."},
		func(ctx context.Context, c *tool.Call, in markIn) (tool.Result, error) {
			f, err := os.OpenFile(h.marks, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return tool.Result{}, err
			}
			_, err = fmt.Fprintln(f, c.ID)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return tool.Result{}, err
			}
			if in.Block && h.started != nil {
				h.started(c.ID)
				<-ctx.Done()
				return tool.Result{}, ctx.Err()
			}
			return tool.Result{Success: true, Output: "marked " + c.ID}, nil
		})
	risky := tool.New(tool.Spec{Name: "risky", Description: "Needs approval."},
		func(_ context.Context, c *tool.Call, _ struct{}) (tool.Result, error) {
			return tool.Result{Success: true, Output: "risky done"}, nil
		})
	tools := []*tool.Tool{look, mark, risky}
	if h.shell {
		tools = append(tools, shell.NewRunShellCommand(shell.Config{YieldAfter: -1, Inactivity: -1, KillGrace: time.Second}))
	}
	return tools
}

// askFor asks about the named tools and allows the rest.
type askFor string

func (a askFor) Decide(_ context.Context, _ *tool.Call, t *tool.Tool, _ json.RawMessage) tool.Decision {
	if t.Name() == string(a) {
		return tool.Decision{Verdict: tool.Ask, Reason: "the test asks"}
	}
	return tool.Decision{Verdict: tool.Allow}
}

// marksOf returns the call ids in the marks file, in order.
func marksOf(path string) []string {
	b, _ := os.ReadFile(path)
	return strings.Fields(string(b))
}
