package skill

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/wieldhq/wield/internal/diag"
	"github.com/wieldhq/wield/internal/frontmatter"
	"go.yaml.in/yaml/v3"
)

// FileName is the name of the file that makes a directory a skill.
const FileName = "SKILL.md"

// Limits of the Agent Skills specification.
const (
	MaxNameLen          = 64
	MaxDescriptionLen   = 1024
	MaxCompatibilityLen = 500
	// MaxFileSize is the largest SKILL.md [Load] reads.
	MaxFileSize = 256 << 10
)

// A Scope says where a skill comes from. Earlier scopes win: project over
// user over plugin.
type Scope string

// The scopes, from the most specific to the least.
const (
	ScopeProject Scope = "project"
	ScopeUser    Scope = "user"
	ScopePlugin  Scope = "plugin"
)

// A Skill is one loaded skill. Its fields are read-only once loaded.
type Skill struct {
	// Name identifies the skill: ^[a-z0-9]+(-[a-z0-9]+)*$.
	Name string
	// Description says what the skill does and when to use it.
	Description string
	// WhenToUse is Claude Code's when_to_use, searched with the
	// description; empty when not given.
	WhenToUse string
	// License is the skill's license, as written; empty when not given.
	License string
	// Compatibility says what the skill needs (a product, packages); empty
	// when not given.
	Compatibility string
	// AllowedTools are the tools (with argument patterns, as policy rules
	// write them: "Bash(git:*)", "read_file") the skill asks to use without
	// a prompt while the skill is active. They approve only what the
	// user's policy leaves open: never over a deny or an ask rule. nil
	// when not given.
	AllowedTools []string
	// Metadata holds the metadata map; nil when not given.
	Metadata map[string]string
	// ModelHidden reports whether the model may not activate the skill
	// (Claude Code's disable-model-invocation): it is left out of the
	// listing and the search, and only the user can invoke it.
	ModelHidden bool
	// Body is the Markdown after the frontmatter.
	Body string
	// Dir is the skill's directory; Path is its SKILL.md. Both are empty
	// for [Parse].
	Dir, Path string
	// Scope is where the skill comes from; Plugin names the plugin for
	// ScopePlugin. Both are empty for [Parse].
	Scope  Scope
	Plugin string
}

// A Severity grades a [Problem]: [Info] is worth knowing and needs no
// change (a key wield ignores, a shadowed skill), [Warning] is probably a
// mistake but the skill loads (a legacy name, an unknown key, a symbolic
// link skipped), [Error] means the skill was skipped.
type Severity = diag.Severity

// The severities.
const (
	Info    = diag.Info
	Warning = diag.Warning
	Error   = diag.Error
)

// A Problem is something wrong, or worth knowing, about a skill. Path is
// the file or directory, empty for [Parse]; its Error method gives
// "path:line: severity: msg".
type Problem = diag.Problem

// ignoredKeys are keys of Claude Code and other clients that wield reads
// but does not act on, with the reason.
var ignoredKeys = map[string]string{
	"argument-hint":    "skills are activated by name, without arguments",
	"user-invocable":   "every skill can be shown to the user",
	"context":          "skills run in the activating agent's context",
	"agent":            "skills run in the activating agent's context",
	"paths":            "skills are listed whatever files are open",
	"model":            "a skill does not choose the model",
	"disallowed-tools": "tools are not hidden while a skill is active",
	"version":          "the version is not used",
	"hooks":            "skills cannot set hooks",
}

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })

// ValidName reports whether name is a valid skill name.
func ValidName(name string) bool {
	return len(name) <= MaxNameLen && namePattern().MatchString(name)
}

// NormalizeName returns name as a valid skill name: lower case, with each
// run of other characters turned into one hyphen ("Plugin Structure"
// becomes "plugin-structure"), cut to [MaxNameLen]. It returns "" when
// nothing is left.
func NormalizeName(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	s := b.String()
	if len(s) > MaxNameLen {
		s = strings.TrimRight(s[:MaxNameLen], "-")
	}
	return s
}

// Parse reads one SKILL.md. dir is the name of the skill's directory: a
// skill without a name takes it, and a name that differs from it warns.
// It returns the skill, or nil when a problem of [Error] severity was
// found, and every problem, with lines counted from the top of data.
func Parse(data []byte, dir string) (*Skill, []Problem) {
	p := &parser{}
	s := p.parse(data, dir)
	if slices.ContainsFunc(p.problems, func(pr Problem) bool { return pr.Severity == Error }) {
		s = nil
	}
	return s, p.problems
}

type parser struct {
	problems []Problem
	lines    int
}

func (p *parser) report(line int, sev Severity, format string, args ...any) {
	p.problems = append(p.problems, Problem{Line: line, Severity: sev, Msg: fmt.Sprintf(format, args...)})
}

// line returns the file's line of n: the frontmatter starts on line 2.
func (p *parser) line(n *yaml.Node) int {
	if n == nil || n.Line == 0 {
		return 1
	}
	return max(1, min(n.Line, p.lines)) + 1
}

func (p *parser) parse(data []byte, dir string) *Skill {
	front, body, ok := frontmatter.Split(data)
	if !ok {
		p.report(1, Error, `no frontmatter: SKILL.md starts with a "---" line, then YAML with name and description, then a closing "---" line, then the instructions`)
		return nil
	}
	p.lines = strings.Count(string(front), "\n")
	doc, err := frontmatter.Decode(front)
	if se, ok := errors.AsType[*frontmatter.SyntaxError](err); ok {
		p.report(se.Line+1, Error, "the frontmatter is not valid YAML: %s", se.Msg)
		return nil
	}
	m, ok := frontmatter.Mapping(&doc)
	if !ok {
		p.report(p.line(&doc), Error, "the frontmatter must be a mapping of keys to values (name: …, description: …)")
		return nil
	}
	s := &Skill{Body: frontmatter.Body(body)}
	seen := map[string]*yaml.Node{}
	if m != nil {
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], frontmatter.Deref(m.Content[i+1])
			key := k.Value
			if prev, dup := seen[key]; dup {
				p.report(p.line(k), Error, "%s is given twice (first on line %d)", key, p.line(prev))
				continue
			}
			seen[key] = k
			switch key {
			case "name":
				s.Name = p.str(key, v)
			case "description":
				s.Description = p.str(key, v)
			case "when_to_use", "when-to-use":
				s.WhenToUse = p.str(key, v)
			case "license":
				s.License = p.str(key, v)
			case "compatibility":
				s.Compatibility = p.str(key, v)
				if n := utf8.RuneCountInString(s.Compatibility); n > MaxCompatibilityLen {
					p.report(p.line(k), Warning, "compatibility has %d characters; the specification allows %d", n, MaxCompatibilityLen)
				}
			case "allowed-tools", "allowed_tools", "allowedTools":
				s.AllowedTools = p.tools(key, v)
			case "metadata":
				s.Metadata = p.metadata(key, v)
			case "disable-model-invocation":
				s.ModelHidden = v.Kind == yaml.ScalarNode && v.Value == "true"
			default:
				if why, ok := ignoredKeys[key]; ok {
					p.report(p.line(k), Info, "%s is ignored: %s", key, why)
				} else {
					p.report(p.line(k), Warning, "unknown key %q is ignored; the specification defines name, description, license, compatibility, metadata and allowed-tools", key)
				}
			}
		}
	}
	p.name(s, dir, seen["name"])
	s.Description = oneLine(s.Description)
	switch n := utf8.RuneCountInString(s.Description); {
	case n == 0:
		p.report(p.line(seen["description"]), Error, "the skill has no description; say what it does and when to use it")
	case n > MaxDescriptionLen:
		p.report(p.line(seen["description"]), Warning, "the description has %d characters and is cut to %d", n, MaxDescriptionLen)
		s.Description = string([]rune(s.Description)[:MaxDescriptionLen])
	}
	s.WhenToUse = oneLine(s.WhenToUse)
	return s
}

// name checks and normalises the skill's name.
func (p *parser) name(s *Skill, dir string, key *yaml.Node) {
	line := p.line(key)
	if s.Name == "" {
		s.Name = NormalizeName(dir)
		if s.Name == "" {
			p.report(line, Error, "the skill has no name; add a name such as \"pdf-tools\", the name of its directory")
			return
		}
		p.report(line, Warning, "the skill has no name; it takes its directory's name %q", s.Name)
		return
	}
	if !ValidName(s.Name) {
		n := NormalizeName(s.Name)
		if n == "" {
			p.report(line, Error, "name %q has no letters or digits; use lower-case letters, digits and '-'", s.Name)
			return
		}
		p.report(line, Warning, "name %q is a legacy name; it is read as %q (use lower-case letters, digits and single '-')", s.Name, n)
		s.Name = n
	}
	if dir != "" && s.Name != dir && s.Name != NormalizeName(dir) {
		p.report(line, Warning, "name %q differs from the directory's name %q; the specification wants them equal", s.Name, dir)
	}
}

// oneLine squashes runs of white space, line breaks included, to one
// space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (p *parser) str(key string, v *yaml.Node) string {
	if frontmatter.IsNull(v) {
		return ""
	}
	if v.Kind != yaml.ScalarNode {
		p.report(p.line(v), Error, "%s must be a single value, not a list or mapping", key)
		return ""
	}
	return v.Value
}

// tools reads allowed-tools: a space-delimited string (the
// specification), a comma-separated one (Claude Code) or a YAML list.
// Spaces inside parentheses belong to the entry: "Bash(git log:*)".
func (p *parser) tools(key string, v *yaml.Node) []string {
	if frontmatter.IsNull(v) {
		return nil
	}
	var out []string
	switch v.Kind {
	case yaml.ScalarNode:
		out = SplitTools(v.Value)
	case yaml.SequenceNode:
		for _, e := range v.Content {
			e = frontmatter.Deref(e)
			if e.Kind != yaml.ScalarNode {
				p.report(p.line(e), Error, "%s: each entry must be a tool name", key)
				continue
			}
			out = append(out, SplitTools(e.Value)...)
		}
	default:
		p.report(p.line(v), Error, "%s must be a string or a list of tool names", key)
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// SplitTools splits an allowed-tools string at spaces and commas outside
// parentheses.
func SplitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if e := strings.TrimSpace(s[start:end]); e != "" {
			out = append(out, e)
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || unicode.IsSpace(r)):
			flush(i)
			start = i + utf8.RuneLen(r)
		}
	}
	flush(len(s))
	return out
}

// metadata reads the metadata map. The specification wants string values;
// a number or boolean is kept as written, with a warning.
func (p *parser) metadata(key string, v *yaml.Node) map[string]string {
	if frontmatter.IsNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		p.report(p.line(v), Warning, "%s must be a mapping of strings; it is ignored", key)
		return nil
	}
	m := make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], frontmatter.Deref(v.Content[i+1])
		if val.Kind != yaml.ScalarNode {
			p.report(p.line(k), Warning, "%s.%s is not a string; it is ignored", key, k.Value)
			continue
		}
		if val.Tag != "!!str" {
			p.report(p.line(k), Info, "%s.%s is not a string; it is read as %q", key, k.Value, val.Value)
		}
		m[k.Value] = val.Value
	}
	return m
}
