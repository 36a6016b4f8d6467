//go:build !race

package otel_test

import (
	"context"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/otel"
	"github.com/wieldhq/wield/tool"
)

// TestAllocs_off holds the promise that tracing off costs nothing: every
// call the agent, the runner and the MCP client and server make into a nil
// Telemetry allocates nothing.
func TestAllocs_off(t *testing.T) {
	var tel *otel.Telemetry
	ctx := t.Context()
	req := &llm.Request{Model: "m"}
	resp := &llm.Response{}
	reg, _ := tool.NewRegistry()
	var opts tool.RunnerOptions
	allocs := testing.AllocsPerRun(100, func() {
		rctx, run := tel.StartAgent(ctx, otel.AgentInfo{Name: "a", ConversationID: "s"})
		cctx, chat := tel.StartChat(rctx, req)
		chat.Chunk()
		chat.End(cctx, resp, nil)
		_ = tel.Instrument(rctx, &opts, reg)
		mctx, call, _ := tel.StartMCPClient(rctx, otel.MCPInfo{Tool: "t"})
		call.End(mctx, false, nil)
		sctx, srv := tel.StartMCPServer(context.Background(), otel.TraceContext{}, otel.MCPInfo{Tool: "t"})
		srv.End(sctx, false, nil)
		run.End(otel.RunOutcome{}, nil)
	})
	if allocs != 0 {
		t.Errorf("a nil Telemetry allocates %v times per run, want 0", allocs)
	}
}
