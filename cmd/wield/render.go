package main

// Rendering of what a run shows a person: tool lines, diffs and parsed
// shell commands. Everything here turns values into strings and does no
// terminal I/O, so that the line printer of wield run and the chat's
// screen show the same things.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wieldhq/wield/internal/diff"
	"github.com/wieldhq/wield/policy"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/tools/fs"
)

// A palette styles text with ANSI escapes; the zero palette leaves text
// plain, for pipes and NO_COLOR.
type palette struct{ color bool }

func (p palette) wrap(code, s string) string {
	if !p.color || s == "" {
		return s
	}
	return "\033[" + code + "m" + s + "\033[0m"
}

func (p palette) dim(s string) string    { return p.wrap("2", s) }
func (p palette) bold(s string) string   { return p.wrap("1", s) }
func (p palette) red(s string) string    { return p.wrap("31", s) }
func (p palette) green(s string) string  { return p.wrap("32", s) }
func (p palette) yellow(s string) string { return p.wrap("33", s) }
func (p palette) cyan(s string) string   { return p.wrap("36", s) }

// genericKeys are the argument names that most often say what a call of
// a tool that declares no key arguments (declared, MCP) is about.
var genericKeys = []string{"command", "cmd", "path", "file_path", "file", "paths", "pattern", "query", "url", "uri", "name", "id", "text", "prompt"}

// keyArg returns the argument that says what a call of the tool spec
// describes is about (a path, a command, a pattern, a URL), on one line
// and at most width runes, or "" when the arguments hold none. The
// tool's [tool.Spec.KeyArgs] say which; a second key (search's path)
// follows the first as "in PATH". A tool that declares none gets the
// first of genericKeys its call has.
func keyArg(spec tool.Spec, args json.RawMessage, width int) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return ""
	}
	keys, known := spec.KeyArgs, len(spec.KeyArgs) > 0
	if !known {
		keys = genericKeys
	}
	var parts []string
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		s := argText(v)
		if s == "" {
			continue
		}
		if len(parts) > 0 {
			s = "in " + s
		}
		parts = append(parts, s)
		if !known || len(parts) == 2 {
			break
		}
	}
	return oneLine(strings.Join(parts, " "), width)
}

// argText shows one argument value: strings as they are, lists of strings
// joined with spaces, numbers as numbers.
func argText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []any:
		var ss []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				ss = append(ss, s)
			}
		}
		return strings.Join(ss, " ")
	}
	return ""
}

// toolHeader is the line that announces a call of the tool spec
// describes: a marker, the tool's name and its key argument.
func toolHeader(p palette, spec tool.Spec, args json.RawMessage) string {
	line := p.cyan("●") + " " + p.bold(spec.Name)
	if k := keyArg(spec, args, 100); k != "" {
		line += " " + k
	}
	return line
}

// callSpec returns the spec of the tool a call event names: the one the
// runner attached, or for a tool it did not know only the name.
func callSpec(e *tool.Event) tool.Spec {
	if e.Spec != nil {
		return *e.Spec
	}
	return tool.Spec{Name: e.Tool}
}

// toolSummary is the line that ends a call: what it came to, in the
// tool's terms where wield knows them (lines read, matches, exit code),
// and how long it took. A failure gives its reason and the last lines of
// its output.
func toolSummary(p palette, res *tool.Result, d time.Duration) string {
	took := p.dim(fmt.Sprintf("(%s)", roundDuration(d)))
	if res == nil {
		return "  " + p.dim("done") + " " + took
	}
	data := dataMap(res.Data)
	if res.Success {
		s := successSummary(res.Data, data, res.Output)
		return "  " + p.green("✓") + " " + s + " " + took
	}
	reason := firstLine(res.Error)
	if reason == "" {
		reason = "failed"
	}
	if code, ok := exitCode(data); ok {
		exit := "exit " + strconv.Itoa(code)
		if r := strings.TrimPrefix(reason, "exit code "+strconv.Itoa(code)); r != reason {
			reason = exit + r
		} else {
			reason = exit + ": " + reason
		}
	}
	var b strings.Builder
	b.WriteString("  " + p.red("✗") + " " + reason + " " + took)
	for _, l := range lastLines(res.Output, 3) {
		b.WriteString("\n    " + p.dim(oneLine(l, 160)))
	}
	return b.String()
}

// successSummary says in a few words what a successful call did, from
// its data: typed, to tell the file tools' results (package fs owns their
// shapes) by their types, and as generic JSON (d) to read them.
func successSummary(typed any, d map[string]any, output string) string {
	n := func(k string) (int, bool) {
		f, ok := d[k].(float64)
		return int(f), ok
	}
	switch typed.(type) {
	case fs.ReadData:
		if s, ok := n("startLine"); ok {
			e, _ := n("endLine")
			total, _ := n("totalLines")
			if s <= 1 && e >= total {
				return count(total, "line", "lines")
			}
			return fmt.Sprintf("lines %d-%d of %d", s, e, total)
		}
	case fs.ReadManyData:
		if files, ok := d["files"].([]any); ok {
			return count(len(files), "file", "files")
		}
	case fs.WriteData, fs.ReplaceData:
		a, _ := n("added")
		r, _ := n("removed")
		if c, _ := d["created"].(bool); c {
			if l, ok := n("lines"); ok {
				a = l
			}
			return "created, " + count(a, "line", "lines")
		}
		return fmt.Sprintf("+%d -%d", a, r)
	case fs.SearchData:
		if t, ok := n("total"); ok {
			f, _ := n("files")
			return fmt.Sprintf("%s in %s", count(t, "match", "matches"), count(f, "file", "files"))
		}
	case fs.GlobData:
		if t, ok := n("total"); ok {
			return count(t, "file", "files")
		}
	case fs.ListData:
		if es, ok := d["entries"].([]any); ok {
			return count(len(es), "entry", "entries")
		}
	}
	if code, ok := exitCode(d); ok {
		if r, _ := d["running"].(bool); r {
			return "running in the background"
		}
		return "exit " + strconv.Itoa(code)
	}
	if lines := strings.Count(strings.TrimRight(output, "\n"), "\n") + 1; output != "" && lines > 1 {
		return count(lines, "line", "lines") + " of output"
	}
	if output != "" {
		return oneLine(output, 80)
	}
	return "done"
}

// exitCode finds a shell's exit code in a result's data.
func exitCode(d map[string]any) (int, bool) {
	for _, k := range []string{"exit_code", "exitCode"} {
		if f, ok := d[k].(float64); ok {
			return int(f), true
		}
	}
	return 0, false
}

// dataMap returns a result's structured data as generic JSON, so that
// summaries read built-in and proxied tools alike; nil when it is not an
// object.
func dataMap(v any) map[string]any {
	if v == nil {
		return nil
	}
	if m, ok := v.(map[string]any); ok {
		return m
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

func count(n int, one, many string) string { return strconv.Itoa(n) + " " + plural(n, one, many) }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// lastLines returns the last n non-empty lines of s.
func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			out = append(out, lines[i])
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// roundDuration shows a duration at a precision a person reads: 12ms,
// 1.4s, 2m3s.
func roundDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "<1ms"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// maxDiffShown bounds the diff lines an approval shows; the rest is
// counted.
const maxDiffShown = 400

// renderChange shows an edit as a unified diff with both line numbers,
// the changed lines coloured and their whitespace made visible (tabs as
// →, trailing spaces as ·, carriage returns as ␍).
func renderChange(p palette, ch fs.Change) string {
	var b strings.Builder
	hunks := diff.Hunks(ch.Old, ch.New, 3)
	added, removed := 0, 0
	for _, h := range hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case '+':
				added++
			case '-':
				removed++
			}
		}
	}
	head := ch.Path
	if ch.Created {
		head += " (new file)"
	}
	fmt.Fprintf(&b, "%s %s\n", p.bold(head), p.dim(fmt.Sprintf("+%d -%d", added, removed)))
	if len(hunks) == 0 {
		b.WriteString(p.dim("  no change") + "\n")
		return b.String()
	}
	width := len(strconv.Itoa(max(strings.Count(ch.Old, "\n"), strings.Count(ch.New, "\n")) + 1))
	num := func(n int) string {
		if n == 0 {
			return strings.Repeat(" ", width)
		}
		return fmt.Sprintf("%*d", width, n)
	}
	shown := 0
	for _, h := range hunks {
		fmt.Fprintf(&b, "%s\n", p.cyan(fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)))
		for _, l := range h.Lines {
			if shown == maxDiffShown {
				fmt.Fprintf(&b, "%s\n", p.dim(fmt.Sprintf("… %d more diff lines", countDiffLines(hunks)-shown)))
				return b.String()
			}
			shown++
			nums := p.dim(num(l.Old) + " " + num(l.New))
			switch l.Kind {
			case '-':
				fmt.Fprintf(&b, "%s %s\n", nums, p.red("-"+visibleSpace(l.Text)))
			case '+':
				fmt.Fprintf(&b, "%s %s\n", nums, p.green("+"+visibleSpace(l.Text)))
			default:
				fmt.Fprintf(&b, "%s  %s\n", nums, strings.ReplaceAll(l.Text, "\t", "    "))
			}
		}
	}
	return b.String()
}

func countDiffLines(hs []diff.Hunk) int {
	n := 0
	for _, h := range hs {
		n += len(h.Lines)
	}
	return n
}

// visibleSpace makes the whitespace of a changed line visible: a tab is
// → and three spaces (four columns), a trailing space ·, a carriage
// return ␍.
func visibleSpace(s string) string {
	body := strings.TrimRight(s, " \t\r")
	tail := s[len(body):]
	r := strings.NewReplacer("\t", "→   ", "\r", "␍")
	tail = strings.NewReplacer(" ", "·", "\t", "→   ", "\r", "␍").Replace(tail)
	return r.Replace(body) + tail
}

// alignCommands is the widest a command may be to be padded, so that
// the reasons after such commands line up; longer commands are shown
// whole, and their reasons follow them.
const alignCommands = 60

// renderCommand shows a shell line and, under it, each of its commands
// (whole, its white space collapsed) marked as the rules judge it, with
// the reason.
func renderCommand(p palette, line string, vs []policy.CommandVerdict) string {
	var b strings.Builder
	for i, l := range strings.Split(line, "\n") {
		prefix := "$ "
		if i > 0 {
			prefix = "  "
		}
		fmt.Fprintf(&b, "%s%s\n", p.dim(prefix), p.bold(l))
	}
	width := 0
	for _, v := range vs {
		if n := len([]rune(strings.Join(strings.Fields(v.Command), " "))); n <= alignCommands {
			width = max(width, n)
		}
	}
	for _, v := range vs {
		var mark string
		switch v.Verdict {
		case tool.Allow:
			mark = p.green("✓ allowed ")
		case tool.Deny:
			mark = p.red("✗ denied  ")
		default:
			mark = p.yellow("? asks    ")
		}
		cmd := strings.Join(strings.Fields(v.Command), " ")
		pad := strings.Repeat(" ", max(width-len([]rune(cmd)), 0))
		fmt.Fprintf(&b, "  %s %s%s  %s\n", mark, cmd, pad, p.dim(v.Reason))
	}
	return b.String()
}
