// Package frontmatter splits a Markdown file into its YAML frontmatter and
// its body, and decodes the frontmatter into a YAML node, reporting syntax
// errors with the line of the file they are on.
//
// Agent definitions, skills and plugin commands share this format:
//
//	---
//	name: code-reviewer
//	description: Reviews a change.
//	---
//	The body.
//
// The package reads untrusted files: it never panics on its input, and the
// YAML package's own panics become errors.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Split separates the frontmatter from the body. The file must start with
// a "---" line (after an optional byte order mark); the frontmatter ends at
// the next "---" line. ok is false when there is no frontmatter. Trailing
// spaces and a "\r" after the dashes are allowed.
func Split(data []byte) (front, body []byte, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	first, rest, found := bytes.Cut(data, []byte("\n"))
	if !found || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, nil, false
	}
	for i := 0; i < len(rest); {
		line := rest[i:]
		next := len(rest)
		if j := bytes.IndexByte(line, '\n'); j >= 0 {
			line, next = line[:j], i+j+1
		}
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			return rest[:i], rest[next:], true
		}
		i = next
	}
	return nil, nil, false
}

// Body returns body without its leading blank lines and trailing space.
func Body(body []byte) string {
	for len(body) > 0 {
		line, rest, found := bytes.Cut(body, []byte("\n"))
		if len(bytes.TrimSpace(line)) != 0 || !found {
			break
		}
		body = rest
	}
	return string(bytes.TrimRightFunc(body, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == '\v' || r == '\f'
	}))
}

// A SyntaxError is a frontmatter that is not one valid YAML document.
type SyntaxError struct {
	// Line is the 1-based line of the frontmatter the error is about
	// (line 1 is the line after the opening "---").
	Line int
	// Msg is the YAML package's message without its "yaml: line N:"
	// prefix.
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Decode decodes front, one YAML document, into a node. An empty front
// gives the zero node. A syntax error, a second document, or a panic of
// the YAML package is returned as a [*SyntaxError].
func Decode(front []byte) (yaml.Node, error) {
	var n yaml.Node
	if err := decode(front, &n); err != nil {
		line, msg := errorLine(err, front)
		return yaml.Node{}, &SyntaxError{Line: line, Msg: msg}
	}
	return n, nil
}

// Mapping returns the mapping node of a document decoded by [Decode]: nil
// and true for an empty document, nil and false when the document is not
// a mapping.
func Mapping(doc *yaml.Node) (*yaml.Node, bool) {
	switch {
	case doc.Kind == 0:
		return nil, true
	case doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode:
		return doc.Content[0], true
	}
	return nil, false
}

// Deref follows an alias to its anchored node.
func Deref(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// IsNull reports whether n is a YAML null.
func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// errorLine returns the line of front (1-based) a YAML syntax error is
// about, and the error's message without its prefix. The YAML package
// counts the lines of its parser's errors ("did not find expected …") from
// zero and those of its scanner's from one; an error at the end of the
// input is put on the last line.
func errorLine(err error, front []byte) (int, string) {
	msg := err.Error()
	m := yamlLine().FindStringSubmatch(msg)
	if m == nil {
		return 1, strings.TrimPrefix(msg, "yaml: ")
	}
	line, _ := strconv.Atoi(m[1])
	if strings.HasPrefix(m[2], "did not find expected") {
		line++
	}
	return max(1, min(line, bytes.Count(front, []byte("\n")))), m[2]
}

// decode decodes one YAML document into n. The YAML package panics on
// some inputs that are not its own errors; such a panic becomes an error.
func decode(data []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(n); err != nil {
		if errors.Is(err, io.EOF) {
			*n = yaml.Node{}
			return nil
		}
		return err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return fmt.Errorf("yaml: line %d: a second YAML document; the frontmatter is one mapping", extra.Line)
	}
	return nil
}
