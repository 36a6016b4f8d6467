package subagent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wieldhq/wield/internal/textcut"
	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
	"github.com/wieldhq/wield/workspace"
)

// A Status says how far a child got with its task.
type Status string

// The statuses of a report.
const (
	// StatusDone: the child says the task is complete.
	StatusDone Status = "done"
	// StatusPartial: some of it is done. A child that stopped without
	// reporting (out of turns or time, cut off, cancelled, failing) is
	// always partial, never done.
	StatusPartial Status = "partial"
	// StatusBlocked: something the child cannot get past stops it; the
	// result says what.
	StatusBlocked Status = "blocked"
)

// A Report is what a child agent hands back: the Data of the agent tool's
// result, and its Output rendered by [Report.Text]. It implements
// [agent.UsageReporter], so that the parent's run counts what the child
// used.
type Report struct {
	// Agent is the child's agent type; Session its session id.
	Agent   string `json:"agent"`
	Session string `json:"session"`
	// Status is how far the child got.
	Status Status `json:"status"`
	// Result is what the parent reads below the status line: the child's
	// result and, after it, its data as JSON. It is never empty, and cut
	// to the runner's report limit; Spill then names the file with all of
	// it.
	Result string `json:"result"`
	// Data is the child's structured result, valid against its
	// definition's output schema; nil when it gave none.
	Data json.RawMessage `json:"data,omitempty"`
	// Note says why the child stopped, when it did not end by reporting.
	Note string `json:"note,omitempty"`
	// Transcript is the child's journal file; empty when its session was
	// kept in memory, or in a store that keeps no files (PostgreSQL),
	// where Session names it.
	Transcript string `json:"transcript,omitempty"`
	// Spill is the file holding the whole report when Result was cut.
	Spill string `json:"spill,omitempty"`
	// Rounds counts the child's model calls, its grace round included.
	Rounds int `json:"rounds"`
	// Usage adds up the tokens and cost of the child's model calls, its
	// own children's included.
	Usage llm.Usage `json:"usage"`
}

// ModelUsage returns r.Usage.
func (r *Report) ModelUsage() llm.Usage { return r.Usage }

// Text renders the report for the parent model: a status line (with the
// note and the transcript when the child stopped without reporting), then
// Result.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "agent %s (session %s): %s", r.Agent, r.Session, r.Status)
	if r.Note != "" {
		fmt.Fprintf(&b, ": %s", r.Note)
	}
	if r.Note != "" && r.Transcript != "" {
		fmt.Fprintf(&b, "; its transcript is %s", r.Transcript)
	}
	b.WriteString("\n\n")
	b.WriteString(r.Result)
	return b.String()
}

// body returns what the parent reads of a result and its data.
func body(result string, data json.RawMessage) string {
	result = strings.TrimSpace(result)
	if len(data) == 0 {
		return result
	}
	return result + "\n\ndata: " + string(data)
}

// bound cuts r.Result to the report limit, keeping its head and tail, and
// saves the whole report to a spill file named in what remains.
func (r *Runner) bound(c *tool.Call, rep *Report) {
	limit := r.cfg.ReportLimit
	if len(rep.Result) <= limit {
		return
	}
	whole := rep.Text()
	head, tail := textcut.HeadTail(rep.Result, limit)
	omitted := len(rep.Result) - len(head) - len(tail)
	path, err := r.spill(c, rep.Session, whole)
	note := fmt.Sprintf("\n[... %d bytes of the report omitted; ", omitted)
	if err != nil {
		r.cfg.Logger.Error("cannot save a subagent's report", "session", rep.Session, "err", err)
		note += "the whole report could not be saved (" + err.Error() + ")"
		if rep.Transcript != "" {
			note += "; its transcript is " + rep.Transcript
		}
		note += " ...]\n"
	} else {
		rep.Spill = path
		note += "the whole report is in " + path + "; read it in parts rather than whole ...]\n"
	}
	rep.Result = head + note + tail
}

// spill writes a whole report where the runner spills long tool output:
// .wield/spill/<parent session>/<child session>.report.md in the
// workspace, or a directory under os.TempDir without one. It returns the
// path to give the model.
func (r *Runner) spill(c *tool.Call, childID, text string) (string, error) {
	name := tool.SpillName(c, childID+".report", ".md")
	if r.cfg.RunnerOptions.SpillDir == "" && r.cfg.Root != nil {
		rel := filepath.Join(workspace.Layout{}.Spill(""), name)
		if err := r.cfg.Root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return "", err
		}
		return rel, r.cfg.Root.WriteFile(rel, []byte(text), 0o644)
	}
	dir := r.cfg.RunnerOptions.SpillDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "wield-spill")
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, []byte(text), 0o644)
}

// written returns everything the child's model wrote in msgs, oldest
// first, every block of it and not only the last, with a count of the
// tools it called; never empty.
func written(msgs []llm.Message) string {
	var texts []string
	calls := map[string]int{}
	var order []string
	for _, m := range msgs {
		if m.Role != llm.RoleAssistant {
			continue
		}
		if t := strings.TrimSpace(m.Content); t != "" {
			texts = append(texts, t)
		}
		for _, c := range m.ToolCalls {
			if calls[c.Name] == 0 {
				order = append(order, c.Name)
			}
			calls[c.Name]++
		}
	}
	out := strings.Join(texts, "\n\n")
	if out == "" {
		out = "(the agent wrote no text before it stopped)"
	}
	if len(order) > 0 {
		parts := make([]string, len(order))
		for i, n := range order {
			parts[i] = fmt.Sprintf("%s ×%d", n, calls[n])
		}
		out += "\n\n(tools it called: " + strings.Join(parts, ", ") + ")"
	}
	return out
}
