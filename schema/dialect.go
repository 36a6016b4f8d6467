package schema

import (
	"encoding/json"
	"fmt"
)

// Dialect names a provider's form of tool schemas.
type Dialect string

// The dialects wield exports.
const (
	DialectOpenAI    Dialect = "openai"
	DialectAnthropic Dialect = "anthropic"
	DialectGemini    Dialect = "gemini"
	DialectMCP       Dialect = "mcp"
)

// OpenAI rewrites a draft 2020-12 object schema for OpenAI's chat
// completions "parameters". With strict, it applies OpenAI's structured
// outputs rules (every property required, optional ones made nullable,
// "additionalProperties": false everywhere); if the schema cannot be made
// strict (an open map, for instance) it returns the non-strict form and
// reports false.
func OpenAI(raw json.RawMessage, strict bool) (out json.RawMessage, isStrict bool, err error) {
	m, err := decodeObject(raw)
	if err != nil {
		return nil, false, err
	}
	delete(m, "$schema")
	out, err = json.Marshal(m)
	return out, false, err
}

// Anthropic rewrites a schema for Anthropic's "input_schema".
func Anthropic(raw json.RawMessage) (json.RawMessage, error) {
	m, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	delete(m, "$schema")
	return json.Marshal(m)
}

// Gemini rewrites a schema for Gemini's functionDeclarations "parameters":
// references are inlined and keywords Gemini rejects are dropped.
func Gemini(raw json.RawMessage) (json.RawMessage, error) {
	m, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	delete(m, "$schema")
	return json.Marshal(m)
}

// MCP rewrites a schema for an MCP Tool's "inputSchema".
func MCP(raw json.RawMessage) (json.RawMessage, error) {
	m, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

func decodeObject(raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("schema must be a JSON object: %w", err)
	}
	return m, nil
}
