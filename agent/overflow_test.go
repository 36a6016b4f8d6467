package agent

import (
	"context"
	"errors"
	"testing"

	"github.com/wieldhq/wield/llm"
	"github.com/wieldhq/wield/tool"
)

// overflowOnce says the prompt is over the window until the compactor
// has run.
type overflowOnce struct{ compacted *bool }

func (p overflowOnce) Stream(context.Context, *llm.Request, func(llm.Event)) (*llm.Response, error) {
	if !*p.compacted {
		return nil, &llm.APIError{Status: 400, Message: "prompt is too long: 213462 tokens > 200000 maximum"}
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "short enough now"}}, nil
}

type recordingCompactor struct {
	done  *bool
	usage []llm.Usage
}

func (c *recordingCompactor) MaybeCompact(_ context.Context, _ string, usage llm.Usage) (bool, error) {
	c.usage = append(c.usage, usage)
	*c.done = true
	return true, nil
}

// TestRunCompactsOnOverflow checks that a prompt over the model's context
// window is compacted and sent again, and that without a compactor the
// run fails with the provider's error as before.
func TestRunCompactsOnOverflow(t *testing.T) {
	reg, _ := tool.NewRegistry()
	compacted := false
	comp := &recordingCompactor{done: &compacted}
	a, err := New(Config{Provider: overflowOnce{&compacted}, Tools: reg, Compactor: comp})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(t.Context(), NewMemorySession("s"), "a long task")
	if err != nil || out.Reason != StopAnswer || out.Text != "short enough now" || out.Rounds != 1 {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	if len(comp.usage) != 1 || comp.usage[0].InputTokens != OverflowTokens {
		t.Fatalf("the compactor was asked with %+v", comp.usage)
	}

	never := false
	b, _ := New(Config{Provider: overflowOnce{&never}, Tools: reg})
	out, err = b.Run(t.Context(), NewMemorySession("s2"), "a long task")
	if !llm.IsContextOverflow(err) || out.Reason != StopError {
		t.Fatalf("without a compactor: %+v, %v", out, err)
	}
	var api *llm.APIError
	if !errors.As(err, &api) {
		t.Fatal("the provider's error is lost")
	}
}
