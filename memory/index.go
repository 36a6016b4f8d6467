package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// IndexLines is the most lines a MEMORY.md index has.
const IndexLines = 200

// indexHeader is how many lines come before the notes in an index.
const indexHeader = 3

// Index returns scope's index, the text of its MEMORY.md: a heading, a
// line saying the file is generated, then one line per note, newest
// first, at most [IndexLines] lines in all; when the notes do not fit, the
// last line counts those left out. It returns "" when the scope has no
// notes.
func (s *Store) Index(scope Scope) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return "", err
	}
	return s.render(scope), nil
}

func (s *Store) render(scope Scope) string {
	notes := s.list(scope)
	if len(notes) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Memory (%s)\n", scope)
	b.WriteString("Generated from the notes in this directory, newest first; edit the notes, not this file.\n\n")
	room := IndexLines - indexHeader
	if len(notes) > room {
		room-- // for the count
	}
	for i, n := range notes {
		if i == room {
			fmt.Fprintf(&b, "- … and %d more notes\n", len(notes)-room)
			break
		}
		b.WriteString(indexLine(&n))
	}
	return b.String()
}

// indexLine is a note's line in an index.
func indexLine(n *Note) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- [%s](%s.md) %s", n.ID, n.ID, n.Title())
	if len(n.Tags) > 0 {
		fmt.Fprintf(&b, " #%s", strings.Join(n.Tags, " #"))
	}
	fmt.Fprintf(&b, " (%s", n.Modified.Format("2006-01-02"))
	if n.Tainted {
		b.WriteString(", written after reading external content")
	}
	b.WriteString(")\n")
	return b.String()
}

// writeIndex rewrites scope's MEMORY.md, or removes it when the scope
// has no notes.
func (s *Store) writeIndex(scope Scope) error {
	text := s.render(scope)
	if text != "" {
		return s.write(scope, IndexName, []byte(text))
	}
	root, err := s.openRoot(scope, false)
	if root == nil {
		return err
	}
	defer root.Close()
	if err := root.Remove(IndexName); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s memory: remove %s: %w", scope, IndexName, err)
	}
	return nil
}
