package agent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/planmode"
)

// InstructionFiles are the names of project instruction files, in order of
// preference: in each directory the first one present is used.
var InstructionFiles = [...]string{"AGENTS.md", "WIELD.md"}

// Limits on what goes into a prompt from files.
const (
	MaxInstructionBytes = 32 << 10
	MaxReferenceBytes   = 64 << 10
)

// DefaultSystemPrompt is the system prompt used when Config.SystemPrompt is
// empty.
const DefaultSystemPrompt = `You are wield, an agent that completes tasks in a software workspace by calling tools.
Work step by step. Prefer reading before writing. Call several independent tools at once when you can.
When a tool fails, read its error: it says what to change. When the task is done, answer with a short summary and no tool calls.`

// A Document is a named text that goes into a prompt.
type Document struct {
	Path    string
	Content string
}

// Prompt is everything [BuildPrompt] assembles a request from.
type Prompt struct {
	// System is the system prompt.
	System string
	// Instructions are project instruction files, outermost first.
	Instructions []Document
	// Roles are role files that shape the agent.
	Roles []Document
	// History is the committed conversation.
	History []llm.Message
	// Task is the current task.
	Task string
	// References are the fresh contents of the session's active file
	// references.
	References []Document
	// Plan is the fresh content of the plan the session follows; nil when
	// it has none.
	Plan *Document
	// Todos is the session's todo list.
	Todos []Todo
	// Pinned are documents the session keeps in every prompt (see
	// [PinnedContext]), such as the instructions of skills activated
	// before a compaction.
	Pinned []Document
	// Round holds the current transaction's messages after the task: model
	// responses and tool results.
	Round []llm.Message
}

// PinnedContext is implemented by sessions that keep documents in every
// prompt, beside the task: what a compaction must not lose, such as the
// instructions of the skills activated before it ([session.Session.Pin]).
// Pinned is called once a model call; the slice is the caller's.
type PinnedContext interface {
	Pinned() []session.Pin
}

// prompt returns the prompt of the next model call of the run in state st
// of session s: the configured system prompt, instructions and roles, the
// history, the task and the round so far, and, when s is a
// [PromptContext], its todo list and the fresh content of its file
// references, and when s is a [session.RecordSource] with a plan recorded
// (package session/planmode), the plan's fresh content.
func (a *Agent) prompt(s Session, st *runState) Prompt {
	p := Prompt{System: a.cfg.SystemPrompt, Instructions: a.cfg.Instructions, Roles: a.cfg.Roles,
		History: st.history, Task: st.task, Round: st.round}
	if pc, ok := s.(PromptContext); ok {
		p.Todos = pc.Todos()
		if a.cfg.Root != nil {
			p.References = ReadReferences(a.cfg.Root, pc.References())
		}
	}
	if pc, ok := s.(PinnedContext); ok {
		for _, pin := range pc.Pinned() {
			p.Pinned = append(p.Pinned, Document{Path: pin.Path, Content: pin.Content})
		}
	}
	if rs, ok := s.(session.RecordSource); ok && a.cfg.Root != nil {
		if path := planmode.Of(rs).Plan; path != "" {
			p.Plan = &ReadReferences(a.cfg.Root, []string{path})[0]
		}
	}
	return p
}

// ExpireResults returns history with the content of tool results older
// than afterTasks user tasks replaced by a short note, so that old file
// dumps and command logs stop filling the context; the session keeps the
// originals. A result's age counts the task it belongs to: with afterTasks
// 1, only the previous task's results stay. Zero or less returns history
// unchanged. The calls and their pairing are kept.
func ExpireResults(history []llm.Message, afterTasks int) []llm.Message {
	if afterTasks <= 0 {
		return history
	}
	out := slices.Clone(history)
	tasks := 0 // user tasks after the message at i
	for i := len(out) - 1; i >= 0; i-- {
		switch out[i].Role {
		case llm.RoleUser:
			tasks++
		case llm.RoleTool:
			if tasks >= afterTasks && len(out[i].Content) > expiredNoteLimit {
				out[i].Content = fmt.Sprintf("[expired: this %s result is from %d tasks ago and was %d bytes; call the tool again if you need it]",
					out[i].ToolName, tasks+1, len(out[i].Content))
			}
		}
	}
	return out
}

// expiredNoteLimit keeps results shorter than a note as they are.
const expiredNoteLimit = 200

// BuildPrompt returns the messages of a request. The result depends only on
// p: the same state always gives the same prompt.
func BuildPrompt(p Prompt) []llm.Message {
	return assemblePrompt(systemText(p), p.History, taskText(p), p.Round)
}

// assemblePrompt returns the messages of a request: the system message,
// the history, the task message and the round.
func assemblePrompt(system string, history []llm.Message, task string, round []llm.Message) []llm.Message {
	msgs := make([]llm.Message, 0, len(history)+len(round)+2)
	msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: system})
	msgs = append(msgs, history...)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: task})
	return append(msgs, round...)
}

// systemText is the content of p's system message: the system prompt,
// the instructions and the roles.
func systemText(p Prompt) string {
	var sys strings.Builder
	sys.WriteString(strings.TrimSpace(p.System))
	for _, d := range p.Instructions {
		fmt.Fprintf(&sys, "\n\n# Project instructions from %s\n\n%s", d.Path, strings.TrimSpace(d.Content))
	}
	for _, d := range p.Roles {
		fmt.Fprintf(&sys, "\n\n# Role: %s\n\n%s", d.Path, strings.TrimSpace(d.Content))
	}
	return sys.String()
}

// taskText is the content of p's task message: the references, pinned
// documents, plan and todos, then the task.
func taskText(p Prompt) string {
	var task strings.Builder
	if len(p.References) > 0 {
		task.WriteString("<file_references>\n")
		for _, d := range p.References {
			fmt.Fprintf(&task, "--- %s ---\n%s", d.Path, d.Content)
			if !strings.HasSuffix(d.Content, "\n") {
				task.WriteByte('\n')
			}
		}
		task.WriteString("</file_references>\n\n")
	}
	for _, d := range p.Pinned {
		fmt.Fprintf(&task, "<pinned path=%q>\n%s", d.Path, d.Content)
		if !strings.HasSuffix(d.Content, "\n") {
			task.WriteByte('\n')
		}
		task.WriteString("</pinned>\n\n")
	}
	if p.Plan != nil {
		fmt.Fprintf(&task, "<plan path=%q>\n%s", p.Plan.Path, p.Plan.Content)
		if !strings.HasSuffix(p.Plan.Content, "\n") {
			task.WriteByte('\n')
		}
		task.WriteString("</plan>\n\n")
	}
	if len(p.Todos) > 0 {
		task.WriteString("<todos>\n")
		for _, t := range p.Todos {
			status := t.Status
			if status == session.TodoDone {
				status = session.TodoCompleted // the older name
			}
			fmt.Fprintf(&task, "- [%s] %s", status, t.Title)
			if t.Description != "" {
				fmt.Fprintf(&task, ": %s", t.Description)
			}
			task.WriteByte('\n')
		}
		task.WriteString("</todos>\n\n")
	}
	task.WriteString(p.Task)
	return task.String()
}

// FindInstructions returns the project instruction files that apply to the
// workspace dir: walking up from dir to the repository root (the first
// directory holding .git) or the filesystem root, the first of
// [InstructionFiles] found in each directory, outermost first. Each is cut
// at [MaxInstructionBytes].
func FindInstructions(dir string) ([]Document, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var found []Document
	for {
		for _, name := range InstructionFiles {
			p := filepath.Join(dir, name)
			content, err := readCapped(p, MaxInstructionBytes)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("project instructions: %w", err)
			}
			found = append(found, Document{Path: p, Content: content})
			break
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	for i, j := 0, len(found)-1; i < j; i, j = i+1, j-1 {
		found[i], found[j] = found[j], found[i]
	}
	return found, nil
}

// ReadReferences reads the fresh content of each workspace path through
// root, cut at [MaxReferenceBytes]. A file that cannot be read is listed
// with a note saying why, so the model knows.
func ReadReferences(root *os.Root, paths []string) []Document {
	docs := make([]Document, 0, len(paths))
	for _, p := range paths {
		f, err := root.Open(p)
		if err != nil {
			docs = append(docs, Document{Path: p, Content: fmt.Sprintf("(cannot read: %v)", err)})
			continue
		}
		content, err := readCappedFile(f, MaxReferenceBytes)
		f.Close()
		if err != nil {
			content = fmt.Sprintf("(cannot read: %v)", err)
		}
		docs = append(docs, Document{Path: p, Content: content})
	}
	return docs
}

func readCapped(path string, limit int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return readCappedFile(f, limit)
}

func readCappedFile(f io.Reader, limit int) (string, error) {
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return "", err
	}
	if len(b) > limit {
		return string(b[:limit]) + fmt.Sprintf("\n[cut at %d bytes]\n", limit), nil
	}
	return string(b), nil
}
