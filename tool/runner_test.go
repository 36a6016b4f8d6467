package tool

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

type pathInput struct {
	Path  string `json:"path" jsonschema:"a file path"`
	Limit int    `json:"limit,omitempty"`
}

func mustRegistry(t *testing.T, tools ...*Tool) *Registry {
	t.Helper()
	reg, err := NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func textTool(name string, spec Spec, fn func(ctx context.Context, c *Call, in pathInput) (Result, error)) *Tool {
	spec.Name, spec.Description = name, "test tool "+name
	return New(spec, fn)
}

func echoPath(_ context.Context, _ *Call, in pathInput) (Result, error) { return Text(in.Path), nil }

func TestRunner_ValidatesBeforeExecuting(t *testing.T) {
	var ran atomic.Int32
	reg := mustRegistry(t, textTool("read", Spec{}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
		ran.Add(1)
		return Text(in.Path), nil
	}))
	r := NewRunner(reg, nil)
	tests := []struct {
		name      string
		req       Request
		wantOK    bool
		wantError []string
	}{
		{"valid", Request{Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}, true, nil},
		{"missing required", Request{Name: "read", Arguments: json.RawMessage(`{}`)}, false, []string{"missing property 'path'"}},
		{"empty arguments mean an empty object", Request{Name: "read"}, false, []string{"missing property 'path'"}},
		{"every violation listed", Request{Name: "read", Arguments: json.RawMessage(`{"path":3,"limit":"x","extra":true}`)}, false,
			[]string{"3 problems", "/path", "/limit", "extra"}},
		{"malformed JSON", Request{Name: "read", Arguments: json.RawMessage(`{"path":`)}, false, []string{"not valid JSON"}},
		{"not an object", Request{Name: "read", Arguments: json.RawMessage(`["a"]`)}, false, []string{"want object"}},
		{"unknown tool", Request{Name: "raed", Arguments: json.RawMessage(`{}`)}, false, []string{"tool raed not found", "did you mean read?"}},
		{"huge arguments", Request{Name: "read", Arguments: json.RawMessage(`{"path":"` + strings.Repeat("x", DefaultMaxArgumentBytes) + `"}`)}, false,
			[]string{"at most 1048576 are allowed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := ran.Load()
			res, err := r.Call(t.Context(), Call{}, tt.req)
			if err != nil {
				t.Fatalf("Call: unexpected fault %v", err)
			}
			if res.Success != tt.wantOK {
				t.Fatalf("Success = %v, want %v (error %q)", res.Success, tt.wantOK, res.Error)
			}
			for _, w := range tt.wantError {
				if !strings.Contains(res.Error, w) {
					t.Errorf("Error = %q, want it to contain %q", res.Error, w)
				}
			}
			if ran := ran.Load() - before; !tt.wantOK && ran != 0 {
				t.Errorf("handler ran %d times for a rejected call", ran)
			}
		})
	}
}

func TestRunner_ResultsInCallOrder(t *testing.T) {
	for _, inline := range []bool{false, true} {
		t.Run(map[bool]string{false: "goroutine", true: "inline"}[inline], func(t *testing.T) {
			const parallel = 4
			var running, maxRunning atomic.Int32
			var exclusiveViolations atomic.Int32
			started := make(chan struct{}, parallel)
			release := make(chan struct{})
			par := textTool("par", Spec{Annotations: Annotations{ParallelSafe: true}}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
				n := running.Add(1)
				defer running.Add(-1)
				for m := maxRunning.Load(); n > m && !maxRunning.CompareAndSwap(m, n); m = maxRunning.Load() {
				}
				started <- struct{}{}
				select {
				case <-release:
				case <-ctx.Done():
					return Failure("not released"), nil
				}
				return Text("par " + in.Path), nil
			})
			excl := textTool("excl", Spec{}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
				if running.Load() != 0 {
					exclusiveViolations.Add(1)
				}
				return Text("excl " + in.Path), nil
			})
			r := NewRunner(mustRegistry(t, par, excl), &RunnerOptions{Inline: inline, MaxParallel: parallel})
			var reqs []Request
			var want []string
			for i, name := range []string{"par", "par", "par", "par", "excl", "par", "par", "excl"} {
				p := string(rune('a' + i))
				reqs = append(reqs, Request{Name: name, Arguments: json.RawMessage(`{"path":"` + p + `"}`)})
				want = append(want, name+" "+p)
			}
			// Release parallel calls only once a whole group has started, which
			// proves they run together.
			go func() {
				for _, group := range []int{4, 2} {
					for range group {
						<-started
					}
					release <- struct{}{}
					for range group - 1 {
						release <- struct{}{}
					}
				}
			}()
			results, err := r.Run(t.Context(), Call{}, reqs)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, res := range results {
				got = append(got, res.Output)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
			if inline {
				return // inline calls of one group still run on their own goroutines
			}
			if maxRunning.Load() != parallel {
				t.Errorf("at most %d parallel-safe calls ran at once, want %d", maxRunning.Load(), parallel)
			}
			if exclusiveViolations.Load() != 0 {
				t.Errorf("an exclusive call ran while %d others were running", exclusiveViolations.Load())
			}
		})
	}
}

func TestRunner_Timeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := textTool("slow", Spec{Timeout: 2 * time.Second}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
			<-ctx.Done()
			return Result{Output: "partial"}, nil
		})
		r := NewRunner(mustRegistry(t, slow), nil)
		start := time.Now()
		res, err := r.Call(t.Context(), Call{}, Request{Name: "slow", Arguments: json.RawMessage(`{"path":"x"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Success || res.Error != "timed out after 2s" {
			t.Errorf("result = %+v, want a failure \"timed out after 2s\"", res)
		}
		if !strings.Contains(res.Output, "partial") {
			t.Errorf("Output = %q, want the partial output kept", res.Output)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("call took %v, want 2s", d)
		}
	})
}

func TestRunner_AbandonsHandlerIgnoringCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stuck := make(chan struct{})
		defer close(stuck)
		deaf := textTool("deaf", Spec{Timeout: time.Second}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
			<-stuck
			return Text("too late"), nil
		})
		r := NewRunner(mustRegistry(t, deaf, textTool("next", Spec{}, echoPath)), &RunnerOptions{AbandonAfter: 3 * time.Second})
		results, err := r.Run(t.Context(), Call{}, []Request{
			{Name: "deaf", Arguments: json.RawMessage(`{"path":"x"}`)},
			{Name: "next", Arguments: json.RawMessage(`{"path":"y"}`)},
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := "timed out after 1s; the tool did not stop within 3s and was abandoned"; results[0].Error != want {
			t.Errorf("Error = %q, want %q", results[0].Error, want)
		}
		if !results[1].Success || results[1].Output != "y" {
			t.Errorf("next call = %+v, want it to run after the abandoned one", results[1])
		}
	})
}

func TestRunner_Cancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	block := textTool("block", Spec{}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
		cancel()
		<-ctx.Done()
		return Result{}, ctx.Err()
	})
	r := NewRunner(mustRegistry(t, block, textTool("after", Spec{}, echoPath)), nil)
	results, err := r.Run(ctx, Call{}, []Request{
		{Name: "block", Arguments: json.RawMessage(`{"path":"x"}`)},
		{Name: "after", Arguments: json.RawMessage(`{"path":"y"}`)},
		{Name: "after", Arguments: json.RawMessage(`{"path":"z"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 {
		t.Fatalf("got %d results, want 3", len(results))
	}
	if results[0].Success || !strings.HasPrefix(results[0].Error, "cancelled") {
		t.Errorf("running call: %+v, want failure starting with \"cancelled\"", results[0])
	}
	for _, res := range results[1:] {
		if res.Success || res.Error != "cancelled before it started: cancelled" {
			t.Errorf("unstarted call: %+v, want \"cancelled before it started\"", res)
		}
	}
}

// TestRunner_CancelledSaysItOnce: a cancelled call's error starts with
// "cancelled" once, whether or not the tool said so itself.
func TestRunner_CancelledSaysItOnce(t *testing.T) {
	for _, tt := range []struct{ toolSays, want string }{
		{"", "cancelled"},
		{"exit status 1", "cancelled; exit status 1"},
		{"cancelled; the command was stopped", "cancelled; the command was stopped"},
	} {
		ctx, cancel := context.WithCancel(t.Context())
		stop := textTool("stop", Spec{}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
			cancel()
			<-ctx.Done()
			return Result{Error: tt.toolSays}, nil
		})
		res, err := NewRunner(mustRegistry(t, stop), nil).Call(ctx, Call{}, Request{Name: "stop", Arguments: json.RawMessage(`{"path":"x"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Success || res.Error != tt.want {
			t.Errorf("the tool said %q: Error = %q, want %q", tt.toolSays, res.Error, tt.want)
		}
	}
}

func TestRunner_RecoversPanics(t *testing.T) {
	for _, inline := range []bool{false, true} {
		boom := textTool("boom", Spec{}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
			var p *pathInput
			return Text(p.Path), nil // nil pointer dereference
		})
		r := NewRunner(mustRegistry(t, boom), &RunnerOptions{Inline: inline})
		res, err := r.Call(t.Context(), Call{}, Request{Name: "boom", Arguments: json.RawMessage(`{"path":"x"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Success || !strings.Contains(res.Error, "tool boom panicked: runtime error: invalid memory address or nil pointer dereference") {
			t.Errorf("inline=%v: Error = %q, want the panic message", inline, res.Error)
		}
		if !strings.Contains(res.Error, "runner_test.go") {
			t.Errorf("inline=%v: Error = %q, want a short stack naming the panicking file", inline, res.Error)
		}
	}
}

func TestRunner_Retries(t *testing.T) {
	tests := []struct {
		name      string
		attempts  int
		failures  int
		retriable bool
		wantOK    bool
		wantCalls int
		wantTime  time.Duration
	}{
		{"retriable error retried until success", 3, 2, true, true, 3, 3 * time.Second},
		{"retries capped by policy", 1, 5, true, false, 2, time.Second},
		{"retries capped at MaxRetries", 10, 10, true, false, MaxRetries + 1, 7 * time.Second},
		{"plain errors not retried", 3, 1, false, false, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				flaky := textTool("flaky", Spec{Retry: RetryPolicy{Attempts: tt.attempts}}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
					calls++
					if calls <= tt.failures {
						err := errors.New("rate limited")
						if tt.retriable {
							err = Retriable(err)
						}
						return Result{}, err
					}
					return Text("done"), nil
				})
				r := NewRunner(mustRegistry(t, flaky), nil)
				start := time.Now()
				res, err := r.Call(t.Context(), Call{}, Request{Name: "flaky", Arguments: json.RawMessage(`{"path":"x"}`)})
				if err != nil {
					t.Fatal(err)
				}
				if res.Success != tt.wantOK || calls != tt.wantCalls {
					t.Errorf("Success=%v after %d calls, want %v after %d (result %+v)", res.Success, calls, tt.wantOK, tt.wantCalls, res)
				}
				if d := time.Since(start); d != tt.wantTime {
					t.Errorf("backoff took %v, want %v", d, tt.wantTime)
				}
				if !tt.wantOK && !strings.Contains(res.Error, "rate limited") {
					t.Errorf("Error = %q, want the tool's message", res.Error)
				}
			})
		})
	}
}

func TestRunner_BoundsOutput(t *testing.T) {
	big := strings.Repeat("h", 1000) + strings.Repeat("é", 20_000) + strings.Repeat("t", 1000) // 42,000 bytes
	loud := textTool("loud", Spec{}, func(ctx context.Context, c *Call, in pathInput) (Result, error) { return Text(big), nil })
	reg := mustRegistry(t, loud)
	req := Request{ID: "c1", Name: "loud", Arguments: json.RawMessage(`{"path":"x"}`)}

	t.Run("spill inside the workspace", func(t *testing.T) {
		dir := t.TempDir()
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		res, err := NewRunner(reg, &RunnerOptions{OutputLimit: 10_000}).Call(t.Context(), Call{Root: root, SessionID: "s1"}, req)
		if err != nil {
			t.Fatal(err)
		}
		checkBounded(t, res.Output, big, 10_000)
		spill := filepath.Join(".wield", "spill", "s1", "c1.txt")
		if !strings.Contains(res.Output, spill) {
			t.Errorf("output does not name the spill file %s:\n%s", spill, res.Output[1900:2200])
		}
		got, err := os.ReadFile(filepath.Join(dir, spill))
		if err != nil || string(got) != big {
			t.Errorf("spill file: %d bytes, err %v; want the whole %d-byte output", len(got), err, len(big))
		}
	})
	t.Run("spill dir", func(t *testing.T) {
		dir := t.TempDir()
		res, err := NewRunner(reg, &RunnerOptions{OutputLimit: 10_000, SpillDir: dir}).Call(t.Context(), Call{}, req)
		if err != nil {
			t.Fatal(err)
		}
		checkBounded(t, res.Output, big, 10_000)
		got, err := os.ReadFile(filepath.Join(dir, "run", "c1.txt"))
		if err != nil || string(got) != big {
			t.Errorf("spill file: %d bytes, err %v; want the whole output", len(got), err)
		}
	})
}

func checkBounded(t *testing.T, got, full string, limit int) {
	t.Helper()
	if len(got) > limit+300 {
		t.Errorf("bounded output is %d bytes, want about %d", len(got), limit)
	}
	if !strings.HasPrefix(got, full[:1000]) || !strings.HasSuffix(got, full[len(full)-1000:]) {
		t.Errorf("bounded output lost its head or tail")
	}
	if !strings.Contains(got, "bytes omitted of 42000") {
		t.Errorf("bounded output does not say what was omitted")
	}
	// Cut points fall on rune boundaries: the text stays valid UTF-8.
	for i, r := range got {
		if r == '\uFFFD' {
			t.Fatalf("bounded output has a broken rune at byte %d", i)
		}
	}
}

type recorded struct {
	mu     sync.Mutex
	events []string
	fail   string
}

func (r *recorded) RecordCall(_ context.Context, c *Call, args json.RawMessage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, "call "+c.ID+" "+c.Tool+" "+string(args))
	if r.fail == "call" {
		return errors.New("disk full")
	}
	return nil
}

func (r *recorded) RecordResult(_ context.Context, c *Call, res Result) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, "result "+c.ID+" "+res.Output+res.Error)
	if r.fail == "result" {
		return errors.New("disk full")
	}
	return nil
}

func TestRunner_RecordsCallsAndResultsInOrder(t *testing.T) {
	par := textTool("par", Spec{Annotations: Annotations{ParallelSafe: true}}, echoPath)
	reg := mustRegistry(t, par, textTool("excl", Spec{}, echoPath))
	reqs := []Request{
		{ID: "1", Name: "par", Arguments: json.RawMessage(`{"path":"a"}`)},
		{ID: "2", Name: "par", Arguments: json.RawMessage(`{"path":"b"}`)},
		{ID: "3", Name: "excl", Arguments: json.RawMessage(`{"path":"c"}`)},
		{ID: "4", Name: "nope", Arguments: json.RawMessage(`{}`)},
	}
	rec := &recorded{}
	if _, err := NewRunner(reg, &RunnerOptions{Recorder: rec}).Run(t.Context(), Call{}, reqs); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`call 1 par {"path":"a"}`, `call 2 par {"path":"b"}`, `call 3 excl {"path":"c"}`, `call 4 nope {}`,
		"result 1 a", "result 2 b", "result 3 c", "result 4 tool nope not found",
	}
	if diff := cmp.Diff(want, rec.events); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}

	for _, fail := range []string{"call", "result"} {
		rec := &recorded{fail: fail}
		results, err := NewRunner(reg, &RunnerOptions{Recorder: rec}).Run(t.Context(), Call{}, reqs[:2])
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("recorder failing on %s: err = %v, want the fault returned", fail, err)
		}
		if len(results) != 2 {
			t.Errorf("recorder failing on %s: %d results, want one per call", fail, len(results))
		}
	}
}

func TestRunner_Events(t *testing.T) {
	progress := textTool("progress", Spec{KeyArgs: []string{"path"}}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
		c.Emit(Event{Message: "half way", Progress: 1, Total: 2})
		return Text("ok"), nil
	})
	var got []string
	r := NewRunner(mustRegistry(t, progress), &RunnerOptions{OnEvent: func(e Event) {
		s := string(e.Kind) + " " + e.CallID + " " + e.Tool
		if e.Spec != nil {
			// Started and finished events carry the tool's facts.
			s += " " + strings.Join(e.Spec.KeyArgs, ",")
		}
		if e.Message != "" {
			s += " " + e.Message
		}
		if e.Result != nil && e.Result.Output != "" {
			s += " " + e.Result.Output
		}
		got = append(got, s)
	}})
	if _, err := r.Call(t.Context(), Call{}, Request{ID: "c9", Name: "progress", Arguments: json.RawMessage(`{"path":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Call(t.Context(), Call{}, Request{ID: "c10", Name: "nosuch", Arguments: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	want := []string{"call_started c9 progress path", "call_progress c9 progress half way", "call_finished c9 progress path ok",
		"call_started c10 nosuch", "call_finished c10 nosuch"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestRunner_FatalStopsTheRun(t *testing.T) {
	fatal := textTool("journal", Spec{}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
		return Result{}, Fatal(errors.New("journal corrupt at line 7"))
	})
	plain := textTool("plain", Spec{}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
		return Result{}, errors.New("file not found")
	})
	r := NewRunner(mustRegistry(t, fatal, plain), nil)
	res, err := r.Call(t.Context(), Call{}, Request{Name: "journal", Arguments: json.RawMessage(`{"path":"x"}`)})
	if _, ok := errors.AsType[*FatalError](err); !ok || res.Success {
		t.Errorf("fatal tool: err = %v, result %+v; want a *FatalError and a failed result", err, res)
	}
	res, err = r.Call(t.Context(), Call{}, Request{Name: "plain", Arguments: json.RawMessage(`{"path":"x"}`)})
	if err != nil || res.Success || res.Error != "file not found" {
		t.Errorf("plain error: err = %v, result %+v; want no fault and a failed result", err, res)
	}
}

func TestRunner_MakesUpMissingIDs(t *testing.T) {
	var ids []string
	idTool := textTool("id", Spec{}, func(ctx context.Context, c *Call, in pathInput) (Result, error) {
		ids = append(ids, c.ID)
		return Text(c.ID), nil
	})
	r := NewRunner(mustRegistry(t, idTool), nil)
	req := Request{Name: "id", Arguments: json.RawMessage(`{"path":"x"}`)}
	if _, err := r.Run(t.Context(), Call{}, []Request{req, req}); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] == "" || ids[0] == ids[1] {
		t.Errorf("ids = %q, want two distinct non-empty ids", ids)
	}
}

func TestResult_JSON(t *testing.T) {
	r := Result{Success: true, Output: "hi", Data: map[string]any{"n": 1.0}, Duration: 1500 * time.Microsecond}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"success":true,"output":"hi","data":{"n":1},"durationMs":1.5}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
