package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/tool"
)

// TestManager_Concurrent calls tools of an in-process and a stdio server
// from many goroutines while the stdio server is crashed and restarted:
// each call gets exactly one result, the crash costs at most the calls in
// flight with it, and everything works afterwards. Run it with -race.
func TestManager_Concurrent(t *testing.T) {
	m := newTestManager(t, map[string]ServerConfig{"mem": inMemory(newSDKServer(nil)), "child": testServer(t, "sdk")}, nil)
	r := runner(mountAll(t, m), nil)
	var wg sync.WaitGroup
	results := make(chan tool.Result, 200)
	for i := range 40 {
		wg.Go(func() {
			for j := range 5 {
				server := []string{"mem", "child"}[(i+j)%2]
				res, err := r.Call(t.Context(), tool.Call{}, tool.Request{Name: ToolName(server, "echo"), Arguments: json.RawMessage(fmt.Sprintf(`{"text":"%d-%d"}`, i, j))})
				if err != nil {
					t.Error(err)
				}
				if res.Success && !strings.HasSuffix(res.Output, fmt.Sprintf("echo: %d-%d", i, j)) {
					t.Errorf("call %d-%d got %q", i, j, res.Output)
				}
				results <- res
			}
		})
	}
	crash := call(t, r, ToolName("child", "crash"), `{}`)
	wg.Wait()
	close(results)
	if crash.Success {
		t.Error("crash succeeded")
	}
	n, failed := 0, 0
	for res := range results {
		n++
		if !res.Success {
			failed++
			if !strings.Contains(res.Error, `mcp server "child"`) {
				t.Errorf("a call failed for another reason: %s", res.Error)
			}
		}
	}
	if n != 200 {
		t.Errorf("%d results for 200 calls", n)
	}
	t.Logf("%d of 200 calls were lost with the crash", failed)
	for _, s := range []string{"mem", "child"} {
		if res := call(t, r, ToolName(s, "echo"), `{"text":"after"}`); !res.Success {
			t.Errorf("%s after the crash: %s", s, res.ForModel())
		}
	}
}

// BenchmarkManager_Call measures one call of a mounted tool through the
// runner, against an in-process go-sdk server and a stdio child.
func BenchmarkManager_Call(b *testing.B) {
	for _, kind := range []string{"inproc", "stdio"} {
		b.Run(kind, func(b *testing.B) {
			cfg := inMemory(newSDKServer(nil))
			if kind == "stdio" {
				cfg = testServer(b, "sdk")
			}
			m := NewManager(map[string]ServerConfig{"s": cfg}, &ManagerOptions{Logger: quiet()})
			defer m.Close()
			reg := &tool.Registry{}
			if errs := m.Mount(b.Context(), reg); len(errs) > 0 {
				b.Fatal(errs)
			}
			r := runner(reg, nil)
			req := tool.Request{Name: "mcp__s__echo", Arguments: json.RawMessage(`{"text":"hi"}`)}
			b.ReportAllocs()
			for b.Loop() {
				if res, _ := r.Call(b.Context(), tool.Call{}, req); !res.Success {
					b.Fatal(res.ForModel())
				}
			}
		})
	}
}

// BenchmarkInputSchema measures importing a server's schema with
// references to inline.
func BenchmarkInputSchema(b *testing.B) {
	var v any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"a":{"$ref":"#/$defs/p"},"b":{"type":"array","items":{"$ref":"#/$defs/p"}}},"$defs":{"p":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}}}`), &v); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := inputSchema(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToResult measures mapping a typical text result.
func BenchmarkToResult(b *testing.B) {
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("a line of output\n", 200)}}}
	b.ReportAllocs()
	for b.Loop() {
		toResult("s", "t", res)
	}
}
