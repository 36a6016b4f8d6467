package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/wieldhq/wield/schema"
)

// Annotations describe how a tool behaves. They map onto MCP's tool
// annotations and drive the runner's scheduling and the policy's approvals.
type Annotations struct {
	// ReadOnly reports whether the tool does not change its environment.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Destructive reports whether the tool may change or delete things in a
	// way that cannot be undone; such calls are the ones a policy asks about.
	Destructive bool `json:"destructive,omitempty"`
	// ParallelSafe reports whether the tool may run at the same time as other
	// parallel-safe tools. Tools that are not run alone.
	ParallelSafe bool `json:"parallelSafe,omitempty"`
	// OpenWorld reports whether the tool reaches outside the workspace (the
	// network, other services).
	OpenWorld bool `json:"openWorld,omitempty"`
}

// RetryPolicy says how often a call is retried after an error its handler
// marked with [Retriable]. Other errors are never retried.
type RetryPolicy struct {
	// Attempts is the number of retries after the first try; zero means none.
	// At most [MaxRetries] are made.
	Attempts int `json:"attempts,omitempty"`
}

// MaxRetries is the largest number of retries the runner makes for a call.
const MaxRetries = 3

// A Spec describes a tool to the model and to the runner. Its zero value,
// given a Name and a Description, is a valid spec for [New].
type Spec struct {
	// Name identifies the tool: letters, digits, '_', '-' and '.', at most
	// 128 characters. Provider-specific restrictions are applied on export;
	// see [schema.Names].
	Name string `json:"name"`
	// Description tells the model what the tool does and when to use it.
	Description string `json:"description"`
	// InputSchema is the JSON Schema (draft 2020-12) of the arguments object.
	// [New] fills it from the input type; [NewRaw] requires it.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// OutputSchema, if set, is the JSON Schema of the Data of the tool's
	// successful results, an object schema ([SchemaOf] infers one from a Go
	// type). Served over MCP it is the tool's outputSchema, and Data its
	// structuredContent; a tool without one sends none. Nil means the tool
	// promises no shape.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Annotations describe the tool's behaviour.
	Annotations Annotations `json:"annotations,omitzero"`
	// Timeout bounds one call; zero means the runner's default.
	Timeout time.Duration `json:"-"`
	// Retry is the retry policy for retriable errors.
	Retry RetryPolicy `json:"retry,omitzero"`
	// Hidden reports whether the tool is kept out of what the model is
	// offered. Hidden tools can still be called by name (by the CLI, by
	// hooks, over MCP when asked for).
	Hidden bool `json:"hidden,omitempty"`
	// ReadOnlyCall, when set, tells by a call's arguments whether that
	// call only reads, in a tool that is not read-only as a whole (the
	// desktop's screenshot beside its clicks): see [Tool.CallAnnotations].
	// It must answer false for arguments it does not understand. Only
	// tools written in Go can set it; the calls of declared and mounted
	// tools are judged by their annotations alone.
	ReadOnlyCall func(args json.RawMessage) bool `json:"-"`

	// The fields below are facts about the tool that other packages read
	// instead of keeping lists of tool names of their own: a rename
	// carries them along. They change nothing in how the tool is called.

	// Effect is what the tool's calls may do: read, write files, run
	// commands, reach the network, ask a person. Zero means unknown, which
	// readers treat as "may do anything" where that matters.
	Effect Effect `json:"effect,omitzero"`
	// KeyArgs names the arguments that say what a call is about, most
	// telling first: "path" for a file tool, "command" for a shell,
	// "pattern" then "path" for a search. A tool line shows the first
	// one present (and a second after it); a ledger reads the file a
	// writing tool wrote, or the command a shell ran, from the first.
	// Empty means none is known.
	KeyArgs []string `json:"key_args,omitempty"`
	// Aliases are other agents' names for this tool (Claude Code's
	// "Bash", "Read", "Edit"), so that settings rules, hooks and agent
	// definitions written for them name it here. [Registry.Resolve] finds
	// a tool by them; calls still use Name.
	Aliases []string `json:"aliases,omitempty"`
}

// A Handler executes a tool call. args has already been validated against
// the tool's input schema. Handle returns a Result for everything the model
// should hear about; a non-nil error becomes a failed Result, unless it is
// marked with [Fatal], in which case the run stops.
//
// Handle must respect ctx: when it is done, return promptly. Handlers may be
// called concurrently.
type Handler interface {
	Handle(ctx context.Context, c *Call, args json.RawMessage) (Result, error)
}

// HandlerFunc adapts a function to a [Handler].
type HandlerFunc func(ctx context.Context, c *Call, args json.RawMessage) (Result, error)

// Handle calls f(ctx, c, args).
func (f HandlerFunc) Handle(ctx context.Context, c *Call, args json.RawMessage) (Result, error) {
	return f(ctx, c, args)
}

// A Tool is a [Spec] with its compiled input schema and its [Handler].
// A Tool is immutable and safe for concurrent use.
type Tool struct {
	spec    Spec
	handler Handler

	// The compiled schema. Typed tools compile it on first use: their
	// schema is inferred from a Go type and cannot be invalid, and a
	// process that calls one tool need not compile all of them.
	compileOnce sync.Once
	schema      *schema.Schema
	compileErr  error
}

// NewRaw returns a tool whose arguments are passed to h as raw JSON after
// validation against spec.InputSchema. The schema is untrusted: it is checked
// against [schema.Limits] defaults. NewRaw returns an error for an invalid
// name or schema.
func NewRaw(spec Spec, h Handler) (*Tool, error) {
	if err := checkName(spec.Name); err != nil {
		return nil, err
	}
	spec.Description = strings.TrimSpace(spec.Description)
	if h == nil {
		return nil, fmt.Errorf("tool %s: nil handler", spec.Name)
	}
	if len(spec.InputSchema) == 0 {
		return nil, fmt.Errorf("tool %s: missing input schema", spec.Name)
	}
	sch, err := schema.Compile(spec.InputSchema, nil)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", spec.Name, err)
	}
	if err := checkObjectSchema(spec.InputSchema); err != nil {
		return nil, fmt.Errorf("tool %s: %w", spec.Name, err)
	}
	if err := checkOutputSchema(spec.OutputSchema); err != nil {
		return nil, fmt.Errorf("tool %s: %w", spec.Name, err)
	}
	spec.InputSchema = sch.Raw()
	t := &Tool{spec: spec, schema: sch, handler: h}
	t.compileOnce.Do(func() {})
	return t, nil
}

// compiled returns the tool's compiled schema, compiling it on first use.
func (t *Tool) compiled() (*schema.Schema, error) {
	t.compileOnce.Do(func() {
		t.schema, t.compileErr = schema.Compile(t.spec.InputSchema, nil)
		if t.compileErr != nil {
			t.compileErr = fmt.Errorf("tool %s: %w", t.spec.Name, t.compileErr)
		}
	})
	return t.schema, t.compileErr
}

// validName reports whether name is 1 to 128 of the bytes A-Z, a-z, 0-9,
// '_', '.' and '-': a loop rather than a regular expression, which with
// its {1,128} would be compiled into a large program at every start.
func validName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := range len(name) {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}

func checkName(name string) error {
	if !validName(name) {
		return fmt.Errorf("invalid tool name %q: use 1 to 128 letters, digits, '_', '-' or '.'", name)
	}
	return nil
}

// checkObjectSchema requires the top-level schema to describe an object, as
// every provider does.
func checkObjectSchema(raw json.RawMessage) error {
	var top struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return fmt.Errorf("input schema must be a JSON object: %w", err)
	}
	if top.Type != "object" {
		return fmt.Errorf(`input schema must have "type": "object", got %v`, top.Type)
	}
	return nil
}

// checkOutputSchema requires an output schema, if any, to compile and to
// describe an object, as MCP's outputSchema must.
func checkOutputSchema(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	if _, err := schema.Compile(raw, nil); err != nil {
		return fmt.Errorf("output schema: %w", err)
	}
	var top struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(raw, &top); err != nil || top.Type != "object" {
		return fmt.Errorf(`output schema must have "type": "object", got %v`, top.Type)
	}
	return nil
}

// Spec returns the tool's spec. InputSchema and OutputSchema must not be
// modified.
func (t *Tool) Spec() Spec { return t.spec }

// Name returns the tool's name.
func (t *Tool) Name() string { return t.spec.Name }

// CallAnnotations returns the annotations that hold for one call with
// args: the tool's, made read-only and not destructive when the tool's
// [Spec.ReadOnlyCall] says that this call only reads.
func (t *Tool) CallAnnotations(args json.RawMessage) Annotations {
	ann := t.spec.Annotations
	if !ann.ReadOnly && t.spec.ReadOnlyCall != nil && t.spec.ReadOnlyCall(args) {
		ann.ReadOnly, ann.Destructive = true, false
	}
	return ann
}

// Schema returns the compiled input schema.
func (t *Tool) Schema() *schema.Schema {
	s, _ := t.compiled()
	return s
}

// Handler returns the tool's handler. Calling it directly skips validation;
// use a [Runner] to call tools.
func (t *Tool) Handler() Handler { return t.handler }
