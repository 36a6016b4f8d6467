package subagent

import (
	"context"
	"fmt"
	"strconv"

	"github.com/wieldhq/wield/tool"
)

// Ask runs the internal agent name ([Config.Internal]) on task as a child
// of session parent, outside any tool call, and returns its report: how
// a host has an agent do work of its own, such as reviewing a summary
// before it replaces a session's turns. The child runs like any other
// (its own session, recording parent as its parent; the tools its
// definition allows; complete_task; a grace round; the timeout) but is
// not recorded in the parent's journal, may not start agents, and counts
// against no spawn budget. The error says why it could not start.
func (r *Runner) Ask(ctx context.Context, parent, name, task string) (*Report, error) {
	def, ok := r.internal[name]
	if !ok {
		return nil, fmt.Errorf("subagent: no internal agent %q", name)
	}
	depth := r.cfg.MaxDepth // at the depth limit: it may not start agents
	if err := r.acquire(ctx, depth); err != nil {
		return nil, fmt.Errorf("subagent: %s: cancelled while waiting for a free place to run: %w", name, err)
	}
	defer r.release(depth)
	r.mu.Lock()
	r.asked++
	n := r.asked
	r.mu.Unlock()
	c := &tool.Call{ID: name + "-" + strconv.Itoa(n), SessionID: parent, Tool: name}
	return r.start(ctx, c, nil, def, depth, "", AgentInput{Prompt: task, Description: def.Description}, false)
}
