package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
)

const script = `# a two-step tool loop
{"turn": 1, "round": 1, "tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "go.mod"}}]}
{"turn": 1, "round": 2, "text": "The module is wield.", "usage": {"input_tokens": 10, "output_tokens": 5}}
{"round": 1, "text": "any turn"}
{"turn": 3, "round": 1, "error": {"status": 429, "message": "slow down"}}
`

func TestProvider_Stream(t *testing.T) {
	entries, err := Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(entries)
	if err != nil {
		t.Fatal(err)
	}
	user := func(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }
	round1 := &llm.Request{Messages: []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, user("what module?")}}
	var events []llm.Event
	res, err := p.Stream(t.Context(), round1, func(e llm.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if res.FinishReason != "tool_calls" || len(res.Message.ToolCalls) != 1 || res.Message.ToolCalls[0].Name != "read_file" {
		t.Fatalf("round 1 = %+v, want one read_file call", res)
	}
	if len(events) != 1 || events[0].Kind != llm.EventToolCall {
		t.Errorf("events = %+v, want one tool_call event", events)
	}
	round2 := &llm.Request{Messages: append(round1.Messages, res.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Content: "module wield"})}
	events = nil
	res, err = p.Stream(t.Context(), round2, func(e llm.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, e := range events {
		text.WriteString(e.Text)
	}
	if res.Message.Content != "The module is wield." || text.String() != res.Message.Content || res.FinishReason != "stop" {
		t.Errorf("round 2 = %+v, streamed %q", res, text.String())
	}
	if diff := cmp.Diff(llm.Usage{InputTokens: 10, OutputTokens: 5}, res.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}

	turn2 := &llm.Request{Messages: append(round2.Messages, res.Message, user("again"))}
	if res, err := p.Stream(t.Context(), turn2, nil); err != nil || res.Message.Content != "any turn" {
		t.Errorf("turn 2 = %+v, %v; want the any-turn entry", res, err)
	}
	turn3 := &llm.Request{Messages: append(turn2.Messages, llm.Message{Role: llm.RoleAssistant, Content: "x"}, user("third"))}
	_, err = p.Stream(t.Context(), turn3, nil)
	if apiErr, ok := errors.AsType[*llm.APIError](err); !ok || apiErr.Status != 429 {
		t.Errorf("turn 3 error = %v, want a scripted 429", err)
	}
	unmatched := &llm.Request{Messages: append(round2.Messages, res.Message, llm.Message{Role: llm.RoleTool, Content: "y"})}
	if _, err := p.Stream(t.Context(), unmatched, nil); err == nil || !strings.Contains(err.Error(), "turn 1, round 3") {
		t.Errorf("unmatched error = %v, want one naming turn 1, round 3", err)
	}
	if got := p.Unmatched(); len(got) != 1 {
		t.Errorf("Unmatched has %d requests, want 1", len(got))
	}
}

// TestProvider_When checks that entries with "when" answer only the
// conversations that mention their text, so a parent and its children can
// share a script although all of them start at turn 1, round 1.
func TestProvider_When(t *testing.T) {
	p := mustProvider(t, `{"turn": 1, "round": 1, "text": "parent"}
{"round": 1, "text": "any conversation"}
{"when": "You review code", "round": 1, "text": "reviewer"}
{"when": "Review main.go", "turn": 1, "round": 1, "text": "the main.go review"}
{"when": "never said", "turn": 1, "round": 1, "text": "unused"}
{"when": "Review", "round": 2, "text": "second round of a review"}`)
	sys := func(s string) llm.Message { return llm.Message{Role: llm.RoleSystem, Content: s} }
	user := func(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }
	asst := llm.Message{Role: llm.RoleAssistant, Content: "..."}
	tests := []struct {
		name string
		msgs []llm.Message
		want string
	}{
		{"no when holds: the exact turn", []llm.Message{sys("You are wield"), user("fix it")}, "parent"},
		{"turn 2 falls back to turn 0", []llm.Message{sys("You are wield"), user("a"), asst, user("b")}, "any conversation"},
		{"the system prompt", []llm.Message{sys("You review code."), user("Review util.go")}, "reviewer"},
		{"when and the turn beat when alone", []llm.Message{sys("You review code."), user("Review main.go")}, "the main.go review"},
		{"only the first user message counts", []llm.Message{sys("x"), user("a"), asst, user("Review main.go")}, "any conversation"},
		{"when at round 2", []llm.Message{sys("x"), user("Review it"), asst}, "second round of a review"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.Stream(t.Context(), &llm.Request{Messages: tt.msgs}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Message.Content != tt.want {
				t.Errorf("answer = %q, want %q", res.Message.Content, tt.want)
			}
		})
	}
	if _, err := p.Stream(t.Context(), &llm.Request{Messages: []llm.Message{sys("x"), user("y"), asst}}, nil); err == nil {
		t.Error("round 2 without the when text was answered")
	}
}

func mustProvider(t *testing.T, script string) *Provider {
	t.Helper()
	entries, err := Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(entries)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParse_Errors(t *testing.T) {
	tests := []struct{ name, script, want string }{
		{"bad JSON", `{"round": 1,`, "line 1"},
		{"unknown field", "\n{\"round\": 1, \"txt\": \"x\"}", `line 2: json: unknown field "txt"`},
		{"two entries on a line", `{"round": 1} {"round": 2}`, "line 1: unexpected text after the entry"},
		{"trailing garbage", `{"round": 1}]`, "line 1: unexpected text after the entry"},
	}
	for _, tt := range tests {
		if _, err := Parse([]byte(tt.script)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Parse = %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := New([]Entry{{Round: 0}}); err == nil {
		t.Errorf("New accepted round 0")
	}
	if _, err := New([]Entry{{Round: 1, ToolCalls: []llm.ToolCall{{Arguments: json.RawMessage(`{}`)}}}}); err == nil {
		t.Errorf("New accepted a nameless tool call")
	}
}

// FuzzParse checks Parse against encoding/json, line by line, and that a
// parsed script survives a round trip: encoded again one entry a line, it
// parses to the same entries.
func FuzzParse(f *testing.F) {
	f.Add([]byte(script))
	f.Add([]byte("{\"round\":1}\n\n# c\n{\"round\":2,\"tool_calls\":[{\"name\":\"x\",\"arguments\":\"{\"}]}"))
	f.Add([]byte("{\"round\":1} {\"round\":2}\n"))
	f.Add([]byte("{\"when\":\"You review\",\"round\":1,\"text\":\"ok\"}\n"))
	f.Add([]byte("// x\r\n {\"round\": 1, \"text\": \"\\u00e9\\ud800\", \"usage\": {}} \r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := Parse(data)
		if err != nil {
			return
		}
		// The oracle: every line that is not blank or a comment is one
		// valid JSON value, and one entry.
		var lines int
		for line := range bytes.Lines(data) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("//")) {
				continue
			}
			if !json.Valid(line) {
				t.Fatalf("Parse accepted %q, which is not one JSON value", line)
			}
			lines++
		}
		if len(entries) != lines {
			t.Fatalf("Parse returned %d entries for %d lines", len(entries), lines)
		}
		// The round trip.
		encoded := encodeScript(t, entries)
		again, err := Parse(encoded)
		if err != nil {
			t.Fatalf("Parse(encoded entries) = %v\n%s", err, encoded)
		}
		if diff := cmp.Diff(normalize(entries), normalize(again)); diff != "" {
			t.Fatalf("entries changed in a round trip (-parsed +re-parsed):\n%s", diff)
		}
		if twice := encodeScript(t, again); !bytes.Equal(encoded, twice) {
			t.Fatalf("encoding is not stable:\n%s\n%s", encoded, twice)
		}
		if p, err := New(entries); err == nil {
			req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}}
			_, _ = p.Stream(t.Context(), req, func(llm.Event) {})
		}
	})
}

// encodeScript writes entries as a script, one JSON line each.
func encodeScript(t *testing.T, entries []Entry) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("encoding %+v: %v", e, err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// normalize returns entries with tool-call arguments in a canonical
// spelling (encoding compacts them and escapes <, > and &), missing
// arguments as null and an empty list of tool calls as none.
func normalize(entries []Entry) []Entry {
	out := make([]Entry, len(entries))
	for i, e := range entries {
		if len(e.ToolCalls) == 0 {
			e.ToolCalls = nil
		}
		e.ToolCalls = slices.Clone(e.ToolCalls)
		for j, c := range e.ToolCalls {
			e.ToolCalls[j].Arguments = canonical(c.Arguments)
		}
		out[i] = e
	}
	return out
}

// canonical returns the JSON text raw as encoding/json spells its value.
func canonical(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}
