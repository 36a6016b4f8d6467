package viewer

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wieldhq/wield/internal/diff"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
)

//go:embed assets
var assets embed.FS

// Limits of what a page shows of one call; the journal keeps everything.
const (
	maxBrief     = 120       // characters of a call's one-line summary
	maxShown     = 256 << 10 // bytes of arguments or output shown
	maxDiffInput = 1 << 20   // bytes of a file version diffed
	diffContext  = 3         // unchanged lines around a change
)

// templates parses the page's templates once per Handler.
func templates() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"markdown":  func(s string) template.HTML { return template.HTML(renderMarkdown(s)) },
		"kindLabel": kindLabel,
		"usage":     usageText,
		"cost":      func(c float64) string { return fmt.Sprintf("$%.4f", c) },
		"dur":       durText,
		"json":      prettyJSON,
		"brief":     brief,
	}).ParseFS(assets, "assets/templates.html"))
}

func kindLabel(k string) string {
	switch k {
	case kindTask:
		return "task"
	case kindResponse:
		return "model"
	case kindCalls:
		return "calls"
	case kindCompaction:
		return "compaction"
	case kindSummary:
		return "summary"
	}
	return k
}

func usageText(u *llm.Usage) string {
	if u == nil {
		return ""
	}
	s := fmt.Sprintf("%s in / %s out", count(u.InputTokens), count(u.OutputTokens))
	var extra []string
	if u.CachedTokens > 0 {
		extra = append(extra, count(u.CachedTokens)+" cached")
	}
	if u.ReasoningTokens > 0 {
		extra = append(extra, count(u.ReasoningTokens)+" reasoning")
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	if u.Cost > 0 {
		s += fmt.Sprintf(" · $%.4f", u.Cost)
	}
	return s
}

func count(n int) string {
	if n >= 10000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

func durText(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// prettyJSON indents raw JSON for reading; what is not JSON is shown as is.
func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil { // invalid arguments, stored as a string
		return clip(s, maxShown)
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return clip(string(raw), maxShown)
	}
	return clip(b.String(), maxShown)
}

// brief is a call's arguments on one line: the values of its top-level
// fields, the way people scan a run.
func brief(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return clip(strings.Join(strings.Fields(string(raw)), " "), maxBrief)
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		v := m[k]
		var s string
		switch v := v.(type) {
		case string:
			s = v
		default:
			b, _ := json.Marshal(v)
			s = string(b)
		}
		parts = append(parts, k+"="+strings.Join(strings.Fields(s), " "))
	}
	return clip(strings.Join(parts, " "), maxBrief)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// A common argument first, then the rest in order.
	first := func(k string) int {
		switch k {
		case "path", "command", "pattern", "query", "url", "agent", "task":
			return 0
		}
		return 1
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && (first(keys[j]) < first(keys[j-1]) || first(keys[j]) == first(keys[j-1]) && keys[j] < keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// clip cuts s to at most n bytes on a rune boundary, saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

// A fileDiff is one file's change as the page shows it.
type fileDiff struct {
	Path, Note string
	Lines      []diffLine
}

type diffLine struct{ Class, Text string }

// blobGetter reads a file version from a session's blob store.
type blobGetter func(ctx context.Context, hash string) ([]byte, error)

// diffsOf returns the file changes of c: from the session's ledger where
// it recorded them, else from a replace call's arguments.
func diffsOf(ctx context.Context, c *call, get blobGetter) []fileDiff {
	var out []fileDiff
	for _, f := range c.Files {
		d := fileDiff{Path: f.Path}
		before, okB := version(ctx, get, f.BeforeHash)
		after, okA := version(ctx, get, f.AfterHash)
		switch {
		case f.BeforeHash == "":
			d.Note = "created"
		case f.AfterHash == "":
			d.Note = "deleted"
		}
		if !okB || !okA {
			d.Note = strings.TrimPrefix(d.Note+", content not in the blob store", ", ")
			out = append(out, d)
			continue
		}
		d.Lines = hunkLines(diff.Hunks(before, after, diffContext))
		out = append(out, d)
	}
	if len(out) > 0 || c.Tool != "replace" {
		return out
	}
	var in struct {
		Path      string `json:"path"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	}
	if json.Unmarshal(c.Arguments, &in) != nil || in.Path == "" {
		return nil
	}
	return []fileDiff{{Path: in.Path, Note: "as asked", Lines: hunkLines(diff.Hunks(clip(in.OldString, maxDiffInput), clip(in.NewString, maxDiffInput), diffContext))}}
}

func version(ctx context.Context, get blobGetter, hash string) (string, bool) {
	if hash == "" {
		return "", true
	}
	if get == nil {
		return "", false
	}
	b, err := get(ctx, hash)
	if err != nil {
		return "", false
	}
	return clip(string(b), maxDiffInput), true
}

func hunkLines(hunks []diff.Hunk) []diffLine {
	var out []diffLine
	for _, h := range hunks {
		out = append(out, diffLine{"hunk", fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)})
		for _, l := range h.Lines {
			class := "ctx"
			switch l.Kind {
			case '+':
				class = "add"
			case '-':
				class = "del"
			}
			out = append(out, diffLine{class, string(l.Kind) + l.Text})
		}
	}
	return out
}

// sideData is what the side panel shows of a session.
type sideData struct {
	ID, Title   string
	Header      session.Header
	Mode, Plan  string
	Turns       int
	Total       *llm.Usage
	Todos       []session.Todo
	Children    []*childNode
	Compactions []session.Compaction
	Files       []session.FileRecord
	Rewinds     []session.Rewind
}

// A childNode is a subagent in the side panel's tree.
type childNode struct {
	ID, Agent, Status string
	Children          []*childNode
}

// title names a session for people: its purpose, else its first task.
func title(st *session.State) string {
	if st.Header.Purpose != "" {
		return clip(st.Header.Purpose, 100)
	}
	for _, t := range st.Turns {
		if t.Kind == session.TurnUserTask {
			return clip(strings.Join(strings.Fields(t.Text), " "), 100)
		}
	}
	for _, t := range st.Pool {
		if t.Kind == session.TurnUserTask {
			return clip(strings.Join(strings.Fields(t.Text), " "), 100)
		}
	}
	return st.Header.ID
}

// searchText is what the filter box matches in a round, lower-cased.
func searchText(r *round) string {
	var b strings.Builder
	b.WriteString(r.Text)
	b.WriteByte(' ')
	b.WriteString(r.Reasoning)
	for _, c := range r.Calls {
		b.WriteByte(' ')
		b.WriteString(c.Tool)
		b.WriteByte(' ')
		b.Write(c.Arguments)
		b.WriteByte(' ')
		b.WriteString(clip(c.Output, 4096))
		b.WriteByte(' ')
		b.WriteString(c.Agent)
	}
	if c := r.Compaction; c != nil {
		b.WriteString(c.Summary)
	}
	return strings.ToLower(b.String())
}

// tags are the filter's facets of a round: its kind, "tool" when it has
// calls, "failed" when one failed, "child" when one started a subagent,
// "live" while its transaction is open or a call runs or awaits approval.
// A live page compares them to find the rounds that changed.
func tags(r *round) string {
	t := []string{r.Kind}
	var tool, failed, child bool
	live := r.Pool != nil && r.Pool.Status == session.PoolOpen
	for _, c := range r.Calls {
		tool = true
		failed = failed || c.Done && c.Status == session.StatusFailed
		child = child || c.Child != ""
		live = live || !c.Done || c.Pending
	}
	if live {
		t = append(t, "live")
	}
	if tool {
		t = append(t, "tool")
	}
	if failed {
		t = append(t, "failed")
	}
	if child {
		t = append(t, "child")
	}
	return strings.Join(t, " ")
}
