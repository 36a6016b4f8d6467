package memory

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Scope says whose a note is.
type Scope string

// The scopes.
const (
	// ScopeProject notes belong to one workspace (.wield/memory).
	ScopeProject Scope = "project"
	// ScopeUser notes follow the user into every workspace.
	ScopeUser Scope = "user"
)

// ParseScope returns the scope named s; empty means ScopeProject.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case "", ScopeProject:
		return ScopeProject, nil
	case ScopeUser:
		return ScopeUser, nil
	}
	return "", fmt.Errorf("unknown memory scope %q: use project or user", s)
}

// Source says who wrote a note.
type Source string

// The sources.
const (
	SourceUser      Source = "user"      // the person, in their own words
	SourceAgent     Source = "agent"     // a model, through a tool
	SourceExtracted Source = "extracted" // drawn from a session afterwards
)

// A Note is one remembered fact, preference or procedure.
type Note struct {
	// ID names the note within its scope: a slash path without .md.
	ID string
	// Scope is whose note it is.
	Scope Scope
	// Tags label the note for filtering; they are kept in lower case.
	Tags []string
	// Created and Modified are UTC times, to the second.
	Created, Modified time.Time
	// Source says who wrote it; SourceSession names the session that did.
	Source        Source
	SourceSession string
	// Tainted reports whether the session that wrote the note had read
	// external content (web pages, MCP tools) before: the fact may come
	// from a page rather than from the user.
	Tainted bool
	// Body is the Markdown text.
	Body string
}

// Title returns the note's first non-empty line without Markdown heading
// marks, cut to 100 characters.
func (n *Note) Title() string {
	t, _ := split(n.Body)
	return t
}

// maxTitle is the longest title in runes.
const maxTitle = 100

// split returns a body's title and the text after it.
func split(body string) (title, rest string) {
	rest = body
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > maxTitle {
			r := []rune(line)
			line = string(r[:maxTitle-1]) + "…"
		}
		return line, rest
	}
	return "", ""
}

// frontmatter is a note's YAML header.
type frontmatter struct {
	ID            string    `yaml:"id,omitempty"`
	Scope         Scope     `yaml:"scope,omitempty"`
	Tags          []string  `yaml:"tags,flow,omitempty"`
	Created       time.Time `yaml:"created,omitempty"`
	Modified      time.Time `yaml:"modified,omitempty"`
	Source        Source    `yaml:"source,omitempty"`
	SourceSession string    `yaml:"source_session,omitempty"`
	Tainted       bool      `yaml:"tainted,omitempty"`
}

const fence = "---"

// ParseNote reads a note file: optional YAML frontmatter between "---"
// lines, then the body. A file that does not begin with a "---" line is
// all body. Unknown frontmatter keys are ignored. Times are kept in UTC to
// the second and tags in lower case, so that [Note.Markdown] and
// ParseNote round-trip.
func ParseNote(data []byte) (*Note, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("note is not UTF-8 text")
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	n := &Note{}
	rest, ok := strings.CutPrefix(s, fence+"\n")
	if !ok {
		n.Body = s
		return n, nil
	}
	var head string
	switch {
	case strings.HasPrefix(rest, fence+"\n"):
		head, rest = "", rest[len(fence)+1:]
	case rest == fence:
		head, rest = "", ""
	default:
		i := strings.Index(rest, "\n"+fence+"\n")
		if i < 0 {
			if !strings.HasSuffix(rest, "\n"+fence) {
				return nil, errors.New("note frontmatter has no closing --- line")
			}
			i = len(rest) - len(fence) - 1
			head, rest = rest[:i+1], ""
		} else {
			// The newline before the fence ends the YAML's last line
			// (which may be part of a block scalar).
			head, rest = rest[:i+1], rest[i+len(fence)+2:]
		}
	}
	var fm frontmatter
	if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
		return nil, fmt.Errorf("note frontmatter: %w", err)
	}
	n.ID, n.Scope, n.Source, n.SourceSession, n.Tainted = fm.ID, fm.Scope, fm.Source, fm.SourceSession, fm.Tainted
	n.Tags = normalTags(fm.Tags)
	n.Created, n.Modified = normalTime(fm.Created), normalTime(fm.Modified)
	n.Body = rest
	return n, nil
}

// Markdown returns the note as a file: frontmatter, then the body.
func (n *Note) Markdown() []byte {
	fm := frontmatter{ID: n.ID, Scope: n.Scope, Tags: normalTags(n.Tags), Created: normalTime(n.Created),
		Modified: normalTime(n.Modified), Source: n.Source, SourceSession: n.SourceSession, Tainted: n.Tainted}
	var b bytes.Buffer
	b.WriteString(fence + "\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&fm); err != nil {
		// Strings, a bool and times always encode.
		panic(fmt.Sprintf("memory: encode frontmatter: %v", err))
	}
	enc.Close()
	if bytes.HasSuffix(b.Bytes(), []byte("{}\n")) { // nothing set
		b.Truncate(b.Len() - 3)
	}
	b.WriteString(fence + "\n")
	b.WriteString(n.Body)
	return b.Bytes()
}

// normalTags lower-cases and trims tags, dropping empty ones and repeats.
func normalTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func normalTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Second)
}

// MaxIDLength is the longest note id in bytes.
const MaxIDLength = 200

// IndexName is the generated index file at the root of a scope's
// directory; no note may be called MEMORY.
const IndexName = "MEMORY.md"

// ValidID reports whether id can name a note: a clean relative slash path
// of at most [MaxIDLength] bytes whose elements use letters, digits, '.',
// '_' and '-', none beginning with a dot, and not the index's name.
func ValidID(id string) error {
	switch {
	case id == "":
		return errors.New("the note id is empty")
	case len(id) > MaxIDLength:
		return fmt.Errorf("the note id is longer than %d bytes", MaxIDLength)
	case path.Clean(id) != id || strings.HasPrefix(id, "/"):
		return fmt.Errorf("note id %q is not a clean relative path", id)
	case strings.EqualFold(id, strings.TrimSuffix(IndexName, ".md")):
		return fmt.Errorf("%s is the generated index; choose another name", IndexName)
	}
	for elem := range strings.SplitSeq(id, "/") {
		if elem == "" || elem[0] == '.' {
			return fmt.Errorf("note id %q has an element that is empty or begins with a dot", id)
		}
		for _, r := range elem {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
				return fmt.Errorf("note id %q has %q: use letters, digits, '.', '_', '-' and '/'", id, r)
			}
		}
	}
	return nil
}
