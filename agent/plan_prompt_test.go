package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/session/planmode"
)

// planSession is a MemorySession that follows the plan at plan: its
// latest planmode record names it.
type planSession struct {
	*MemorySession
	plan string
}

func (s planSession) Latest(kind string) (session.Record, bool) {
	if kind != planmode.Kind || s.plan == "" {
		return session.Record{}, false
	}
	data, err := json.Marshal(planmode.Setting{Mode: planmode.Default, Plan: s.plan})
	return session.Record{Kind: kind, Data: data}, err == nil
}

// TestPromptPinsThePlan: a session's plan is read fresh through the
// workspace root for every prompt and goes before the task.
func TestPromptPinsThePlan(t *testing.T) {
	dir := t.TempDir()
	const file = ".wield/plans/s/fix.md"
	if err := os.MkdirAll(filepath.Join(dir, ".wield", "plans", "s"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(content string) {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	a := &Agent{cfg: Config{Root: root}}
	s := planSession{NewMemorySession("s"), file}

	write("# Fix\n1. patch\n")
	msgs := BuildPrompt(a.prompt(s, &runState{task: "go on"}))
	want := "<plan path=\".wield/plans/s/fix.md\">\n# Fix\n1. patch\n</plan>\n\ngo on"
	if got := msgs[len(msgs)-1].Content; got != want {
		t.Errorf("task message = %q, want %q", got, want)
	}
	write("# Fix\n1. patch\n2. test")
	if got := BuildPrompt(a.prompt(s, &runState{task: "go on"}))[1].Content; !strings.Contains(got, "2. test\n</plan>") {
		t.Errorf("the plan is not read fresh: %q", got)
	}
	// No plan, or no workspace: nothing is pinned.
	for _, p := range []Prompt{a.prompt(planSession{NewMemorySession("s"), ""}, &runState{task: "x"}), (&Agent{}).prompt(s, &runState{task: "x"})} {
		if p.Plan != nil {
			t.Errorf("Plan = %+v, want none", p.Plan)
		}
	}
}
