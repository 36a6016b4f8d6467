package subagent

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/wieldhq/wield/tool"
)

// CompleteTaskName is the name of the tool a child ends its work with.
const CompleteTaskName = "complete_task"

//go:embed complete_task.md
var completeDescription string

var completeTemplate = template.Must(template.New("complete_task").Parse(completeDescription))

// CompleteInput is complete_task's arguments.
type CompleteInput struct {
	// Status is done, partial or blocked.
	Status Status `json:"status"`
	// Result is the child's report.
	Result string `json:"result"`
	// Data is its structured result, checked against the definition's
	// output schema.
	Data json.RawMessage `json:"data,omitempty"`
}

// newCompleteTask returns complete_task for children of d. Without done,
// the status may only be partial or blocked: that one is offered in the
// grace round of a child that was cut off, so that an interrupted child
// never reports done.
func (r *Runner) newCompleteTask(d *Definition, done bool) *tool.Tool {
	statuses := []Status{StatusDone, StatusPartial, StatusBlocked}
	if !done {
		statuses = statuses[1:]
	}
	var desc strings.Builder
	var output string
	if d.Output != nil {
		var buf bytes.Buffer
		if json.Indent(&buf, d.Output, "", "  ") == nil {
			output = buf.String()
		}
	}
	if err := completeTemplate.Execute(&desc, struct {
		Done   bool
		Output string
	}{done, output}); err != nil {
		panic(fmt.Sprintf("subagent: complete_task description: %v", err)) // the template is ours
	}
	in, err := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"status": map[string]any{"type": "string", "enum": statuses, "description": "how far you got"},
			"result": map[string]any{"type": "string", "minLength": 1, "description": "your report"},
			"data":   map[string]any{"description": "your structured result"},
		},
		"required":             []string{"status", "result"},
		"additionalProperties": false,
	})
	if err != nil {
		panic(err)
	}
	return tool.New(tool.Spec{
		Name:        CompleteTaskName,
		Effect:      tool.EffectState,
		Description: desc.String(),
		InputSchema: in,
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true},
	}, r.completeTask)
}

// completeTask records the report of the child making the call.
func (r *Runner) completeTask(_ context.Context, c *tool.Call, in CompleteInput) (tool.Result, error) {
	ch := r.lookup(c.SessionID)
	if ch == nil {
		return tool.Failure("complete_task ends the work of a subagent, and you are not one: answer in plain text instead"), nil
	}
	if strings.TrimSpace(in.Result) == "" {
		return tool.Failure("result is empty: write what you did and found"), nil
	}
	data := in.Data
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		data = nil
	}
	if s := r.outputs[ch.def.Name]; s != nil {
		switch {
		case data == nil && in.Status == StatusDone:
			return tool.Failure("data is missing: an agent of type " + ch.def.Name + " that is done must give data matching the schema in complete_task's description"), nil
		case data != nil:
			if err := s.Validate(data); err != nil {
				return tool.Failure(fmt.Sprintf("data does not match the output schema: %v; fix it and call complete_task again", err)), nil
			}
		}
	}
	if data != nil {
		var buf bytes.Buffer
		if err := json.Compact(&buf, data); err == nil {
			data = buf.Bytes()
		}
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.report != nil {
		return tool.Failure("you have already reported; stop here"), nil
	}
	ch.report = &Report{Status: in.Status, Result: body(in.Result, data), Data: data}
	return tool.Text("Your report is delivered. Stop here: do not call any more tools."), nil
}
