package compact

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/wieldhq/wield/internal/textcut"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/planmode"
	"github.com/wieldhq/wield/tool"
)

// Limits of a ledger, per list: the newest entries are kept, and
// [session.Ledger.Omitted] counts the rest.
const (
	maxLedgerFiles    = 200
	maxLedgerCommands = 100
	maxLedgerFailures = 50
	maxLedgerChildren = 50
	// excerpt lengths, in bytes
	argsExcerpt   = 200
	errorExcerpt  = 300
	reportExcerpt = 600
)

// builtinSpec returns the facts the ledger reads of wield's own tools
// that write files and run commands, for a ledger built without the
// run's tools: a session compacted offline. They mirror the tools' specs
// (tools/fs, tools/shell), which a test checks.
func builtinSpec(name string) (tool.Spec, bool) {
	switch name {
	case "write_file", "replace":
		return tool.Spec{Name: name, Effect: tool.EffectWrite, KeyArgs: []string{"path"}}, true
	case "run_shell_command":
		return tool.Spec{Name: name, Effect: tool.EffectRun, KeyArgs: []string{"command"}}, true
	}
	return tool.Spec{}, false
}

// BuildLedger returns the ledger of timeline turns first..last of st (see
// [session.State.Timeline]), computed from the turns, not from any
// summary: the files written (by the tools whose effect has
// [tool.EffectWrite]: write_file, replace) and read (read_file,
// read_many_files, with line ranges), the commands run (by the tools
// whose effect has [tool.EffectRun] and whose first key argument is the
// command line: run_shell_command) with how they ended, every failed or
// refused call, the child agents with their sessions and reports, the
// session's todos, mode and plan, and the user's messages verbatim,
// newest first within userBytes bytes (zero means no limit).
//
// tools returns the spec of a tool by the name the turns give it
// ([tool.Registry.Spec]); nil means the facts of wield's own tools. A
// tool it does not know, or whose effect is unknown, is in none of the
// lists of files and commands (its failures are still listed): the
// ledger records only what it can read for certain.
//
// The fs tools' results carry no content hashes, so the ledger has none:
// a file's entry says whether it was created and how many lines changed.
func BuildLedger(st *session.State, first, last, userBytes int, tools func(name string) (tool.Spec, bool)) *session.Ledger {
	if tools == nil {
		tools = builtinSpec
	}
	mode := planmode.Of(st)
	l := &session.Ledger{Todos: slices.Clone(st.Todos), Mode: mode.Mode, Plan: mode.Plan}
	args := map[string]json.RawMessage{}
	written := map[string]int{} // path → index in l.FilesWritten
	read := map[string]int{}
	children := map[string]int{}
	var users []string
	for n := first; n <= last; n++ {
		t := st.TurnAt(n)
		if t == nil {
			break
		}
		switch t.Kind {
		case session.TurnUserTask:
			users = append(users, t.Text)
		case session.TurnModelResponse:
			for _, c := range t.Calls {
				args[c.ID] = c.Arguments
			}
		case session.TurnFunctionCalling:
			args[t.CallID] = t.Arguments
		case session.TurnToolResponse:
			a := args[t.CallID]
			if t.Status != session.StatusSucceeded {
				l.Failures = append(l.Failures, session.FailedCall{Turn: n, Tool: t.Tool,
					Arguments: excerpt(string(a), argsExcerpt), Error: excerpt(t.Output, errorExcerpt)})
			}
			spec, _ := tools(t.Tool)
			switch {
			case spec.Effect.Has(tool.EffectWrite) && t.Status == session.StatusSucceeded:
				noteWrite(l, written, n, t, spec, a)
			case t.Tool == "read_file" && t.Status == session.StatusSucceeded:
				noteRead(l, read, t, a)
			case t.Tool == "read_many_files" && t.Status == session.StatusSucceeded:
				var in struct {
					Paths []string `json:"paths"`
				}
				_ = json.Unmarshal(a, &in)
				for _, p := range in.Paths {
					addRead(l, read, p, [2]int{})
				}
			case spec.Effect.Has(tool.EffectRun) && len(spec.KeyArgs) > 0:
				noteCommand(l, n, t, spec.KeyArgs[0], a)
			}
		case session.TurnAgentStarted:
			children[t.CallID] = len(l.Children)
			l.Children = append(l.Children, session.ChildRun{Call: t.CallID, Agent: t.Agent, Session: t.Child, Status: "running"})
		case session.TurnAgentFinished:
			i, ok := children[t.CallID]
			if !ok {
				children[t.CallID] = len(l.Children)
				l.Children = append(l.Children, session.ChildRun{Call: t.CallID, Agent: t.Agent, Session: t.Child})
				i = len(l.Children) - 1
			}
			l.Children[i].Status, l.Children[i].Report = t.Status, excerpt(t.Output, reportExcerpt)
		}
	}
	l.FilesWritten = newest(l, l.FilesWritten, maxLedgerFiles)
	l.FilesRead = newest(l, l.FilesRead, maxLedgerFiles)
	l.Commands = newest(l, l.Commands, maxLedgerCommands)
	l.Failures = newest(l, l.Failures, maxLedgerFailures)
	l.Children = newest(l, l.Children, maxLedgerChildren)
	// The user's messages, newest first within the budget (Codex keeps
	// 20k tokens of them), shown oldest first.
	used := 0
	keep := len(users)
	for keep > 0 && (userBytes <= 0 || used+len(users[keep-1]) <= userBytes) {
		used += len(users[keep-1])
		keep--
	}
	l.UserMessages, l.UserMessagesOmitted = users[keep:], keep
	return l
}

// newest keeps the last max entries of list, counting the others in
// l.Omitted.
func newest[T any](l *session.Ledger, list []T, limit int) []T {
	if len(list) <= limit {
		return list
	}
	l.Omitted += len(list) - limit
	return list[len(list)-limit:]
}

func noteWrite(l *session.Ledger, written map[string]int, n int, t *session.Turn, spec tool.Spec, a json.RawMessage) {
	var d struct {
		Path    string `json:"path"`
		Created bool   `json:"created"`
		Added   int    `json:"added"`
		Removed int    `json:"removed"`
	}
	if json.Unmarshal(t.Data, &d) != nil || d.Path == "" {
		d.Path = cmpOr(stringArg(a, spec.KeyArgs), pathArg(a))
	}
	if d.Path == "" {
		return
	}
	i, ok := written[d.Path]
	if !ok {
		written[d.Path] = len(l.FilesWritten)
		l.FilesWritten = append(l.FilesWritten, session.FileWritten{Path: d.Path})
		i = len(l.FilesWritten) - 1
	}
	f := &l.FilesWritten[i]
	f.Created = f.Created || d.Created
	f.Added += d.Added
	f.Removed += d.Removed
	f.Times++
	f.Turn = n
	if !slices.Contains(f.Tools, t.Tool) {
		f.Tools = append(f.Tools, t.Tool)
	}
}

func noteRead(l *session.Ledger, read map[string]int, t *session.Turn, a json.RawMessage) {
	var d struct {
		Path      string `json:"path"`
		StartLine int    `json:"startLine"`
		EndLine   int    `json:"endLine"`
	}
	if json.Unmarshal(t.Data, &d) != nil || d.Path == "" {
		d.Path = pathArg(a)
	}
	if d.Path != "" {
		addRead(l, read, d.Path, [2]int{d.StartLine, d.EndLine})
	}
}

func addRead(l *session.Ledger, read map[string]int, path string, lines [2]int) {
	i, ok := read[path]
	if !ok {
		read[path] = len(l.FilesRead)
		l.FilesRead = append(l.FilesRead, session.FileRead{Path: path})
		i = len(l.FilesRead) - 1
	}
	f := &l.FilesRead[i]
	f.Times++
	if lines[0] > 0 && lines[1] >= lines[0] {
		f.Lines = mergeRange(f.Lines, lines)
	}
}

// mergeRange adds r to the sorted, disjoint line ranges rs.
func mergeRange(rs [][2]int, r [2]int) [][2]int {
	rs = append(rs, r)
	slices.SortFunc(rs, func(a, b [2]int) int { return a[0] - b[0] })
	out := rs[:1]
	for _, x := range rs[1:] {
		if last := &out[len(out)-1]; x[0] <= last[1]+1 {
			last[1] = max(last[1], x[1])
			continue
		}
		out = append(out, x)
	}
	return out
}

// noteCommand records the command line in argument key of a call.
func noteCommand(l *session.Ledger, n int, t *session.Turn, key string, a json.RawMessage) {
	command := stringArg(a, []string{key})
	if command == "" {
		return
	}
	var d struct {
		ExitCode *int   `json:"exit_code"`
		Signal   string `json:"signal"`
		TimedOut bool   `json:"timed_out"`
		Limit    string `json:"limit"`
		Running  bool   `json:"running"`
		JobID    string `json:"job_id"`
	}
	_ = json.Unmarshal(t.Data, &d)
	c := session.CommandRun{Command: excerpt(command, argsExcerpt), ExitCode: d.ExitCode, Turn: n}
	switch {
	case d.ExitCode != nil:
	case d.TimedOut:
		c.Ended = "stopped at its " + strings.ReplaceAll(cmpOr(d.Limit, "time"), "_", "-") + " limit"
	case d.Signal != "":
		c.Ended = "killed by " + d.Signal
	case d.Running:
		c.Ended = "running as background job " + d.JobID
	case t.Status != session.StatusSucceeded:
		c.Ended = "failed: " + excerpt(t.Output, argsExcerpt)
	}
	l.Commands = append(l.Commands, c)
}

// stringArg returns the string argument of a call named by the first of
// keys, or "".
func stringArg(a json.RawMessage, keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	var in map[string]any
	_ = json.Unmarshal(a, &in)
	s, _ := in[keys[0]].(string)
	return s
}

// pathArg returns the path argument of a file tool's call.
func pathArg(a json.RawMessage) string {
	var in struct {
		Path     string `json:"path"`
		FilePath string `json:"file_path"`
	}
	_ = json.Unmarshal(a, &in)
	return cmpOr(in.Path, in.FilePath)
}

// excerpt returns s on one line, cut to n bytes.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return textcut.Head(s, n) + "…"
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// transcript renders msgs for a summariser or reviewer: one block per
// message, each cut to perMessage bytes (head and tail), the whole to
// total bytes, the oldest dropped first.
func transcript(msgs []llm.Message, perMessage, total int) string {
	blocks := make([]string, len(msgs))
	for i, m := range msgs {
		var b strings.Builder
		switch m.Role {
		case llm.RoleTool:
			fmt.Fprintf(&b, "[tool result %s %s]\n", m.ToolName, m.ToolCallID)
		default:
			fmt.Fprintf(&b, "[%s]\n", m.Role)
		}
		body := m.Content
		for _, c := range m.ToolCalls {
			body += fmt.Sprintf("\n(call %s %s %s)", c.ID, c.Name, c.Arguments)
		}
		head, tail := textcut.HeadTail(body, perMessage)
		b.WriteString(head)
		if tail != "" {
			fmt.Fprintf(&b, "\n[… %d bytes left out …]\n%s", len(body)-len(head)-len(tail), tail)
		}
		blocks[i] = b.String()
	}
	size, keep := 0, len(blocks)
	for keep > 0 && size+len(blocks[keep-1]) <= total {
		size += len(blocks[keep-1]) + 2
		keep--
	}
	out := strings.Join(blocks[keep:], "\n\n")
	if keep > 0 {
		out = fmt.Sprintf("[%d older messages left out; the ledger covers them]\n\n", keep) + out
	}
	return out
}
