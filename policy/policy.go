package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/wieldhq/wield/shellcmd"
	"github.com/wieldhq/wield/tool"
)

// Mode is how much runs without asking.
type Mode string

// The modes.
const (
	// ModeDefault runs read-only tools and asks for the rest.
	ModeDefault Mode = "default"
	// ModeAutoEdit also runs file edits.
	ModeAutoEdit Mode = "auto-edit"
	// ModePlan runs only what changes nothing: read-only tools, shell
	// lines whose every command is read-only, and writes to the session's
	// plan file (see the package doc's "Plan mode"). No rule, hook or
	// approval lets anything else run.
	ModePlan Mode = "plan"
	// ModeYolo runs everything that no deny rule forbids.
	ModeYolo Mode = "yolo"
)

// ParseMode parses a mode name; Claude Code's names are accepted too
// (acceptEdits, bypassPermissions).
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "default":
		return ModeDefault, nil
	case "auto-edit", "acceptEdits":
		return ModeAutoEdit, nil
	case "plan":
		return ModePlan, nil
	case "yolo", "bypassPermissions":
		return ModeYolo, nil
	}
	return "", fmt.Errorf("unknown mode %q: use default, auto-edit, plan or yolo", s)
}

// The lists a rule can be in.
const (
	Allow = "allow"
	Ask   = "ask"
	Deny  = "deny"
)

// DefaultShellTools and DefaultEditTools name the built-in tools the
// policy treats as shells and as file edits. DefaultMemoryTools name the
// tools that write memory notes: a write to the project's memory (a call
// whose "scope" argument is absent or "project") is an edit of the
// workspace and runs in auto-edit mode; a write to the user's memory,
// which every workspace of the user reads, asks in every mode but yolo
// unless a rule allows it (save_memory(scope:user)).
var (
	DefaultShellTools  = []string{"run_shell_command"}
	DefaultEditTools   = []string{"write_file", "replace"}
	DefaultMemoryTools = []string{"save_memory", "memory"}
)

// A Policy decides which tool calls run, ask or are denied. It implements
// [tool.Gate]. Its zero value is ModeDefault with no rules, interactive.
// A Policy is safe for concurrent use; do not copy it after first use.
type Policy struct {
	// Mode is the mode; empty means ModeDefault. Modes, when it knows the
	// call's session, overrides it.
	Mode Mode
	// Modes tells the mode of a call's session ([tool.Call.SessionID]),
	// which may change during a run (plan mode is entered and left); nil,
	// or a session it does not know, means Mode applies.
	Modes ModeSource
	// Headless turns every "ask" into "deny": nobody is there to answer.
	Headless bool
	// HeadlessHint, when not empty, ends the reason of a call that
	// Headless denied: it tells the model how its user can permit such a
	// call, in the host's terms (wield's command line names its settings
	// file). Empty adds nothing.
	HeadlessHint string
	// Root is the workspace root's path, for path rules on absolute paths.
	Root string
	// ShellTools, EditTools and MemoryTools override DefaultShellTools,
	// DefaultEditTools and DefaultMemoryTools when not nil.
	ShellTools, EditTools, MemoryTools []string
	// Hooks run before and after calls; nil means none.
	Hooks *Hooks
	// Grants pre-approve calls of one session, such as the allowed-tools
	// of the skills active in it (see [GrantSource]); nil means none.
	Grants GrantSource
	// Logger receives warnings, and the Hooks that settings files add
	// ([Policy.Apply]) log to it too; a nil Logger discards them.
	Logger *slog.Logger

	mu    sync.RWMutex
	lists map[string][]Rule
}

// Add adds rules to the list (Allow, Ask or Deny).
func (p *Policy) Add(list string, rules ...Rule) error {
	switch list {
	case Allow, Ask, Deny:
	default:
		return fmt.Errorf("unknown rule list %q: use allow, ask or deny", list)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lists == nil {
		p.lists = map[string][]Rule{}
	}
	for _, r := range rules {
		if !slices.Contains(p.lists[list], r) {
			p.lists[list] = append(p.lists[list], r)
		}
	}
	return nil
}

// Rules returns the rules of a list.
func (p *Policy) Rules(list string) []Rule {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return slices.Clone(p.lists[list])
}

// rules returns the rules of list that name toolName.
func (p *Policy) rules(list, toolName string) []Rule {
	p.mu.RLock()
	defer p.mu.RUnlock()
	var out []Rule
	for _, r := range p.lists[list] {
		if r.matchesTool(toolName) {
			out = append(out, r)
		}
	}
	return out
}

// mode returns the mode call c is judged in; c may be nil.
func (p *Policy) mode(c *tool.Call) Mode {
	if p.Modes != nil && c != nil && c.SessionID != "" {
		if m, ok := p.Modes.Mode(c.SessionID); ok && m != "" {
			return m
		}
	}
	if p.Mode == "" {
		return ModeDefault
	}
	return p.Mode
}

func (p *Policy) isShell(name string) bool {
	return slices.Contains(cmpSlice(p.ShellTools, DefaultShellTools), name)
}

func (p *Policy) isEdit(name string) bool {
	return slices.Contains(cmpSlice(p.EditTools, DefaultEditTools), name)
}

// isProjectMemory reports whether a call of name writes only the
// project's memory: a memory tool whose scope argument is absent or
// "project". Anything else in scope (user, a typo, a non-string) is not.
func (p *Policy) isProjectMemory(name string, args json.RawMessage) bool {
	if !slices.Contains(cmpSlice(p.MemoryTools, DefaultMemoryTools), name) {
		return false
	}
	return argScope(args) == "project"
}

// argScope returns a call's "scope" argument, "project" when it has none,
// and "" when it is not a string.
func argScope(args json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	raw, ok := m["scope"]
	if !ok || string(raw) == "null" {
		return "project"
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	if s == "" {
		return "project"
	}
	return s
}

func cmpSlice(a, b []string) []string {
	if a != nil {
		return a
	}
	return b
}

// Offered reports whether a tool is offered to the model at all: not when
// a deny rule names it without a specifier. The mode hides nothing: it
// may change during a run (a plan approved, plan mode entered), so plan
// mode is enforced on each call by [Policy.Decide], whose reasons tell
// the model what it may do instead.
func (p *Policy) Offered(t *tool.Tool) bool {
	for _, r := range p.rules(Deny, t.Name()) {
		if r.Specifier == "" {
			return false
		}
	}
	return true
}

// Filter returns the tools of reg that are offered; see [Policy.Offered].
func (p *Policy) Filter(reg *tool.Registry) (*tool.Registry, error) {
	var deny []string
	for _, t := range reg.Tools() {
		if !p.Offered(t) {
			deny = append(deny, t.Name())
		}
	}
	return reg.Exclude(deny), nil
}

// Decide implements [tool.Gate]: PreToolUse hooks first, then deny, ask
// and allow rules (for shells, on every simple command of the line), then
// the mode. In a headless policy, ask becomes deny.
func (p *Policy) Decide(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage) tool.Decision {
	d := p.decide(ctx, c, t, args)
	if d.Verdict == tool.Ask && p.Headless {
		d.Verdict = tool.Deny
		d.Reason = "needs approval and nobody can give it in this headless run (" + d.Reason + ")"
		if p.HeadlessHint != "" {
			d.Reason += "; " + p.HeadlessHint
		}
	}
	return d
}

func (p *Policy) decide(ctx context.Context, c *tool.Call, t *tool.Tool, args json.RawMessage) tool.Decision {
	name := t.Name()
	var hookD tool.Decision
	if p.Hooks != nil {
		hookD = p.Hooks.pre(ctx, c, name, args)
		if hookD.Verdict == tool.Deny {
			return hookD
		}
		if hookD.Args != nil {
			args = hookD.Args
		}
	}
	d := p.judge(c, name, t, args)
	// A hook's allow or ask stands unless the rules deny; its rewritten
	// arguments are kept in every case.
	if d.Verdict != tool.Deny && hookD.Verdict != "" {
		d.Verdict, d.Reason = hookD.Verdict, hookD.Reason
	}
	d.Args = hookD.Args
	return d
}

// judge applies the plan mode's limits, the rules and the mode.
func (p *Policy) judge(c *tool.Call, name string, t *tool.Tool, args json.RawMessage) tool.Decision {
	ann := t.CallAnnotations(args)
	mode := p.mode(c)
	planFile := false
	if mode == ModePlan {
		d, ok := p.judgePlan(c, name, ann, args)
		if !ok {
			return d
		}
		planFile = p.isEdit(name)
	}
	if p.isShell(name) {
		line, ok := argString(args, "command")
		if !ok {
			return tool.Decision{Verdict: tool.Ask, Reason: "the shell call has no command string"}
		}
		if d, ok := p.judgeShell(name, line, p.grants(c, name)); ok {
			if d.Verdict == tool.Allow || d.Verdict == tool.Deny || mode != ModeYolo {
				return d
			}
			return tool.Decision{Verdict: tool.Allow, Reason: "yolo mode (" + d.Reason + ")"}
		}
		return p.byMode(mode, name, ann, fmt.Sprintf("no rule allows %q", oneLine(line)))
	}
	for _, r := range p.rules(Deny, name) {
		if r.matchesArgs(p.Root, args) {
			return tool.Decision{Verdict: tool.Deny, Reason: "denied by the rule " + r.String()}
		}
	}
	for _, r := range p.rules(Ask, name) {
		if r.matchesArgs(p.Root, args) {
			if mode == ModeYolo {
				return tool.Decision{Verdict: tool.Allow, Reason: "yolo mode (ask rule " + r.String() + ")"}
			}
			return tool.Decision{Verdict: tool.Ask, Reason: "matches the ask rule " + r.String()}
		}
	}
	for _, r := range p.rules(Allow, name) {
		if r.matchesArgs(p.Root, args) {
			return tool.Decision{Verdict: tool.Allow, Reason: "allowed by " + r.String()}
		}
	}
	for _, r := range p.grants(c, name) {
		if r.matchesArgs(p.Root, args) {
			return tool.Decision{Verdict: tool.Allow, Reason: "pre-approved by " + r.String() + grantedBy}
		}
	}
	if planFile {
		return tool.Decision{Verdict: tool.Allow, Reason: "plan mode: the session's plan file"}
	}
	if mode == ModeAutoEdit && p.isProjectMemory(name, args) {
		return tool.Decision{Verdict: tool.Allow, Reason: "auto-edit mode: the project's memory"}
	}
	if mode != ModeYolo && !ann.ReadOnly && slices.Contains(cmpSlice(p.MemoryTools, DefaultMemoryTools), name) && argScope(args) != "project" {
		return tool.Decision{Verdict: tool.Ask, Reason: name + ": a write to the user's memory, which every workspace reads; no rule allows it"}
	}
	return p.byMode(mode, name, ann, "no rule allows it")
}

// byMode decides a call no rule decided.
func (p *Policy) byMode(mode Mode, name string, ann tool.Annotations, why string) tool.Decision {
	switch {
	case mode == ModeYolo:
		return tool.Decision{Verdict: tool.Allow, Reason: "yolo mode"}
	case ann.ReadOnly && !p.isShell(name):
		return tool.Decision{Verdict: tool.Allow, Reason: "read-only tool"}
	case mode == ModeAutoEdit && p.isEdit(name):
		return tool.Decision{Verdict: tool.Allow, Reason: "auto-edit mode"}
	}
	return tool.Decision{Verdict: tool.Ask, Reason: name + ": " + why}
}

// AllowAlways returns the rule that "allow always" stores for a call, as
// narrow as the call allows: for shells, for each simple command, its
// name and subcommand as a prefix when the second word is a subcommand
// ("git diff:*"; a word that starts with a letter), else the exact command
// ("rm -rf build"), never a bare name (rm:*) and never the verbatim line;
// commands that change nothing and show no file's content run without a
// rule, so they get none unless the line holds nothing else (then
// "sleep:*"); for the agent tool, the agent
// type (agent(reviewer)); for a call with a url, its host
// (web_fetch(domain:go.dev)), never the whole web; for the memory tools,
// the scope (save_memory(scope:user)); for tools with a path,
// the path; else the tool.
func AllowAlways(p *Policy, toolName string, args json.RawMessage) ([]Rule, error) {
	if p.isShell(toolName) {
		line, _ := argString(args, "command")
		cmds, err := shellcmd.Split(line)
		if err != nil {
			return nil, fmt.Errorf("the command cannot be parsed, so no rule can be derived: %w", err)
		}
		var rules, inertRules []Rule
		for _, c := range cmds {
			if c.Name() == "" {
				continue
			}
			if inertCommand(c, strings.TrimSpace(line[c.Start:c.End])) {
				// It runs without asking: a rule for it is needless,
				// unless the line holds nothing else.
				if r := (Rule{Tool: toolName, Specifier: c.Name() + ":*"}); !slices.Contains(inertRules, r) {
					inertRules = append(inertRules, r)
				}
				continue
			}
			words := []string{c.Name()}
			if len(c.Args) > 1 && !c.Args[1].Dynamic && isSubcommand(c.Args[1].Value) {
				words = append(words, c.Args[1].Value)
			}
			spec := strings.Join(words, " ") + ":*"
			if len(words) == 1 || wrappers[c.Name()] || runsCommands(c.Args) {
				// Without a subcommand a prefix would be the bare command
				// (rm:*): only the exact command is allowed.
				spec = strings.TrimSpace(line[c.Start:c.End])
			}
			r := Rule{Tool: toolName, Specifier: spec}
			if !slices.Contains(rules, r) {
				rules = append(rules, r)
			}
		}
		if len(rules) == 0 {
			rules = inertRules
		}
		if len(rules) == 0 {
			return nil, fmt.Errorf("the command %q has no static command name to allow", line)
		}
		return rules, nil
	}
	if toolName == agentTool {
		// Allow this agent type, not every agent.
		if typ, ok := argString(args, "type"); ok && typ != "" {
			return []Rule{{Tool: toolName, Specifier: typ}}, nil
		}
	}
	if raw, ok := argString(args, "url"); ok {
		// Allow this host, never the whole web.
		h, ok := urlHost(raw)
		if !ok {
			return nil, fmt.Errorf("the url %q names no host, so no rule can be derived", raw)
		}
		return []Rule{{Tool: toolName, Specifier: "domain:" + h}}, nil
	}
	if slices.Contains(cmpSlice(p.MemoryTools, DefaultMemoryTools), toolName) {
		// This scope of memory, never both.
		if sc := argScope(args); sc == "project" || sc == "user" {
			return []Rule{{Tool: toolName, Specifier: "scope:" + sc}}, nil
		}
		return nil, fmt.Errorf("the memory scope in %s is not project or user, so no rule can be derived", oneLine(string(args)))
	}
	if path, ok := argString(args, "path"); ok && path != "" {
		if rel, ok := workspaceRel(p.Root, path); ok {
			return []Rule{{Tool: toolName, Specifier: rel}}, nil
		}
	}
	return []Rule{{Tool: toolName}}, nil
}

// isSubcommand reports whether a second word looks like a subcommand
// (git diff, npm test) rather than an option or a path.
func isSubcommand(w string) bool {
	if w == "" || w[0] < 'a' || w[0] > 'z' || strings.ContainsAny(w, "/.=") {
		return false // an option, a number, a path
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// Review implements [tool.Reviewer]: PostToolUse hooks see each result.
func (p *Policy) Review(ctx context.Context, c *tool.Call, args json.RawMessage, r tool.Result) tool.Result {
	return p.Hooks.Post(ctx, c, args, r)
}
