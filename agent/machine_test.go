package agent

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

func reply(text string, calls ...string) Input {
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: text}, Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}}
	for i, name := range calls {
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("c%d", i), Name: name, Arguments: json.RawMessage(`{}`)})
	}
	return Input{Kind: InputModelReplied, Reply: resp}
}

func done(results ...CallResult) Input { return Input{Kind: InputToolsDone, Results: results} }

func ok(name, output string) CallResult {
	return CallResult{ID: "c0", Tool: name, Arguments: json.RawMessage(`{}`), Output: output, Success: true}
}

func TestMachine(t *testing.T) {
	compacted := Input{Kind: InputCompacted}
	tests := []struct {
		name   string
		lim    Limits
		inputs []Input
		// kinds are the commands after each input, the first after start.
		kinds  []CommandKind
		reason StopReason
	}{
		{"answer at once", Limits{}, []Input{reply("hi")},
			[]CommandKind{CmdCallModel, CmdStop}, StopAnswer},
		{"one tool round", Limits{}, []Input{reply("", "read"), done(ok("read", "x")), compacted, reply("done")},
			[]CommandKind{CmdCallModel, CmdRunTools, CmdCompact, CmdCallModel, CmdStop}, StopAnswer},
		{"max rounds", Limits{MaxRounds: 1}, []Input{reply("", "read"), done(ok("read", "x")), compacted},
			[]CommandKind{CmdCallModel, CmdRunTools, CmdCompact, CmdStop}, StopMaxRounds},
		{"stop tool", Limits{StopAtTools: []string{"finish"}}, []Input{reply("", "finish"), done(ok("finish", ""))},
			[]CommandKind{CmdCallModel, CmdRunTools, CmdStop}, StopTool},
		{"failed stop tool goes on", Limits{StopAtTools: []string{"finish"}}, []Input{reply("", "finish"),
			done(CallResult{ID: "c0", Tool: "finish", Error: "bad", Success: false}), compacted},
			[]CommandKind{CmdCallModel, CmdRunTools, CmdCompact, CmdCallModel}, ""},
		{"loop", Limits{LoopRepeats: 2, LoopWindow: 5}, []Input{reply("", "ls"), done(ok("ls", "a")), compacted, reply("", "ls"), done(ok("ls", "a"))},
			[]CommandKind{CmdCallModel, CmdRunTools, CmdCompact, CmdCallModel, CmdRunTools, CmdStop}, StopLoop},
		{"different results are no loop", Limits{LoopRepeats: 2, LoopWindow: 5}, []Input{reply("", "ls"), done(ok("ls", "a")), compacted, reply("", "ls"), done(ok("ls", "b"))},
			[]CommandKind{CmdCallModel, CmdRunTools, CmdCompact, CmdCallModel, CmdRunTools, CmdCompact}, ""},
		{"approval", Limits{}, []Input{reply("", "rm"), {Kind: InputToolsDone, Pending: []tool.PendingCall{{ID: "c0", Tool: "rm"}}},
			done(ok("rm", "gone")), compacted},
			[]CommandKind{CmdCallModel, CmdRunTools, CmdAwaitApproval, CmdCompact, CmdCallModel}, ""},
		{"max tokens drops calls", Limits{}, []Input{{Kind: InputModelReplied, Reply: &llm.Response{Stop: llm.StopMaxTokens,
			Message: llm.Message{Content: "cut", ToolCalls: []llm.ToolCall{{ID: "c0", Name: "x"}}}}}},
			[]CommandKind{CmdCallModel, CmdStop}, StopMaxTokens},
		{"refusal", Limits{}, []Input{{Kind: InputModelReplied, Reply: &llm.Response{Stop: llm.StopRefusal}}},
			[]CommandKind{CmdCallModel, CmdStop}, StopRefusal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMachine(tt.lim)
			cmd, err := m.Step(Input{Kind: InputStart})
			if err != nil {
				t.Fatal(err)
			}
			got := []CommandKind{cmd.Kind}
			for i, in := range tt.inputs {
				if cmd, err = m.Step(in); err != nil {
					t.Fatalf("input %d (%s): %v", i, in.Kind, err)
				}
				got = append(got, cmd.Kind)
			}
			if !reflect.DeepEqual(got, tt.kinds) {
				t.Fatalf("commands %v, want %v", got, tt.kinds)
			}
			if tt.reason != "" && cmd.Outcome.Reason != tt.reason {
				t.Fatalf("reason %q (%s), want %q", cmd.Outcome.Reason, cmd.Outcome.Note, tt.reason)
			}
		})
	}
}

func TestMachineOutcome(t *testing.T) {
	m := NewMachine(Limits{})
	steps := []Input{{Kind: InputStart}, reply("looking", "read", "grep"),
		{Kind: InputToolsDone, Results: []CallResult{ok("read", "a"), ok("grep", "b")}, Usage: llm.Usage{InputTokens: 100}},
		{Kind: InputCompacted}, reply("the answer")}
	var cmd Command
	for _, in := range steps {
		var err error
		if cmd, err = m.Step(in); err != nil {
			t.Fatal(err)
		}
	}
	out := cmd.Outcome
	want := Outcome{Text: "the answer", Reason: StopAnswer, Rounds: 2, ToolCalls: 2, Usage: llm.Usage{InputTokens: 120, OutputTokens: 4}}
	if !reflect.DeepEqual(*out, want) {
		t.Fatalf("outcome %+v, want %+v", *out, want)
	}
}

// TestMachineRejectsOutOfOrder checks that an input the machine does not
// wait for is refused and leaves its state as it was.
func TestMachineRejectsOutOfOrder(t *testing.T) {
	m := NewMachine(Limits{})
	if _, err := m.Step(reply("x")); err == nil || !strings.Contains(err.Error(), "cannot take input") {
		t.Fatalf("reply before start: %v", err)
	}
	if _, err := m.Step(Input{Kind: InputStart}); err != nil {
		t.Fatal(err)
	}
	before := m.State()
	for _, in := range []Input{{Kind: InputStart}, done(), {Kind: InputCompacted}, {Kind: InputModelReplied}} {
		if _, err := m.Step(in); err == nil {
			t.Fatalf("input %s in phase model was taken", in.Kind)
		}
	}
	if !reflect.DeepEqual(m.State(), before) {
		t.Fatalf("a refused input changed the state")
	}
	if _, err := m.Step(reply("bye")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Step(Input{Kind: InputStart}); err == nil {
		t.Fatal("a stopped machine took an input")
	}
}

// TestMachineResume checks the path of a run resumed after approval.
func TestMachineResume(t *testing.T) {
	m := NewMachine(Limits{MaxRounds: 3})
	m.Resume(2, []tool.PendingCall{{ID: "a", Tool: "rm"}, {ID: "b", Tool: "rm"}})
	cmd, err := m.Step(Input{Kind: InputToolsDone, Results: []CallResult{{ID: "a", Tool: "rm", Success: true}}, Pending: []tool.PendingCall{{ID: "b", Tool: "rm"}}})
	if err != nil || cmd.Kind != CmdAwaitApproval || len(cmd.Pending) != 1 || cmd.Outcome.Reason != StopApproval {
		t.Fatalf("partly answered: %+v %v", cmd, err)
	}
	if cmd, err = m.Step(done(CallResult{ID: "b", Tool: "rm", Success: true})); err != nil || cmd.Kind != CmdCompact {
		t.Fatalf("all answered: %+v %v", cmd, err)
	}
	if cmd, _ = m.Step(Input{Kind: InputCompacted}); cmd.Kind != CmdCallModel || cmd.Round != 3 {
		t.Fatalf("after compaction: %+v", cmd)
	}
	if cmd, _ = m.Step(reply("", "ls")); cmd.Kind != CmdRunTools {
		t.Fatalf("round 3: %+v", cmd)
	}
	m.Step(done(ok("ls", "")))
	if cmd, _ = m.Step(Input{Kind: InputCompacted}); cmd.Kind != CmdStop || cmd.Outcome.Reason != StopMaxRounds {
		t.Fatalf("the limit counts the rounds before the resumption: %+v", cmd)
	}
	if out := cmd.Outcome; out.ToolCalls != 3 || out.Rounds != 1 || len(out.Pending) != 0 || out.Note == "" {
		t.Fatalf("outcome %+v", out)
	}
}

// FuzzMachine drives a machine with arbitrary inputs and checks, for
// every prefix, that a refused input changes nothing, and that a machine
// restored from its JSON-encoded state makes the same decisions as the
// original (what a durable runner relies on when it continues a run in
// a new history).
func FuzzMachine(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 1, 2, 3, 1}, uint8(3))
	f.Add([]byte{0, 1, 4, 2, 3, 1, 1}, uint8(1))
	f.Add([]byte{0, 5, 5, 5}, uint8(0))
	f.Fuzz(func(t *testing.T, ops []byte, max uint8) {
		lim := Limits{MaxRounds: int(max % 6), LoopRepeats: 2, LoopWindow: 3, StopAtTools: []string{"t3"}}
		m := NewMachine(lim)
		for i, op := range ops {
			in := fuzzInput(op, i)
			before := m.State()
			raw, err := json.Marshal(before)
			if err != nil {
				t.Fatal(err)
			}
			var saved MachineState
			if err := json.Unmarshal(raw, &saved); err != nil {
				t.Fatal(err)
			}
			twin := RestoreMachine(lim, saved)
			cmd, err := m.Step(in)
			tcmd, terr := twin.Step(in)
			if (err == nil) != (terr == nil) || !reflect.DeepEqual(cmd, tcmd) {
				t.Fatalf("step %d: restored machine decided %+v (%v), original %+v (%v)", i, tcmd, terr, cmd, err)
			}
			if err != nil {
				if !reflect.DeepEqual(m.State(), before) {
					t.Fatalf("step %d: refused input %s changed the state", i, in.Kind)
				}
				continue
			}
			if cmd.Kind == CmdCallModel && cmd.Round > lim.MaxRounds && lim.MaxRounds > 0 {
				t.Fatalf("round %d beyond the limit %d", cmd.Round, lim.MaxRounds)
			}
			if (cmd.Kind == CmdStop || cmd.Kind == CmdAwaitApproval) != (cmd.Outcome != nil) {
				t.Fatalf("command %s with outcome %v", cmd.Kind, cmd.Outcome)
			}
		}
	})
}

func fuzzInput(op byte, i int) Input {
	name := fmt.Sprintf("t%d", op>>4&3)
	switch op % 6 {
	case 0:
		return Input{Kind: InputStart}
	case 1:
		if op&0x40 != 0 {
			return reply("text")
		}
		return reply("", name)
	case 2:
		return done(CallResult{ID: "c0", Tool: name, Output: fmt.Sprint(op >> 7), Success: op&0x08 == 0})
	case 3:
		return Input{Kind: InputCompacted}
	case 4:
		if op&0x80 != 0 {
			return Input{Kind: InputModelOverflow}
		}
		return Input{Kind: InputToolsDone, Pending: []tool.PendingCall{{ID: "c0", Tool: name}}}
	default:
		return Input{Kind: InputKind(fmt.Sprint("bogus", i))}
	}
}

// TestMachineOverflow checks that a prompt over the context window is
// compacted and tried again, once a round.
func TestMachineOverflow(t *testing.T) {
	m := NewMachine(Limits{})
	m.Step(Input{Kind: InputStart})
	cmd, err := m.Step(Input{Kind: InputModelOverflow})
	if err != nil || cmd.Kind != CmdCompact || !cmd.Overflow {
		t.Fatalf("after an overflow: %+v %v", cmd, err)
	}
	if cmd, _ = m.Step(Input{Kind: InputCompacted}); cmd.Kind != CmdCallModel || cmd.Round != 1 {
		t.Fatalf("after the compaction: %+v", cmd)
	}
	if cmd, _ = m.Step(reply("", "ls")); cmd.Kind != CmdRunTools {
		t.Fatalf("round 1 answered: %+v", cmd)
	}
	m.Step(done(ok("ls", "x")))
	if cmd, _ = m.Step(Input{Kind: InputCompacted}); cmd.Kind != CmdCallModel || cmd.Round != 2 {
		t.Fatalf("round 2: %+v", cmd)
	}
	// Round 2 overflows twice: the second time the run stops.
	m.Step(Input{Kind: InputModelOverflow})
	m.Step(Input{Kind: InputCompacted})
	if cmd, _ = m.Step(Input{Kind: InputModelOverflow}); cmd.Kind != CmdStop || cmd.Outcome.Reason != StopError ||
		!strings.Contains(cmd.Outcome.Note, "even after compaction") {
		t.Fatalf("a second overflow: %+v", cmd)
	}
	if _, err := m.Step(Input{Kind: InputModelOverflow}); err == nil {
		t.Fatal("an overflow outside a model call was taken")
	}
}

// TestMachineOverflowNote: the note of a run stopped by an overflow says
// how to compact by hand, in the terms Limits.CompactHint gives.
func TestMachineOverflowNote(t *testing.T) {
	tests := []struct{ hint, want string }{
		{"", "compact it by hand (compact.Compactor.Compact)"},
		{"wield chat /compact", "compact it by hand (wield chat /compact)"},
	}
	for _, tt := range tests {
		m := NewMachine(Limits{CompactHint: tt.hint})
		var cmd Command
		for _, in := range []Input{{Kind: InputStart}, {Kind: InputModelOverflow}, {Kind: InputCompacted}, {Kind: InputModelOverflow}} {
			var err error
			if cmd, err = m.Step(in); err != nil {
				t.Fatal(err)
			}
		}
		if cmd.Kind != CmdStop || !strings.HasSuffix(cmd.Outcome.Note, tt.want) {
			t.Errorf("hint %q: the run ended with %+v, want a note ending %q", tt.hint, cmd.Outcome, tt.want)
		}
	}
}
