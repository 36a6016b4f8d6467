package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wieldhq/wield/llm"
)

// The kinds of [Compaction].
const (
	// CompactionMask replaces, in prompts, the output of every successful
	// tool call of its range with a one-line stub that says how to read it
	// again. It is the cheap reduction, tried before a summary.
	CompactionMask = "mask"
	// CompactionSummary replaces its range in prompts with its summary and
	// ledger.
	CompactionSummary = "summary"
)

// The triggers of a [Compaction].
const (
	TriggerAuto   = "auto"   // the agent loop, near the context window
	TriggerManual = "manual" // a person, by hand (compact.Compactor.Compact)
	TriggerTool   = "tool"   // the model: compress_session_turns
	TriggerLegacy = "legacy" // a compress event of an older journal
)

// A Compaction is a journal record that changes how a range of turns
// appears in prompts, never the turns: [State.Turns] keeps every turn, and
// [State.Project] builds the prompt view from the turns and the
// compactions. [Session.Uncompact] drops the latest one from the view
// again.
type Compaction struct {
	// Kind is CompactionMask or CompactionSummary.
	Kind string `json:"kind"`
	// Range is the 1-based inclusive range of turns, numbered over the
	// committed turns followed by the open transaction's (see
	// [State.Timeline]).
	Range [2]int `json:"range"`
	// Summary stands for the range in prompts (CompactionSummary).
	Summary string `json:"summary,omitempty"`
	// Ledger is what Go, not the model, found in the range's turns; it
	// goes into prompts after the summary.
	Ledger *Ledger `json:"ledger,omitempty"`
	// Verdict says how the summary was checked.
	Verdict *Verdict `json:"verdict,omitempty"`
	// TokensBefore and TokensAfter estimate the prompt before and after.
	TokensBefore int `json:"tokens_before,omitempty"`
	TokensAfter  int `json:"tokens_after,omitempty"`
	// Trigger is one of the Trigger constants.
	Trigger string `json:"trigger,omitempty"`
	// Model names the model that wrote the summary.
	Model string `json:"model,omitempty"`
	// Focus is what the person asked the summary to keep in view.
	Focus string    `json:"focus,omitempty"`
	Time  time.Time `json:"time,omitzero"`
	// Undone is set when an uncompact record dropped this compaction from
	// the view; it is never written.
	Undone bool `json:"undone,omitempty"`
}

// A Verdict records how a summary was checked before it was recorded.
type Verdict struct {
	// Approved reports whether the checks passed; a fallback is recorded
	// with Approved false.
	Approved bool `json:"approved"`
	// Missing lists what the checks found missing in the last candidate.
	Missing []string `json:"missing,omitempty"`
	// Reviewer names the model that reviewed the summary; empty when only
	// the structural checks ran.
	Reviewer string `json:"reviewer,omitempty"`
	// Repaired reports whether a repair round ran.
	Repaired bool `json:"repaired,omitempty"`
	// Fallback reports that the summary was rejected and replaced by a
	// truncation of the range.
	Fallback bool `json:"fallback,omitempty"`
	// Confirmed reports that a person approved the summary.
	Confirmed bool `json:"confirmed,omitempty"`
}

// A Ledger is the record of a range of turns that Go keeps, so that
// nothing the model wrote, ran or was told depends on a summary.
type Ledger struct {
	FilesWritten []FileWritten `json:"files_written,omitempty"`
	FilesRead    []FileRead    `json:"files_read,omitempty"`
	Commands     []CommandRun  `json:"commands,omitempty"`
	// Failures are failed and refused calls: approaches not to repeat.
	Failures []FailedCall `json:"failures,omitempty"`
	Children []ChildRun   `json:"children,omitempty"`
	// Todos, Mode and Plan are the session's at the time of compaction.
	Todos []Todo `json:"todos,omitempty"`
	Mode  string `json:"mode,omitempty"`
	Plan  string `json:"plan,omitempty"`
	// UserMessages are the user's own messages of the range, verbatim up
	// to a budget; UserMessagesOmitted counts the older ones left out.
	UserMessages        []string `json:"user_messages,omitempty"`
	UserMessagesOmitted int      `json:"user_messages_omitted,omitempty"`
	// Omitted counts the entries of the other lists left out to stay in
	// budget.
	Omitted int `json:"omitted,omitempty"`
}

// FileWritten is a file a tool wrote or edited.
type FileWritten struct {
	Path    string   `json:"path"`
	Tools   []string `json:"tools,omitempty"`
	Created bool     `json:"created,omitempty"`
	Added   int      `json:"added,omitempty"`
	Removed int      `json:"removed,omitempty"`
	Times   int      `json:"times,omitempty"`
	// Turn is the last turn that wrote it.
	Turn int `json:"turn,omitempty"`
}

// FileRead is a file a tool read, with the line ranges where known.
type FileRead struct {
	Path  string   `json:"path"`
	Lines [][2]int `json:"lines,omitempty"`
	Times int      `json:"times,omitempty"`
}

// CommandRun is a shell command and how it ended.
type CommandRun struct {
	Command  string `json:"command"`
	ExitCode *int   `json:"exit_code,omitempty"`
	// Ended says how it ended when there is no exit code: a signal, a
	// limit, still running in the background.
	Ended string `json:"ended,omitempty"`
	Turn  int    `json:"turn"`
}

// FailedCall is a call that failed or was refused.
type FailedCall struct {
	Turn      int    `json:"turn"`
	Tool      string `json:"tool"`
	Arguments string `json:"arguments,omitempty"`
	Error     string `json:"error"`
}

// ChildRun is a child agent started in the range.
type ChildRun struct {
	Call    string `json:"call"`
	Agent   string `json:"agent"`
	Session string `json:"session"`
	// Status is the child's (done, partial, blocked), or "running" when
	// the range holds no agent_finished turn for it.
	Status string `json:"status"`
	Report string `json:"report,omitempty"`
}

// Render returns the ledger as the prompt shows it, after the summary.
func (l *Ledger) Render() string {
	if l == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("<ledger>\n")
	if len(l.FilesWritten) > 0 {
		b.WriteString("Files written:\n")
		for _, f := range l.FilesWritten {
			fmt.Fprintf(&b, "- %s", f.Path)
			var notes []string
			if f.Created {
				notes = append(notes, "created")
			}
			if f.Added > 0 || f.Removed > 0 {
				notes = append(notes, fmt.Sprintf("+%d -%d", f.Added, f.Removed))
			}
			if f.Times > 1 {
				notes = append(notes, fmt.Sprintf("%d writes", f.Times))
			}
			if len(f.Tools) > 0 {
				notes = append(notes, "by "+strings.Join(f.Tools, ", "))
			}
			if f.Turn > 0 {
				notes = append(notes, fmt.Sprintf("last in turn %d", f.Turn))
			}
			if len(notes) > 0 {
				fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
			}
			b.WriteByte('\n')
		}
	}
	if len(l.FilesRead) > 0 {
		b.WriteString("Files read:\n")
		for _, f := range l.FilesRead {
			fmt.Fprintf(&b, "- %s", f.Path)
			if len(f.Lines) > 0 {
				parts := make([]string, len(f.Lines))
				for i, r := range f.Lines {
					parts[i] = fmt.Sprintf("%d-%d", r[0], r[1])
				}
				fmt.Fprintf(&b, " lines %s", strings.Join(parts, ", "))
			}
			b.WriteByte('\n')
		}
	}
	if len(l.Commands) > 0 {
		b.WriteString("Commands run:\n")
		for _, c := range l.Commands {
			end := c.Ended
			if c.ExitCode != nil {
				end = fmt.Sprintf("exit %d", *c.ExitCode)
			}
			fmt.Fprintf(&b, "- `%s` → %s (turn %d)\n", c.Command, cmpOr(end, "unknown"), c.Turn)
		}
	}
	if len(l.Failures) > 0 {
		b.WriteString("Failed or refused calls (do not repeat them unchanged):\n")
		for _, f := range l.Failures {
			fmt.Fprintf(&b, "- turn %d %s %s: %s\n", f.Turn, f.Tool, f.Arguments, f.Error)
		}
	}
	if len(l.Children) > 0 {
		b.WriteString("Child agents:\n")
		for _, c := range l.Children {
			fmt.Fprintf(&b, "- %s (call %s, session %s): %s", c.Agent, c.Call, c.Session, c.Status)
			if c.Report != "" {
				fmt.Fprintf(&b, ": %s", c.Report)
			}
			b.WriteByte('\n')
		}
	}
	if len(l.Todos) > 0 {
		b.WriteString("Todos at compaction:\n")
		for _, t := range l.Todos {
			fmt.Fprintf(&b, "- [%s] %s\n", t.Status, t.Title)
		}
	}
	if l.Mode != "" || l.Plan != "" {
		fmt.Fprintf(&b, "Mode: %s", cmpOr(l.Mode, "default"))
		if l.Plan != "" {
			fmt.Fprintf(&b, "; plan: %s", l.Plan)
		}
		b.WriteByte('\n')
	}
	if len(l.UserMessages) > 0 {
		b.WriteString("The user's messages, verbatim")
		if l.UserMessagesOmitted > 0 {
			fmt.Fprintf(&b, " (%d older ones left out)", l.UserMessagesOmitted)
		}
		b.WriteString(":\n")
		for _, m := range l.UserMessages {
			fmt.Fprintf(&b, "> %s\n", strings.ReplaceAll(strings.TrimSpace(m), "\n", "\n> "))
		}
	}
	if l.Omitted > 0 {
		fmt.Fprintf(&b, "(%d more entries left out; get_session {\"turn\": N} shows the turns)\n", l.Omitted)
	}
	b.WriteString("</ledger>")
	return b.String()
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Timeline returns the number of turns compactions are numbered over: the
// committed turns, then the open transaction's.
func (s *State) Timeline() int { return len(s.Turns) + len(s.Pool) }

// TurnAt returns turn n (1-based) of the timeline, or nil.
func (s *State) TurnAt(n int) *Turn {
	switch {
	case n < 1:
		return nil
	case n <= len(s.Turns):
		return &s.Turns[n-1]
	case n <= s.Timeline():
		return &s.Pool[n-1-len(s.Turns)]
	}
	return nil
}

// ActiveCompactions returns the compactions that shape the prompt: those
// not undone, and among summaries those no later summary contains.
func (s *State) ActiveCompactions() []Compaction {
	var out []Compaction
	for _, c := range s.Compactions {
		if c.Undone {
			continue
		}
		if c.Kind == CompactionSummary {
			out = slices.DeleteFunc(out, func(o Compaction) bool {
				return o.Kind == CompactionSummary && c.Range[0] <= o.Range[0] && o.Range[1] <= c.Range[1]
			})
		}
		out = append(out, c)
	}
	return out
}

// CompactionGeneration counts the compaction, uncompaction and rewind records
// folded so far: it changes whenever the prompt view may have.
func (s *State) CompactionGeneration() int {
	n := len(s.Compactions) + len(s.Rewinds)
	for _, c := range s.Compactions {
		if c.Undone {
			n++
		}
	}
	return n
}

// Project returns the prompt view of the session: the committed turns and
// the open transaction's as messages (see [Messages]), with every active
// summary standing for its range and the successful tool outputs of
// masked ranges replaced by a stub. The turns themselves are unchanged.
func (s *State) Project() (history, pool []llm.Message) {
	p := newProjector(s)
	history = p.messages(0, len(s.Turns))
	if s.Pool != nil {
		pool = p.messages(len(s.Turns), s.Timeline())
	}
	return history, pool
}

// ProjectRange returns the prompt view of timeline turns first..last
// (1-based, inclusive), as [State.Project] shows them. A range that cuts
// through an active summary shows the summary if it starts inside.
func (s *State) ProjectRange(first, last int) []llm.Message {
	first, last = max(first, 1), min(last, s.Timeline())
	if first > last {
		return nil
	}
	return newProjector(s).messages(first-1, last)
}

// CheckCompaction reports why c could not be recorded in s, as
// [Session.Compact] would; nil means it could.
func (s *State) CheckCompaction(c Compaction) error { return checkCompaction(s, &c) }

// MaskMinBytes is the size under which a masked tool output is kept: a
// stub would not be shorter.
const MaskMinBytes = 200

// MaskStub is the text that stands for a masked tool output.
func MaskStub(tool string, turn, size int) string {
	return fmt.Sprintf("[masked to save context: the %s result of turn %d (%d bytes) is kept in the session; get_session {\"turn\": %d} shows it again]", tool, turn, size, turn)
}

// SummaryMessage is the text that stands for a summarised range.
func SummaryMessage(c *Compaction) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Summary of earlier turns %d-%d (the session keeps them; get_session {\"turn\": N} shows any of them in full):\n%s", c.Range[0], c.Range[1], strings.TrimSpace(c.Summary))
	if l := c.Ledger.Render(); l != "" {
		b.WriteString("\n\n")
		b.WriteString(l)
	}
	return b.String()
}

// projector builds prompt views of a state.
type projector struct {
	st    *State
	spans []Compaction // active summaries, by start
	masks [][2]int     // active masks, merged, by start
	hide  [][2]int     // turns a conversation rewind hides
}

func newProjector(st *State) *projector {
	p := &projector{st: st, hide: st.hiddenRanges()}
	for _, c := range st.ActiveCompactions() {
		switch c.Kind {
		case CompactionSummary:
			p.spans = append(p.spans, c)
		case CompactionMask:
			p.masks = append(p.masks, c.Range)
		}
	}
	slices.SortFunc(p.spans, func(a, b Compaction) int { return a.Range[0] - b.Range[0] })
	slices.SortFunc(p.masks, func(a, b [2]int) int { return a[0] - b[0] })
	merged := p.masks[:0]
	for _, m := range p.masks {
		if n := len(merged); n > 0 && m[0] <= merged[n-1][1]+1 {
			merged[n-1][1] = max(merged[n-1][1], m[1])
			continue
		}
		merged = append(merged, m)
	}
	p.masks = merged
	return p
}

// messages returns the view of timeline turns from+1..to.
func (p *projector) messages(from, to int) []llm.Message {
	b := messageBuilder{out: make([]llm.Message, 0, to-from)}
	span := 0
	for span < len(p.spans) && p.spans[span].Range[0] <= from {
		span++
	}
	mask := 0
	for n := from + 1; n <= to; n++ {
		if p.hidden(n) {
			for span < len(p.spans) && p.spans[span].Range[0] <= n {
				span++
			}
			continue
		}
		if span < len(p.spans) && p.spans[span].Range[0] == n {
			b.add(&Turn{Kind: TurnCompressedHistory, Text: SummaryMessage(&p.spans[span])})
			n = p.spans[span].Range[1]
			span++
			continue
		}
		t := p.st.TurnAt(n)
		if t.Kind == TurnToolResponse && t.Status == StatusSucceeded && len(t.Output) >= MaskMinBytes {
			for mask < len(p.masks) && p.masks[mask][1] < n {
				mask++
			}
			if mask < len(p.masks) && p.masks[mask][0] <= n {
				masked := *t
				masked.Output = MaskStub(t.Tool, n, len(t.Output))
				b.add(&masked)
				continue
			}
		}
		b.add(t)
	}
	return b.out
}

// hidden reports whether a conversation rewind hides turn n.
func (p *projector) hidden(n int) bool {
	for _, h := range p.hide {
		if h[0] <= n && n <= h[1] {
			return true
		}
	}
	return false
}

// checkCompaction reports whether c can be recorded in st: a known kind,
// a summary that says something, and a range that is in bounds, lies in
// the committed turns or in the open transaction after its task, keeps
// every call with its result, and does not cut an active summary.
func checkCompaction(st *State, c *Compaction) error {
	switch c.Kind {
	case CompactionMask:
	case CompactionSummary:
		if strings.TrimSpace(c.Summary) == "" {
			return errors.New("the summary is empty; say what the turns did")
		}
	default:
		return fmt.Errorf("unknown compaction kind %q", c.Kind)
	}
	start, end := c.Range[0], c.Range[1]
	committed, n := len(st.Turns), st.Timeline()
	switch {
	case start < 1 || end < 1:
		return fmt.Errorf("turns are numbered from 1; got %d-%d", start, end)
	case start > end:
		return fmt.Errorf("range %d-%d is inverted; give the first turn first", start, end)
	case st.Open() && start <= committed && end > committed:
		return fmt.Errorf("turns %d-%d reach into the open transaction (committed turns: 1-%d); compact the committed turns or the open transaction's, not both at once", start, end, committed)
	case end > n:
		return fmt.Errorf("range %d-%d is out of bounds; the session has %d turns", start, end, n)
	case start == committed+1 && end > committed:
		return fmt.Errorf("turn %d is the task in progress, which is never compacted; start at turn %d", start, start+1)
	}
	if err := checkPairs(st, start, end); err != nil {
		return err
	}
	if c.Kind == CompactionSummary {
		for _, o := range st.ActiveCompactions() {
			if o.Kind != CompactionSummary || o.Range[1] < start || o.Range[0] > end {
				continue
			}
			if start > o.Range[0] || end < o.Range[1] {
				return fmt.Errorf("range %d-%d cuts through turns %d-%d, which are summarised already; give a range that holds them whole or avoids them", start, end, o.Range[0], o.Range[1])
			}
		}
	}
	return nil
}

// checkPairs reports a range start..end of the timeline that separates a
// call from its result, or holds a call whose result has not come yet.
func checkPairs(st *State, start, end int) error {
	inside := map[string]bool{}
	results := map[string]bool{}
	for n := start; n <= end; n++ {
		t := st.TurnAt(n)
		for _, id := range callIDs(t) {
			inside[id] = true
		}
		if t.Kind == TurnToolResponse {
			results[t.CallID] = true
		}
	}
	for n := 1; n <= st.Timeline(); n++ {
		if n >= start && n <= end {
			continue
		}
		for _, id := range callIDs(st.TurnAt(n)) {
			if inside[id] {
				return fmt.Errorf("range %d-%d separates call %s from turn %d, which belongs to it; widen the range", start, end, id, n)
			}
		}
	}
	for id := range inside {
		if !results[id] {
			return fmt.Errorf("range %d-%d holds call %s, which has no result yet; end the range before it", start, end, id)
		}
	}
	return nil
}

// legacyRange maps the range of an older journal's compress event, which
// numbered the turns as its compressions had left them, to turn numbers.
func legacyRange(st *State, r [2]int) ([2]int, error) {
	var units [][2]int
	p := newProjector(st)
	span := 0
	for n := 1; n <= len(st.Turns); n++ {
		if span < len(p.spans) && p.spans[span].Range[0] == n {
			units = append(units, p.spans[span].Range)
			n = p.spans[span].Range[1]
			span++
			continue
		}
		units = append(units, [2]int{n, n})
	}
	switch {
	case r[0] < 1 || r[1] < 1:
		return r, fmt.Errorf("turns are numbered from 1; got %d-%d", r[0], r[1])
	case r[0] > r[1]:
		return r, fmt.Errorf("range %d-%d is inverted; give the first turn first", r[0], r[1])
	case r[1] > len(units):
		return r, fmt.Errorf("range %d-%d is out of bounds; the session has %d turns", r[0], r[1], len(units))
	}
	return [2]int{units[r[0]-1][0], units[r[1]-1][1]}, nil
}
