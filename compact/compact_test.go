package compact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/wieldhq/wield/agent"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/replay"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

// The phrases replay scripts answer the summariser and reviewer by.
const (
	whenSummary = "You write the handoff summary"
	whenRepair  = "found the previous summary incomplete"
	whenReview  = "You review a summary"
)

func script(t *testing.T, lines ...string) *replay.Provider {
	t.Helper()
	entries, err := replay.Parse([]byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	p, err := replay.New(entries)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func entry(when, text string) string {
	b, _ := json.Marshal(replay.Entry{When: when, Round: 1, Text: text})
	return string(b)
}

func newStore(t *testing.T) *session.Store {
	return &session.Store{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
}

// fileTools are write_file and read_file as the model sees them, with
// results shaped like tools/fs's; files lives in memory.
func fileTools(t *testing.T) *tool.Registry {
	type writeIn struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	type readIn struct {
		Path string `json:"path"`
	}
	write := tool.New(tool.Spec{Name: "write_file", Description: "write"}, func(_ context.Context, _ *tool.Call, in writeIn) (tool.Result, error) {
		return tool.Result{Success: true, Output: "Wrote " + in.Path,
			Data: map[string]any{"path": in.Path, "created": true, "lines": 1, "added": 1}}, nil
	})
	read := tool.New(tool.Spec{Name: "read_file", Description: "read"}, func(_ context.Context, _ *tool.Call, in readIn) (tool.Result, error) {
		return tool.Result{Success: true, Output: strings.Repeat("line of "+in.Path+"\n", 80),
			Data: map[string]any{"path": in.Path, "startLine": 1, "endLine": 80, "totalLines": 80}}, nil
	})
	reg, err := tool.NewRegistry(write, read)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// worker is the scripted main model: in each of its rounds it reads a
// big file or writes a new one, and after rounds it answers. The
// summariser's and reviewer's requests go to the replay script.
type worker struct {
	rounds int
	helper *replay.Provider

	mu       sync.Mutex
	n        int
	requests []llm.Request
}

func (w *worker) Stream(ctx context.Context, req *llm.Request, handle func(llm.Event)) (*llm.Response, error) {
	if strings.Contains(req.Messages[0].Content, whenSummary) || strings.Contains(req.Messages[0].Content, whenReview) {
		return w.helper.Stream(ctx, req, handle)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requests = append(w.requests, *req)
	w.n++
	msg := llm.Message{Role: llm.RoleAssistant}
	switch {
	case w.n > w.rounds:
		msg.Content = "All files are written."
		return &llm.Response{Message: msg, Stop: llm.StopEnd}, nil
	case w.n%2 == 1:
		msg.ToolCalls = []llm.ToolCall{{ID: fmt.Sprintf("r%d", w.n), Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"big%02d.txt"}`, w.n))}}
	default:
		args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("file%02d.txt", w.n), "content": strings.Repeat("x", 300)})
		msg.ToolCalls = []llm.ToolCall{{ID: fmt.Sprintf("w%d", w.n), Name: "write_file", Arguments: args}}
	}
	return &llm.Response{Message: msg, Stop: llm.StopToolUse}, nil
}

// TestSixtyRoundsCompactAutomatically: a 60-round task in a small window
// is compacted by the loop as it goes, masks first and then summaries,
// every prompt stays in the window, and the last prompt still names every
// file written (through the ledger or the recent turns).
func TestSixtyRoundsCompactAutomatically(t *testing.T) {
	ctx := t.Context()
	store := newStore(t)
	s, err := store.Create(ctx, session.Header{ID: "long"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	helper := script(t,
		entry(whenSummary, "GOAL: write the numbered files.\nFILES: see the ledger.\nTASK STATE: keep writing the next file."),
		entry(whenReview, `{"approved": true, "missing": []}`))
	w := &worker{rounds: 60, helper: helper}
	const window, maxOutput = 6000, 1000
	c, err := New(Config{Store: store, Provider: w, Model: "summariser", Window: window, MaxOutput: maxOutput})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{Provider: w, Tools: fileTools(t), MaxRounds: 100, Compactor: c})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(ctx, s, "Write the numbered files, reading big.txt between them.")
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != agent.StopAnswer || out.Rounds != 61 {
		t.Fatalf("run ended with %s after %d rounds: %s", out.Reason, out.Rounds, out.Note)
	}
	st := s.State()
	var masks, summaries int
	for _, x := range st.Compactions {
		if x.Trigger != session.TriggerAuto {
			t.Errorf("compaction %v has trigger %q", x.Range, x.Trigger)
		}
		switch x.Kind {
		case session.CompactionMask:
			masks++
		case session.CompactionSummary:
			summaries++
			if x.Verdict == nil || !x.Verdict.Approved || x.Verdict.Reviewer != "summariser" {
				t.Errorf("summary %v verdict = %+v", x.Range, x.Verdict)
			}
			// The ledger lists every file written in the range.
			for n := x.Range[0]; n <= x.Range[1]; n++ {
				if tr := st.TurnAt(n); tr.Kind == session.TurnToolResponse && tr.Tool == "write_file" {
					path := strings.TrimPrefix(tr.Output, "Wrote ")
					if !strings.Contains(x.Ledger.Render(), path) {
						t.Errorf("summary %v: the ledger lacks %s", x.Range, path)
					}
				}
			}
		}
	}
	if masks == 0 || summaries == 0 {
		t.Fatalf("compactions: %d masks, %d summaries; want both: %+v", masks, summaries, st.Compactions)
	}
	if len(st.Turns) != 1+61+60*2 {
		t.Errorf("turns = %d, want every turn kept (%d)", len(st.Turns), 1+61+60*2)
	}
	limit := window - maxOutput
	for i, req := range w.requests {
		if n := estimate(req.Messages); n > limit {
			t.Errorf("request %d is about %d tokens, over %d", i+1, n, limit)
		}
	}
	last := w.requests[len(w.requests)-1]
	var prompt strings.Builder
	for _, m := range last.Messages {
		prompt.WriteString(m.Content)
		for _, c := range m.ToolCalls {
			prompt.Write(c.Arguments)
		}
	}
	for n := 2; n <= 60; n += 2 {
		if name := fmt.Sprintf("file%02d.txt", n); !strings.Contains(prompt.String(), name) {
			t.Errorf("the last prompt does not name %s", name)
		}
	}
	if un := helper.Unmatched(); len(un) > 0 {
		t.Errorf("%d summariser or reviewer requests were not answered", len(un))
	}
	t.Logf("%d masks, %d summaries; the last prompt is about %d tokens of %d", masks, summaries, estimate(last.Messages), limit)
}

// writeSession records a committed task that writes a.go and b.go and
// reads big.txt, and a second task, in s.
func writeSession(t *testing.T, s *session.Session) {
	t.Helper()
	ctx := t.Context()
	do := func(id, name string, args any, res tool.Result) {
		raw, _ := json.Marshal(args)
		if err := s.RecordResponse(ctx, &llm.Response{Message: llm.Message{ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: raw}}}}); err != nil {
			t.Fatal(err)
		}
		c := &tool.Call{ID: id, Tool: name}
		if err := s.RecordCall(ctx, c, raw); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordResult(ctx, c, res); err != nil {
			t.Fatal(err)
		}
	}
	for _, task := range []string{"Write a.go and b.go; keep the API stable.", "Now run the tests."} {
		if err := s.Begin(ctx, task); err != nil {
			t.Fatal(err)
		}
		do(task[:3]+"1", "read_file", map[string]string{"path": "big.txt"}, tool.Result{Success: true, Output: strings.Repeat("big\n", 2000), Data: map[string]any{"path": "big.txt", "startLine": 1, "endLine": 2000}})
		do(task[:3]+"2", "write_file", map[string]string{"path": "a.go"}, tool.Result{Success: true, Output: "Wrote a.go", Data: map[string]any{"path": "a.go", "created": true, "added": 10}})
		do(task[:3]+"3", "write_file", map[string]string{"path": "b.go"}, tool.Result{Success: true, Output: "Wrote b.go", Data: map[string]any{"path": "b.go", "added": 3, "removed": 1}})
		exit := 1
		do(task[:3]+"4", "run_shell_command", map[string]string{"command": "go test ./..."}, tool.Result{Success: true, Output: "FAIL", Data: map[string]any{"exit_code": exit}})
		do(task[:3]+"5", "replace", map[string]string{"path": "c.go"}, tool.Result{Success: false, Error: "old_string not found in c.go"})
		if err := s.RecordResponse(ctx, &llm.Response{Message: llm.Message{Content: "done with " + task}}); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReviewerRejectsAndRepairFixes: the reviewer rejects a summary that
// drops a written path; the repair round gets what was missing and its
// summary is approved. A reviewer that never approves gets a fallback
// after exactly one repair round.
func TestReviewerRejectsAndRepairFixes(t *testing.T) {
	tests := []struct {
		name         string
		script       []string
		wantApproved bool
		wantSummary  string
	}{
		{"repaired", []string{
			entry("REPAIRED", `{"approved": true, "missing": []}`),
			entry(whenRepair, "REPAIRED: wrote a.go and b.go; tests fail."),
			entry(whenSummary, "Wrote a.go; tests fail."),
			entry(whenReview, `{"approved": false, "missing": ["the file b.go, written in turn 12, is not mentioned"]}`),
		}, true, "REPAIRED: wrote a.go and b.go"},
		{"still rejected", []string{
			entry(whenRepair, "Wrote a.go, again."),
			entry(whenSummary, "Wrote a.go; tests fail."),
			entry(whenReview, "```json\n{\"approved\": false, \"missing\": [\"b.go\"]}\n```"),
		}, false, "The summary of these turns was rejected (b.go)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newStore(t)
			s, err := store.Create(t.Context(), session.Header{ID: "r"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			writeSession(t, s)
			p := script(t, tt.script...)
			c, err := New(Config{Store: store, Provider: p, Model: "small", ReviewerModel: "careful", Window: 100_000, MaxOutput: 8000})
			if err != nil {
				t.Fatal(err)
			}
			x, err := c.Compact(t.Context(), "r", Request{Focus: "the API"})
			if err != nil {
				t.Fatal(err)
			}
			v := x.Verdict
			if x.Kind != session.CompactionSummary || v.Approved != tt.wantApproved || !v.Repaired || v.Fallback == tt.wantApproved || v.Reviewer != "careful" {
				t.Errorf("compaction %s, verdict %+v", x.Kind, v)
			}
			if !strings.HasPrefix(x.Summary, tt.wantSummary) {
				t.Errorf("summary = %q, want it to start with %q", x.Summary, tt.wantSummary)
			}
			reqs := p.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d model requests, want 4: summary, review, repair, review", len(reqs))
			}
			if repair := reqs[2].Messages[1].Content; !strings.Contains(repair, "b.go") || !strings.Contains(repair, "the API") {
				t.Errorf("the repair request does not carry what was missing and the focus:\n%s", repair)
			}
			if reqs[1].Model != "careful" || reqs[0].Model != "small" {
				t.Errorf("models: summariser %q, reviewer %q", reqs[0].Model, reqs[1].Model)
			}
			// The range is every committed turn but the newest; the ledger
			// is Go's, whatever the summary says.
			l := x.Ledger
			if len(l.FilesWritten) != 2 || l.FilesWritten[0].Path != "a.go" || l.FilesWritten[1].Path != "b.go" || l.FilesWritten[1].Removed != 1 {
				t.Errorf("files written = %+v", l.FilesWritten)
			}
			if len(l.Commands) == 0 || *l.Commands[0].ExitCode != 1 || l.Commands[0].Command != "go test ./..." {
				t.Errorf("commands = %+v", l.Commands)
			}
			if len(l.Failures) == 0 || !strings.Contains(l.Failures[0].Error, "old_string not found") {
				t.Errorf("failures = %+v", l.Failures)
			}
			if len(l.FilesRead) != 1 || l.FilesRead[0].Lines[0] != [2]int{1, 2000} {
				t.Errorf("files read = %+v", l.FilesRead)
			}
			if len(l.UserMessages) == 0 || l.UserMessages[0] != "Write a.go and b.go; keep the API stable." {
				t.Errorf("user messages = %q", l.UserMessages)
			}
			if h := s.History(); !strings.Contains(h[0].Content, x.Summary) || !strings.Contains(h[0].Content, "<ledger>") {
				t.Errorf("the prompt does not start with the summary and its ledger: %q", h[0].Content)
			}
		})
	}
}

// TestHumanGateAndUndo: a person who says no keeps the turns as they
// were; one who says yes gets the compaction, and undoing it restores
// the prompt exactly.
func TestHumanGateAndUndo(t *testing.T) {
	store := newStore(t)
	s, err := store.Create(t.Context(), session.Header{ID: "g"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writeSession(t, s)
	before := s.History()
	p := script(t, entry(whenSummary, "Wrote a.go and b.go."), entry(whenReview, `{"approved": true}`))
	answer := false
	var shown *session.Compaction
	c, err := New(Config{Store: store, Provider: p, Window: 100_000, Confirm: func(_ context.Context, id string, x *session.Compaction) (bool, error) {
		shown = x
		return answer, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compact(t.Context(), "g", Request{}); !errors.Is(err, ErrRejected) {
		t.Fatalf("rejected compaction: err = %v", err)
	}
	if shown == nil || shown.Summary != "Wrote a.go and b.go." || shown.Ledger == nil {
		t.Errorf("the gate was shown %+v", shown)
	}
	if st := s.State(); len(st.Compactions) != 0 || len(s.History()) != len(before) {
		t.Fatalf("a rejected compaction changed the session: %+v", st.Compactions)
	}
	answer = true
	x, err := c.Compact(t.Context(), "g", Request{})
	if err != nil {
		t.Fatal(err)
	}
	if !x.Verdict.Confirmed || len(s.History()) >= len(before) {
		t.Errorf("confirmed compaction: verdict %+v, %d messages (was %d)", x.Verdict, len(s.History()), len(before))
	}
	if _, err := s.Uncompact(); err != nil {
		t.Fatal(err)
	}
	after := s.History()
	if len(after) != len(before) {
		t.Fatalf("after undo: %d messages, want %d", len(after), len(before))
	}
	for i := range before {
		if after[i].Content != before[i].Content {
			t.Errorf("message %d differs after undo", i)
		}
	}
}

// TestMaybeCompactGuards: below the threshold nothing happens; at most
// one attempt per user task without progress; three failures in a row
// (nothing to compact, then fallbacks without a model) stop the attempts;
// a change made by someone else is reported so that the loop rebuilds.
func TestMaybeCompactGuards(t *testing.T) {
	ctx := t.Context()
	store := newStore(t)
	s, err := store.Create(ctx, session.Header{ID: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := New(Config{Store: store, Window: 4000, MaxOutput: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Begin(ctx, "short"); err != nil {
		t.Fatal(err)
	}
	if changed, err := c.MaybeCompact(ctx, "m", llm.Usage{InputTokens: 100}); err != nil || changed || c.guards["m"].failures != 0 {
		t.Fatalf("below the threshold: changed %v, err %v, guard %+v", changed, err, c.guards["m"])
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := s.Begin(ctx, fmt.Sprintf("task %d: %s", i, strings.Repeat("long ", 4000))); err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second call in a task without progress does nothing
			if _, err := c.MaybeCompact(ctx, "m", llm.Usage{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	g := c.guards["m"]
	if !g.stopped || g.failures != DefaultMaxFailures {
		t.Errorf("guard = %+v; want stopped after %d failures", g, DefaultMaxFailures)
	}
	st := s.State()
	if len(st.Compactions) != 2 || !st.Compactions[1].Verdict.Fallback {
		t.Errorf("compactions = %+v; want two fallbacks (tasks 1 and 2), none after the third failure", st.Compactions)
	}
	if _, err := s.Uncompact(); err != nil {
		t.Fatal(err)
	}
	if changed, err := c.MaybeCompact(ctx, "m", llm.Usage{}); err != nil || !changed {
		t.Errorf("after an uncompact by someone else: changed %v, err %v; want true", changed, err)
	}
	if changed, _ := c.MaybeCompact(ctx, "nope", llm.Usage{InputTokens: 1 << 20}); changed {
		t.Error("a session not open here changed")
	}
}

// BenchmarkProjection measures the prompt view of a session of 10k
// journal records after a mask and a summary: what each round pays when
// the loop rebuilds its prompt.
func BenchmarkProjection(b *testing.B) {
	store := &session.Store{Dir: b.TempDir(), Logger: slog.New(slog.DiscardHandler), Sync: session.SyncNever}
	s, err := store.Create(b.Context(), session.Header{ID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	records := 1
	for i := 0; records < 10_000; i++ {
		id := fmt.Sprintf("c%d", i)
		c := &tool.Call{ID: id, Tool: "read_file"}
		_ = s.Begin(ctx, "task")
		_ = s.RecordResponse(ctx, &llm.Response{Message: llm.Message{ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}}})
		_ = s.RecordCall(ctx, c, json.RawMessage(`{"path":"a.go"}`))
		_ = s.RecordResult(ctx, c, tool.Result{Success: true, Output: strings.Repeat("x", 1000)})
		if err := s.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		records += 6
	}
	n := len(s.State().Turns)
	if err := s.Compact(session.Compaction{Kind: session.CompactionMask, Range: [2]int{1, n / 8 * 4}}); err != nil {
		b.Fatal(err)
	}
	if err := s.Compact(session.Compaction{Kind: session.CompactionSummary, Range: [2]int{1, n / 16 * 4}, Summary: "the first quarter",
		Ledger: BuildLedger(s.State(), 1, n/16*4, 80_000, nil)}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = s.History()
	}
	b.ReportMetric(float64(records), "records")
}

// TestBeforeAndAfter: Before sees the request and adds to the focus the
// summariser is given, or blocks the compaction (the session unchanged,
// ErrBlocked); After sees each compaction recorded; a blocked automatic
// compaction does not count as a failure.
func TestBeforeAndAfter(t *testing.T) {
	store := newStore(t)
	s, err := store.Create(t.Context(), session.Header{ID: "h"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writeSession(t, s)
	var summariser []string
	p := &spy{Provider: script(t, entry(whenSummary, "Wrote a.go and b.go."), entry(whenReview, `{"approved": true}`)), seen: &summariser}
	block := errors.New("a deploy is running")
	var blocked bool
	var reqs []Request
	var recorded []session.Compaction
	c, err := New(Config{Store: store, Provider: p, Window: 100_000,
		Before: func(_ context.Context, id string, req Request) (string, error) {
			reqs = append(reqs, req)
			if blocked {
				return "", block
			}
			return "keep the ticket id WLD-42", nil
		},
		After: func(_ context.Context, id string, x *session.Compaction) { recorded = append(recorded, *x) },
	})
	if err != nil {
		t.Fatal(err)
	}
	blocked = true
	before := len(s.History())
	if _, err := c.Compact(t.Context(), "h", Request{Focus: "the API"}); !errors.Is(err, ErrBlocked) || !errors.Is(err, block) {
		t.Fatalf("blocked: err = %v", err)
	}
	if len(s.State().Compactions) != 0 || len(s.History()) != before || len(recorded) != 0 || len(summariser) != 0 {
		t.Fatalf("a blocked compaction changed something: %d compactions, %d recorded, %d summaries", len(s.State().Compactions), len(recorded), len(summariser))
	}
	blocked = false
	x, err := c.Compact(t.Context(), "h", Request{Focus: "the API"})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[1].Focus != "the API" || reqs[1].Trigger != session.TriggerManual {
		t.Errorf("Before saw %+v", reqs)
	}
	if x.Focus != "the API\nkeep the ticket id WLD-42" {
		t.Errorf("focus = %q", x.Focus)
	}
	if len(summariser) == 0 || !strings.Contains(summariser[0], "keep the ticket id WLD-42") {
		t.Errorf("the summariser was not given the hook's focus: %q", summariser)
	}
	if len(recorded) != 1 || recorded[0].Summary != x.Summary || recorded[0].Range != x.Range {
		t.Errorf("After saw %+v", recorded)
	}

	// Automatic: a block is no failure.
	a, err := store.Create(t.Context(), session.Header{ID: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	blocked = true
	calls := 0
	ca, err := New(Config{Store: store, Window: 4000, MaxOutput: 1000, Before: func(context.Context, string, Request) (string, error) { calls++; return "", block }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := a.Begin(t.Context(), fmt.Sprintf("task %d: %s", i, strings.Repeat("long ", 4000))); err != nil {
			t.Fatal(err)
		}
		if _, err := ca.MaybeCompact(t.Context(), "auto", llm.Usage{}); err != nil {
			t.Fatal(err)
		}
		if err := a.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	// The first two tasks leave nothing to compact (two failures); the
	// next four are blocked, which stops nothing.
	if g := ca.guards["auto"]; calls != 4 || g.failures != 2 || g.stopped || len(a.State().Compactions) != 0 {
		t.Errorf("blocked automatic compactions (%d): guard %+v, %d compactions", calls, g, len(a.State().Compactions))
	}
}

// spy records the user messages of the requests it passes on.
type spy struct {
	llm.Provider
	seen *[]string
}

func (s *spy) Stream(ctx context.Context, req *llm.Request, handle func(llm.Event)) (*llm.Response, error) {
	if strings.Contains(req.Messages[0].Content, whenSummary) {
		*s.seen = append(*s.seen, req.Messages[len(req.Messages)-1].Content)
	}
	return s.Provider.Stream(ctx, req, handle)
}

// TestReviewAgent: with Config.Review, the reviewer is whatever it calls
// (an agent in wield): it gets the session's id and the material, its
// rejection drives the repair round, and the verdict names it.
func TestReviewAgent(t *testing.T) {
	store := newStore(t)
	s, err := store.Create(t.Context(), session.Header{ID: "ra"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writeSession(t, s)
	p := script(t, entry(whenRepair, "REPAIRED: wrote a.go and b.go."), entry(whenSummary, "Wrote a.go."))
	var material []string
	review := func(_ context.Context, id, m string) (string, string, error) {
		if id != "ra" {
			t.Errorf("reviewed session %q", id)
		}
		material = append(material, m)
		if strings.Contains(m, "REPAIRED") {
			return `{"approved":true}`, "ra.1", nil
		}
		return `{"approved":false,"missing":["b.go"]}`, "ra.1", nil
	}
	c, err := New(Config{Store: store, Provider: p, Window: 100_000, Review: review})
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.Compact(t.Context(), "ra", Request{})
	if err != nil {
		t.Fatal(err)
	}
	if v := x.Verdict; !v.Approved || !v.Repaired || v.Reviewer != "ra.1" || x.Summary != "REPAIRED: wrote a.go and b.go." {
		t.Errorf("verdict %+v, summary %q", v, x.Summary)
	}
	if len(material) != 2 || !strings.Contains(material[0], "<candidate_summary>\nWrote a.go.") || !strings.Contains(material[0], "<original_turns>") {
		t.Errorf("the reviewer got %q", material)
	}
	for _, r := range p.Requests() {
		if strings.Contains(r.Messages[0].Content, whenReview) {
			t.Error("the reviewer model was called although Review is set")
		}
	}
}
