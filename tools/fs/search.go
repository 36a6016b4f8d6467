package fs

import (
	"bytes"
	"container/heap"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wieldhq/wield/internal/fstree"
	"github.com/wieldhq/wield/tool"
)

// Limits of search_file_content.
const (
	defaultMaxMatches  = 100     // matching lines shown when max_matches is not given
	searchLineChars    = 500     // characters of a matching line shown
	autoContext        = 2       // context lines shown when there are few matches
	autoContextMatches = 3       // "few matches"
	maxContext         = 20      // the most context lines a call may ask for
	searchBuffer       = 1 << 20 // bytes each worker reads at a time
)

//go:embed search.md
var searchDescription string

// SearchInput is the argument object of search_file_content.
type SearchInput struct {
	Pattern       string `json:"pattern" jsonschema:"the regular expression (RE2 syntax) to search for, or the text to search for with fixed_strings"`
	Path          string `json:"path,omitempty" jsonschema:"the file or directory to search, relative to the workspace root or absolute inside it (default the root)"`
	Include       string `json:"include,omitempty" jsonschema:"a glob the files must match, such as *.go or src/**/*.{ts,tsx}; without a slash it matches file names"`
	CaseSensitive *bool  `json:"case_sensitive,omitempty" default:"true" jsonschema:"match letter case exactly"`
	FixedStrings  bool   `json:"fixed_strings,omitempty" default:"false" jsonschema:"treat pattern as plain text, not a regular expression"`
	Context       *int   `json:"context,omitempty" jsonschema:"lines to show before and after each match"`
	MaxMatches    int    `json:"max_matches,omitempty" default:"100" jsonschema:"the most matching lines to show"`
}

// SearchData is the structured result of search_file_content.
type SearchData struct {
	// Matches are the matching lines shown, by path and line.
	Matches []SearchMatch `json:"matches"`
	// Total counts all matching lines; Files the files that have any.
	Total int `json:"total"`
	Files int `json:"files"`
	// Searched counts the files searched; Binary those skipped as binary.
	Searched int   `json:"searched"`
	Binary   int   `json:"binary,omitempty"`
	Hidden   int64 `json:"hidden,omitempty"`
}

// A SearchMatch is one matching line.
type SearchMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// NewSearch returns the search_file_content tool.
func NewSearch(cfg Config) *tool.Tool {
	s := searcher{cfg: cfg.withDefaults()}
	return tool.New(tool.Spec{
		Name:         "search_file_content",
		Effect:       tool.EffectRead,
		KeyArgs:      []string{"pattern", "path", "include"},
		Aliases:      []string{"Grep"},
		Description:  describe("search_file_content", searchDescription, s.cfg),
		OutputSchema: tool.SchemaOf[SearchData](),
		Annotations:  tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, inWorkspace(s.search))
}

type searcher struct{ cfg Config }

// A fileResult is what the search found in one file.
type fileResult struct {
	rel     string
	count   int         // matching lines
	matches []lineMatch // the first ones, at most max; dropped when not needed
}

type lineMatch struct {
	line int
	text string
}

// A searchRun is the state of one call.
type searchRun struct {
	w       *fstree.Tree
	m       *lineMatcher
	max     int
	bufs    [][]byte // one read buffer per worker
	results collector

	mu       sync.Mutex
	searched int
	binary   int
	failed   fstree.Stats
}

func (s searcher) search(ctx context.Context, _ *tool.Call, w *fstree.Tree, in SearchInput) (tool.Result, error) {
	if in.Pattern == "" {
		return tool.Failure("pattern is empty: give a regular expression, or text with fixed_strings=true"), nil
	}
	if in.MaxMatches < 0 {
		return tool.Failure(fmt.Sprintf("max_matches %d is negative: give the most matching lines to show", in.MaxMatches)), nil
	}
	max := in.MaxMatches
	if max == 0 {
		max = defaultMaxMatches
	}
	if in.Context != nil && (*in.Context < 0 || *in.Context > maxContext) {
		return tool.Failure(fmt.Sprintf("context %d is out of range: give 0 to %d lines", *in.Context, maxContext)), nil
	}
	caseSensitive := in.CaseSensitive == nil || *in.CaseSensitive
	m, err := compileMatcher(in.Pattern, in.FixedStrings, caseSensitive)
	if err != nil {
		if errors.Is(err, errNewline) {
			return tool.Failure(err.Error()), nil
		}
		return tool.Failure(fmt.Sprintf("invalid regular expression: %v. The syntax is RE2 (as in Go); to search for the text as it is, set fixed_strings=true", err)), nil
	}
	if in.Include != "" && !doublestar.ValidatePattern(in.Include) {
		return tool.Failure(fmt.Sprintf("include %q is not a valid glob: check its brackets and braces", in.Include)), nil
	}
	rel, err := w.Rel(in.Path)
	if err != nil {
		return pathFailure(in.Path, err), nil
	}
	fi, err := w.Stat(rel)
	if err != nil {
		return notFound(w, display(in.Path), rel, err), nil
	}
	r := &searchRun{w: w, m: m, max: max, bufs: make([][]byte, s.cfg.Workers)}
	r.results.max = max
	var hidden int64
	if fi.IsDir() {
		wk := fstree.NewWalker(w.Root, s.cfg.walkConfig())
		want := includeFilter(in.Include, rel)
		err = wk.Walk(ctx, fstree.Options{Start: rel, MaxDepth: -1, Want: want}, func(worker int, f *fstree.Entry) error {
			return r.file(ctx, worker, f)
		})
		hidden = wk.Stats().Hidden()
		if wk.Stats().Failed() > 0 {
			r.failed.Merge(wk.Stats())
		}
	} else if fi.Mode().IsRegular() {
		if real, err := w.Resolve(rel); err == nil {
			rel = real
		}
		err = r.file(ctx, 0, &fstree.Entry{Path: rel, Name: baseOf(rel), Link: true})
	} else {
		return tool.Failure(fmt.Sprintf("%s is not a regular file but a %s; it cannot be searched", display(in.Path), fileKind(fi.Mode()))), nil
	}
	if err != nil {
		return tool.Result{}, err // cancellation
	}
	return s.report(in, r, display(rel), caseSensitive, hidden), nil
}

// includeFilter returns the walk filter for an include glob: without a
// slash it matches file names, with one paths relative to the search
// directory.
func includeFilter(include, dir string) func(rel, name string) bool {
	if include == "" {
		return nil
	}
	include = strings.TrimPrefix(include, "./")
	if !strings.Contains(include, "/") {
		m := nameMatcher(include)
		return func(_, name string) bool { return m(name) }
	}
	prefix := len(dir) + 1
	if dir == "." {
		prefix = 0
	}
	m := globMatcher(include)
	return func(rel, _ string) bool { return m(rel[prefix:]) }
}

// file searches one file with the worker's buffer.
func (r *searchRun) file(ctx context.Context, worker int, fe *fstree.Entry) error {
	if fe.Link {
		// Only links that lead to files inside the workspace are searched.
		fi, err := r.w.Stat(fe.Path)
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
	}
	f, err := fe.Open(r.w)
	if err != nil {
		r.failed.Fail(fe.Path, err)
		return nil
	}
	defer f.Close()
	if r.bufs[worker] == nil {
		r.bufs[worker] = make([]byte, searchBuffer)
	}
	buf := r.bufs[worker]
	res := fileResult{rel: fe.Path}
	lineBase, carry := 0, 0
	for first := true; ; first = false {
		n, eof, err := fill(f, buf[carry:])
		if err != nil {
			r.failed.Fail(fe.Path, err)
			return nil
		}
		data := buf[:carry+n]
		if first && bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0 {
			r.mu.Lock()
			r.binary++
			r.mu.Unlock()
			return nil
		}
		chunk := data
		if !eof {
			// Search whole lines; the rest starts the next chunk. A line
			// longer than the buffer is searched in pieces.
			if cut := bytes.LastIndexByte(data, '\n'); cut >= 0 {
				chunk = data[:cut+1]
			}
		}
		lineBase = r.scan(chunk, lineBase, &res)
		if eof {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		carry = copy(buf, data[len(chunk):])
	}
	r.mu.Lock()
	r.searched++
	r.mu.Unlock()
	if res.count > 0 {
		r.results.add(&res)
	}
	return nil
}

// scan records the matching lines of chunk, whose first line is number
// lineBase+1, and returns the number of the chunk's last line.
func (r *searchRun) scan(chunk []byte, lineBase int, res *fileResult) int {
	line, counted := lineBase, 0
	r.m.scan(chunk, func(start, end int) bool {
		line += bytes.Count(chunk[counted:start], []byte{'\n'})
		counted = start
		res.count++
		if len(res.matches) < r.max {
			res.matches = append(res.matches, lineMatch{line: line + 1, text: r.show(chunk[start:end])})
		}
		return true
	})
	return line + bytes.Count(chunk[counted:], []byte{'\n'})
}

// show makes a matching line fit to show: at most searchLineChars
// characters around the match.
func (r *searchRun) show(line []byte) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) <= searchLineChars {
		return strings.ToValidUTF8(string(line), "\uFFFD")
	}
	at := 0
	if r.m.line != nil {
		if loc := r.m.line.FindIndex(line); loc != nil {
			at = loc[0]
		}
	} else if i := r.m.lits[0].index(line, 0, &cursor{-2, -2}); i >= 0 {
		at = i
	}
	from := max(0, at-searchLineChars/5)
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	to := min(len(line), from+searchLineChars)
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to++
	}
	s := strings.ToValidUTF8(string(line[from:to]), "\uFFFD")
	if from > 0 {
		s = "… " + s
	}
	return fmt.Sprintf("%s … [line of %d bytes cut]", s, len(line))
}

// fill reads into b until it is full or the file ends.
func fill(f io.Reader, b []byte) (n int, eof bool, err error) {
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err == io.EOF || (m == 0 && err == nil) {
			return n, true, nil
		}
		if err != nil {
			return n, false, err
		}
	}
	return n, false, nil
}

// A collector gathers the files with matches from the workers. It keeps
// every file's count, but the matching lines only of the files that can
// still be shown: those whose paths sort first, up to max lines. So memory
// stays bounded however many lines match.
type collector struct {
	mu    sync.Mutex
	max   int
	files []*fileResult
	kept  keptFiles // files whose lines are kept, largest path on top
	lines int       // lines kept
}

func (c *collector) add(fr *fileResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files = append(c.files, fr)
	heap.Push(&c.kept, fr)
	c.lines += len(fr.matches)
	for c.kept.Len() > 1 && c.lines-len(c.kept[0].matches) >= c.max {
		top := heap.Pop(&c.kept).(*fileResult)
		c.lines -= len(top.matches)
		top.matches = nil
	}
}

// keptFiles is a max-heap of files by path.
type keptFiles []*fileResult

func (h keptFiles) Len() int           { return len(h) }
func (h keptFiles) Less(i, j int) bool { return h[i].rel > h[j].rel }
func (h keptFiles) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *keptFiles) Push(x any)        { *h = append(*h, x.(*fileResult)) }
func (h *keptFiles) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (s searcher) report(in SearchInput, r *searchRun, where string, caseSensitive bool, hidden int64) tool.Result {
	files := r.results.files
	slices.SortFunc(files, func(a, b *fileResult) int { return strings.Compare(a.rel, b.rel) })
	total := 0
	for _, f := range files {
		total += f.count
	}
	data := SearchData{Matches: []SearchMatch{}, Total: total, Files: len(files), Searched: r.searched, Binary: r.binary, Hidden: hidden}
	context := 0
	switch {
	case in.Context != nil:
		context = *in.Context
	case total <= autoContextMatches:
		context = autoContext
	}

	var how []string
	if in.Include != "" {
		how = append(how, "include "+in.Include)
	}
	if in.FixedStrings {
		how = append(how, "fixed string")
	}
	if !caseSensitive {
		how = append(how, "case-insensitive")
	}
	qualifier := ""
	if len(how) > 0 {
		qualifier = " (" + strings.Join(how, ", ") + ")"
	}
	out := newOutput(s.cfg.OutputBudget)
	if total == 0 {
		out.line(fmt.Sprintf("No matches for %q in %s%s; %s searched.", in.Pattern, where, qualifier, plural(r.searched, "file")))
	} else {
		out.line(fmt.Sprintf("Found %s in %s for %q in %s%s:", plural(total, "matching line"), plural(len(files), "file"), in.Pattern, where, qualifier))
	}
	shownFiles := 0
	for _, f := range files {
		if len(data.Matches) >= r.max || out.full {
			break
		}
		matches := f.matches[:min(len(f.matches), r.max-len(data.Matches))]
		if len(matches) == 0 {
			break // the collector dropped them: the shown files come first
		}
		if !out.line(f.rel) {
			break
		}
		shownFiles++
		shown := r.render(out, f.rel, matches, context)
		for _, m := range matches[:shown] {
			data.Matches = append(data.Matches, SearchMatch{Path: f.rel, Line: m.line, Text: m.text})
		}
	}
	if left := total - len(data.Matches); left > 0 {
		why := "raise max_matches, or narrow path or include"
		if out.full {
			why = "output budget reached; narrow path or include, or lower context"
		}
		out.note("showing %d of %d matching lines, in %d of %d files; %s", len(data.Matches), total, shownFiles, len(files), why)
	}
	if r.binary > 0 {
		out.note("%s skipped", plural(r.binary, "binary file"))
	}
	if s := hiddenNote(hidden); s != "" {
		out.note("%s", s)
	}
	if s := r.failed.Summary(); s != "" {
		out.note("%s", s)
	}
	return tool.Result{Success: true, Output: out.String(), Data: data}
}

// render writes the matches of one file, with context lines if asked,
// and returns how many matches it wrote before the budget ran out.
func (r *searchRun) render(out *output, rel string, matches []lineMatch, context int) int {
	width := len(strconv.Itoa(matches[len(matches)-1].line + context))
	if context > 0 {
		if lines, ok := r.contextLines(rel); ok {
			return renderContext(out, lines, matches, context, width)
		}
	}
	for i, m := range matches {
		if !out.line(numberedLine(width, m.line, ':', m.text)) {
			return i
		}
	}
	return len(matches)
}

// numberedLine formats a line of search output: "12: text" for a match,
// "11- text" for context, without a trailing space after an empty line.
func numberedLine(width, n int, mark byte, text string) string {
	if text == "" {
		return fmt.Sprintf("%*d%c", width, n, mark)
	}
	return fmt.Sprintf("%*d%c %s", width, n, mark, text)
}

// contextLines reads rel again for the lines around its matches.
func (r *searchRun) contextLines(rel string) ([][]byte, bool) {
	f, err := r.w.Open(rel)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxReadBytes+1))
	if err != nil || len(data) > maxReadBytes {
		return nil, false
	}
	return bytes.Split(data, []byte{'\n'}), true
}

func renderContext(out *output, lines [][]byte, matches []lineMatch, context, width int) int {
	n := len(lines)
	if n > 0 && len(lines[n-1]) == 0 {
		n-- // the empty "line" after a final newline
	}
	type span struct{ from, to int }
	var spans []span
	for _, m := range matches {
		from, to := max(1, m.line-context), max(m.line, min(n, m.line+context))
		if k := len(spans); k > 0 && from <= spans[k-1].to+1 {
			spans[k-1].to = max(spans[k-1].to, to)
			continue
		}
		spans = append(spans, span{from, to})
	}
	text := make(map[int]string, len(matches))
	for _, m := range matches {
		text[m.line] = m.text
	}
	shown := 0
	for i, sp := range spans {
		if i > 0 && !out.line("--") {
			return shown
		}
		for l := sp.from; l <= sp.to; l++ {
			var s string
			if t, ok := text[l]; ok {
				s = numberedLine(width, l, ':', t)
			} else if l <= n {
				c, _ := cutLine(lines[l-1], searchLineChars)
				s = numberedLine(width, l, '-', c)
			} else {
				continue // the file got shorter since it was searched
			}
			if !out.line(s) {
				return shown
			}
			if _, ok := text[l]; ok {
				shown++
			}
		}
	}
	return shown
}
