package wire

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
)

// sent is a message with every field MessageKey reads.
func sent() llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: "text", ToolCallID: "", ToolName: "",
		Thinking:  []llm.Thinking{{Provider: "p", ID: "t1", Text: "thought", Signature: "sig", Redacted: "r"}},
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read file", Arguments: json.RawMessage(`{"a":1}`), Signature: "s"}}}
}

// TestRecentFindsOnlyTheSameMessage changes each field MessageKey reads,
// in a copy and in place in the caller's slices after the message was
// kept, and checks that the kept encoding is found only for the message
// unchanged.
func TestRecentFindsOnlyTheSameMessage(t *testing.T) {
	tests := []struct {
		name   string
		change func(m *llm.Message)
		found  bool
	}{
		{"unchanged", func(*llm.Message) {}, true},
		{"reasoning, which no encoding reads", func(m *llm.Message) { m.Reasoning = "other" }, true},
		{"role", func(m *llm.Message) { m.Role = llm.RoleUser }, false},
		{"content", func(m *llm.Message) { m.Content = "other" }, false},
		{"tool call id", func(m *llm.Message) { m.ToolCallID = "x" }, false},
		{"tool name", func(m *llm.Message) { m.ToolName = "x" }, false},
		{"a thinking field", func(m *llm.Message) { m.Thinking[0].Signature = "other" }, false},
		{"thinking dropped", func(m *llm.Message) { m.Thinking = nil }, false},
		{"call id", func(m *llm.Message) { m.ToolCalls[0].ID = "c2" }, false},
		{"call name", func(m *llm.Message) { m.ToolCalls[0].Name = "write_file" }, false},
		{"call arguments in place", func(m *llm.Message) { m.ToolCalls[0].Arguments[5] = '2' }, false},
		{"call signature", func(m *llm.Message) { m.ToolCalls[0].Signature = "" }, false},
		{"a call more", func(m *llm.Message) { m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: "c2", Name: "x"}) }, false},
		{"an image", func(m *llm.Message) { m.Images = []llm.Image{{MIMEType: "image/png", Data: []byte{1}}} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Recent
			m := sent()
			rm := r.Take([]llm.Message{m})
			if _, ok, err := rm.Lookup(0, m, &Names{}); ok || err != nil {
				t.Fatalf("an empty memory found a message (%v)", err)
			}
			rm.Keep(0, m, []byte("enc"))
			rm.Done(1)
			tt.change(&m)                      // in place: the slices are the kept message's caller's
			rm = r.Take([]llm.Message{sent()}) // the conversation as it was
			if len(rm.msgs) != 1 {
				t.Fatal("the conversation's memory was not taken")
			}
			enc, ok, err := rm.Lookup(0, m, &Names{})
			if err != nil {
				t.Fatal(err)
			}
			if ok != tt.found || ok && string(enc) != "enc" {
				t.Errorf("found %v (%q), want %v", ok, enc, tt.found)
			}
			if _, ok, _ := rm.Lookup(1, m, &Names{}); ok {
				t.Error("a position never kept was found")
			}
		})
	}
}

// TestRecentAgreesWithMessageKey checks, over random pairs of messages,
// that whenever Recent finds the first's encoding for the second, the two
// have the same MessageKey: the memory never answers where the cache
// would not.
func TestRecentAgreesWithMessageKey(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(options ...string) string { return options[r.IntN(len(options))] }
	random := func() llm.Message {
		m := llm.Message{Role: llm.Role(pick("user", "assistant", "tool")), Content: pick("", "a", "b"),
			ToolCallID: pick("", "c1"), ToolName: pick("", "t")}
		for range r.IntN(2) {
			m.Thinking = append(m.Thinking, llm.Thinking{Provider: pick("p", "q"), Text: pick("", "x")})
		}
		for range r.IntN(3) {
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: pick("c1", "c2"), Name: pick("a", "b:c"),
				Arguments: json.RawMessage(pick("", "{}", `{"a":1}`)), Signature: pick("", "s")})
		}
		return m
	}
	var c EncodeCache
	key := func(m llm.Message) [2]uint64 {
		var k CacheKey
		c.Reset(&k)
		if err := MessageKey(&k, m, &Names{}); err != nil {
			t.Fatal(err)
		}
		return k.sum()
	}
	var rec Recent
	found := 0
	for range 5000 {
		a, b := random(), random()
		rm := rec.Take(nil)
		if _, _, err := rm.Lookup(0, a, &Names{}); err != nil {
			t.Fatal(err)
		}
		rm.Keep(0, a, []byte("a"))
		_, ok, err := rm.Lookup(0, b, &Names{})
		if err != nil {
			t.Fatal(err)
		}
		rm.Done(1)
		if ok {
			found++
			if key(a) != key(b) {
				t.Fatalf("found %+v for %+v, whose keys differ", a, b)
			}
		}
	}
	if found == 0 {
		t.Fatal("no pair was found: the test checks nothing")
	}
}

// TestRecentKeepsConversationsApart interleaves the requests of
// conversations that share a Recent and checks that each finds its own
// messages, that a request building while its conversation's memory is
// taken gets an empty one, that Done keeps only the messages of its
// request, and that past RecentSize conversations the least recently used
// is dropped.
func TestRecentKeepsConversationsApart(t *testing.T) {
	var r Recent
	conv := func(c int) []llm.Message {
		var ms []llm.Message
		for i := range 3 {
			ms = append(ms, llm.Message{Role: llm.RoleUser, Content: strings.Repeat("x", c) + fmt.Sprint(i)})
		}
		return ms
	}
	send := func(ms []llm.Message) (found int) {
		rm := r.Take(ms)
		defer rm.Done(len(ms))
		for i, m := range ms {
			if _, ok, _ := rm.Lookup(i, m, &Names{}); ok {
				found++
			} else {
				rm.Keep(i, m, []byte("enc"))
			}
		}
		return found
	}
	for round := range 3 {
		for c := range RecentSize {
			want := 3
			if round == 0 {
				want = 0
			}
			if got := send(conv(c)); got != want {
				t.Fatalf("round %d, conversation %d: %d messages found, want %d", round, c, got, want)
			}
		}
	}
	held := r.Take(conv(0))
	if rm := r.Take(conv(0)); len(rm.msgs) != 0 {
		t.Error("a memory taken by another request was found")
	} else {
		rm.Done(0)
	}
	held.Done(2)
	if got := send(conv(0)); got != 2 {
		t.Errorf("after a request of two messages, the next found %d, want 2", got)
	}
	send(conv(RecentSize)) // one conversation more: the least recently used goes
	if got := send(conv(1)); got != 0 {
		t.Errorf("the least recently used conversation found %d messages, want 0", got)
	}
}

// TestRecentSetEncoding keeps an encoding of two messages at the first,
// with a context, and checks that a later request finds it with its
// context, that Keep clears the context, and that SetEncoding leaves
// positions not kept alone.
func TestRecentSetEncoding(t *testing.T) {
	var r Recent
	ms := []llm.Message{{Role: llm.RoleTool, ToolCallID: "a", Content: "1"}, {Role: llm.RoleTool, ToolCallID: "b", Content: "2"}}
	rm := r.Take(ms)
	for i, m := range ms {
		if _, ok, _ := rm.Lookup(i, m, &Names{}); ok {
			t.Fatal("an empty memory found a message")
		}
		rm.Keep(i, m, nil)
	}
	rm.SetEncoding(0, []byte("both"), 7)
	rm.SetEncoding(5, []byte("never kept"), 9)
	rm.Done(2)

	rm = r.Take(ms)
	enc, ok, err := rm.Lookup(0, ms[0], &Names{})
	if err != nil || !ok || string(enc) != "both" || rm.Context(0) != 7 {
		t.Fatalf("Lookup(0) = %q, %v, %v with context %d; want both, true, nil with context 7", enc, ok, err, rm.Context(0))
	}
	if enc, ok, _ := rm.Lookup(1, ms[1], &Names{}); !ok || enc != nil || rm.Context(1) != 0 {
		t.Errorf("Lookup(1) = %q, %v with context %d; want nil, true with context 0", enc, ok, rm.Context(1))
	}
	if rm.Context(5) != 0 || len(rm.msgs) != 2 {
		t.Error("SetEncoding kept a position past the messages kept")
	}
	rm.Keep(0, ms[0], []byte("one"))
	if rm.Context(0) != 0 {
		t.Error("Keep left the context of the encoding it replaced")
	}
	rm.Done(2)
}
