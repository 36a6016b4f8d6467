package subagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// definitions are the agent types of the tests, as files.
var definitions = map[string]string{
	"looper.md": `---
name: looper
description: Looks at things, slowly.
tools: echo, meet
maxTurns: 2
---
You look at things one at a time.`,
	"inventory.md": `---
name: inventory
description: Lists what a directory holds, as data.
tools: [echo, meet]
output:
  type: object
  properties:
    files: {type: array, items: {type: string}}
  required: [files]
---
You take inventories.`,
	"writer.md": `---
name: writer
description: Writes things.
tools: echo, write, secret_tool
---
You write things.`,
}

type textIn struct {
	Text string `json:"text"`
}

// fixture is a parent agent with the agent tool, its tools and store.
type fixture struct {
	store    *session.Store
	provider *replay.Provider
	runner   *subagent.Runner
	parent   *agent.Agent
	sess     *session.Session

	mu    sync.Mutex
	calls []tool.Call // the calls of echo and write, as the tools saw them
}

type fixtureOptions struct {
	// store keeps the sessions; nil means files in a directory of the
	// test's own.
	store    *session.Store
	cfg      subagent.Config
	gate     tool.Gate
	approver tool.Approver
	extra    []*tool.Tool
	script   []string
}

func newFixture(t testing.TB, o fixtureOptions) *fixture {
	t.Helper()
	f := &fixture{store: o.store}
	if f.store == nil {
		f.store = &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	}
	record := func(c *tool.Call) {
		f.mu.Lock()
		f.calls = append(f.calls, *c)
		f.mu.Unlock()
	}
	echo := tool.New(tool.Spec{Name: "echo", Description: "echo", Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}},
		func(_ context.Context, c *tool.Call, in textIn) (tool.Result, error) {
			record(c)
			return tool.Text(in.Text), nil
		})
	write := tool.New(tool.Spec{Name: "write", Description: "write"},
		func(_ context.Context, c *tool.Call, in textIn) (tool.Result, error) {
			record(c)
			return tool.Text("wrote " + in.Text), nil
		})
	reg, err := tool.NewRegistry(append([]*tool.Tool{echo, write}, o.extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range definitions {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, problems := subagent.Load(subagent.Dir{Path: dir, Scope: subagent.ScopeWorkspace})
	for _, p := range problems {
		if p.Severity > subagent.Info {
			t.Fatalf("definition: %v", p)
		}
	}
	entries, err := replay.Parse([]byte(strings.Join(o.script, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if f.provider, err = replay.New(entries); err != nil {
		t.Fatal(err)
	}
	opts := tool.RunnerOptions{Gate: o.gate, Approver: o.approver}
	cfg := o.cfg
	cfg.Definitions, cfg.Provider, cfg.Model, cfg.Tools, cfg.RunnerOptions, cfg.Store = set, f.provider, "scripted", reg, opts, f.store
	if f.runner, err = subagent.New(cfg); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(f.runner.Tool()); err != nil {
		t.Fatal(err)
	}
	if f.parent, err = agent.New(agent.Config{Provider: f.provider, Model: "scripted", Tools: reg, RunnerOptions: opts, Name: "wield"}); err != nil {
		t.Fatal(err)
	}
	if f.sess, err = f.store.Create(t.Context(), session.Header{ID: "parent", Agent: "wield"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.sess.Close() })
	return f
}

// toolCalls returns the calls the tools named saw.
func (f *fixture) toolCalls(names ...string) []tool.Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []tool.Call
	for _, c := range f.calls {
		if slices.Contains(names, c.Tool) {
			out = append(out, c)
		}
	}
	return out
}

// results returns the parent's tool results of calls to the agent tool
// in the last run, in call order.
func results(t *testing.T, s *session.Session) []session.Turn {
	t.Helper()
	var out []session.Turn
	for _, turn := range s.State().Turns {
		if turn.Kind == session.TurnToolResponse && turn.Tool == subagent.ToolName {
			out = append(out, turn)
		}
	}
	return out
}

func usage(in int) string {
	return fmt.Sprintf(`"usage":{"input_tokens":%d,"output_tokens":1,"cost":0.001}`, in)
}

// TestThreeChildrenInParallel is the scenario: three children of
// different types in one round. One runs out of turns and fails its grace
// round (partial, with all it wrote), one returns structured data (after
// fixing invalid data), one asks for a grandchild and is told to do the
// work itself. The parent gets three reports in call order, the journals
// link up, and the children's usage is the parent's.
func TestThreeChildrenInParallel(t *testing.T) {
	u := usage(10)
	f := newFixture(t, fixtureOptions{extra: []*tool.Tool{meetTool(3)}, script: []string{
		`{"turn":1,"round":1,"tool_calls":[` +
			`{"id":"c1","name":"agent","arguments":{"type":"looper","prompt":"Loop task: look at a and b"}},` +
			`{"id":"c2","name":"agent","arguments":{"type":"inventory","prompt":"Inventory task: list src","description":"list src"}},` +
			`{"id":"c3","name":"agent","arguments":{"type":"general","prompt":"Nested task: get help"}}],` + u + `}`,
		`{"turn":1,"round":2,"text":"combined the three reports",` + u + `}`,

		`{"when":"Loop task","turn":1,"round":1,"text":"looked at a","tool_calls":[{"name":"meet","arguments":{}},{"name":"echo","arguments":{"text":"a"}}],` + u + `}`,
		`{"when":"Loop task","turn":1,"round":2,"text":"looked at b","tool_calls":[{"name":"echo","arguments":{"text":"b"}}],` + u + `}`,
		// The grace round offers no "done": this call fails, and the
		// runner reports for the child.
		`{"when":"Loop task","turn":2,"round":1,"text":"I think I am done","tool_calls":[{"name":"complete_task","arguments":{"status":"done","result":"all looked at"}}],` + u + `}`,

		`{"when":"Inventory task","turn":1,"round":1,"tool_calls":[{"name":"meet","arguments":{}},{"name":"complete_task","arguments":{"status":"done","result":"listed","data":{"dirs":["x"]}}}],` + u + `}`,
		`{"when":"Inventory task","turn":1,"round":2,"tool_calls":[{"name":"complete_task","arguments":{"status":"done","result":"src holds two files","data":{"files":["a.go","b.go"]}}}],` + u + `}`,

		`{"when":"Nested task","turn":1,"round":1,"tool_calls":[{"name":"meet","arguments":{}},{"name":"agent","arguments":{"type":"general","prompt":"Grandchild task"}}],` + u + `}`,
		`{"when":"Nested task","turn":1,"round":2,"tool_calls":[{"name":"complete_task","arguments":{"status":"done","result":"did it myself"}}],` + u + `}`,
	}})
	out, err := f.parent.Run(t.Context(), f.sess, "delegate three tasks")
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "combined the three reports" {
		t.Errorf("parent's answer = %q", out.Text)
	}
	if un := f.provider.Unmatched(); len(un) > 0 {
		t.Fatalf("%d requests matched no script entry; the first: %+v", len(un), un[0].Messages)
	}
	// 2 rounds of the parent, 3 of the looper, 2 of the inventory, 2 of
	// the nested child.
	want := llm.Usage{InputTokens: 90, OutputTokens: 9, Cost: 0.009}
	if diff := cmp.Diff(want, out.Usage, cmpFloat); diff != "" {
		t.Errorf("parent's usage (-want +got):\n%s", diff)
	}

	res := results(t, f.sess)
	if len(res) != 3 {
		t.Fatalf("parent has %d agent results, want 3", len(res))
	}
	for _, r := range res {
		t.Logf("%s:\n%s", r.CallID, r.Output)
	}
	type want1 struct {
		call, child, status string
		contains            []string
	}
	wants := []want1{
		{"c1", "parent.1", "partial", []string{"agent looper (session parent.1): partial: it used all 2 turns it was given; it did not report in its grace round either",
			"its transcript is " + f.store.Path("parent.1"), "looked at a\n\nlooked at b\n\nI think I am done", "echo ×2"}},
		{"c2", "parent.2", "done", []string{"agent inventory (session parent.2): done\n\nsrc holds two files\n\ndata: {\"files\":[\"a.go\",\"b.go\"]}"}},
		{"c3", "parent.3", "done", []string{"agent general (session parent.3): done\n\ndid it myself"}},
	}
	// The children are numbered in the order they started, which the
	// parallel batch does not fix: map them by call.
	childOf := map[string]string{}
	for _, turn := range f.sess.State().Turns {
		if turn.Kind == session.TurnAgentStarted {
			childOf[turn.CallID] = turn.Child
		}
	}
	for i, w := range wants {
		got := res[i]
		if got.CallID != w.call {
			t.Errorf("result %d is for call %s, want %s", i, got.CallID, w.call)
		}
		child := childOf[w.call]
		for _, s := range w.contains {
			s = strings.ReplaceAll(s, w.child, child)
			if !strings.Contains(got.Output, s) {
				t.Errorf("result of %s = %q\nwant it to contain %q", w.call, got.Output, s)
			}
		}
		var rep subagent.Report
		if err := json.Unmarshal(got.Data, &rep); err != nil {
			t.Fatalf("result data of %s: %v", w.call, err)
		}
		if string(rep.Status) != w.status || rep.Session != child || rep.Usage.InputTokens == 0 {
			t.Errorf("report of %s = %+v, want status %s", w.call, rep, w.status)
		}
		checkChild(t, f.store, child, session.ChildOf{Session: "parent", Call: w.call, Depth: 1, Agent: strings.Fields(got.Output)[1]})
	}

	// The parent's pool recorded each start and finish.
	var finished []string
	for _, turn := range f.sess.State().Turns {
		if turn.Kind == session.TurnAgentFinished {
			finished = append(finished, turn.CallID+":"+turn.Status)
			if turn.Usage == nil || turn.Usage.InputTokens == 0 {
				t.Errorf("agent_finished of %s has no usage", turn.CallID)
			}
		}
	}
	slices.Sort(finished)
	if diff := cmp.Diff([]string{"c1:partial", "c2:done", "c3:done"}, finished); diff != "" {
		t.Errorf("agent_finished turns (-want +got):\n%s", diff)
	}

	// The nested child asked for a grandchild and was told no.
	nested, err := f.store.Load(t.Context(), childOf["c3"])
	if err != nil {
		t.Fatal(err)
	}
	refused := false
	for _, turn := range nested.Turns {
		if turn.Kind == session.TurnToolResponse && turn.Tool == subagent.ToolName {
			refused = strings.Contains(turn.Output, "agent depth limit reached") && strings.Contains(turn.Output, "do the work yourself")
		}
	}
	if !refused {
		t.Error("the grandchild was not refused with a depth message")
	}
	// The inventory child heard why its first data was wrong.
	inv, err := f.store.Load(t.Context(), childOf["c2"])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(inv.Turns, func(turn session.Turn) bool {
		return turn.Tool == subagent.CompleteTaskName && strings.Contains(turn.Output, "data does not match the output schema")
	}) {
		t.Error("invalid data was not refused")
	}

	// Every call inside a child says so and names the agent call.
	for _, c := range f.toolCalls("echo") {
		if !c.Subagent || c.ParentID != "c1" || c.Agent != "looper" {
			t.Errorf("echo call %s: subagent %v, parent %q, agent %q; want a subagent call of c1 by looper", c.ID, c.Subagent, c.ParentID, c.Agent)
		}
	}
}

var cmpFloat = cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })

// checkChild checks a child's journal: its link to the parent, one result
// per call, and a closed transaction.
func checkChild(t *testing.T, st *session.Store, id string, want session.ChildOf) {
	t.Helper()
	s, err := st.Load(t.Context(), id)
	if err != nil {
		t.Fatalf("child %s: %v", id, err)
	}
	if diff := cmp.Diff(&want, s.Header.Child); diff != "" {
		t.Errorf("child %s: link (-want +got):\n%s", id, diff)
	}
	if s.Open() {
		t.Errorf("child %s: transaction left open", id)
	}
	checkOneResultPerCall(t, id, s.Turns)
}

// checkOneResultPerCall checks that every call in turns has exactly one
// result.
func checkOneResultPerCall(t *testing.T, id string, turns []session.Turn) {
	t.Helper()
	calls, res := map[string]bool{}, map[string]int{}
	for _, turn := range turns {
		switch turn.Kind {
		case session.TurnFunctionCalling:
			calls[turn.CallID] = true
		case session.TurnToolResponse:
			res[turn.CallID]++
		}
	}
	for c := range calls {
		if res[c] != 1 {
			t.Errorf("session %s: call %s has %d results, want 1", id, c, res[c])
		}
	}
}

// meetTool returns a tool that returns once n calls of it are running at
// the same time: the children that call it prove they run in parallel.
func meetTool(n int) *tool.Tool {
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	return tool.New(tool.Spec{Name: "meet", Description: "wait for the others", Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}},
		func(ctx context.Context, _ *tool.Call, _ struct{}) (tool.Result, error) {
			mu.Lock()
			if arrived++; arrived == n {
				close(all)
			}
			mu.Unlock()
			select {
			case <-all:
				return tool.Text("all here"), nil
			case <-ctx.Done():
				return tool.Failure("the others never came"), nil
			}
		})
}

// TestGraceRound checks how a child that stops without reporting ends:
// it gets one round with only complete_task, without "done" when it was
// cut off; if it reports there, its report stands (with a note); if not,
// the parent gets a partial report with everything it wrote.
func TestGraceRound(t *testing.T) {
	tests := []struct {
		name       string
		child      []string
		cfg        subagent.Config
		wantStatus subagent.Status
		want       []string
		wantOffer  string // the status enum the grace round offered
	}{
		{
			name: "answers without reporting, then reports done",
			child: []string{
				`{"when":"Task","turn":1,"round":1,"text":"here is my answer"}`,
				`{"when":"Task","turn":2,"round":1,"tool_calls":[{"name":"complete_task","arguments":{"status":"done","result":"the answer"}}]}`,
			},
			wantStatus: subagent.StatusDone,
			want:       []string{"done: it answered without calling complete_task; it reported in its grace round", "the answer"},
			wantOffer:  `["done","partial","blocked"]`,
		},
		{
			name: "cut off at max tokens, reports partial",
			child: []string{
				`{"when":"Task","turn":1,"round":1,"text":"half a sent","finish_reason":"length"}`,
				`{"when":"Task","turn":2,"round":1,"tool_calls":[{"name":"complete_task","arguments":{"status":"partial","result":"half done"}}]}`,
			},
			wantStatus: subagent.StatusPartial,
			want:       []string{"partial: its last reply was cut off at the model's output limit; it reported in its grace round", "half done"},
			wantOffer:  `["partial","blocked"]`,
		},
		{
			name: "the model fails, and fails again",
			child: []string{
				`{"when":"Task","turn":1,"round":1,"text":"first thoughts","tool_calls":[{"name":"echo","arguments":{"text":"x"}}]}`,
				`{"when":"Task","turn":1,"round":2,"error":{"status":500,"message":"overloaded"}}`,
				`{"when":"Task","turn":2,"round":1,"error":{"status":500,"message":"still overloaded"}}`,
			},
			wantStatus: subagent.StatusPartial,
			want:       []string{"partial: it failed: ", "overloaded", "it did not report in its grace round either, so this is everything it wrote", "first thoughts", "(tools it called: echo ×1)"},
		},
		{
			name: "runs out of turns, says nothing in the grace round",
			cfg:  subagent.Config{MaxTurns: 1},
			child: []string{
				`{"when":"Task","turn":1,"round":1,"tool_calls":[{"name":"echo","arguments":{"text":"x"}}]}`,
				`{"when":"Task","turn":2,"round":1,"text":""}`,
			},
			wantStatus: subagent.StatusPartial,
			want:       []string{"it used all 1 turns it was given", "(the agent wrote no text before it stopped)"},
			wantOffer:  `["partial","blocked"]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := append([]string{
				`{"turn":1,"round":1,"tool_calls":[{"id":"c1","name":"agent","arguments":{"type":"general","prompt":"Task: do it"}}]}`,
				`{"turn":1,"round":2,"text":"ok"}`,
			}, tt.child...)
			f := newFixture(t, fixtureOptions{cfg: tt.cfg, script: script})
			if _, err := f.parent.Run(t.Context(), f.sess, "go"); err != nil {
				t.Fatal(err)
			}
			res := results(t, f.sess)
			if len(res) != 1 {
				t.Fatalf("%d agent results, want 1", len(res))
			}
			var rep subagent.Report
			if err := json.Unmarshal(res[0].Data, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Status != tt.wantStatus {
				t.Errorf("status = %s, want %s", rep.Status, tt.wantStatus)
			}
			for _, w := range tt.want {
				if !strings.Contains(res[0].Output, w) {
					t.Errorf("report = %q\nwant it to contain %q", res[0].Output, w)
				}
			}
			if tt.wantOffer != "" {
				got := graceOffer(t, f.provider.Requests())
				if got != tt.wantOffer {
					t.Errorf("the grace round offered statuses %s, want %s", got, tt.wantOffer)
				}
			}
			checkChild(t, f.store, rep.Session, session.ChildOf{Session: "parent", Call: "c1", Depth: 1, Agent: "general"})
		})
	}
}

// graceOffer returns the status enum of the only tool of the request that
// offered just complete_task.
func graceOffer(t *testing.T, reqs []llm.Request) string {
	t.Helper()
	for _, r := range reqs {
		if len(r.Tools) == 1 && r.Tools[0].Name == subagent.CompleteTaskName {
			var s struct {
				Properties struct {
					Status struct {
						Enum json.RawMessage `json:"enum"`
					} `json:"status"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(r.Tools[0].InputSchema, &s); err != nil {
				t.Fatal(err)
			}
			return string(s.Properties.Status.Enum)
		}
	}
	t.Fatal("no request offered complete_task alone")
	return ""
}

// TestCancelClosesChildren cancels the parent while its child runs: the
// child's transaction is closed as interrupted, and the parent still gets
// a partial report, recorded in its pool.
func TestCancelClosesChildren(t *testing.T) {
	started := make(chan struct{})
	block := tool.New(tool.Spec{Name: "block", Description: "blocks", Annotations: tool.Annotations{ReadOnly: true}},
		func(ctx context.Context, _ *tool.Call, _ struct{}) (tool.Result, error) {
			close(started)
			<-ctx.Done()
			return tool.Failure("stopped"), nil
		})
	f := newFixture(t, fixtureOptions{extra: []*tool.Tool{block}, script: []string{
		`{"turn":1,"round":1,"tool_calls":[{"id":"c1","name":"agent","arguments":{"type":"general","prompt":"Task: block"}}]}`,
		`{"when":"Task","turn":1,"round":1,"text":"about to block","tool_calls":[{"name":"block","arguments":{}}]}`,
	}})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	out, err := f.parent.Run(ctx, f.sess, "go")
	if err == nil || out.Reason != agent.StopCancelled {
		t.Fatalf("parent = %+v, %v; want it cancelled", out, err)
	}
	child, err := f.store.Load(t.Context(), "parent.1")
	if err != nil {
		t.Fatal(err)
	}
	if child.Open() || len(child.Pools) != 1 || child.Pools[0].Status != session.PoolAborted {
		t.Fatalf("child: open %v, pools %+v; want one aborted pool", child.Open(), child.Pools)
	}
	checkOneResultPerCall(t, "parent.1", child.Turns)
	st := f.sess.State()
	var fin *session.Turn
	for i, turn := range st.Turns {
		if turn.Kind == session.TurnAgentFinished {
			fin = &st.Turns[i]
		}
	}
	if fin == nil || fin.Status != "partial" || !strings.Contains(fin.Output, "it was cancelled with its parent's run") || !strings.Contains(fin.Output, "about to block") {
		t.Errorf("agent_finished = %+v; want a partial report saying it was cancelled, with its text", fin)
	}
	checkOneResultPerCall(t, "parent", st.Turns)
}

// recordingApprover allows everything and keeps what it was asked.
type recordingApprover struct {
	mu      sync.Mutex
	reasons []string
	agents  []string
}

func (a *recordingApprover) Approve(_ context.Context, c *tool.Call, _ *tool.Tool, _ json.RawMessage, why tool.Decision) tool.Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reasons = append(a.reasons, why.Reason)
	a.agents = append(a.agents, c.Agent)
	return tool.Decision{Verdict: tool.Allow}
}

// askWrites asks about every call of write.
type askWrites struct{}

func (askWrites) Decide(_ context.Context, c *tool.Call, _ *tool.Tool, _ json.RawMessage) tool.Decision {
	if c.Tool == "write" {
		return tool.Decision{Verdict: tool.Ask, Reason: "write changes things"}
	}
	return tool.Decision{Verdict: tool.Allow}
}

// TestPermissionsNeverWiden checks that a child gets no tool its parent
// lacks (the writer definition names secret_tool, which the parent does
// not have) and that its approvals reach the parent's approver, tagged
// with its name.
func TestPermissionsNeverWiden(t *testing.T) {
	approver := &recordingApprover{}
	f := newFixture(t, fixtureOptions{gate: askWrites{}, approver: approver, script: []string{
		`{"turn":1,"round":1,"tool_calls":[{"id":"c1","name":"agent","arguments":{"type":"writer","prompt":"Write task"}}]}`,
		`{"turn":1,"round":2,"text":"ok"}`,
		`{"when":"Write task","turn":1,"round":1,"tool_calls":[{"name":"write","arguments":{"text":"x"}}]}`,
		`{"when":"Write task","turn":1,"round":2,"tool_calls":[{"name":"complete_task","arguments":{"status":"done","result":"wrote x"}}]}`,
	}})
	if _, err := f.parent.Run(t.Context(), f.sess, "go"); err != nil {
		t.Fatal(err)
	}
	parentTools := map[string]bool{}
	var childTools []string
	for _, r := range f.provider.Requests() {
		names := make([]string, len(r.Tools))
		for i, d := range r.Tools {
			names[i] = d.Name
		}
		if strings.Contains(r.Messages[0].Content, "You write things") {
			childTools = names
			continue
		}
		for _, n := range names {
			parentTools[n] = true
		}
	}
	if diff := cmp.Diff([]string{"complete_task", "echo", "write"}, childTools); diff != "" {
		t.Errorf("the writer's tools (-want +got):\n%s", diff)
	}
	for _, n := range childTools {
		if !parentTools[n] && n != subagent.CompleteTaskName {
			t.Errorf("the child has %s, which its parent lacks", n)
		}
	}
	if diff := cmp.Diff([]string{"[writer] write changes things"}, approver.reasons); diff != "" {
		t.Errorf("approvals (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"writer"}, approver.agents); diff != "" {
		t.Errorf("approvals asked for agents (-want +got):\n%s", diff)
	}
	if got := f.toolCalls("write"); len(got) != 1 || !got[0].Subagent {
		t.Errorf("write calls = %+v; want one, from the subagent", got)
	}
}

// TestLimits checks nesting within the depth allowed, the spawn budget
// and the report limit.
func TestLimits(t *testing.T) {
	t.Run("depth 2 lets a child start a grandchild", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{cfg: subagent.Config{MaxDepth: 2}, script: []string{
			`{"turn":1,"round":1,"tool_calls":[{"id":"c1","name":"agent","arguments":{"type":"general","prompt":"Child task"}}]}`,
			`{"turn":1,"round":2,"text":"ok",` + usage(1) + `}`,
			`{"when":"Child task","turn":1,"round":1,"tool_calls":[{"id":"g1","name":"agent","arguments":{"type":"looper","prompt":"Grandchild task"}}]}`,
			`{"when":"Child task","turn":1,"round":2,"tool_calls":[{"name":"complete_task","arguments":{"status":"done","result":"the grandchild did it"}}]}`,
			`{"when":"Grandchild task","turn":1,"round":1,"tool_calls":[{"name":"complete_task","arguments":{"status":"done","result":"did it"}}],` + usage(1000) + `}`,
		}})
		out, err := f.parent.Run(t.Context(), f.sess, "go")
		if err != nil {
			t.Fatal(err)
		}
		checkChild(t, f.store, "parent.1", session.ChildOf{Session: "parent", Call: "c1", Depth: 1, Agent: "general"})
		checkChild(t, f.store, "parent.1.1", session.ChildOf{Session: "parent.1", Call: "g1", Depth: 2, Agent: "looper"})
		if out.Usage.InputTokens != 1001 {
			t.Errorf("parent's input tokens = %d, want 1001: the grandchild's roll up through the child", out.Usage.InputTokens)
		}
	})
	t.Run("the spawn budget", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{cfg: subagent.Config{SpawnBudget: 1}, script: []string{
			`{"turn":1,"round":1,"tool_calls":[{"id":"c1","name":"agent","arguments":{"type":"general","prompt":"Task one"}},{"id":"c2","name":"agent","arguments":{"type":"general","prompt":"Task two"}}]}`,
			`{"turn":1,"round":2,"text":"ok"}`,
			`{"turn":2,"round":1,"tool_calls":[{"id":"c3","name":"agent","arguments":{"type":"general","prompt":"Task three"}}]}`,
			`{"turn":2,"round":2,"text":"ok"}`,
			`{"when":"Task","round":1,"tool_calls":[{"name":"complete_task","arguments":{"status":"done","result":"did it"}}]}`,
		}})
		for _, task := range []string{"first", "second"} {
			if _, err := f.parent.Run(t.Context(), f.sess, task); err != nil {
				t.Fatal(err)
			}
		}
		var refused, ran int
		for _, r := range results(t, f.sess) {
			switch {
			case strings.Contains(r.Output, "its budget"):
				refused++
			case strings.Contains(r.Output, "did it"):
				ran++
			}
		}
		// One of the first run's two calls is refused; the second run has
		// a budget of its own.
		if refused != 1 || ran != 2 {
			t.Errorf("%d refused and %d ran; want 1 and 2", refused, ran)
		}
	})
	t.Run("a long report is cut and spilled whole", func(t *testing.T) {
		long := strings.Repeat("finding ", 400) + "THE END"
		args, _ := json.Marshal(map[string]string{"status": "done", "result": long})
		f := newFixture(t, fixtureOptions{cfg: subagent.Config{ReportLimit: 1000}, script: []string{
			`{"turn":1,"round":1,"tool_calls":[{"id":"c1","name":"agent","arguments":{"type":"general","prompt":"Task"}}]}`,
			`{"turn":1,"round":2,"text":"ok"}`,
			`{"when":"Task","round":1,"tool_calls":[{"name":"complete_task","arguments":` + string(args) + `}]}`,
		}})
		if _, err := f.parent.Run(t.Context(), f.sess, "go"); err != nil {
			t.Fatal(err)
		}
		res := results(t, f.sess)[0]
		var rep subagent.Report
		if err := json.Unmarshal(res.Data, &rep); err != nil {
			t.Fatal(err)
		}
		if len(rep.Result) > 1200 || !strings.HasSuffix(rep.Result, "THE END") || rep.Spill == "" {
			t.Fatalf("report of %d bytes, spill %q; want it cut to about 1000 bytes, ending as the report does", len(rep.Result), rep.Spill)
		}
		whole, err := os.ReadFile(rep.Spill)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(whole), long) || !strings.Contains(res.Output, rep.Spill) {
			t.Errorf("the spill file does not hold the whole report, or the result does not name it")
		}
	})
}

// TestNew checks the config errors.
func TestNew(t *testing.T) {
	reg, _ := tool.NewRegistry()
	p, _ := replay.New(nil)
	tests := []struct {
		cfg  subagent.Config
		want string
	}{
		{subagent.Config{Tools: reg}, "no model provider"},
		{subagent.Config{Provider: p}, "no tool registry"},
		{subagent.Config{Provider: p, Tools: reg, MaxDepth: 4}, "at most 3 levels"},
		{subagent.Config{Provider: p, Tools: reg, SpawnBudget: -1}, "must not be negative"},
	}
	for _, tt := range tests {
		if _, err := subagent.New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want an error containing %q", tt.cfg, err, tt.want)
		}
	}
	r, err := subagent.New(subagent.Config{Provider: p, Tools: reg, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if spec := r.Tool().Spec(); spec.Name != "agent" || !spec.Annotations.ParallelSafe || !strings.Contains(spec.Description, "- general: ") {
		t.Errorf("agent tool spec = %+v", spec)
	}
}
