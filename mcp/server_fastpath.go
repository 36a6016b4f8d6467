package mcp

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wieldhq/wield/otel"
)

// The fast paths answer a plain tools/call without the SDK, on stdio
// ([fastPath]) and on streamable HTTP ([httpFastPath]), and run the same
// [Server.callTool] the SDK's handler runs, so the answers are the same.
// A call's context comes from what it arrived on: the HTTP request's
// context, or the context ServeStdio was given for a stdio connection;
// so it keeps their values and ends with them.

// fastRevisions are the protocol revisions whose tools/call exchange the
// fast paths answer themselves. Later revisions go through the SDK.
var fastRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// callParams is the part of tools/call params the fast path reads.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken any `json:"progressToken"`
		otel.TraceContext
	} `json:"_meta"`
}

// cancelParams is the part of notifications/cancelled params it reads.
type cancelParams struct {
	RequestID any `json:"requestId"`
}

// normalizeID makes ids comparable: JSON numbers decode as float64 or
// int64 depending on the decoder.
func normalizeID(id any) any {
	switch v := id.(type) {
	case int64:
		return float64(v)
	case int:
		return float64(v)
	}
	return id
}

// decodeID turns a raw JSON-RPC id into the SDK's type.
func decodeID(raw json.RawMessage) (jsonrpc.ID, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, err
	}
	return jsonrpc.MakeID(v)
}

// encodeProgress encodes a progress notification as the JSON-RPC message
// both fast paths send.
func encodeProgress(n *sdk.ProgressNotificationParams) ([]byte, error) {
	params, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	return jsonrpc.EncodeMessage(&jsonrpc.Request{Method: "notifications/progress", Params: params})
}
