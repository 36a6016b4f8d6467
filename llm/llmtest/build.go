package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
)

// Build returns the body a provider builds for req, or its error.
type Build func(req *llm.Request) ([]byte, error)

// EditConversation changes conv the ways a caller may between rounds and
// returns it: a message's text or a call's arguments changed in place, a
// message replaced (by a copy with a thinking block of provider's), removed
// or moved, the calls of one reordered, the history compacted into a
// summary. The first keep messages (the system prompt and the task) stay.
func EditConversation(r *rand.Rand, conv []llm.Message, keep int, provider string) []llm.Message {
	if len(conv) <= keep+1 {
		return conv
	}
	i := keep + r.IntN(len(conv)-keep)
	switch r.IntN(8) {
	case 0: // new text, in place
		conv[i].Content += " (edited)"
	case 1: // arguments changed in place, in the caller's own bytes
		for j := i; j < len(conv); j++ {
			if cs := conv[j].ToolCalls; len(cs) > 0 && len(cs[0].Arguments) > 2 {
				cs[0].Arguments[len(cs[0].Arguments)-2]++
				break
			}
		}
	case 2: // a message replaced by a copy with other thinking
		m := conv[i]
		m.Thinking = append(slices.Clone(m.Thinking), llm.Thinking{Provider: provider, Text: "again", Signature: "sig2"})
		conv[i] = m
	case 3: // removed
		conv = slices.Delete(conv, i, i+1)
	case 4: // moved one place up
		if i > keep {
			conv[i-1], conv[i] = conv[i], conv[i-1]
		}
	case 5: // compacted: a summary stands for the messages before i
		conv = slices.Concat(conv[:keep], []llm.Message{{Role: llm.RoleUser, Content: "Summary of the work so far."}}, conv[i:])
	case 6: // the calls of an assistant message reordered
		for j := i; j < len(conv); j++ {
			if len(conv[j].ToolCalls) > 1 {
				conv[j].ToolCalls = slices.Clone(conv[j].ToolCalls)
				slices.Reverse(conv[j].ToolCalls)
				break
			}
		}
	case 7: // nothing
	}
	return conv
}

// Incremental sends the two conversations convs, taking turns as a run
// and its subagent do, each up to a growing length over 60 rounds, with
// EditConversation's edits between rounds, to incremental (one provider
// throughout), and fails t when a body, or an error, is not what
// fromScratch (a provider with nothing cached) gives for the same
// request. keep is the number of first messages that stay; model names
// the model; tools are offered in a random number.
func Incremental(t testing.TB, r *rand.Rand, convs [2][]llm.Message, keep int, model, provider string, tools []llm.ToolDef, incremental, fromScratch Build) {
	t.Helper()
	var sent [2]int
	for k := range sent {
		sent[k] = keep
	}
	for round := 0; round < 60; round++ {
		k := 0
		if r.IntN(4) == 0 {
			k = 1
		}
		if sent[k] >= len(convs[k]) {
			continue
		}
		sent[k] = min(len(convs[k]), sent[k]+1+r.IntN(4))
		if r.IntN(3) == 0 {
			before := len(convs[k])
			convs[k] = EditConversation(r, convs[k], keep, provider)
			sent[k] = max(keep, min(len(convs[k]), sent[k]+len(convs[k])-before))
		}
		req := &llm.Request{Model: model, Messages: convs[k][:sent[k]], Tools: tools[:r.IntN(len(tools)+1)], MaxTokens: 2000 * r.IntN(2)}
		if r.IntN(3) == 0 {
			temp := 0.5
			req.Temperature = &temp
		}
		got, gotErr := incremental(req)
		want, wantErr := fromScratch(req)
		if gotErr != nil || wantErr != nil {
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("round %d: error %v, from scratch %v", round, gotErr, wantErr)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("round %d, %d messages: the body differs from the one built from scratch\n got %s\nwant %s", round, len(req.Messages), got, want)
		}
	}
}

// Oracle sends to build the requests that request makes of conv[:n], for
// n from first up to len(conv) in steps of one to three that r chooses,
// and fails t when a body, decoded as JSON, is not the one oracle (a build
// in one piece, the plain way) makes of the same request: so that a
// provider that builds its bodies from cached pieces builds what a plain
// encoding would.
func Oracle(t testing.TB, r *rand.Rand, conv []llm.Message, first int, request func([]llm.Message) *llm.Request, build, oracle Build) {
	t.Helper()
	for n := first; n <= len(conv); n += 1 + r.IntN(3) {
		req := request(conv[:n])
		got, err := build(req)
		if err != nil {
			t.Fatal(err)
		}
		var gv, wv any
		if err := json.Unmarshal(got, &gv); err != nil {
			t.Fatalf("the body is not JSON: %v\n%s", err, got)
		}
		want, err := oracle(req)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, &wv); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gv, wv) {
			t.Fatalf("%d messages: the body differs from the oracle's\n got %s\nwant %s", n, got, want)
		}
	}
}

// RunsChangeShape sends, in turn, conversations whose runs of tool
// results start, end and are ordered differently at the same positions
// to incremental, and fails t when a body is not the one fromScratch
// builds: an encoding kept for a run must not serve a run of other
// messages or other calls.
func RunsChangeShape(t testing.TB, model string, incremental, fromScratch Build) {
	t.Helper()
	call := func(id string) llm.ToolCall {
		return llm.ToolCall{ID: id, Name: "read_file", Arguments: json.RawMessage(`{"path":"` + id + `"}`)}
	}
	result := func(id, text string) llm.Message {
		return llm.Message{Role: llm.RoleTool, ToolCallID: id, ToolName: "read_file", Content: text}
	}
	sys := llm.Message{Role: llm.RoleSystem, Content: "You are wield."}
	task := llm.Message{Role: llm.RoleUser, Content: "Read them."}
	asked := llm.Message{Role: llm.RoleAssistant, Content: "Reading.", ToolCalls: []llm.ToolCall{call("c0"), call("c1"), call("c2")}}
	reordered := asked
	reordered.ToolCalls = []llm.ToolCall{call("c2"), call("c1"), call("c0")}
	more := llm.Message{Role: llm.RoleUser, Content: "And then?"}
	// A request continues the memory of the one before when its first
	// message and the last one kept are the same: most end alike.
	end := llm.Message{Role: llm.RoleUser, Content: "Go on."}
	convs := [][]llm.Message{
		{sys, task, asked, more, result("c1", "one"), result("c2", "two"), end},
		{sys, task, asked, result("c0", "zero"), result("c1", "one"), result("c2", "two, again"), end},
		{sys, task, asked, more, result("c1", "one"), result("c2", "two, again"), end},
		{sys, task, reordered, more, result("c1", "one"), result("c2", "two, again"), end},
		{sys, task, reordered, more, result("c1", "one"), end},
		{sys, task, reordered, more, result("c1", "one"), result("c2", "two, again"), end},
		{sys, task, reordered, more, result("c1", "one"), more, end},
		{sys, task, asked, result("c1", "one"), result("c2", "two, again"), end},
		{sys, task, asked, result("c1", "one"), more, result("c2", "two, again"), end},
		{sys, task, asked, result("c1", "one"), result("c2", "two, again"), more, end},
		{sys, task, asked, result("c1", "one"), result("c2", "two, again"), more},
	}
	for i, conv := range convs {
		req := &llm.Request{Model: model, Messages: conv}
		got, err := incremental(req)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fromScratch(req)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("conversation %d: the body differs from the one built from scratch\n got %s\nwant %s", i, got, want)
		}
	}
}

// BenchConversation returns a conversation of n messages in the shape of
// an agent's: a system prompt and a task (and a second user message when
// n is odd), then rounds of an assistant message with one call and its
// result, of a few hundred bytes each.
func BenchConversation(n int) []llm.Message {
	ms := []llm.Message{{Role: llm.RoleSystem, Content: strings.Repeat("You are wield. ", 40)}, {Role: llm.RoleUser, Content: "Fix the failing test in main.go."}}
	if n%2 == 1 {
		ms = append(ms, llm.Message{Role: llm.RoleUser, Content: "Run the tests too."})
	}
	for i := 0; len(ms) < n; i++ {
		ms = append(ms, BenchRound(i)...)
	}
	return ms[:n]
}

// BenchRound returns round i of BenchConversation: an assistant message
// with one call, and its result.
func BenchRound(i int) []llm.Message {
	id := fmt.Sprintf("call_%d", i)
	return []llm.Message{
		{Role: llm.RoleAssistant, Content: fmt.Sprintf("Round %d: let me look at the file again.", i),
			ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"main.go","line":%d}`, i))}}},
		{Role: llm.RoleTool, ToolCallID: id, ToolName: "read_file", Content: strings.Repeat(fmt.Sprintf("line %d of main.go\n", i), 20)},
	}
}

// BenchmarkBuild measures the request build of one round of a
// conversation with 10, 100 and 1,000 messages of history, each on the
// provider newBuild makes: the history was sent by the round before, and
// two messages before the last (an assistant message and its result) are
// new each round. (The last stays, as in a conversation that grows, where
// the last message of the round before is sent again; the history must
// not grow here.)
func BenchmarkBuild(b *testing.B, model string, newBuild func() Build) {
	tools := []llm.ToolDef{
		{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"line":{"type":"integer"}},"required":["path"]}`)},
		{Name: "run_shell_command", Description: "Run a command.", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
	}
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint("history=", n), func(b *testing.B) {
			build := newBuild()
			conv := append(BenchConversation(n-1), llm.Message{Role: llm.RoleUser, Content: "Go on."})
			req := &llm.Request{Model: model, Messages: conv, Tools: tools}
			if _, err := build(req); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := n
			for b.Loop() {
				// New messages each round (making them is a few of the
				// allocations counted).
				copy(conv[n-3:], BenchRound(i))
				i++
				if _, err := build(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
