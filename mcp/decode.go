package mcp

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeMessage decodes one JSON-RPC message exactly as jsonrpc.DecodeMessage
// does, but with encoding/json: go-sdk's decoder allocates a 32 KiB buffer
// for each of its two passes over every message, which made half of the
// garbage of a tools/call. Keys match exactly, not ignoring case, as with
// go-sdk's decoder.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if fields == nil {
		return nil, errors.New("unmarshaling jsonrpc message: null")
	}
	var version string
	if raw, ok := fields["jsonrpc"]; ok {
		if err := json.Unmarshal(raw, &version); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: jsonrpc: %w", err)
		}
	}
	if version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", version, "2.0")
	}
	var rawID any
	if raw, ok := fields["id"]; ok {
		if err := json.Unmarshal(raw, &rawID); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: id: %w", err)
		}
	}
	id, err := jsonrpc.MakeID(rawID)
	if err != nil {
		return nil, err
	}
	if raw, ok := fields["method"]; ok {
		var method string
		if err := json.Unmarshal(raw, &method); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: method: %w", err)
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: fields["params"]}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("invalid request: a response without an id")
	}
	resp := &jsonrpc.Response{ID: id, Result: fields["result"]}
	if raw, ok := fields["error"]; ok && string(raw) != "null" {
		werr, err := decodeError(raw)
		if err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: error: %w", err)
		}
		resp.Error = werr
	}
	return resp, nil
}

// decodeError decodes an error object, its keys matched exactly.
func decodeError(raw json.RawMessage) (*jsonrpc.Error, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	werr := &jsonrpc.Error{Data: fields["data"]}
	if c, ok := fields["code"]; ok {
		if err := json.Unmarshal(c, &werr.Code); err != nil {
			return nil, err
		}
	}
	if m, ok := fields["message"]; ok {
		if err := json.Unmarshal(m, &werr.Message); err != nil {
			return nil, err
		}
	}
	return werr, nil
}
