package policy

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wieldhq/wield/tool"
	"golang.org/x/net/idna"
)

// A Rule names a tool, optionally narrowed by a specifier, in Claude Code's
// syntax: "Tool" or "Tool(specifier)". Tool may end in * to match a family
// ("mcp__github__*"). What the specifier means depends on the tool:
//
//   - shell tools: a command, "git diff" (exactly) or "git diff:*" (that
//     prefix, then anything), matched against every simple command of the
//     command line;
//   - tools with a path argument: a glob ("src/**", "*.md") matched
//     against the workspace-relative path;
//   - tools with a url argument: "domain:example.com" matches that host
//     and its subdomains, "domain:*.example.com" only its subdomains (at
//     any depth), "domain:*" every host. Hosts compare case-insensitively,
//     without a trailing dot and in their ASCII (punycode) form; the port
//     is ignored. A url without a scheme is read as https;
//   - the agent tool: the agent type, as a glob: "agent(reviewer)",
//     "agent(code-*)";
//   - tools with a scope argument (the memory tools): "scope:user" or
//     "scope:project", where a call without the argument is in the
//     project scope.
//
// Claude Code's tool names are accepted as aliases: Bash, Read, Write,
// Edit, MultiEdit, Glob, Grep, LS, WebFetch, and Agent or Task for agent.
type Rule struct {
	// Tool is the tool name or pattern, after alias resolution.
	Tool string `json:"tool"`
	// Specifier narrows the rule; empty means every call of the tool.
	Specifier string `json:"specifier,omitempty"`
}

// agentTool is the name of the tool that starts subagents (package
// agent/subagent); a rule's specifier names agent types for it.
const agentTool = "agent"

var toolPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.\-]+\*?$|^\*$`) })

// ParseRule parses "Tool" or "Tool(specifier)".
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	name, spec := s, ""
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return Rule{}, fmt.Errorf("rule %q: missing the closing parenthesis", s)
		}
		name, spec = s[:i], strings.TrimSpace(s[i+1:len(s)-1])
		if spec == "" {
			return Rule{}, fmt.Errorf("rule %q: empty specifier; write %s alone to match every call", s, name)
		}
	}
	if !toolPattern().MatchString(name) {
		return Rule{}, fmt.Errorf("rule %q: %q is not a tool name (letters, digits, '_', '.', '-', optionally ending in *)", s, name)
	}
	if a, ok := tool.FromClaudeCode(name); ok {
		name = a
	}
	return Rule{Tool: name, Specifier: spec}, nil
}

// String returns the rule in its written form.
func (r Rule) String() string {
	if r.Specifier == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Specifier + ")"
}

// MarshalText writes the rule's written form.
func (r Rule) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText parses the written form.
func (r *Rule) UnmarshalText(b []byte) error {
	p, err := ParseRule(string(b))
	if err != nil {
		return err
	}
	*r = p
	return nil
}

// matchesTool reports whether the rule names the tool called name.
func (r Rule) matchesTool(name string) bool {
	if r.Tool == name || r.Tool == "*" {
		return true
	}
	if strings.HasSuffix(r.Tool, "*") {
		return strings.HasPrefix(name, strings.TrimSuffix(r.Tool, "*"))
	}
	return false
}

// shellPattern is a parsed shell specifier: the words a command must start
// with, and whether more may follow.
type shellPattern struct {
	words  []string
	prefix bool
}

func parseShellPattern(spec string) shellPattern {
	p := shellPattern{}
	switch {
	case strings.HasSuffix(spec, ":*"):
		spec, p.prefix = strings.TrimSuffix(spec, ":*"), true
	case strings.HasSuffix(spec, " *"):
		spec, p.prefix = strings.TrimSuffix(spec, " *"), true
	case spec == "*":
		spec, p.prefix = "", true
	}
	p.words = strings.Fields(spec)
	return p
}

// argString returns the string argument key of a call, if it has one.
func argString(args json.RawMessage, key string) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return "", false
	}
	raw, ok := m[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// matchesArgs reports whether a non-shell rule's specifier matches a
// call's arguments. A specifier that cannot apply (the tool has no path or
// url argument) does not match.
func (r Rule) matchesArgs(root string, args json.RawMessage) bool {
	if r.Specifier == "" {
		return true
	}
	if r.Tool == agentTool {
		// agent(reviewer), agent(code-*): the agent type, as a glob.
		typ, ok := argString(args, "type")
		m, _ := path.Match(r.Specifier, typ)
		return ok && m
	}
	if sc, ok := strings.CutPrefix(r.Specifier, "scope:"); ok {
		return sc != "" && argScope(args) == sc
	}
	if dom, ok := strings.CutPrefix(r.Specifier, "domain:"); ok {
		raw, ok := argString(args, "url")
		if !ok {
			return false
		}
		h, ok := urlHost(raw)
		return ok && matchesDomain(dom, h)
	}
	for _, key := range []string{"path", "file_path", "directory"} {
		p, ok := argString(args, key)
		if !ok {
			continue
		}
		rel, ok := workspaceRel(root, p)
		if !ok {
			return false // outside the workspace: no path rule covers it
		}
		spec := strings.TrimPrefix(strings.TrimPrefix(r.Specifier, "./"), "/")
		if m, _ := doublestar.Match(spec, rel); m {
			return true
		}
		// "src" covers everything under src.
		if m, _ := doublestar.Match(strings.TrimSuffix(spec, "/")+"/**", rel); m {
			return true
		}
		return false
	}
	return false
}

// workspaceRel cleans p into a workspace-relative slash path, or reports
// that it leaves the workspace.
func workspaceRel(root, p string) (string, bool) {
	p = strings.ReplaceAll(p, "\\", "/")
	if path.IsAbs(p) {
		if root == "" {
			return "", false
		}
		r := strings.TrimSuffix(strings.ReplaceAll(root, "\\", "/"), "/")
		if p != r && !strings.HasPrefix(p, r+"/") {
			return "", false
		}
		p = strings.TrimPrefix(strings.TrimPrefix(p, r), "/")
	}
	p = path.Clean(p)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// urlHost returns the host a url argument names, normalised as
// [matchesDomain] compares it. A url without a scheme ("evil.com/x") is
// read as https, so that a deny rule still applies to it.
func urlHost(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err == nil && u.Host == "" && u.Scheme == "" {
		u, err = url.Parse("https://" + strings.TrimSpace(raw))
	}
	if err != nil || u.Hostname() == "" {
		return "", false
	}
	return normalHost(u.Hostname()), true
}

// normalHost lower-cases h, drops a trailing dot and converts an
// internationalised name to its ASCII form.
func normalHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if a, err := idna.Lookup.ToASCII(h); err == nil {
		h = a
	}
	return h
}

// matchesDomain reports whether host (normalised) is covered by the domain
// pattern dom: "example.com" covers the host and its subdomains,
// "*.example.com" only its subdomains, "*" every host.
func matchesDomain(dom, host string) bool {
	dom = strings.TrimSpace(dom)
	if dom == "*" {
		return host != ""
	}
	if sub, ok := strings.CutPrefix(dom, "*."); ok {
		sub = normalHost(sub)
		return sub != "" && strings.HasSuffix(host, "."+sub)
	}
	dom = normalHost(dom)
	return dom != "" && (host == dom || strings.HasSuffix(host, "."+dom))
}
