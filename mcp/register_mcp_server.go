package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"

	"github.com/wieldhq/wield/mcp/registered"
	"github.com/wieldhq/wield/tool"
)

//go:embed register_mcp_server.md
var registerDescription string

// RegisterInput is the argument object of the register_mcp_server tool.
type RegisterInput struct {
	Name    string            `json:"name" jsonschema:"the server's name: its tools are mounted as mcp__<name>__<tool>"`
	Command string            `json:"command,omitempty" jsonschema:"program that runs a stdio MCP server (give command or url)"`
	Args    []string          `json:"args,omitempty" jsonschema:"arguments of command"`
	Env     map[string]string `json:"env,omitempty" jsonschema:"environment variables for command, besides wield's own"`
	URL     string            `json:"url,omitempty" jsonschema:"http:// or https:// URL of an MCP server (give command or url)"`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"HTTP headers sent to url, such as Authorization"`
}

// RegisterData is the Data of the register_mcp_server tool's results.
type RegisterData struct {
	// Server is the server's name; Tools are the names its tools are
	// mounted under.
	Server string   `json:"server"`
	Tools  []string `json:"tools"`
}

// RegisterOptions configures the register_mcp_server tool. A nil
// *RegisterOptions, or a zero field, means the documented default.
type RegisterOptions struct {
	// Recorder is told of each server registered, in the session of the
	// call, so that a resumed session mounts it again and an undo of the
	// step takes it away; nil means registrations are not recorded.
	Recorder registered.Recorder
}

// NewRegisterServer returns the register_mcp_server tool, which adds a
// server to m for the rest of its life, starts it and mounts its tools in
// the registries given to [Manager.Mount] and [Manager.Track]. It is
// destructive (it runs a program or reaches a service), open-world, and
// not parallel-safe. The server is untrusted until the user confirms it
// ([Manager.Confirm]): [ConfirmGate] makes every call of its tools ask.
func NewRegisterServer(m *Manager, opts *RegisterOptions) *tool.Tool {
	r := registerServer{m: m}
	if opts != nil {
		r.opts = *opts
	}
	return tool.New(tool.Spec{
		Name:         "register_mcp_server",
		Effect:       tool.EffectState | tool.EffectRun | tool.EffectNetwork,
		Description:  renderRegisterDescription(),
		OutputSchema: tool.SchemaOf[RegisterData](),
		Annotations:  tool.Annotations{Destructive: true, OpenWorld: true},
		// Starting the server is bounded by its own startup_timeout.
		Timeout: DefaultStartupTimeout + DefaultStartupTimeout/2,
	}, r.register)
}

func renderRegisterDescription() string {
	var b strings.Builder
	t := template.Must(template.New("").Parse(registerDescription))
	if err := t.Execute(&b, map[string]any{"StartupTimeout": DefaultStartupTimeout.String()}); err != nil {
		panic(err) // the template is part of the binary
	}
	return b.String()
}

type registerServer struct {
	m    *Manager
	opts RegisterOptions
}

func (r registerServer) register(ctx context.Context, c *tool.Call, in RegisterInput) (tool.Result, error) {
	if (in.Command == "") == (in.URL == "") {
		return tool.Failure(`give exactly one of "command" (a stdio server) or "url" (an HTTP server)`), nil
	}
	cfg := ServerConfig{Command: in.Command, Args: in.Args, Env: in.Env, URL: in.URL, Headers: in.Headers}
	if err := r.m.AddRegistered(in.Name, cfg, false); err != nil {
		return tool.Failure(err.Error()), nil
	}
	tools, errs, err := r.m.mountServer(ctx, in.Name)
	if err != nil {
		// It did not start: forget it, so that a corrected call may use
		// the same name.
		r.m.Remove(in.Name)
		return tool.Failure(fmt.Sprintf("mcp server %q was not registered: %v", in.Name, err)), nil
	}
	if r.opts.Recorder != nil && c != nil {
		rec := Record(in.Name, cfg)
		rec.CallID = c.ID
		if err := r.opts.Recorder.RecordMCPServer(ctx, c.SessionID, rec); err != nil {
			r.m.Remove(in.Name)
			return tool.Failure(fmt.Sprintf("mcp server %q was not registered: the session could not record it: %v", in.Name, err)), nil
		}
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Registered MCP server %q with %d tools", in.Name, len(tools))
	if len(names) > 0 {
		b.WriteString(": " + strings.Join(names, ", "))
	}
	b.WriteString(". Until the user confirms the server, every call of its tools asks the user first.")
	for _, err := range errs {
		b.WriteString("\nNote: " + err.Error())
	}
	return tool.Result{Success: true, Output: b.String(), Data: RegisterData{Server: in.Name, Tools: names}}, nil
}

// Record returns the journal record of the registration of the server
// called name: how to start or reach it, with only the names of its
// environment variables and headers (their values may be secrets).
func Record(name string, cfg ServerConfig) registered.Entry {
	return registered.Entry{Action: registered.Add, Name: name, Transport: cfg.transport(),
		Command: cfg.Command, Args: slices.Clone(cfg.Args), URL: cfg.URL,
		Env: slices.Sorted(maps.Keys(cfg.Env)), Headers: slices.Sorted(maps.Keys(cfg.Headers))}
}

// ConfigOf returns the configuration of a recorded registration. The
// values of its environment variables and headers are looked up by name
// with lookup (nil: none); the error lists those that are not set, and
// the configuration is returned without them.
func ConfigOf(r registered.Entry, lookup func(string) (string, bool)) (ServerConfig, error) {
	cfg := ServerConfig{Command: r.Command, Args: slices.Clone(r.Args), URL: r.URL}
	if r.Transport == "sse" {
		cfg.Type = "sse"
	}
	var missing []string
	fill := func(names []string) map[string]string {
		if len(names) == 0 {
			return nil
		}
		out := map[string]string{}
		for _, n := range names {
			v, ok := "", false
			if lookup != nil {
				v, ok = lookup(n)
			}
			if !ok {
				missing = append(missing, n)
				continue
			}
			out[n] = v
		}
		return out
	}
	cfg.Env, cfg.Headers = fill(r.Env), fill(r.Headers)
	if len(missing) > 0 {
		return cfg, fmt.Errorf("mcp server %q: %s not set, so the server gets no value for it (the session keeps names, never values): set it in wield's environment, or register the server again", r.Name, strings.Join(missing, ", "))
	}
	return cfg, nil
}

// AddRegistered adds a server the agent registered: as [Manager.Add],
// but untrusted whatever cfg says (its hints are only labels) and, unless
// confirmed, with its tools asking at every call under [ConfirmGate].
func (m *Manager) AddRegistered(name string, cfg ServerConfig, confirmed bool) error {
	cfg.Trust = false
	if err := m.Add(name, cfg); err != nil {
		return err
	}
	m.mu.Lock()
	m.registered[name] = confirmed
	m.mu.Unlock()
	return nil
}

// Confirm records that the user confirmed the server the agent
// registered as name: its tools stop asking at every call (the policy
// still decides them, as any untrusted server's). It reports whether
// there is such a server.
func (m *Manager) Confirm(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.registered[name]; !ok {
		return false
	}
	m.registered[name] = true
	return true
}

// Unconfirmed reports whether the tool mounted as toolName belongs to a
// server the agent registered and the user has not confirmed, and
// returns that server's name.
func (m *Manager) Unconfirmed(toolName string) (string, bool) {
	o, ok := m.Origin(toolName)
	if !ok {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	confirmed, registered := m.registered[o.Server]
	return o.Server, registered && !confirmed
}

// Restore adds again the servers a resumed session's agent registered
// ([session.State.MCPServers]), confirmed or not as recorded, and mounts
// them. The values of their environment variables and headers are looked
// up with lookup. It returns a problem for each server that is missing a
// value or does not start; those are added all the same, and start when
// first used.
func (m *Manager) Restore(ctx context.Context, servers []registered.Server, lookup func(string) (string, bool)) []error {
	var errs []error
	for _, s := range servers {
		cfg, err := ConfigOf(s.Added, lookup)
		if err != nil {
			errs = append(errs, err)
		}
		if err := m.AddRegistered(s.Added.Name, cfg, s.Confirmed); err != nil {
			errs = append(errs, err)
			continue
		}
		if _, warnings, err := m.mountServer(ctx, s.Added.Name); err != nil {
			errs = append(errs, err)
		} else {
			errs = append(errs, warnings...)
		}
	}
	return errs
}

// ConfirmGate returns a gate that decides as g does (nil g allows every
// call), except that it asks, unless g denies, for every call of a tool
// of a server the agent registered that the user has not confirmed
// ([Manager.Confirm]), whatever the mode or the rules: nothing a server
// the agent brought says or does loosens a permission. A call of
// register_mcp_server is g's to decide (a destructive tool: the policy
// asks unless a rule or the mode allows it); when g asks, the reason
// shows what the server would run and the names, never the values, of
// its variables and headers. When g is a [tool.Reviewer], so is the gate.
func ConfirmGate(m *Manager, g tool.Gate) tool.Gate {
	return confirmGate{m, g}
}

type confirmGate struct {
	m *Manager
	g tool.Gate
}

func (cg confirmGate) Decide(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage) tool.Decision {
	d := tool.Decision{Verdict: tool.Allow}
	if cg.g != nil {
		d = cg.g.Decide(ctx, c, t, args)
	}
	if d.Verdict == tool.Deny {
		return d
	}
	if t.Name() == "register_mcp_server" {
		if d.Verdict == tool.Ask {
			// Show what it would run, never the values it passes.
			d.Reason += "; it starts a program or reaches a service the agent chose: " + DescribeRegistration(args)
		}
		return d
	}
	server, ok := cg.m.Unconfirmed(t.Name())
	if !ok {
		return d
	}
	how := "Manager.Confirm"
	if cg.m.opts.ConfirmHint != nil {
		how = cg.m.opts.ConfirmHint(server)
	}
	why := fmt.Sprintf("a tool of MCP server %q, which the agent registered and you have not confirmed; its calls ask until you do (%s; no allow rule or mode does it)", server, how)
	return tool.Decision{Verdict: tool.Ask, Reason: why, Args: d.Args}
}

func (cg confirmGate) Review(ctx context.Context, c *tool.Call, args json.RawMessage, r tool.Result) tool.Result {
	if rv, ok := cg.g.(tool.Reviewer); ok {
		return rv.Review(ctx, c, args, r)
	}
	return r
}

// DescribeRegistration says in one line what a call of
// register_mcp_server with args would start or reach: the command and its
// arguments or the URL, and the names of the environment variables and
// headers, never their values.
func DescribeRegistration(args json.RawMessage) string {
	var in RegisterInput
	if err := json.Unmarshal(args, &in); err != nil {
		return "(the arguments do not parse: " + err.Error() + ")"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "server %q", in.Name)
	switch {
	case in.Command != "":
		fmt.Fprintf(&b, ", command %s", strings.Join(append([]string{in.Command}, in.Args...), " "))
	case in.URL != "":
		fmt.Fprintf(&b, ", url %s", redactURL(in.URL))
	}
	if len(in.Env) > 0 {
		fmt.Fprintf(&b, ", env %s", strings.Join(slices.Sorted(maps.Keys(in.Env)), ", "))
	}
	if len(in.Headers) > 0 {
		fmt.Fprintf(&b, ", headers %s", strings.Join(slices.Sorted(maps.Keys(in.Headers)), ", "))
	}
	return b.String()
}
