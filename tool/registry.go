package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/wieldhq/wield/internal/levenshtein"
	"github.com/wieldhq/wield/schema"
)

// ErrNotFound is returned (wrapped in a *[NotFoundError]) when a tool name is
// not in a registry.
var ErrNotFound = errors.New("tool not found")

// NotFoundError reports an unknown tool name and the closest known names.
type NotFoundError struct {
	Name       string
	Suggestion []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("tool %s not found", e.Name)
	if len(e.Suggestion) > 0 {
		msg += "; did you mean " + strings.Join(e.Suggestion, " or ") + "?"
	}
	return msg
}

// Unwrap returns [ErrNotFound].
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// A Registry holds tools by name. The zero value is an empty registry ready
// to use. A Registry is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]*Tool
}

// NewRegistry returns a registry holding tools. It returns an error if two
// tools share a name.
func NewRegistry(tools ...*Tool) (*Registry, error) {
	r := &Registry{}
	for _, t := range tools {
		if err := r.Register(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds t. It returns an error if a tool of the same name is
// already registered.
func (r *Registry) Register(t *Tool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[t.Name()]; ok {
		return fmt.Errorf("register tool %s: a tool of that name is already registered", t.Name())
	}
	if r.tools == nil {
		r.tools = map[string]*Tool{}
	}
	r.tools[t.Name()] = t
	return nil
}

// Remove deletes the tool called name, reporting whether it was present.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.tools[name]
	delete(r.tools, name)
	return ok
}

// Lookup returns the tool called name, or a *[NotFoundError] that suggests
// the closest names.
func (r *Registry) Lookup(name string) (*Tool, error) {
	r.mu.RLock()
	t, ok := r.tools[name]
	r.mu.RUnlock()
	if ok {
		return t, nil
	}
	return nil, &NotFoundError{Name: name, Suggestion: r.closest(name)}
}

// get returns the tool called name, without the suggestions of Lookup.
func (r *Registry) get(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Resolve returns the tool called name or, failing that, the tool whose
// [Spec.Aliases] hold name (Claude Code's "Bash" is run_shell_command),
// reporting whether there is one. When several tools claim an alias, the
// first by name wins. Calls are made by name; Resolve is for what names
// tools in other agents' terms: settings rules, hooks, agent definitions.
func (r *Registry) Resolve(name string) (*Tool, bool) {
	if t, ok := r.get(name); ok {
		return t, true
	}
	for _, t := range r.Tools() {
		if slices.Contains(t.spec.Aliases, name) {
			return t, true
		}
	}
	return nil, false
}

// Spec returns the spec of the tool [Registry.Resolve] finds for name,
// reporting whether there is one. Its method value, reg.Spec, is the
// lookup that packages holding only a tool's name take in their
// configuration (a session ledger, a policy).
func (r *Registry) Spec(name string) (Spec, bool) {
	t, ok := r.Resolve(name)
	if !ok {
		return Spec{}, false
	}
	return t.Spec(), true
}

// Tools returns every registered tool, hidden ones included, sorted by
// name. The caller owns the slice.
func (r *Registry) Tools() []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Tool, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Tool) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// Visible returns the tools offered to a model: those not hidden, sorted by
// name.
func (r *Registry) Visible() []*Tool {
	return slices.DeleteFunc(r.Tools(), func(t *Tool) bool { return t.spec.Hidden })
}

// Filter returns a new registry with only the tools whose names match one
// of the patterns in allow (exact names, or prefixes ending in '*'). Unknown
// names in allow are returned as an error listing all of them, so a typo
// in a role or profile does not silently drop a tool. An empty allow keeps
// every tool.
func (r *Registry) Filter(allow []string) (*Registry, error) {
	if len(allow) == 0 {
		return r.clone(nil), nil
	}
	all := r.Tools()
	keep := map[string]bool{}
	var unknown []string
	for _, pat := range allow {
		matched := false
		for _, t := range all {
			if matchName(pat, t.Name()) {
				keep[t.Name()], matched = true, true
			}
		}
		if !matched {
			unknown = append(unknown, (&NotFoundError{Name: pat, Suggestion: r.closest(pat)}).Error())
		}
	}
	if len(unknown) > 0 {
		return nil, errors.New(strings.Join(unknown, "; "))
	}
	return r.clone(func(t *Tool) bool { return keep[t.Name()] }), nil
}

// Exclude returns a new registry without the tools matching any pattern in
// deny (exact names, or prefixes ending in '*').
func (r *Registry) Exclude(deny []string) *Registry {
	return r.clone(func(t *Tool) bool {
		return !slices.ContainsFunc(deny, func(p string) bool { return matchName(p, t.Name()) })
	})
}

func matchName(pattern, name string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return pattern == name
}

func (r *Registry) clone(keep func(*Tool) bool) *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := &Registry{tools: make(map[string]*Tool, len(r.tools))}
	for n, t := range r.tools {
		if keep == nil || keep(t) {
			out.tools[n] = t
		}
	}
	return out
}

// closest returns up to three registered names nearest to name, by edit
// distance, that are close enough to be plausible typos.
func (r *Registry) closest(name string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	lname := strings.ToLower(name)
	near := max(2, len(name)/3)
	for n := range r.tools {
		ln := strings.ToLower(n)
		d := levenshtein.Distance(lname, ln, near)
		if strings.Contains(ln, lname) || strings.Contains(lname, ln) {
			d = min(d, 2)
		}
		if d <= near {
			cs = append(cs, cand{n, d})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// ExportOptions configures [Registry.Export]. A nil *ExportOptions is the
// zero value: visible tools only, non-strict.
type ExportOptions struct {
	// Strict asks for OpenAI's strict mode where a schema allows it.
	Strict bool
	// IncludeHidden exports hidden tools too.
	IncludeHidden bool
}

// Format names the forms [Registry.Export] writes: the schema dialects and
// "json", wield's own description of each tool.
type Format string

// FormatJSON is wield's own form: name, description, input schema and
// annotations of each tool.
const FormatJSON Format = "json"

// Export writes the tools in format f (FormatJSON or a [schema.Dialect]) as a
// JSON array, in name order, as the provider's "tools" field expects them.
// Names are made legal for the provider; the returned [schema.Names] maps
// them back. Gemini's form is one tool object holding every declaration.
func (r *Registry) Export(f Format, opts *ExportOptions) (json.RawMessage, *schema.Names, error) {
	var o ExportOptions
	if opts != nil {
		o = *opts
	}
	tools := r.Visible()
	if o.IncludeHidden {
		tools = r.Tools()
	}
	names := &schema.Names{}
	var decls []any
	for _, t := range tools {
		d, err := exportTool(t, f, o, names)
		if err != nil {
			return nil, nil, fmt.Errorf("export %s as %s: %w", t.Name(), f, err)
		}
		decls = append(decls, d)
	}
	if decls == nil {
		decls = []any{}
	}
	var out any = decls
	if schema.Dialect(f) == schema.DialectGemini {
		out = []any{map[string]any{"functionDeclarations": decls}}
	}
	b, err := json.Marshal(out)
	return b, names, err
}

func exportTool(t *Tool, f Format, o ExportOptions, names *schema.Names) (any, error) {
	s := t.spec
	switch f {
	case FormatJSON:
		return s, nil
	case Format(schema.DialectMCP):
		in, err := schema.MCP(s.InputSchema)
		if err != nil {
			return nil, err
		}
		mt := mcpTool{Name: s.Name, Description: s.Description, InputSchema: in, Annotations: mcpAnnotations(s.Annotations)}
		if len(s.OutputSchema) != 0 {
			if mt.OutputSchema, err = schema.MCP(s.OutputSchema); err != nil {
				return nil, fmt.Errorf("output schema: %w", err)
			}
		}
		return mt, nil
	}
	wire, err := names.Add(s.Name)
	if err != nil {
		return nil, err
	}
	switch schema.Dialect(f) {
	case schema.DialectOpenAI:
		params, strict, err := schema.OpenAI(s.InputSchema, o.Strict)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "function", "function": openAIFunction{Name: wire, Description: s.Description, Parameters: params, Strict: strict}}, nil
	case schema.DialectAnthropic:
		in, err := schema.Anthropic(s.InputSchema)
		if err != nil {
			return nil, err
		}
		return map[string]any{"name": wire, "description": s.Description, "input_schema": in}, nil
	case schema.DialectGemini:
		params, err := schema.Gemini(s.InputSchema)
		if err != nil {
			return nil, err
		}
		return map[string]any{"name": wire, "description": s.Description, "parameters": params}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want json, openai, anthropic, gemini or mcp)", f)
}

type openAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict,omitempty"`
}

type mcpTool struct {
	Name         string           `json:"name"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *mcpToolAnnotate `json:"annotations,omitempty"`
}

type mcpToolAnnotate struct {
	ReadOnlyHint    bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
}

// mcpAnnotations maps annotations to MCP's hints. MCP's defaults are
// destructive and open-world, so both are always stated.
func mcpAnnotations(a Annotations) *mcpToolAnnotate {
	return &mcpToolAnnotate{ReadOnlyHint: a.ReadOnly, DestructiveHint: &a.Destructive, OpenWorldHint: &a.OpenWorld}
}
