package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/llm/anthropic/anthropictest"
	"github.com/wieldhq/wield/llm/replay"
)

// sessionRounds is the length of the scripted session of TestPromptCaching.
const sessionRounds = 20

// runSession runs a scripted session of sessionRounds rounds (a file read
// in each but the last) against a fresh server, and returns the usage the
// provider reported, summed, and that of the last round.
func runSession(t *testing.T, noCache bool) (total, last llm.Usage) {
	t.Helper()
	var entries []replay.Entry
	for r := 1; r < sessionRounds; r++ {
		entries = append(entries, replay.Entry{Round: r, Text: fmt.Sprintf("Reading part %d.", r),
			ToolCalls: []llm.ToolCall{{Name: "fs.read", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"part%d.go"}`, r))}}})
	}
	entries = append(entries, replay.Entry{Round: sessionRounds, Text: "All parts read; the module is sound."})
	srv := anthropictest.NewServer(t, entries, nil)
	p := newTestProvider(t, Config{BaseURL: srv.URL, NoCache: noCache})
	c := newConversation(p, "Review the module.")
	// A system prompt and tool results of realistic size: a page of
	// instructions, a small file per round.
	c.Request.Messages[0].Content = strings.Repeat("Follow the project's conventions; keep changes small. ", 120)
	file := strings.Repeat("func f() { return }\n", 100)
	for range sessionRounds {
		r := c.Round(t, func(calls []llm.ToolCall) []llm.Message {
			var out []llm.Message
			for _, call := range calls {
				out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, ToolName: call.Name, Content: file})
			}
			return out
		})
		total = total.Add(r.Resp.Usage)
		last = r.Resp.Usage
	}
	if got := srv.Usage(); got != total {
		t.Errorf("the server reported %+v in all, the provider %+v", got, total)
	}
	return total, last
}

// TestPromptCaching runs the same 20-round session with prompt caching on
// and off against the scripted server's simulated cache, and checks that
// with caching on most input tokens are read from the cache.
func TestPromptCaching(t *testing.T) {
	on, lastOn := runSession(t, false)
	off, _ := runSession(t, true)
	if on.InputTokens != off.InputTokens {
		t.Errorf("input tokens %d with caching, %d without; want the same prompt", on.InputTokens, off.InputTokens)
	}
	if off.CachedTokens != 0 || off.CacheWriteTokens != 0 {
		t.Errorf("without caching: %d tokens read from the cache and %d written, want none", off.CachedTokens, off.CacheWriteTokens)
	}
	uncached := on.InputTokens - on.CachedTokens - on.CacheWriteTokens
	if on.CachedTokens*10 < on.InputTokens*8 {
		t.Errorf("with caching, %d of %d input tokens were read from the cache; want at least 80%%", on.CachedTokens, on.InputTokens)
	}
	if lastOn.InputTokens-lastOn.CachedTokens-lastOn.CacheWriteTokens > lastOn.InputTokens/10 {
		t.Errorf("the last round paid full price for %d of its %d input tokens; want only the newest turn", lastOn.InputTokens-lastOn.CachedTokens-lastOn.CacheWriteTokens, lastOn.InputTokens)
	}
	// Billed as Anthropic bills: reads at 0.1, writes at 1.25 of the
	// input price.
	billed := float64(uncached) + 0.1*float64(on.CachedTokens) + 1.25*float64(on.CacheWriteTokens)
	t.Logf("%d rounds, %d input tokens in all", sessionRounds, on.InputTokens)
	t.Logf("caching off: %d input tokens at full price", off.InputTokens)
	t.Logf("caching on: %d read from the cache (%.1f%%), %d written to it, %d at full price",
		on.CachedTokens, 100*float64(on.CachedTokens)/float64(on.InputTokens), on.CacheWriteTokens, uncached)
	t.Logf("caching on, billed as input-token equivalents (reads 0.1×, writes 1.25×): %.0f, %.1f%% of the uncached %d",
		billed, 100*billed/float64(off.InputTokens), off.InputTokens)
}
