package plugin

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/wieldhq/wield/internal/frontmatter"
	"go.yaml.in/yaml/v3"
)

// A Command is a prompt template: /name args expands it into a task.
type Command struct {
	// Name is the command's name: the file's name without .md, with
	// subdirectories joined by ':' ("git:commit").
	Name string
	// Description and ArgumentHint are from the frontmatter; both may be
	// empty.
	Description, ArgumentHint string
	// Body is the template.
	Body string
	// Plugin names the plugin; Path is the file.
	Plugin, Path string
	root         string
}

// ParseCommand reads a command file: optional frontmatter (description,
// argument-hint; allowed-tools and model are reported and ignored), then
// the template.
func ParseCommand(data []byte, name string) (*Command, []Problem) {
	c := &Command{Name: name}
	var problems []Problem
	report := func(sev Severity, format string, args ...any) {
		problems = append(problems, Problem{Severity: sev, Msg: fmt.Sprintf(format, args...)})
	}
	front, body, ok := frontmatter.Split(data)
	if !ok {
		c.Body = frontmatter.Body(data)
	} else {
		c.Body = frontmatter.Body(body)
		doc, err := frontmatter.Decode(front)
		if se, ok := errors.AsType[*frontmatter.SyntaxError](err); ok {
			report(Error, "the frontmatter is not valid YAML: line %d: %s", se.Line, se.Msg)
			return nil, problems
		}
		m, ok := frontmatter.Mapping(&doc)
		if !ok {
			report(Error, "the frontmatter must be a mapping")
			return nil, problems
		}
		if m != nil {
			for i := 0; i+1 < len(m.Content); i += 2 {
				k, v := m.Content[i].Value, frontmatter.Deref(m.Content[i+1])
				str := ""
				if v.Kind == yaml.ScalarNode && !frontmatter.IsNull(v) {
					str = v.Value
				}
				switch k {
				case "description":
					c.Description = strings.Join(strings.Fields(str), " ")
				case "argument-hint":
					c.ArgumentHint = str
				case "allowed-tools", "model", "disable-model-invocation":
					report(Info, "%s is ignored: a command only expands into a task, under the run's own tools and model", k)
				default:
					report(Warning, "unknown key %q is ignored", k)
				}
			}
		}
	}
	if strings.TrimSpace(c.Body) == "" {
		report(Error, "the command has no text")
		return nil, problems
	}
	if strings.Contains(c.Body, "!`") {
		report(Warning, "!`command` lines are not run: wield passes them to the model as text")
	}
	return c, problems
}

// Expand returns the task the command makes of args: $ARGUMENTS becomes
// args, $1 … $9 its words (missing ones are empty), and
// ${CLAUDE_PLUGIN_ROOT} and ${WIELD_PLUGIN_ROOT} the plugin's directory.
// A template that uses no argument gets args appended after a blank line,
// so nothing the user typed is lost.
func (c *Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := strings.Fields(args)
	used := strings.Contains(c.Body, "$ARGUMENTS")
	out := strings.ReplaceAll(c.Body, "$ARGUMENTS", args)
	for i := 9; i >= 1; i-- {
		v := "$" + strconv.Itoa(i)
		if strings.Contains(out, v) {
			used = true
			w := ""
			if i <= len(words) {
				w = words[i-1]
			}
			out = strings.ReplaceAll(out, v, w)
		}
	}
	if c.root != "" {
		out = substitute(out, c.root)
	}
	if !used && args != "" {
		out += "\n\n" + args
	}
	return out
}
