package agent

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/session"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestBuildPrompt_Golden(t *testing.T) {
	p := Prompt{
		System:       DefaultSystemPrompt,
		Instructions: []Document{{Path: "/repo/AGENTS.md", Content: "Use gofmt.\n"}, {Path: "/repo/sub/WIELD.md", Content: "Tests first."}},
		Roles:        []Document{{Path: "reviewer", Content: "Review carefully."}},
		History: []llm.Message{
			{Role: llm.RoleUser, Content: "earlier task"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "1", ToolName: "read_file", Content: "contents"},
			{Role: llm.RoleAssistant, Content: "done"},
		},
		Task:       "fix the bug",
		References: []Document{{Path: "main.go", Content: "package main\n"}, {Path: "gone.txt", Content: "(cannot read: file does not exist)"}},
		Plan:       &Document{Path: ".wield/plans/s/fix-the-bug.md", Content: "# Fix the bug\n\n1. read main.go\n2. patch it\n"},
		Todos: []Todo{{Title: "read", Status: "done"}, {Title: "fix", Description: "in main.go", Status: "in_progress"},
			{Title: "docs", Status: "cancelled"}, {Title: "deploy", Status: "blocked"}},
		Round: []llm.Message{{Role: llm.RoleAssistant, Content: "looking"}},
	}
	got, err := json.MarshalIndent(BuildPrompt(p), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "prompt.golden.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(strings.TrimSpace(string(want)), string(got)); diff != "" {
		t.Errorf("prompt differs from %s (-want +got):\n%s", golden, diff)
	}
	again, _ := json.MarshalIndent(BuildPrompt(p), "", "  ")
	if string(again) != string(got) {
		t.Errorf("BuildPrompt is not deterministic")
	}
}

func TestFindInstructions(t *testing.T) {
	top := t.TempDir()
	mk := func(rel, content string) {
		p := filepath.Join(top, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("AGENTS.md", "outside the repo")
	mk("repo/.git/HEAD", "ref")
	mk("repo/AGENTS.md", "root agents")
	mk("repo/WIELD.md", "root wield (shadowed)")
	mk("repo/a/WIELD.md", "a wield")
	mk("repo/a/b/c/.keep", "")
	mk("repo/a/b/AGENTS.md", strings.Repeat("x", MaxInstructionBytes+10))
	docs, err := FindInstructions(filepath.Join(top, "repo", "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		rel, _ := filepath.Rel(top, d.Path)
		got = append(got, rel+"="+d.Content[:min(len(d.Content), 12)])
	}
	want := []string{"repo/AGENTS.md=root agents", "repo/a/WIELD.md=a wield", "repo/a/b/AGENTS.md=xxxxxxxxxxxx"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FindInstructions (-want +got):\n%s", diff)
	}
	if !strings.HasSuffix(docs[2].Content, "[cut at 32768 bytes]\n") {
		t.Errorf("a long instruction file is not cut")
	}
}

func TestReadReferences(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("fresh"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	docs := ReadReferences(root, []string{"a.txt", "missing.txt", "../escape.txt"})
	if docs[0].Content != "fresh" || !strings.HasPrefix(docs[1].Content, "(cannot read:") || !strings.HasPrefix(docs[2].Content, "(cannot read:") {
		t.Errorf("ReadReferences = %+v", docs)
	}
}

func TestExpireResults(t *testing.T) {
	long := strings.Repeat("x", 500)
	history := []llm.Message{
		{Role: llm.RoleUser, Content: "task 1"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "read_file"}}},
		{Role: llm.RoleTool, ToolCallID: "a", ToolName: "read_file", Content: long},
		{Role: llm.RoleUser, Content: "task 2"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "b", Name: "read_file"}, {ID: "c", Name: "echo"}}},
		{Role: llm.RoleTool, ToolCallID: "b", ToolName: "read_file", Content: long},
		{Role: llm.RoleTool, ToolCallID: "c", ToolName: "echo", Content: "short"},
	}
	tests := []struct {
		after   int
		expired []string
	}{
		{0, nil},
		{1, []string{"a"}}, // only the previous task's results stay
		{2, nil},
	}
	for _, tt := range tests {
		got := ExpireResults(history, tt.after)
		var expired []string
		for _, m := range got {
			if m.Role == llm.RoleTool && strings.HasPrefix(m.Content, "[expired:") {
				expired = append(expired, m.ToolCallID)
			}
		}
		if strings.Join(expired, ",") != strings.Join(tt.expired, ",") {
			t.Errorf("after %d: expired %v, want %v", tt.after, expired, tt.expired)
		}
		if len(got) != len(history) || history[2].Content != long {
			t.Errorf("after %d: the history changed shape or the input was modified", tt.after)
		}
	}
	if got := ExpireResults(history, 1)[2].Content; !strings.Contains(got, "read_file result is from 2 tasks ago") {
		t.Errorf("note = %q", got)
	}
}

// pinnedSession is a MemorySession that pins one document.
type pinnedSession struct {
	*MemorySession
	docs []session.Pin
}

func (s pinnedSession) Pinned() []session.Pin { return s.docs }

func TestPromptPinsDocuments(t *testing.T) {
	a := &Agent{}
	s := pinnedSession{MemorySession: &MemorySession{}, docs: []session.Pin{{Path: "/ws/.agents/skills/x/SKILL.md", Content: "Do x."}}}
	p := a.prompt(s, &runState{task: "the task"})
	msgs := BuildPrompt(p)
	got := msgs[len(msgs)-1].Content
	want := "<pinned path=\"/ws/.agents/skills/x/SKILL.md\">\nDo x.\n</pinned>\n\nthe task"
	if got != want {
		t.Errorf("task message = %q, want %q", got, want)
	}
}
