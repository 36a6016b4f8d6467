package env

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/wieldhq/wield/tool"
)

//go:embed get_env.md
var getEnvDescription string

// GetInput is get_env's argument object.
type GetInput struct {
	Name string `json:"name" jsonschema:"the variable's name, such as GOPATH"`
}

// GetEnv returns the get_env tool.
func GetEnv(cfg Config) *tool.Tool {
	deny := cfg.Deny
	if deny == nil {
		deny = DefaultDeny
	}
	var b strings.Builder
	template.Must(template.New("get_env.md").Parse(getEnvDescription)).Execute(&b, map[string]any{"Deny": strings.Join(deny, ", ")})
	return tool.New(tool.Spec{Name: "get_env", Effect: tool.EffectRead, Description: b.String(),
		Annotations: tool.Annotations{ReadOnly: true, ParallelSafe: true}}, cfg.get)
}

func (cfg Config) get(_ context.Context, _ *tool.Call, in GetInput) (tool.Result, error) {
	name := strings.TrimSpace(in.Name)
	if !ValidName(name) {
		return tool.Failure(fmt.Sprintf("%q is not a variable name: letters, digits and '_', not starting with a digit", name)), nil
	}
	if v, secret, ok := cfg.Vars.Lookup(name); ok {
		if secret {
			return tool.Result{Success: true, Output: fmt.Sprintf("%s is set for this session to a secret the user gave; its value is not shown, but the tools that need it receive it.", name),
				Data: map[string]any{"name": name, "set": true, "secret": true}}, nil
		}
		return tool.Result{Success: true, Output: v, Data: map[string]any{"name": name, "set": true, "value": v}}, nil
	}
	if cfg.Denied(name) {
		return tool.Failure(fmt.Sprintf("%s looks like a secret, so its value is not shown. A tool that needs it receives it from the environment; if it must be set for this session, call request_env.", name)), nil
	}
	v, ok := cfg.lookup(name)
	if !ok {
		return tool.Result{Success: true, Output: name + " is not set. Call request_env to ask the user for a value if the task needs one.",
			Data: map[string]any{"name": name, "set": false}}, nil
	}
	return tool.Result{Success: true, Output: v, Data: map[string]any{"name": name, "set": true, "value": v}}, nil
}
