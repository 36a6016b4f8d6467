package fs

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	iofs "io/fs"
	"strconv"
	"strings"
	"unicode"

	"github.com/wieldhq/wield/internal/diff"
	"github.com/wieldhq/wield/internal/fstree"
	"github.com/wieldhq/wield/tool"
)

// Limits of replace's messages.
const (
	maxListedLines = 20     // line numbers listed for ambiguous matches
	maxNearWork    = 400000 // line comparisons spent looking for the closest region
)

//go:embed replace.md
var replaceDescription string

// ReplaceInput is the argument object of replace.
type ReplaceInput struct {
	Path          string `json:"path" jsonschema:"the file to edit, relative to the workspace root or absolute inside it"`
	OldString     string `json:"old_string" jsonschema:"the exact text to replace, with enough surrounding lines to be unique; empty to create a new file"`
	NewString     string `json:"new_string" jsonschema:"the text to put in its place"`
	AllowMultiple bool   `json:"allow_multiple,omitempty" default:"false" jsonschema:"replace every occurrence instead of requiring exactly one"`
}

// ReplaceData is the structured result of replace.
type ReplaceData struct {
	Path         string `json:"path"`
	Replacements int    `json:"replacements"`
	// Whitespace reports whether old_string matched only when whitespace
	// was ignored, and new_string was re-indented.
	Whitespace bool `json:"whitespace,omitempty"`
	Created    bool `json:"created,omitempty"`
	Added      int  `json:"added,omitempty"`
	Removed    int  `json:"removed,omitempty"`
}

// NewReplace returns the replace tool.
func NewReplace(cfg Config) *tool.Tool {
	r := replacer{cfg: cfg.withDefaults()}
	return tool.New(tool.Spec{
		Name:         "replace",
		Effect:       tool.EffectWrite,
		KeyArgs:      []string{"path"},
		Aliases:      []string{"Edit", "MultiEdit"},
		Description:  describe("replace", replaceDescription, r.cfg),
		OutputSchema: tool.SchemaOf[ReplaceData](),
		Annotations:  tool.Annotations{Destructive: true},
	}, inWorkspace(r.replace))
}

type replacer struct{ cfg Config }

func (r replacer) replace(ctx context.Context, c *tool.Call, w *fstree.Tree, in ReplaceInput) (tool.Result, error) {
	t, res, ok := openTarget(w, in.Path)
	if !ok {
		return res, nil
	}
	if privateKey([]byte(in.NewString)) {
		return tool.Failure("refusing to edit " + in.Path + ": the new text holds a private key"), nil
	}
	if in.OldString == "" {
		if t.exists {
			return tool.Failure(fmt.Sprintf("%s already exists: an empty old_string only creates new files. "+
				"Give the text to replace, or use write_file to replace the whole file", in.Path)), nil
		}
		if err := writeAtomic(w.Root, t.rel, []byte(in.NewString), newFileMode); err != nil {
			return tool.Failure(fstree.DescribeError(in.Path, err) + "; nothing was written"), nil
		}
		if err := r.cfg.record(ctx, c, w, t.rel, nil, []byte(in.NewString), newFileMode); err != nil {
			return tool.Result{}, err
		}
		n := countLines([]byte(in.NewString))
		return tool.Result{Success: true,
			Output: fmt.Sprintf("Created %s (%s).", in.Path, plural(n, "line")),
			Data:   ReplaceData{Path: in.Path, Created: true, Replacements: 1, Added: n}}, nil
	}
	if !t.exists {
		return notFound(w, in.Path, t.rel, errNotExist(t.rel)), nil
	}
	if bytes.IndexByte(t.old[:min(len(t.old), sniffBytes)], 0) >= 0 {
		return tool.Failure(in.Path + " is a binary file; replace edits text files only"), nil
	}
	ed, fail := applyReplace(t.old, in.OldString, in.NewString, in.AllowMultiple)
	if fail != "" {
		return tool.Failure(strings.ReplaceAll(fail, "FILE", in.Path)), nil
	}
	if err := writeAtomic(w.Root, t.rel, ed.content, t.mode); err != nil {
		return tool.Failure(fstree.DescribeError(in.Path, err) + "; the file was not changed"), nil
	}
	if err := r.cfg.record(ctx, c, w, t.rel, &t, ed.content, t.mode); err != nil {
		return tool.Result{}, err
	}
	a, b := diff.SplitLines(string(toLF(t.old))), diff.SplitLines(string(toLF(ed.content)))
	es := diff.Edits(a, b)
	data := ReplaceData{Path: in.Path, Replacements: ed.count, Whitespace: ed.whitespace}
	data.Added, data.Removed = diff.Count(es)
	out := newOutput(r.cfg.OutputBudget)
	head := fmt.Sprintf("Replaced %s in %s.", plural(ed.count, "occurrence"), in.Path)
	if ed.whitespace {
		head = fmt.Sprintf("old_string did not match exactly; it matched %s in %s when whitespace was ignored, and new_string was re-indented to fit. Check the result:",
			plural(ed.count, "place"), in.Path)
	}
	out.line(head)
	out.line(unified(diff.HunksOf(a, b, es, diffContext), maxDiffLines))
	return tool.Result{Success: true, Output: out.String(), Data: data}, nil
}

func errNotExist(rel string) error {
	return &iofs.PathError{Op: "open", Path: rel, Err: iofs.ErrNotExist}
}

// An edited is the outcome of applyReplace.
type edited struct {
	content    []byte
	count      int
	whitespace bool
}

// applyReplace replaces old with new in content. It returns the new
// content, or a failure message (with FILE standing for the file's name).
//
// The rules: in a file whose lines all end in CRLF, old and new are
// matched and inserted with LF line ends and the result gets CRLF back;
// "\r\n" in old or new counts as "\n" there and in files without CR. An
// exact match comes first and must be unique unless allowMultiple. With
// no exact match, whole lines are compared with runs of whitespace made
// equal; new is re-indented by the difference between the first line of
// old and the line it matched. A file that ended with a newline still
// does.
func applyReplace(content []byte, old, new string, allowMultiple bool) (edited, string) {
	style := styleOf(content)
	text := string(content)
	if style == crlfLines {
		text = string(toLF(content))
	}
	if style != mixedLines {
		old = strings.ReplaceAll(old, "\r\n", "\n")
		new = strings.ReplaceAll(new, "\r\n", "\n")
	}
	if old == new {
		return edited{}, "old_string and new_string are the same: there is nothing to change"
	}
	var ed edited
	if n := strings.Count(text, old); n > 0 {
		if n > 1 && !allowMultiple {
			return edited{}, fmt.Sprintf("old_string occurs %d times in FILE, at lines %s. Add surrounding lines to old_string to pick one, or set allow_multiple=true to replace all",
				n, lineList(text, occurrences(text, old)))
		}
		text = strings.ReplaceAll(text, old, new)
		ed.count = n
	} else {
		starts, m := looseMatches(text, old)
		switch {
		case len(starts) == 0:
			return edited{}, closest(text, old)
		case len(starts) > 1 && !allowMultiple:
			lines := make([]int, len(starts))
			for i, s := range starts {
				lines[i] = s + 1
			}
			return edited{}, fmt.Sprintf("old_string does not occur exactly in FILE; ignoring whitespace it matches %d places, at lines %s. Copy old_string exactly from the file, with enough lines to be unique",
				len(starts), joinLines(lines))
		}
		text = replaceLoose(text, old, new, starts, m)
		ed.count, ed.whitespace = len(starts), true
	}
	if len(content) > 0 && content[len(content)-1] == '\n' && text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if style == crlfLines {
		ed.content = toCRLF([]byte(text))
	} else {
		ed.content = []byte(text)
	}
	return ed, ""
}

// occurrences returns the byte offsets of the non-overlapping occurrences
// of s in text.
func occurrences(text, s string) []int {
	var at []int
	for i := 0; ; {
		j := strings.Index(text[i:], s)
		if j < 0 {
			return at
		}
		at = append(at, i+j)
		i += j + len(s)
	}
}

// lineList lists the line numbers of byte offsets in text.
func lineList(text string, offsets []int) string {
	lines := make([]int, len(offsets))
	line, last := 1, 0
	for i, o := range offsets {
		line += strings.Count(text[last:o], "\n")
		last = o
		lines[i] = line
	}
	return joinLines(lines)
}

func joinLines(lines []int) string {
	var parts []string
	for i, l := range lines {
		if i == maxListedLines {
			parts = append(parts, fmt.Sprintf("and %d more", len(lines)-i))
			break
		}
		parts = append(parts, strconv.Itoa(l))
	}
	return strings.Join(parts, ", ")
}

// looseKey is a line with its runs of whitespace made equal and its ends
// trimmed.
func looseKey(s string) string { return strings.Join(strings.Fields(s), " ") }

// textLines splits text into lines that keep their "\n".
func textLines(text string) []string {
	return strings.SplitAfter(text, "\n")
}

// looseMatches returns the first lines of the non-overlapping places where
// the lines of old match whole lines of text, ignoring whitespace, and the
// number of lines of old.
func looseMatches(text, old string) ([]int, int) {
	want := diff.SplitLines(old)
	keys := make([]string, len(want))
	blank := true
	for i, l := range want {
		keys[i] = looseKey(l)
		blank = blank && keys[i] == ""
	}
	if blank {
		return nil, 0
	}
	lines := textLines(text)
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var starts []int
	for i := 0; i+len(keys) <= len(lines); {
		ok := true
		for j, k := range keys {
			if looseKey(lines[i+j]) != k {
				ok = false
				break
			}
		}
		if ok {
			starts = append(starts, i)
			i += len(keys)
			continue
		}
		i++
	}
	return starts, len(keys)
}

// replaceLoose replaces the m lines at each start with new, re-indented.
func replaceLoose(text, old, new string, starts []int, m int) string {
	lines := textLines(text)
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	oldLines := diff.SplitLines(old)
	first := 0
	for first < len(oldLines) && strings.TrimSpace(oldLines[first]) == "" {
		first++
	}
	oldIndent := leadingSpace(oldLines[first])
	var b strings.Builder
	next := 0
	for _, s := range starts {
		for _, l := range lines[next:s] {
			b.WriteString(l)
		}
		fileIndent := leadingSpace(lines[s+first])
		eol := "\n"
		last := lines[s+m-1]
		if strings.HasSuffix(last, "\r\n") {
			eol = "\r\n"
		} else if !strings.HasSuffix(last, "\n") {
			eol = ""
		}
		sep := "\n"
		if eol == "\r\n" {
			sep = eol
		}
		newLines := diff.SplitLines(new)
		for i, l := range newLines {
			switch {
			case strings.TrimSpace(l) == "":
				l = ""
			case strings.HasPrefix(l, oldIndent):
				l = fileIndent + l[len(oldIndent):]
			default:
				l = fileIndent + strings.TrimLeftFunc(l, unicode.IsSpace)
			}
			b.WriteString(l)
			if i < len(newLines)-1 {
				b.WriteString(sep)
			} else {
				b.WriteString(eol)
			}
		}
		next = s + m
	}
	for _, l := range lines[next:] {
		b.WriteString(l)
	}
	return b.String()
}

// leadingSpace returns the indentation of s.
func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeftFunc(s, func(r rune) bool { return r == ' ' || r == '\t' }))]
}

// closest describes where old comes nearest to matching text, with
// whitespace made visible, so that the model can see what differs.
func closest(text, old string) string {
	msg := "old_string was not found in FILE, not even ignoring whitespace"
	want := diff.SplitLines(old)
	lines := diff.SplitLines(text)
	if len(lines) == 0 || len(want) == 0 {
		return msg + ". The file is empty."
	}
	m := min(len(want), len(lines))
	// Compare at most maxNearWork lines in all.
	budget := max(1, min(m, maxNearWork/len(lines)))
	best, bestScore := 0, -1.0
	for i := 0; i+m <= len(lines); i++ {
		score := 0.0
		for j := range budget {
			score += similarity(looseKey(lines[i+j]), looseKey(want[j]))
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if bestScore <= 0 {
		return msg + ", and no lines resemble it. Read the file again before editing it."
	}
	from, to := max(0, best-1), min(len(lines), best+m+1)
	var b strings.Builder
	fmt.Fprintf(&b, "%s. The closest region is lines %d-%d (shown with → for a tab, · for a trailing space, ␍ for a carriage return):\n", msg, best+1, best+m)
	width := len(strconv.Itoa(to))
	for n := from; n < to; n++ {
		fmt.Fprintf(&b, "%*d\t%s\n", width, n+1, showSpace(lines[n]))
	}
	b.WriteString("Copy old_string exactly from the file (without the line numbers), or read the file again.")
	return b.String()
}

// similarity rates two strings from 0 to 1 by their common start and end.
func similarity(a, b string) float64 {
	if a == b {
		if a == "" {
			return 0.5
		}
		return 1
	}
	pre, suf := diff.CommonAffix(len(a), len(b), func(i, j int) bool { return a[i] == b[j] })
	return float64(pre+suf) / float64(max(len(a), len(b)))
}

// showSpace shows tabs, trailing spaces and carriage returns.
func showSpace(s string) string {
	cr := strings.HasSuffix(s, "\r")
	s = strings.TrimSuffix(s, "\r")
	trimmed := strings.TrimRight(s, " ")
	s = trimmed + strings.Repeat("·", len(s)-len(trimmed))
	s = strings.ReplaceAll(s, "\t", "→")
	if cr {
		s += "␍"
	}
	return s
}
