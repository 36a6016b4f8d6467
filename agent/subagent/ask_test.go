package subagent_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wieldhq/wield/agent/subagent"
	"github.com/wieldhq/wield/session"
)

// reviewer is an internal agent: no tools, a structured verdict.
func reviewer() *subagent.Definition {
	return &subagent.Definition{Name: "checker", Description: "Checks a text.", Tools: []string{},
		Output: json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"}},"required":["approved"]}`),
		Prompt: "You check texts.", Scope: subagent.ScopeBuiltin}
}

// TestAsk: a host runs an internal agent on a task of its own. The child
// reports structured data through complete_task, has a session of its own
// that names the parent, may not start agents, and leaves the parent's
// journal alone; the agent tool never offers it.
func TestAsk(t *testing.T) {
	f := newFixture(t, fixtureOptions{cfg: subagent.Config{Internal: []*subagent.Definition{reviewer()}}, script: []string{
		`{"when":"check this","round":1,"tool_calls":[{"name":"agent","arguments":{"type":"general","prompt":"help"}}]}`,
		`{"when":"check this","round":2,"tool_calls":[{"name":"complete_task","arguments":{"status":"done","result":"fine","data":{"approved":true}}}]}`,
	}})
	before := len(f.sess.State().Turns)
	rep, err := f.runner.Ask(t.Context(), "parent", "checker", "check this: hello")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != subagent.StatusDone || string(rep.Data) != `{"approved":true}` || rep.Agent != "checker" {
		t.Errorf("report = %+v (data %s)", rep, rep.Data)
	}
	s, err := f.store.Open(t.Context(), rep.Session)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := s.State().Header
	if h.Child == nil || h.Child.Session != "parent" || h.Child.Agent != "checker" {
		t.Errorf("the child's header = %+v", h)
	}
	var refused bool
	for _, turn := range s.State().Turns {
		if turn.Kind == session.TurnToolResponse && turn.Tool == subagent.ToolName && strings.Contains(turn.Output, "depth limit") {
			refused = true
		}
	}
	if !refused {
		t.Error("an internal agent could start an agent")
	}
	if n := len(f.sess.State().Turns); n != before {
		t.Errorf("the parent's journal grew from %d to %d turns", before, n)
	}
	spec := f.runner.Tool().Spec()
	if strings.Contains(string(spec.InputSchema), "checker") || strings.Contains(spec.Description, "checker") {
		t.Error("the agent tool offers the internal agent")
	}
	if _, err := f.runner.Ask(t.Context(), "parent", "general", "x"); err == nil {
		t.Error("Ask ran an agent that is not internal")
	}
}

// TestAskReplacedByAFile: a definition file of an internal agent's name
// replaces it (a project sets the reviewer's model or prompt) and is not
// offered to the model either.
func TestAskReplacedByAFile(t *testing.T) {
	internal := reviewer()
	internal.Name = "looper"
	f := newFixture(t, fixtureOptions{cfg: subagent.Config{Internal: []*subagent.Definition{internal}}, script: []string{
		`{"when":"You look at things","round":1,"tool_calls":[{"name":"echo","arguments":{"text":"x"}},{"name":"complete_task","arguments":{"status":"done","result":"looked"}}]}`,
	}})
	rep, err := f.runner.Ask(t.Context(), "parent", "looper", "look")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Result != "looked" || len(f.toolCalls("echo")) != 1 {
		t.Errorf("the file's definition did not run: %+v, echo calls %d", rep, len(f.toolCalls("echo")))
	}
	if strings.Contains(string(f.runner.Tool().Spec().InputSchema), `"looper"`) {
		t.Error("the agent tool offers the replaced internal agent")
	}
}
