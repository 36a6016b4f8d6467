package env

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/wieldhq/wield/session"
	"github.com/wieldhq/wield/tool"
)

//go:embed request_env.md
var requestEnvDescription string

// RequestInput is request_env's argument object.
type RequestInput struct {
	Name   string `json:"name" jsonschema:"the variable's name, such as DEPLOY_TOKEN"`
	Reason string `json:"reason" jsonschema:"why the task needs it, in one sentence for the user"`
}

// RequestEnv returns the request_env tool. It changes nothing on disk, so
// the policy runs it without asking; the user is asked by the tool
// itself.
func RequestEnv(cfg Config) *tool.Tool {
	return tool.New(tool.Spec{Name: "request_env", Effect: tool.EffectAsk, Description: requestEnvDescription,
		Annotations: tool.Annotations{ReadOnly: true}, Timeout: 24 * time.Hour}, cfg.request)
}

func (cfg Config) request(ctx context.Context, _ *tool.Call, in RequestInput) (tool.Result, error) {
	name := strings.TrimSpace(in.Name)
	if !ValidName(name) {
		return tool.Failure(fmt.Sprintf("%q is not a variable name: letters, digits and '_', not starting with a digit", name)), nil
	}
	if strings.TrimSpace(in.Reason) == "" {
		return tool.Failure("give a reason: the user decides from it"), nil
	}
	if cfg.Asker == nil || cfg.Vars == nil {
		return tool.Failure("nobody can give values in this run (it is not interactive); go on without " + name + " and say in your answer that it is needed"), nil
	}
	looks := cfg.looksSecret(name)
	ans, err := cfg.Asker.AskEnv(ctx, Request{Name: name, Reason: strings.TrimSpace(in.Reason), Secret: looks})
	if err != nil {
		return tool.Failure("the user did not answer: " + err.Error()), nil
	}
	if ans.Declined || ans.Value == "" {
		return tool.Result{Success: true, Output: "The user declined to set " + name + ". Go on without it, or stop and say it is needed.",
			Data: map[string]any{"name": name, "set": false}}, nil
	}
	secret := ans.Secret || looks
	if secret {
		if cfg.Secrets == nil || !cfg.Secrets.Add(ans.Value) {
			return tool.Failure(fmt.Sprintf("the value given for %s cannot be kept secret (it is shorter than %d bytes, or secrets are not set up), so it is not used", name, session.MinLiveSecretLen)), nil
		}
	}
	cfg.Vars.Set(name, ans.Value, secret)
	if secret {
		return tool.Result{Success: true, Output: fmt.Sprintf("The user set %s for this session to a secret; its value is not shown. The tools that need it receive it.", name),
			Data: map[string]any{"name": name, "set": true, "secret": true}}, nil
	}
	return tool.Result{Success: true, Output: fmt.Sprintf("The user set %s=%s for this session.", name, ans.Value),
		Data: map[string]any{"name": name, "set": true, "value": ans.Value}}, nil
}
