package fs

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wieldhq/wield/tool"
)

// A Change is what a write_file or replace call would do to one file:
// its content before (empty for a new file) and after.
type Change struct {
	// Path is the file as the call named it.
	Path     string
	Old, New string
	// Created reports whether the file does not exist yet.
	Created bool
}

// Preview returns the change the call c of toolName (write_file or
// replace) with args would make, without writing anything: approvals show
// it as a diff. It returns an error saying why when the call would fail
// (the tool would give the same reason) or names another tool. Reading
// goes through c.Root like the tools' own.
func Preview(c *tool.Call, toolName string, args json.RawMessage) (Change, error) {
	w, ok := openWorkspace(c)
	if !ok {
		return Change{}, errors.New(noWorkspace.Error)
	}
	var in struct {
		Path          string  `json:"path"`
		Content       *string `json:"content"`
		OldString     string  `json:"old_string"`
		NewString     string  `json:"new_string"`
		AllowMultiple bool    `json:"allow_multiple"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return Change{}, fmt.Errorf("arguments: %w", err)
	}
	t, res, ok := openTarget(w, in.Path)
	if !ok {
		return Change{}, errors.New(res.Error)
	}
	ch := Change{Path: in.Path, Old: string(toLF(t.old)), Created: !t.exists}
	switch toolName {
	case "write_file":
		if in.Content == nil {
			return Change{}, errors.New("write_file without content")
		}
		ch.New = string(toLF([]byte(*in.Content)))
	case "replace":
		if in.OldString == "" {
			ch.New = string(toLF([]byte(in.NewString)))
			break
		}
		if !t.exists {
			return Change{}, fmt.Errorf("%s does not exist", in.Path)
		}
		ed, fail := applyReplace(t.old, in.OldString, in.NewString, in.AllowMultiple)
		if fail != "" {
			return Change{}, errors.New(strings.ReplaceAll(fail, "FILE", in.Path))
		}
		ch.New = string(toLF(ed.content))
	default:
		return Change{}, fmt.Errorf("%s is not a file-editing tool: only write_file and replace can be previewed", toolName)
	}
	return ch, nil
}

// A DiffLine is one line of a [Hunk]: Kind is ' ' (kept), '-' (removed)
// or '+' (added); Old and New are its 1-based line numbers in the old and
// new text, zero on the side it is not in.
type DiffLine struct {
	Kind     byte
	Old, New int
	Text     string
}

// A Hunk is a run of changed lines with their context, as in a unified
// diff: it covers OldLines lines from OldStart in the old text and
// NewLines from NewStart in the new (1-based; a start is the line before
// when its count is zero, as diff -u writes it).
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []DiffLine
}

// Diff returns the hunks that turn old into new, each change with up to
// context unchanged lines around it; hunks closer than twice context are
// merged. Texts are split at "\n"; a final line break starts no line.
// Equal texts give no hunks.
func Diff(old, new string, context int) []Hunk {
	a, b := splitLines(old), splitLines(new)
	es := diffLines(a, b)
	var hunks []Hunk
	for i := 0; i < len(es); {
		for i < len(es) && es[i].kind == ' ' {
			i++
		}
		if i == len(es) {
			break
		}
		start, end := max(0, i-context), i
		for end < len(es) {
			if es[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(es) && es[run].kind == ' ' {
				run++
			}
			if run == len(es) || run-end > 2*context {
				end = min(len(es), end+context)
				break
			}
			end = run
		}
		h := Hunk{OldStart: es[start].a + 1, NewStart: es[start].b + 1}
		for _, e := range es[start:end] {
			l := DiffLine{Kind: e.kind}
			switch e.kind {
			case ' ':
				l.Old, l.New, l.Text = e.a+1, e.b+1, a[e.a]
				h.OldLines++
				h.NewLines++
			case '-':
				l.Old, l.Text = e.a+1, a[e.a]
				h.OldLines++
			case '+':
				l.New, l.Text = e.b+1, b[e.b]
				h.NewLines++
			}
			h.Lines = append(h.Lines, l)
		}
		if h.OldLines == 0 {
			h.OldStart--
		}
		if h.NewLines == 0 {
			h.NewStart--
		}
		hunks = append(hunks, h)
		i = end
	}
	return hunks
}
