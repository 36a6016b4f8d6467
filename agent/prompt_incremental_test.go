package agent

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
)

// TestRunStateMessagesMatchBuildPrompt takes a run's prompt through the
// changes a run makes to it (the round growing, the todos changing, images
// coming and going, results put in order, a compaction) and checks every
// prompt against KeepImages(BuildPrompt(p)), and that no prompt changes
// once returned, though the next ones extend it.
func TestRunStateMessagesMatchBuildPrompt(t *testing.T) {
	call := func(id string, ids ...string) llm.Message {
		m := llm.Message{Role: llm.RoleAssistant}
		for _, c := range append([]string{id}, ids...) {
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: c, Name: "add", Arguments: json.RawMessage(`{}`)})
		}
		return m
	}
	result := func(id string) llm.Message {
		return llm.Message{Role: llm.RoleTool, ToolCallID: id, ToolName: "add", Content: "r" + id}
	}
	image := func(id string) llm.Message {
		m := result(id)
		m.Images = []llm.Image{{MIMEType: "image/png", Hash: "h" + id}}
		return m
	}
	st := &runState{}
	p := Prompt{System: "system", History: []llm.Message{{Role: llm.RoleUser, Content: "old"}}, Task: "task"}
	steps := []struct {
		name   string
		change func()
	}{
		{"the first prompt", func() {}},
		{"a call and its result", func() { p.Round = append(p.Round, call("1"), result("1")) }},
		{"another", func() { p.Round = append(p.Round, call("2"), result("2")) }},
		{"nothing new", func() {}},
		{"the todos change", func() { p.Todos = []Todo{{Title: "t", Status: "pending"}} }},
		{"the same todos", func() { p.Todos = []Todo{{Title: "t", Status: "pending"}} }},
		{"two calls answered in turn", func() { p.Round = append(p.Round, call("3", "4"), result("3"), result("4")) }},
		{"an image", func() { p.Round = append(p.Round, call("5"), image("5")) }},
		{"images past the limit", func() { p.Round = append(p.Round, call("6"), image("6"), call("7"), image("7")) }},
		{"a compaction that drops the images", func() {
			p.History = []llm.Message{{Role: llm.RoleUser, Content: "summary"}}
			p.Round = append([]llm.Message(nil), p.Round[:7]...)
			st.rebuild()
		}},
		{"after the compaction", func() { p.Round = append(p.Round, call("8"), result("8")) }},
		{"results put in order", func() {
			p.Round = append(p.Round, call("9", "10"), result("10"), result("9"))
			if reorder(p.Round) < st.built.round {
				st.rebuild()
			}
		}},
		{"the system prompt changes", func() { p.System = "other" }},
	}
	type returned struct{ msgs, copy []llm.Message }
	var all []returned
	for _, step := range steps {
		step.change()
		got, images := st.messages(p, 1)
		want := KeepImages(BuildPrompt(p), 1)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: the prompt differs from BuildPrompt's (-want +got):\n%s", step.name, diff)
		}
		if images != hasImages(want) {
			t.Errorf("%s: images = %v", step.name, images)
		}
		if cap(got) != len(got) {
			t.Errorf("%s: the prompt has room past its end", step.name)
		}
		all = append(all, returned{got, append([]llm.Message(nil), got...)})
	}
	for i, r := range all {
		if diff := cmp.Diff(r.copy, r.msgs); diff != "" {
			t.Errorf("%s: the prompt changed after it was returned:\n%s", steps[i].name, diff)
		}
	}
}

// TestReorder checks the index reorder reports.
func TestReorder(t *testing.T) {
	a := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1"}, {ID: "2"}}}
	r1 := llm.Message{Role: llm.RoleTool, ToolCallID: "1"}
	r2 := llm.Message{Role: llm.RoleTool, ToolCallID: "2"}
	tests := []struct {
		name  string
		round []llm.Message
		want  int
	}{
		{"in order", []llm.Message{a, r1, r2}, 3},
		{"out of order", []llm.Message{a, r1, r2, a, r2, r1}, 4},
		{"empty", nil, 0},
	}
	for _, tt := range tests {
		if got := reorder(tt.round); got != tt.want {
			t.Errorf("%s: reorder = %d, want %d", tt.name, got, tt.want)
		}
		if tt.round != nil && (tt.round[len(tt.round)-2].ToolCallID != "1" || tt.round[len(tt.round)-1].ToolCallID != "2") {
			t.Errorf("%s: results not in order: %+v", tt.name, tt.round)
		}
	}
}
